"""Shared by the modules of ``xai_tf.cbm`` (lesson 12): the checks of a concepts tensor, of the
which-concepts-are-binary mask, of targets, of a data set against a model, and of x against h."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from xai_tf import _checks

if TYPE_CHECKING:
    pass


def check_concepts(name: str, value: object, k: int) -> Tensor:
    """A floating ``[n, k]`` tensor of concepts (or concept outputs) for a model with k concepts."""
    value = _checks.tensor(name, value)
    if value.dim() != 2 or value.size(1) != k:
        raise ValueError(
            f"{name} must be [n, k] with k = {k} concepts (one per concept of the model), "
            f"got shape {tuple(value.shape)}"
        )
    return _checks.real_tensor(name, value)


def check_binary(binary: object) -> Tensor:
    """``binary [k]``: a bool tensor, True where the concept is 0/1 (an integer 0/1 tensor would index
    columns by number, not select them)."""
    binary = _checks.tensor("binary", binary)
    if binary.dtype != torch.bool or binary.dim() != 1:
        raise TypeError(
            f"binary must be a bool tensor [k] (True = a 0/1 concept), "
            f"got {binary.dtype} {tuple(binary.shape)}"
        )
    return binary


def check_targets(name: str, y: object, task: str) -> Tensor:
    """Targets ``y [n]``, n ≥ 1, finite; 0 or 1 for a binary task (the two classes)."""
    y = _checks.tensor(name, y)
    if y.dim() != 1 or y.numel() == 0:
        raise ValueError(f"{name} must be [n] with n ≥ 1, got shape {tuple(y.shape)}")
    y = _checks.real_tensor(name, y)
    if task == "binary" and ((y != 0) & (y != 1)).any():
        bad = y[(y != 0) & (y != 1)][0].item()
        raise ValueError(f"{name} of a binary task must be 0 or 1, got {bad:g}")
    return y


def with_parameters(name: str, module: object) -> nn.Module:
    """``module``, an ``nn.Module`` with at least one parameter: its parameters give the dtype and
    device of what it reads, and training needs something to train (a bare ``nn.ReLU()`` has none)."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {type(module).__name__}")
    if next(module.parameters(), None) is None:
        raise TypeError(
            f"{name} must be a torch.nn.Module with parameters (their dtype and device are the model's),"
            f" got {type(module).__name__} without any"
        )
    return module


def module_input(name: str, module: object, x: object) -> Tensor:
    """``x`` checked against what ``module``'s first layer takes (a Linear's features, a Conv2d's
    channels) and converted once to its parameters' dtype and device (the package's dtype rule)."""
    module = with_parameters(name, module)
    x = _checks.tensor("x", x)
    first = next((m for m in module.modules() if isinstance(m, (nn.Linear, nn.Conv2d))), None)
    if isinstance(first, nn.Linear) and (x.dim() != 2 or x.size(1) != first.in_features):
        raise ValueError(
            f"x must be [n, {first.in_features}] for {name} (its first layer takes {first.in_features} "
            f"features), got {tuple(x.shape)}"
        )
    if isinstance(first, nn.Conv2d) and (x.dim() != 4 or x.size(1) != first.in_channels):
        raise ValueError(
            f"x must be [n, {first.in_channels}, H, W] for {name} (its first layer takes "
            f"{first.in_channels} channels), got {tuple(x.shape)}"
        )
    return _checks.like("x", x, module)
