"""Tokens from a mixture of K low-rank Gaussians (lesson 13), the model CRATE is derived from:

    k ~ uniform{1..K},   z = U_k a,   a ~ N(0, I_r),   observed y = z + σ w,   w ~ N(0, I_d)

with orthonormal bases U_k ∈ ℝ^{d×r}. Tokens are columns of Y ∈ ℝ^{d×T}.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.crate import rate


def random_bases(
    d: int,
    K: int,
    r: int,
    seed: int = 0,
    orthogonal: bool = True,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
) -> Tensor:
    """``U [K, d, r]``, each U_k with orthonormal columns (QR of a Gaussian matrix drawn on the CPU,
    then moved to ``device``). With ``orthogonal`` the K subspaces are also mutually orthogonal
    (needs K·r ≤ d)."""
    d, K = _checks.integer("d", d, 1), _checks.integer("K", K, 1)
    r = _checks.integer("r", r, 1, d)
    if dtype not in (torch.float32, torch.float64):
        raise TypeError(
            f"dtype must be a floating dtype, torch.float32 or torch.float64 (QR needs one), got {dtype!r}"
        )
    if orthogonal and K * r > d:
        raise ValueError(f"K·r = {K * r} mutually orthogonal directions do not fit in d = {d}: need K·r ≤ d")
    _checks.fits(f"random_bases(d = {d}, K·r = {K * r})", 3 * d * K * r * 8, "choose a smaller d, K or r")
    g = seeds.generator(seed)
    if orthogonal:
        Q, _ = torch.linalg.qr(torch.randn(d, K * r, generator=g, dtype=dtype, device="cpu"))
        return Q.reshape(d, K, r).permute(1, 0, 2).contiguous().to(device)
    Q, _ = torch.linalg.qr(torch.randn(K, d, r, generator=g, dtype=dtype, device="cpu"))
    return Q.to(device)


def sample_tokens(
    U: Tensor, T: int, sigma: float = 0.0, seed: int = 0, weights: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """T tokens y_t = U_{k_t} a_t + σ w_t: returns ``(Y [d, T], Z [d, T] noise-free, k [T])``;
    components drawn from ``weights`` (uniform when None). The draws are made on the CPU (the same
    on every device) and moved to U's device."""
    U = rate.bases(U)
    T = _checks.integer("T", T, 1)
    sigma = _checks.at_least("sigma", sigma, 0.0)
    K, d, r = U.shape
    _checks.fits(f"sample_tokens(T = {T})", 8 * T * (3 * d + r + 2), "choose a smaller T")
    g = seeds.generator(seed)
    p = torch.full((K,), 1 / K, dtype=torch.float64, device="cpu") if weights is None else weights
    if (
        not isinstance(p, Tensor)
        or p.shape != (K,)
        or not torch.isfinite(p).all()
        or (p < 0).any()
        or abs(float(p.sum()) - 1) > 1e-6
    ):
        raise ValueError(f"weights must be a tensor of K = {K} probabilities summing to 1, got {p!r}")
    k = torch.multinomial(p.detach().cpu().double(), T, replacement=True, generator=g)
    a = torch.randn(T, r, 1, generator=g, dtype=U.dtype, device="cpu").to(U.device)
    w = torch.randn(d, T, generator=g, dtype=U.dtype, device="cpu").to(U.device)
    k = k.to(U.device)
    Z = (U[k] @ a).squeeze(-1).mT
    return Z + sigma * w, Z, k
