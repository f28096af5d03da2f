"""Multi-head subspace self-attention from one gradient step on R^c (lesson 13; Yu et al. 2023, §2.3).

Descending the compression term, with Z_k = U_kᵀY and α = r/(Tε²),

    Y − γ∇R^c(Y) = Y − γα Σ_k U_k Z_k (I + α Z_kᵀZ_k)⁻¹                       (exact)
                   ≈ Y − γα Σ_k U_k Z_k (I − α Z_kᵀZ_k)          ((I + M)⁻¹ ≈ I − M, ‖M‖ < 1)
                   = (1 − γ̂) Y + γ̂ Σ_k U_k Z_k (α Z_kᵀZ_k)          (if Σ_k U_kU_kᵀ = I), γ̂ = γα
                   ≈ (1 − γ̂) Y + γ̂ MSSA(Y)                     (α Z_kᵀZ_k replaced by a softmax)

    MSSA(Y) = A [SATT_1(Y); …; SATT_K(Y)],  A = [U_1 … U_K],  SATT_k(Y) = Z_k softmax(Z_kᵀZ_k)

with the softmax taken over each column (tokens are columns: output token t is Σ_s z_s p_{st}):
queries, keys and values are all U_kᵀY — one matrix per head instead of three.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.crate import _common, rate


def satt(Y: Tensor, U: Tensor, scale: float = 1.0) -> Tensor:
    """SATT_k(Y) = (U_kᵀY) softmax(scale · (U_kᵀY)ᵀ(U_kᵀY)) for every head: ``[..., K, r, T]``
    (the notes: scale = 1; CRATE's code: scale = 1/√r)."""
    scale = _checks.positive("scale", scale)
    Z = rate.project(Y, U)
    return Z @ torch.softmax(scale * Z.mT @ Z, dim=-2)  # column t: weights over s sum to 1


def mssa(Y: Tensor, U: Tensor) -> Tensor:
    """MSSA(Y) = [U_1 … U_K] [SATT_1(Y); …; SATT_K(Y)] = Σ_k U_k SATT_k(Y): shape of ``Y``."""
    return (U @ satt(Y, U)).sum(-3)


def gradient_step(Y: Tensor, U: Tensor, eps: float, gamma: float) -> Tensor:
    """The exact step Y − γ∇R^c(Y)."""
    gamma = _checks.positive("gamma", gamma)
    return Y - gamma * rate.compression_rate_grad(Y, U, eps)


def neumann_step(Y: Tensor, U: Tensor, eps: float, gamma: float) -> Tensor:
    """Y − γα Σ_k U_k Z_k (I − α Z_kᵀZ_k): the inverse replaced by its first-order Neumann series."""
    gamma = _checks.positive("gamma", gamma)
    Z = rate.project(Y, U)
    a = rate.alpha(Z.size(-2), Z.size(-1), _common.epsilon(eps))
    return Y - gamma * a * (U @ (Z - a * Z @ (Z.mT @ Z))).sum(-3)


def mssa_step(Y: Tensor, U: Tensor, eps: float, gamma: float) -> Tensor:
    """(1 − γ̂) Y + γ̂ MSSA(Y) with γ̂ = γα, α = r/(Tε²): the step CRATE's attention block takes."""
    gamma = _checks.positive("gamma", gamma)
    Y, U = _common.tokens("Y", Y), rate.bases(U)
    a = rate.alpha(U.size(-1), Y.size(-1), _common.epsilon(eps))
    return (1 - gamma * a) * Y + gamma * a * mssa(Y, U)


def neumann_radius(Y: Tensor, U: Tensor, eps: float) -> Tensor:
    """max_k ‖α Z_kᵀZ_k‖₂, the spectral radius that must be < 1 for (I + M)⁻¹ = I − M + M² − …"""
    Z = rate.project(Y, U)
    a = rate.alpha(Z.size(-2), Z.size(-1), _common.epsilon(eps))
    return (a * torch.linalg.matrix_norm(Z, ord=2) ** 2).amax(-1)


def step_errors(Y: Tensor, U: Tensor, eps: float, gamma: float) -> dict[str, float]:
    """Relative errors of the approximate updates Δ = step − Y against the exact Δ_G = −γ∇R^c(Y):
    ``neumann`` and ``mssa`` (whole update), ``attention`` (the softmax term Z_k softmax(Z_kᵀZ_k)
    against the term it replaces, α Z_k Z_kᵀZ_k), and ``radius`` (see ``neumann_radius``).
    U must be orthonormal (the derivation assumes it). Refused when the exact update is 0 (all-zero
    tokens Y, or Y with no component in any subspace U_k beyond rounding, ‖U_kᵀY‖ ≤ 16 ε ‖Y‖), where
    every relative error is 0/0 or rounding noise over rounding noise."""
    Y = _common.tokens("Y", Y)
    U = rate.bases(U, Y.size(-2), orthonormal=True)
    Z = rate.project(Y, U)
    if torch.linalg.vector_norm(Z) <= 16 * torch.finfo(Y.dtype).eps * torch.linalg.vector_norm(Y):
        raise ValueError(
            "Y gives an exact update of 0 (its tokens are all zero, or have no component in the subspaces "
            "U): the relative errors ‖Δ − Δ_G‖ / ‖Δ_G‖ are 0/0; choose tokens with a component in U"
        )
    exact = gradient_step(Y, U, eps, gamma) - Y
    a = rate.alpha(Z.size(-2), Z.size(-1), _common.epsilon(eps))
    linear_term = a * Z @ (Z.mT @ Z)
    return {
        "neumann": _rel(neumann_step(Y, U, eps, gamma) - Y, exact),
        "mssa": _rel(mssa_step(Y, U, eps, gamma) - Y, exact),
        "attention": _rel(satt(Y, U), linear_term),
        "radius": float(neumann_radius(Y, U, eps).max()),
    }


def _rel(x: Tensor, ref: Tensor) -> float:
    return float(torch.linalg.vector_norm(x - ref) / torch.linalg.vector_norm(ref))
