"""Argument checks shared by ``xai_tf.crate`` (lesson 13): token matrices Y ∈ ℝ^{d×T} (columns are
tokens), subspace bases U ∈ ℝ^{K×d×r} and the quantisation ε."""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def tokens(name: str, Y: object) -> Tensor:
    """``Y [..., d, T]``: a finite floating tensor with d ≥ 1 features and T ≥ 1 tokens (columns)."""
    Y = _checks.tensor(name, Y)
    if not Y.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {Y.dtype}")
    if Y.dim() < 2 or Y.size(-1) == 0 or Y.size(-2) == 0:
        raise ValueError(
            f"{name} must be [..., d, T] (tokens are columns) with d, T ≥ 1, got {tuple(Y.shape)}"
        )
    return _checks.real_tensor(name, Y)


def epsilon(eps: object) -> float:
    """The quantisation ε > 0 of the coding rate."""
    return _checks.positive("eps", eps)


def same_dtype(Y: Tensor, U: Tensor, names: tuple[str, str] = ("Y", "U")) -> None:
    """Tokens and bases (or a dictionary) that multiply each other share dtype and device."""
    if Y.dtype != U.dtype or Y.device != U.device:
        raise TypeError(
            f"{names[0]} and {names[1]} must share dtype and device, got {Y.dtype} on {Y.device} and "
            f"{U.dtype} on {U.device}"
        )
