"""The Jacobians ∂p/∂θ of softmax and sparsemax written from their output p (lesson 03, section 4), the
closed forms that make these maps trainable (``maps``' backward passes compute the same products):

- softmax: J = diag(p) − p pᵀ;
- sparsemax: J = diag(s) − s sᵀ / |S|, with s the indicator of the support S = {j : p_j > 0}.

Every row of either sums to 0: adding one constant to every score changes no weight.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def _weights(p: Tensor) -> Tensor:
    p = _checks.tensor("p", p)
    if not (p.is_floating_point() and p.dim() >= 1 and p.size(-1) >= 1 and torch.isfinite(p).all()):
        raise ValueError(
            f"p must be finite float weights [..., T] with T ≥ 1, got {p.dtype} {tuple(p.shape)}"
        )
    if (p < 0).any():
        raise ValueError("p must hold probabilities (≥ 0): pass the output of the map")
    return p


def softmax_jacobian(p: Tensor) -> Tensor:
    """∂ softmax(θ) / ∂θ at p = softmax(θ): J = diag(p) − p pᵀ, ``[..., T, T]`` for p ``[..., T]``."""
    p = _weights(p)
    return torch.diag_embed(p) - p[..., :, None] * p[..., None, :]


def sparsemax_jacobian(p: Tensor) -> Tensor:
    """∂ sparsemax(θ) / ∂θ at p = sparsemax(θ): J = diag(s) − s sᵀ / |S|, s the indicator of the support
    S = {j : p_j > 0}; ``[..., T, T]`` for p ``[..., T]``. It depends on the support only, not on the
    weights; a row of p with no support (all zeros: every score masked) gives zeros."""
    s = (_weights(p) > 0).to(p.dtype)
    size = s.sum(-1, keepdim=True)[..., None].clamp(min=1)
    return torch.diag_embed(s) - s[..., :, None] * s[..., None, :] / size
