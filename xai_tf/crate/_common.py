"""Argument checks shared by ``xai_tf.crate`` (lesson 13): token matrices Y ∈ ℝ^{d×T} (columns are
tokens), subspace bases U ∈ ℝ^{K×d×r} and the quantisation ε."""

from __future__ import annotations

import torch
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


def bases(U: object, d: int | None = None, orthonormal: bool = False) -> Tensor:
    """``U [K, d, r]``: K bases U_k ∈ ℝ^{d×r} with 1 ≤ r ≤ d (and d features when ``d`` is given).
    With ``orthonormal`` (where a derivation assumes it) each U_kᵀU_k must be I to 1e-4."""
    U = tokens("U", U)
    if U.dim() != 3:
        raise ValueError(f"U must be [K, d, r] (K bases U_k ∈ ℝ^(d×r)), got {tuple(U.shape)}")
    if U.size(2) > U.size(1):
        raise ValueError(f"each U_k must be d × r with r ≤ d, got r = {U.size(2)} > d = {U.size(1)}")
    if d is not None and U.size(1) != d:
        raise ValueError(f"U has d = {U.size(1)} rows but the tokens have d = {d} features: they must match")
    if orthonormal:
        gram = U.transpose(1, 2) @ U
        off = (gram - torch.eye(U.size(2), dtype=U.dtype, device=U.device)).abs().max().item()
        if off > 1e-4:
            raise ValueError(
                f"U must have orthonormal columns (U_kᵀU_k = I, which this derivation assumes), "
                f"got max |U_kᵀU_k − I| = {off:.3g}"
            )
    return U


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
