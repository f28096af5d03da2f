"""Distances between attention distributions (lessons 08, 11), natural logarithms, 0 log 0 = 0:

    KL(p ‖ q) = Σ_t p_t log(p_t / q_t),
    JSD(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m),  m = ½ (p + q),   0 ≤ JSD ≤ log 2 ≈ 0.693

(scipy's ``jensenshannon`` returns √JSD, the distance; Jain & Wallace report JSD itself).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def _distributions(p: Tensor, q: Tensor) -> None:
    _checks.tensor("p", p)
    _checks.tensor("q", q)
    if p.shape != q.shape or p.dim() == 0:
        raise ValueError(
            f"p and q must be distributions of one shape, got {tuple(p.shape)} and {tuple(q.shape)}"
        )
    for name, x in (("p", p), ("q", q)):
        if not torch.isfinite(x).all() or (x < 0).any():
            raise ValueError(f"{name} must be finite and ≥ 0 (a distribution along the last dim)")


def kl(p: Tensor, q: Tensor) -> Tensor:
    """KL(p ‖ q) along the last dim (+∞ where q_t = 0 < p_t)."""
    _distributions(p, q)
    return (torch.xlogy(p, p) - torch.xlogy(p, q)).sum(-1)


def jsd(p: Tensor, q: Tensor) -> Tensor:
    """JSD(p, q) along the last dim, in nats (between 0 and log 2)."""
    _distributions(p, q)
    m = (p + q) / 2
    return (
        (torch.xlogy(p, p) - torch.xlogy(p, m)).sum(-1) + (torch.xlogy(q, q) - torch.xlogy(q, m)).sum(-1)
    ) / 2


def tvd(p: Tensor, q: Tensor) -> Tensor:
    """The total variation distance ½ Σ_t |p_t − q_t| along the last dim."""
    _distributions(p, q)
    return (p - q).abs().sum(-1) / 2
