"""Performer's positive random features (lesson 14): Choromanski et al. (2021), *Rethinking
Attention with Performers* (FAVOR+).

The softmax kernel exp(qᵀk) is an expectation over w ~ N(0, I_d):

    exp(qᵀk) = E_w[ exp(wᵀq − ‖q‖²/2) · exp(wᵀk − ‖k‖²/2) ],

so with m draws w_1..w_m (rows of W) and φ(x) = exp(W x − ‖x‖²/2) / √m ∈ ℝ^m_{>0},
φ(q)ᵀφ(k) is an unbiased, always positive estimate of exp(qᵀk). Softmax attention with scores
q·k/√d_att uses q/d_att^{1/4} and k/d_att^{1/4}; then attention is linear attention with this φ:
out = φ(Q)(φ(K)ᵀ V) / φ(Q)(φ(K)ᵀ 1), O(n·m·d). Orthogonal draws (blocks of d orthogonal directions
with chi-distributed lengths) keep the estimate unbiased and lower its variance.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.efficient import _common

# m beyond this costs more than exact attention (O(n·m·d) against O(n²·d)) at every n whose
# n × n scores fit in this machine's memory.
MAX_FEATURES = 65_536


def random_features(
    n_features: int,
    d: int,
    generator: torch.Generator | None = None,
    orthogonal: bool = True,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> Tensor:
    """W ``[m, d]``: rows w ~ N(0, I_d), or orthogonal blocks of d rows whose lengths are drawn as
    the norms of N(0, I_d) vectors (each row is still marginally N(0, I_d)). Drawn on the
    generator's device (the CPU by default), returned on ``device``."""
    m = _checks.integer("n_features", n_features, 1, MAX_FEATURES)
    d = _checks.integer("d", d, 1)
    dtype = _checks.floating_dtype("dtype", dtype)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    blocks_bytes = 8 * (m * d + -(-m // d) * d * d * 3)  # G, the QR blocks and their factors
    _checks.fits(f"{m} random features in d = {d}", blocks_bytes, "choose fewer features or a smaller d")
    gdev = generator.device if generator is not None else "cpu"
    G = torch.randn(m, d, generator=generator, device=gdev, dtype=torch.float64)
    if orthogonal:  # all blocks in one batched QR
        blocks = torch.randn(-(-m // d), d, d, generator=generator, device=gdev, dtype=torch.float64)
        q, r = torch.linalg.qr(blocks)
        q = q * torch.diagonal(r, dim1=-2, dim2=-1).sign().unsqueeze(-2)  # Haar: fix QR's sign convention
        G = q.transpose(-2, -1).reshape(-1, d)[:m] * G.norm(dim=-1, keepdim=True)
    return G.to(dtype=dtype or torch.get_default_dtype(), device=device)


def positive_features(X: Tensor, W: Tensor, stabilise: str | None = None) -> Tensor:
    """φ(x) = exp(W x − ‖x‖²/2) / √m for each row x of ``X [..., n, d]`` → ``[..., n, m]``.

    ``stabilise`` subtracts the largest exponent before exp: ``"row"`` per row (a factor that
    cancels in each query's normalisation), ``"all"`` over the whole tensor (one factor for all
    keys); None computes the plain estimate."""
    X, W = _checks.tensor("X", X), _checks.tensor("W", W)
    if not (X.is_floating_point() and W.is_floating_point()):
        raise TypeError(f"X and W must be floating-point tensors, got {X.dtype} and {W.dtype}")
    _checks.real_tensor("X", X)
    _checks.real_tensor("W", W)
    if W.dim() != 2 or W.size(0) == 0:
        raise ValueError(f"W must be [m, d] with m ≥ 1 features, got {tuple(W.shape)}")
    _common.same_dtype("W", W, "X", X)
    if X.size(-1) != W.size(-1):
        raise ValueError(f"X has {X.size(-1)} features but W has {W.size(-1)} columns: they must match")
    u = X @ W.T - (X * X).sum(-1, keepdim=True) / 2
    if stabilise == "row":
        u = u - u.amax(-1, keepdim=True)
    elif stabilise == "all":
        u = u - u.max()
    elif stabilise is not None:
        raise ValueError(f"stabilise must be None, 'row' or 'all', got {stabilise!r}")
    return u.exp() / W.size(0) ** 0.5


def performer_attention(
    Q: Tensor, K: Tensor, V: Tensor, n_features: int = 64, seed: int = 0, W: Tensor | None = None
) -> Tensor:
    """Softmax attention estimated with m = ``n_features`` positive orthogonal random features
    (non-causal): out = φ(Q)(φ(K)ᵀ V) / φ(Q)(φ(K)ᵀ 1), Q and K scaled by d_att^{−1/4}. ``W``
    overrides the seeded draw (it must share Q's dtype and device: no silent promotion)."""
    Q, K, V = _common.qkv(Q, K, V)
    d = Q.size(-1)
    if W is None:
        W = random_features(n_features, d, seeds.generator(seed), dtype=Q.dtype, device=Q.device)
    r = d**-0.25
    fq, fk = positive_features(Q * r, W, "row"), positive_features(K * r, W, "all")
    out = (fq @ (fk.transpose(-2, -1) @ V)) / (fq @ fk.sum(-2).unsqueeze(-1))
    if not torch.isfinite(out).all():
        raise ValueError(
            "the random-feature estimate underflowed: Q and K are so large (max ‖q‖ = "
            f"{float(Q.double().norm(dim=-1).max()):.3g}) that φ(q)ᵀ Σ_j φ(k_j) is 0 for some query; scale Q "
            "and K down, or use exact attention"
        )
    return out
