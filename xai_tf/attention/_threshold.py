"""α-entmax's threshold for α ∉ {1.5, 2} (lesson 03), in float64: Newton's method instead of bisection.

With x = (α−1)(z − max z) (so max x = 0) and β = 1/(α−1), α-entmax is p_j = [x_j − τ]_+^β with
f(τ) = Σ_j [x_j − τ]_+^β − 1 = 0, τ ∈ [−1, 0). Three steps:

1. τ roughly: Newton on f from τ = −1 (f ≥ 0), kept inside the bracket [lo, hi] that f's sign
   maintains, bisecting when a step leaves it (f is convex for α ≤ 2, where Newton from the left never
   leaves it). In the scores' dtype when that is float32 (half the cost), else float64.
2. The support exactly: its smallest member a = x_(k) is the one with mass m(a) = Σ_j [x_j − a]_+^β < 1
   while the next smaller x has m ≥ 1 (m decreases in its argument); moved one place up or down until
   both hold (once, on almost every row).
3. u = a − τ ∈ (0, min(1, a − next)] on that support, where g(u) = Σ_{j≤k} (x_j − a + u)^β − 1 is smooth:
   Newton from above, which is monotone because g is convex and increasing in u (α ≤ 2), or in v = u^β
   (α > 2: each term is (x_j − a + v^{α−1})^{1/(α−1)}, an ℓ_{α−1} norm of (·, v), convex in v). It
   stops when a step no longer moves u (or v) in float64.

p_j moves by p_j^{2−α}/(α−1) per unit of u_j = x_j − τ, so for α > 2 u_j is needed to float64's
*relative* precision however small (α = 10, top two scores 0.1 apart: u ≈ 1e-16 for the second); step 3
gives it, as u_j = (x_j − a) + u with x_j − a exact. The bisection this replaces took ~76 passes over the
scores (10 for the support, 66 halvings of u) after a sort; this takes ~15 and no sort.
"""

from __future__ import annotations

import torch
from torch import Tensor

F64 = torch.float64
INF = float("inf")


def _terms(s: Tensor, beta: float) -> tuple[Tensor, Tensor]:
    """(s^β, s^{β−1}) for s ≥ 0, with s^{β−1} read as 0 where s = 0 (one pow when β > 1)."""
    if beta > 1:
        q = s.pow(beta - 1)
        return q * s, q
    p = s.pow(beta)
    return p, (p / s).nan_to_num_(nan=0.0, posinf=0.0)


def _mass(x: Tensor, t: Tensor, beta: float) -> Tensor:
    return (x - t).clamp(min=0).pow(beta).sum(-1, keepdim=True)


def _rough_tau(x: Tensor, beta: float) -> Tensor:
    """Step 1: lo ≤ τ* (f(lo) ≥ 0) within about 1e-10 (float64) or 1e-5 (float32) of τ*."""
    tol = 1e-10 if x.dtype == F64 else 1e-5
    lo, hi = torch.full_like(x[..., :1], -1.0), torch.zeros_like(x[..., :1])
    t = lo
    for _ in range(200):
        p, q = _terms((x - t).clamp(min=0), beta)
        f = p.sum(-1, keepdim=True) - 1
        lo, hi = torch.where(f >= 0, t, lo), torch.where(f < 0, t, hi)
        step = t + f / (beta * q.sum(-1, keepdim=True))
        new = torch.where((step >= lo) & (step <= hi), step, (lo + hi) / 2)
        moved = (new - t).abs()
        t = new
        if bool((moved <= tol).all()):
            break
    return torch.minimum(lo, t).to(F64)


def _anchor(x: Tensor, lo: Tensor, beta: float) -> tuple[Tensor, Tensor]:
    """Step 2: (a, next), the smallest x in the support and the largest x below it (−∞ if none)."""
    a = x.masked_fill(x <= lo, INF).amin(-1, keepdim=True).clamp(max=0)
    for _ in range(x.size(-1)):
        below = x.masked_fill(x >= a, -INF).amax(-1, keepdim=True)
        up = _mass(x, a, beta) >= 1
        down = (_mass(x, below, beta) < 1) & (below > -INF)
        if not bool((up | down).any()):
            break
        above = x.masked_fill(x <= a, INF).amin(-1, keepdim=True)
        a = torch.where(up, above, torch.where(down, below, a))
    return a, below


def entmax_threshold(z: Tensor, alpha: float) -> Tensor:
    """α-entmax of ``z`` along the last dim for α > 1, in float64 (see the module); rows that are all
    −∞ give zeros."""
    beta, top = 1 / (alpha - 1), z.amax(-1, keepdim=True)
    x = (alpha - 1) * (z.to(F64) - top.masked_fill(top == -INF, 0).to(F64))
    lo = _rough_tau(x.float() if z.dtype == torch.float32 else x, beta)
    a, below = _anchor(x, lo, beta)
    gaps = (x - a).masked_fill(x < a, -INF)  # x_j − a on the support, −∞ off it
    tiny, eps = torch.finfo(F64).tiny, torch.finfo(F64).eps
    convex_in_u = alpha <= 2
    safe = (a - below).clamp(min=tiny, max=1.0)  # ≥ u*: the mass at the next smaller x is ≥ 1
    safe, w = (safe, torch.minimum(a - lo, safe)) if convex_in_u else (safe.pow(beta), (a - lo).pow(beta))
    w = torch.minimum(w, safe).clamp(min=tiny)  # Newton from above: start at u₀ = a − lo ≥ u*
    for i in range(100):
        u = w if convex_in_u else w.pow(alpha - 1)
        p, q = _terms((gaps + u).clamp(min=0), beta)
        slope = beta * q.sum(-1, keepdim=True) if convex_in_u else (q * u.pow(1 - beta)).sum(-1, keepdim=True)
        g = p.sum(-1, keepdim=True) - 1
        if i == 0 and bool((g < 0).any()):  # lo rounded above τ* (float32 step 1): start at the safe end
            w = torch.where(g < 0, safe, w)
            continue
        step = (g / slope).clamp(min=0)
        w = (w - step).clamp(min=tiny)
        if bool((step <= 2 * eps * w).all()):
            break
    p = (gaps + (w if convex_in_u else w.pow(alpha - 1))).clamp(min=0).pow(beta)
    return (p / p.sum(-1, keepdim=True)).masked_fill(top == -INF, 0.0)
