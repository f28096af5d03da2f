"""Distances between attention distributions (lessons 08, 11), natural logarithms, 0 log 0 = 0:

    KL(p ‖ q) = Σ_t p_t log(p_t / q_t),
    JSD(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m),  m = ½ (p + q),   0 ≤ JSD ≤ log 2 ≈ 0.693

(scipy's ``jensenshannon`` returns √JSD, the distance; Jain & Wallace report JSD itself). p and q
must be distributions (an unnormalised vector would give a "JSD" above log 2): floating, finite,
≥ 0, summing to 1 within ``SUM_TOLERANCE``; half precision is computed in float32.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks

#: How far from 1 a distribution's sum may be (float32 softmaxes sum to 1 within about 1e-6).
SUM_TOLERANCE = 1e-3


def _distributions(p: Tensor, q: Tensor) -> tuple[Tensor, Tensor]:
    """p and q checked (floating, finite, ≥ 0, summing to 1 along the last dim, one shape) and put in
    one dtype (half raised to float32, ``_checks.compute_dtype``)."""
    p, q = _checks.real_tensor("p", p), _checks.real_tensor("q", q)
    if p.shape != q.shape or p.dim() == 0 or p.size(-1) == 0:
        raise ValueError(
            f"p and q must be distributions of one shape, got {tuple(p.shape)} and {tuple(q.shape)}"
        )
    dtype = torch.promote_types(_checks.compute_dtype(p), _checks.compute_dtype(q))
    p, q = p.to(dtype), q.to(dtype)
    for name, x in (("p", p), ("q", q)):
        if (x.detach() < 0).any():
            raise ValueError(f"{name} must be ≥ 0 (a distribution along the last dim)")
        worst = float((x.detach().sum(-1) - 1).abs().max())
        if worst > SUM_TOLERANCE:
            raise ValueError(
                f"{name} must sum to 1 along the last dim (a distribution), off by up to {worst:.3g}: "
                f"normalise it, {name} / {name}.sum(-1, keepdim=True)"
            )
    return p, q


def kl(p: Tensor, q: Tensor) -> Tensor:
    """KL(p ‖ q) along the last dim (+∞ where q_t = 0 < p_t)."""
    p, q = _distributions(p, q)
    return (torch.xlogy(p, p) - torch.xlogy(p, q)).sum(-1)


def jsd(p: Tensor, q: Tensor) -> Tensor:
    """JSD(p, q) along the last dim, in nats (between 0 and log 2)."""
    p, q = _distributions(p, q)
    m = (p + q) / 2
    return (
        (torch.xlogy(p, p) - torch.xlogy(p, m)).sum(-1) + (torch.xlogy(q, q) - torch.xlogy(q, m)).sum(-1)
    ) / 2


def tvd(p: Tensor, q: Tensor) -> Tensor:
    """The total variation distance ½ Σ_t |p_t − q_t| along the last dim."""
    p, q = _distributions(p, q)
    return (p - q).abs().sum(-1) / 2
