"""Lei et al.'s (2016) rationale penalty (lesson 11): for a selection z ∈ {0, 1}^T (or relaxed to [0, 1]),

    Ω(z) = λ₁ Σ_i |z_i| + λ₂ Σ_i |z_i − z_{i+1}|

— λ₁ pays for every selected word (compactness), λ₂ for every start or end of a span (contiguity).
"""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def check_lambdas(lam1: float, lam2: float) -> tuple[float, float]:
    """λ₁, λ₂ as floats ≥ 0 (a negative λ would reward selecting words or breaking spans)."""
    return _checks.real("lam1", lam1, 0.0, float("inf"), open_hi=True), _checks.real(
        "lam2", lam2, 0.0, float("inf"), open_hi=True
    )


def omega(z: Tensor, lam1: float, lam2: float, mask: Tensor | None = None) -> Tensor:
    """Ω(z) ``[...]`` for selections z ``[..., T]`` (a floating tensor; half precision is computed in
    float32); ``mask [..., T]`` (1 = a word) ignores padding (a transition into padding is not counted)."""
    z = _checks.real_tensor("z", z)
    lam1, lam2 = check_lambdas(lam1, lam2)
    if z.dim() < 1 or z.size(-1) == 0:
        raise ValueError(f"z must be a selection [..., T] with T ≥ 1, got shape {tuple(z.shape)}")
    z = z.to(_checks.compute_dtype(z))
    if mask is not None:
        _checks.same_shape("Ω", "z", z, "mask", _checks.tensor("mask", mask))
    w = z.new_ones(z.shape) if mask is None else mask.to(z.dtype)
    jumps = (z[..., 1:] - z[..., :-1]).abs() * w[..., 1:] * w[..., :-1]
    return lam1 * (z.abs() * w).sum(-1) + lam2 * jumps.sum(-1)
