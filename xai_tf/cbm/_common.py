"""Shared by the modules of ``xai_tf.cbm`` (lesson 12): the check of a concepts tensor."""

from __future__ import annotations

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
