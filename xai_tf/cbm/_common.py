"""Shared by the modules of ``xai_tf.cbm`` (lesson 12): the check of a concepts tensor, and seeded
construction of modules without touching the global random state."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor


def check_concepts(name: str, value: object, k: int) -> Tensor:
    """A floating ``[n, k]`` tensor of concepts (or concept outputs) for a model with k concepts."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor [n, {k}], got {type(value).__name__}")
    if value.dim() != 2 or value.size(1) != k:
        raise ValueError(
            f"{name} must be [n, k] with k = {k} concepts (one per concept of the model), "
            f"got shape {tuple(value.shape)}"
        )
    if not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {value.dtype}")
    if not torch.isfinite(value).all():
        raise ValueError(f"{name} has NaN or inf entries")
    return value


@contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Run a block (building modules, whose initialisers use the global generator) with the global
    generator seeded, then restore its state: the same seed gives the same weights, and a lesson's
    own random numbers do not move."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield
