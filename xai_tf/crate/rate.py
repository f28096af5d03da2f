"""The coding rate, the compression term and the sparse rate reduction objective of CRATE (lesson 13);
tokens are columns of Y ∈ ℝ^{d×T}. Notation of Yu et al. (2023); lecture 004 writes R_gauss for R and
R_mix for R^c.

    R(Y) = ½ logdet(I_T + α YᵀY),   α = d / (T ε²)          (the expansion term: the Gaussian rate)
    R^c(Y; U_[K]) = Σ_k R(U_kᵀY),   U_k ∈ ℝ^{d×r}, so α = r / (T ε²) inside each term (compression)
    ∇R(Y) = α Y (I_T + α YᵀY)⁻¹,     ∇R^c(Y; U_[K]) = Σ_k U_k ∇R(U_kᵀY)
    ΔR(Y; U_[K]) = R(Y) − R^c(Y; U_[K]),   sparse rate reduction ΔR − λ‖Y‖₁ (to maximise)

R is also what lecture 004 reads it as, a rate–distortion function, up to the +1 that keeps it smooth:
``gaussian_rate_distortion`` computes the exact rate of a Gaussian for comparison.

(Yu et al. 2023, section 2.) logdet(I_T + α YᵀY) = logdet(I_d + α YYᵀ) (Sylvester), so the
smaller of the two Gram matrices is used. Leading dimensions of Y are a batch.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.crate import _common


def bases(U: object, d: int | None = None, orthonormal: bool = False) -> Tensor:
    """``U [K, d, r]``: K bases U_k ∈ ℝ^{d×r} with 1 ≤ r ≤ d (and d features when ``d`` is given).
    With ``orthonormal`` (where a derivation assumes it) each U_kᵀU_k must be I to 1e-4."""
    U = _common.tokens("U", U)
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


def alpha(d: int, T: int, eps: float) -> float:
    """α = d / (T ε²), the scale of the Gram matrix inside the rate."""
    d, T = _checks.integer("d", d, 1), _checks.integer("T", T, 1)
    eps = _common.epsilon(eps)
    scale = T * eps * eps  # eps * eps: an overflow gives inf (α = 0, no coding cost), not an error
    if scale == 0 or not math.isfinite(d / scale):
        raise ValueError(
            f"eps must keep Tε² above 0 in floating point (α = d/(Tε²) finite), got eps = {eps:g}"
        )
    return d / scale


def coding_rate(Y: Tensor, eps: float = 0.5) -> Tensor:
    """R(Y) = ½ logdet(I + α YᵀY) with α = d/(Tε²), for ``Y [..., d, T]``; returns ``[...]`` in Y's
    dtype (half precision computed and returned in float32: ``_checks.compute_dtype``)."""
    Y, eps = _common.tokens("Y", Y), _common.epsilon(eps)
    Y = Y.to(_checks.compute_dtype(Y))
    d, T = Y.shape[-2:]
    a = alpha(d, T, eps)
    gram = Y @ Y.mT if d < T else Y.mT @ Y
    eye = _eye(gram)
    return 0.5 * (eye + a * gram).logdet()


def coding_rate_grad(Y: Tensor, eps: float = 0.5) -> Tensor:
    """∇R(Y) = α Y (I_T + α YᵀY)⁻¹ = α (I_d + α YYᵀ)⁻¹ Y (push-through identity: the smaller of the two
    systems is solved), same shape as ``Y [..., d, T]`` (half precision computed in float32)."""
    Y, eps = _common.tokens("Y", Y), _common.epsilon(eps)
    Y = Y.to(_checks.compute_dtype(Y))
    d, T = Y.shape[-2:]
    a = alpha(d, T, eps)
    if d < T:
        return a * torch.linalg.solve(_eye(Y @ Y.mT) + a * (Y @ Y.mT), Y)
    return a * torch.linalg.solve(_eye(Y.mT @ Y) + a * (Y.mT @ Y), Y.mT).mT


def project(Y: Tensor, U: Tensor) -> Tensor:
    """U_kᵀY for every k: ``Y [..., d, T]``, ``U [K, d, r]`` → ``[..., K, r, T]``."""
    Y = _common.tokens("Y", Y)
    U = bases(U, Y.size(-2))
    _common.same_dtype(Y, U)
    return U.mT @ Y.unsqueeze(-3)


def compression_rate(Y: Tensor, U: Tensor, eps: float = 0.5) -> Tensor:
    """R^c(Y; U_[K]) = Σ_k R(U_kᵀY) (each term with α = r/(Tε²)); returns ``[...]``. U_k need not be
    orthonormal here: the term is the rate of the projection."""
    return coding_rate(project(Y, U), eps).sum(-1)


def compression_rate_grad(Y: Tensor, U: Tensor, eps: float = 0.5) -> Tensor:
    """∇R^c(Y; U_[K]) = Σ_k U_k α Z_k (I + α Z_kᵀZ_k)⁻¹ with Z_k = U_kᵀY; shape of ``Y``."""
    Z = project(Y, U)
    return (U @ coding_rate_grad(Z, eps)).sum(-3)


def sparse_rate_reduction(Y: Tensor, U: Tensor, eps: float = 0.5, lam: float = 0.1) -> dict[str, float]:
    """The objective CRATE is named after, for one token matrix ``Y [d, T]`` and subspaces ``U [K, d, r]``:

        ΔR(Y; U_[K]) − λ‖Y‖₁ = R(Y) − R^c(Y; U_[K]) − λ Σ_{i,t} |y_it|      (to maximise)

    (Yu et al. 2023 write λ‖Y‖₀ and relax it to λ‖Y‖₁ with Y ≥ 0; lecture 004 minimises the negative,
    λ‖Y‖₁ + R_mix(Y) − R_gauss(Y).) Returns the terms "R", "R^c", "ΔR", "l1" and "objective"."""
    Y = _common.tokens("Y", Y)
    if Y.dim() != 2:
        raise ValueError(f"Y must be one token matrix [d, T], got {tuple(Y.shape)}")
    lam = _checks.real("lam", lam, 0.0, math.inf)
    R, Rc = float(coding_rate(Y, eps)), float(compression_rate(Y, U, eps))
    l1 = float(Y.abs().sum())
    return {"R": R, "R^c": Rc, "ΔR": R - Rc, "l1": l1, "objective": R - Rc - lam * l1}


def gaussian_rate_distortion(Y: Tensor, eps: float = 0.5) -> float:
    """The rate–distortion function, in nats, of a Gaussian token y ~ N(0, Σ) with the tokens' second
    moment Σ = YYᵀ/T (``Y [d, T]``), at mean squared error ε² per token — exact for Gaussians, by
    reverse water-filling over the eigenvalues λ_i of Σ (Cover & Thomas, Theorem 10.3.3):

        R(ε) = min_{E‖y − ŷ‖² ≤ ε²} I(y; ŷ) = Σ_i ½ log(λ_i / θ)⁺,   θ such that Σ_i min(λ_i, θ) = ε²

    (R = 0 once ε² ≥ Σ_i λ_i). ``coding_rate`` is ½ Σ_i log(1 + λ_i/δ) with δ = ε²/d: the mutual
    information of y and y + w, w ~ N(0, δ I), a test channel of distortion ≤ ε², so never below R(ε)."""
    Y, eps = _common.tokens("Y", Y), _common.epsilon(eps)
    if Y.dim() != 2:
        raise ValueError(f"Y must be one token matrix [d, T], got {tuple(Y.shape)}")
    lam = torch.linalg.eigvalsh((Y.double() @ Y.double().mT) / Y.size(-1)).clamp(min=0)
    if eps**2 >= float(lam.sum()):
        return 0.0
    lo, hi = 0.0, float(lam.max())  # Σ min(λ_i, θ) grows with θ: bisection for the water level
    for _ in range(200):
        theta = (lo + hi) / 2
        lo, hi = (theta, hi) if float(lam.clamp(max=theta).sum()) < eps**2 else (lo, theta)
    above = lam[lam > hi]
    return float(0.5 * (above / hi).log().sum())


def _eye(M: Tensor) -> Tensor:
    return torch.eye(M.size(-1), dtype=M.dtype, device=M.device)
