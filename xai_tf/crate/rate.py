"""The coding rate and the compression term of CRATE (lesson 13); tokens are columns of Y ∈ ℝ^{d×T}.

    R(Y) = ½ logdet(I_T + α YᵀY),   α = d / (T ε²)          (the Gaussian rate, up to ε)
    R_mix(Y) = Σ_k R(U_kᵀY),        U_k ∈ ℝ^{d×r}, so α = r / (T ε²) inside each term
    ∇R(Y) = α Y (I_T + α YᵀY)⁻¹,     ∇R_mix(Y) = Σ_k U_k ∇R(U_kᵀY)

(Yu et al. 2023, eq. 3 and 8.) logdet(I_T + α YᵀY) = logdet(I_d + α YYᵀ) (Sylvester), so the
smaller of the two Gram matrices is used. Leading dimensions of Y are a batch.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.crate import _common


def alpha(d: int, T: int, eps: float) -> float:
    """α = d / (T ε²), the scale of the Gram matrix inside the rate."""
    d, T = _checks.integer("d", d, 1), _checks.integer("T", T, 1)
    return d / (T * _common.epsilon(eps) ** 2)


def coding_rate(Y: Tensor, eps: float = 0.5) -> Tensor:
    """R(Y) = ½ logdet(I + α YᵀY) with α = d/(Tε²), for ``Y [..., d, T]``; returns ``[...]``."""
    Y, eps = _common.tokens("Y", Y), _common.epsilon(eps)
    d, T = Y.shape[-2:]
    a = alpha(d, T, eps)
    gram = Y @ Y.mT if d < T else Y.mT @ Y
    eye = _eye(gram)
    return 0.5 * (eye + a * gram).logdet()


def coding_rate_grad(Y: Tensor, eps: float = 0.5) -> Tensor:
    """∇R(Y) = α Y (I + α YᵀY)⁻¹, same shape as ``Y [..., d, T]``."""
    Y, eps = _common.tokens("Y", Y), _common.epsilon(eps)
    d, T = Y.shape[-2:]
    a = alpha(d, T, eps)
    M = _eye(Y.mT @ Y) + a * (Y.mT @ Y)
    return a * Y @ M.inverse()


def project(Y: Tensor, U: Tensor) -> Tensor:
    """U_kᵀY for every k: ``Y [..., d, T]``, ``U [K, d, r]`` → ``[..., K, r, T]``."""
    Y = _common.tokens("Y", Y)
    U = _common.bases(U, Y.size(-2))
    _common.same_dtype(Y, U)
    return U.mT @ Y.unsqueeze(-3)


def compression_rate(Y: Tensor, U: Tensor, eps: float = 0.5) -> Tensor:
    """R_mix(Y) = Σ_k R(U_kᵀY) (each term with α = r/(Tε²)); returns ``[...]``. U_k need not be
    orthonormal here: the term is the rate of the projection."""
    return coding_rate(project(Y, U), eps).sum(-1)


def compression_rate_grad(Y: Tensor, U: Tensor, eps: float = 0.5) -> Tensor:
    """∇R_mix(Y) = Σ_k U_k α Z_k (I + α Z_kᵀZ_k)⁻¹ with Z_k = U_kᵀY; shape of ``Y``."""
    Z = project(Y, U)
    return (U @ coding_rate_grad(Z, eps)).sum(-3)


def _eye(M: Tensor) -> Tensor:
    return torch.eye(M.size(-1), dtype=M.dtype, device=M.device)
