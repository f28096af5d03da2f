"""Probability maps π for attention (lessons 01 and 03): softmax, sparsemax, α-entmax, fusedmax, hard.

Each map sends scores z to weights p on the probability simplex, along ``dim``, with closed-form
backward passes:
- ``softmax``: p_j = exp z_j / Σ_i exp z_i;
- ``sparsemax``: p = argmin_{p∈Δ} ‖p − z‖² = [z − τ]_+ (Martins & Astudillo, 2016), τ from
  ``sparsemax_threshold``;
- ``entmax``: α-entmax, p_j = [(α−1) z_j − τ]_+^{1/(α−1)} (Peters, Niculae & Martins, 2019);
- ``fusedmax``: sparsemax(prox_TV(z, λ)), the sparsemax of the 1-D fused-lasso denoised scores
  (Niculae & Blondel, 2017).

One rule for the scores z of every map and ``hard_attention``: −∞ masks a position, which gets
probability 0 and is removed (on the visible positions, map(z) is the map of the visible scores); a
row that is all −∞ gives all zeros (never NaN, never a silent uniform row); +∞ and NaN raise a
ValueError; integer and bool scores are promoted to torch's default float dtype; ``dim`` must name a
dim of size ≥ 1. ``entropy`` and ``support_size`` read a map's output.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.attention._threshold import entmax_threshold

# ---------------------------------------------------------------- probability maps


def _scores(z: Tensor, dim: int) -> Tensor:
    """Check z and dim against the rule above; return z as a float tensor."""
    if not isinstance(z, Tensor):
        raise TypeError(f"z must be a torch.Tensor, got {type(z).__name__}")
    n, shape = z.dim(), tuple(z.shape)
    if n == 0 or z.is_complex():
        raise TypeError(f"z must hold real scores along at least one dim, got a {n}-d {z.dtype} tensor")
    if isinstance(dim, bool) or not isinstance(dim, int) or not -n <= dim < n:
        raise ValueError(f"dim must be an integer in {-n}..{n - 1} for z of shape {shape}, got {dim!r}")
    z = z if z.is_floating_point() else z.to(torch.get_default_dtype())
    return _checks.scores("z", z, dim)


def _all_masked(z: Tensor, dim: int) -> Tensor:
    return (z == float("-inf")).all(dim, keepdim=True)


def _shifted(z: Tensor) -> Tensor:
    """z − max z along the last dim (every map ignores shifts); all −∞ rows are left as they are."""
    top = z.max(-1, keepdim=True).values
    return z - top.masked_fill(top == float("-inf"), 0.0)


def softmax(z: Tensor, dim: int = -1) -> Tensor:
    """p_j = exp(z_j − max z) / Σ_i exp(z_i − max z); a row that is all −∞ gives zeros."""
    z = _scores(z, dim)
    empty = _all_masked(z, dim)
    return z.masked_fill(empty, 0.0).softmax(dim).masked_fill(empty, 0.0)


def _sorted_support(z: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Along the last dim: scores sorted in decreasing order with −∞ replaced by 0, the ranks
    k = 1..T, and which ranks hold a finite score."""
    zs = z.sort(dim=-1, descending=True).values
    finite = torch.isfinite(zs)
    k = torch.arange(1, z.size(-1) + 1, dtype=z.dtype, device=z.device)
    return zs.masked_fill(~finite, 0.0), k, finite


def _threshold(z: Tensor) -> tuple[Tensor, Tensor]:
    """Sort-based: k(z) = max{k : 1 + k z_(k) > Σ_{j≤k} z_(j)}, τ = (Σ_{j≤k(z)} z_(j) − 1) / k(z), and
    k(z), both ``[..., 1]``, for scores already shifted by their maximum: the cumulative sums of large
    scores would lose the digits that τ needs."""
    zs, k, finite = _sorted_support(z)
    cumsum = zs.cumsum(-1)
    size = ((1 + k * zs > cumsum) & finite).sum(-1, keepdim=True)
    return (cumsum.gather(-1, (size - 1).clamp(min=0)) - 1) / size.clamp(min=1), size


def _sparsemax_forward(z: Tensor) -> Tensor:
    z = _shifted(z)
    tau, size = _threshold(z)
    return (z - tau).clamp(min=0).masked_fill(size == 0, 0.0)


def sparsemax_threshold(z: Tensor) -> Tensor:
    """The threshold η of sparsemax along the last dim, ``[..., 1]`` (lesson 03 writes η; the papers τ):
    with the scores sorted, z_(1) ≥ z_(2) ≥ …, the support size is k(z) = max{k : 1 + k z_(k) > Σ_{j≤k} z_(j)}
    and η = (Σ_{j≤k(z)} z_(j) − 1) / k(z), the number for which sparsemax(z) = [z − η]_+ sums to 1.
    A row that is all −∞ (nothing visible) gives +∞: every weight [z − η]_+ is then 0."""
    z = _scores(z, -1)
    top = z.amax(-1, keepdim=True)
    tau, size = _threshold(_shifted(z))
    return (tau + top).masked_fill(size == 0, float("inf"))


def _entmax15_forward(z: Tensor) -> Tensor:
    """Exact 1.5-entmax (Peters et al., 2019, Alg. 2): with u = z/2 sorted, τ_k = μ_k − √δ_k,
    μ_k the mean of the top k, δ_k = (1 − k(mean of squares − μ_k²)) / k; the support is the
    largest k with τ_k ≤ u_(k), and p = [u − τ]_+². The scores are first shifted so that their
    maximum is 0 (entmax ignores shifts), which keeps the variance term exact for large scores."""
    u = _shifted(z) / 2
    us, k, finite = _sorted_support(u)
    mean = us.cumsum(-1) / k
    mean_sq = (us**2).cumsum(-1) / k
    delta = (1 - k * (mean_sq - mean**2)) / k
    tau = mean - delta.clamp(min=0).sqrt()
    size = ((tau <= us) & finite).sum(-1, keepdim=True)
    tau_star = tau.gather(-1, (size - 1).clamp(min=0))
    return (u - tau_star).clamp(min=0).pow(2).masked_fill(size == 0, 0.0)


def _entmax_backward(p: Tensor, grad: Tensor, alpha: float) -> Tensor:
    """J = diag(s) − s sᵀ / Σ s with s = p^{2−α} on the support (α = 2: the sparsemax Jacobian)."""
    s = torch.where(p > 0, p.pow(2 - alpha), torch.zeros_like(p))
    total = s.sum(-1, keepdim=True)
    weighted = (s * grad).sum(-1, keepdim=True) / total.masked_fill(total == 0, 1.0)
    return s * (grad - weighted)


class _Entmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z: Tensor, alpha: float) -> Tensor:
        exact = {2.0: _sparsemax_forward, 1.5: _entmax15_forward}  # sort-based, in z's dtype
        p = exact[alpha](z) if alpha in exact else entmax_threshold(z, alpha).to(z.dtype)
        ctx.alpha = alpha
        ctx.save_for_backward(p)
        return p

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        (p,) = ctx.saved_tensors
        return _entmax_backward(p, grad, ctx.alpha), None


def _along(fn, z: Tensor, dim: int, *args) -> Tensor:
    """Apply a last-dim map ``fn`` along ``dim``."""
    return fn(z.transpose(dim, -1), *args).transpose(dim, -1)


def sparsemax(z: Tensor, dim: int = -1) -> Tensor:
    """sparsemax(z) = argmin_{p ∈ Δ} ‖p − z‖² = [z − τ(z)]_+ (Euclidean projection onto the simplex).

    Backward: J = diag(s) − s sᵀ / |S|, s the indicator of the support S.
    """
    return _along(_Entmax.apply, _scores(z, dim), dim, 2.0)


def entmax(z: Tensor, alpha: float, dim: int = -1) -> Tensor:
    """α-entmax(z)_j = [(α−1) z_j − τ]_+^{1/(α−1)}, τ such that the output sums to 1.

    α = 1 is softmax, α = 2 is sparsemax exactly, α = 1.5 uses the exact sort-based algorithm,
    other α > 1 a float64 Newton solve for τ (``attention._threshold``, accurate to float64).
    Backward: J = diag(s) − s sᵀ / Σ s with s_j = p_j^{2−α} on the support.
    """
    alpha, z = _checks.at_least("alpha", alpha, 1), _scores(z, dim)
    return softmax(z, dim) if alpha == 1 else _along(_Entmax.apply, z, dim, alpha)


def prox_tv1d(z: np.ndarray, lam: float) -> np.ndarray:
    """prox_TV(z, λ) = argmin_y ½‖y − z‖² + λ Σ_i |y_{i+1} − y_i| (1-D total-variation denoising).

    Condat's direct algorithm (IEEE SPL 2013), exact in O(T) on average: it walks left to right
    keeping the range [v_min, v_max] the current fused segment may take and starts a new segment
    when the next value cannot join it. Neighbours fused into one segment get exactly equal values.
    """
    lam = _checks.at_least("lam", lam, 0)
    z = np.asarray(z, dtype=float)
    n = len(z)
    y = np.empty(n)
    if n == 0:
        return y
    k = k0 = kminus = kplus = 0
    vmin, vmax = z[0] - lam, z[0] + lam
    umin, umax = lam, -lam
    while True:
        if k == n - 1:
            if umin < 0:  # the segment ends at k⁻ going down
                y[k0 : kminus + 1] = vmin
                k = k0 = kminus = kminus + 1
                vmin, umin, umax = z[k], lam, z[k] + lam - vmax
                continue
            if umax > 0:  # the segment ends at k⁺ going up
                y[k0 : kplus + 1] = vmax
                k = k0 = kplus = kplus + 1
                vmax, umax, umin = z[k], -lam, z[k] - lam - vmin
                continue
            y[k0:] = vmin + umin / (k - k0 + 1)
            return y
        if z[k + 1] + umin < vmin - lam:  # negative jump after k⁻
            y[k0 : kminus + 1] = vmin
            k = k0 = kminus = kplus = kminus + 1
            vmin, vmax, umin, umax = z[k], z[k] + 2 * lam, lam, -lam
        elif z[k + 1] + umax > vmax + lam:  # positive jump after k⁺
            y[k0 : kplus + 1] = vmax
            k = k0 = kminus = kplus = kplus + 1
            vmin, vmax, umin, umax = z[k] - 2 * lam, z[k], lam, -lam
        else:  # z[k + 1] joins the segment
            k += 1
            umin += z[k] - vmin
            umax += z[k] - vmax
            if umin >= lam:
                vmin += (umin - lam) / (k - k0 + 1)
                umin, kminus = lam, k
            if umax <= -lam:
                vmax += (umax + lam) / (k - k0 + 1)
                umax, kplus = -lam, k


class _Fusedmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z: Tensor, lam: float) -> Tensor:
        rows = z.detach().reshape(-1, z.size(-1)).double().cpu().numpy()
        fused, segment = np.full_like(rows, -np.inf), np.full(rows.shape, rows.shape[-1] - 1, dtype=np.int64)
        for i, row in enumerate(rows):  # prox_TV of the visible scores; masked ones share segment T − 1
            seen = np.isfinite(row)
            fused[i, seen] = y = prox_tv1d(row[seen], lam)
            segment[i, seen] = np.cumsum(np.diff(y, prepend=y[:1]) != 0)  # a new one where y changes
        p = _sparsemax_forward(torch.from_numpy(fused).reshape(z.shape).to(z))
        ctx.save_for_backward(p, torch.from_numpy(segment).reshape(z.shape).to(z.device))
        return p

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, None]:
        p, segment = ctx.saved_tensors
        g = _entmax_backward(p, grad, 2.0)  # through sparsemax
        # through prox_TV: its Jacobian averages within each fused segment
        sums = torch.zeros_like(g).scatter_add_(-1, segment, g)
        counts = torch.zeros_like(g).scatter_add_(-1, segment, torch.ones_like(g))
        return (sums / counts.clamp(min=1)).gather(-1, segment), None


def fusedmax(z: Tensor, lam: float, dim: int = -1) -> Tensor:
    """fusedmax(z) = sparsemax(prox_TV(z, λ)): neighbouring positions with close scores are fused
    and get equal weight. ``lam`` = 0 is sparsemax. Masked (−∞) positions are left out of the
    chain: their visible neighbours become neighbours.

    Backward: the sparsemax Jacobian times the prox's Jacobian, which averages over each fused
    segment (Niculae & Blondel, 2017, Prop. 3).
    """
    lam, z = _checks.at_least("lam", lam, 0), _scores(z, dim)
    return _along(_Fusedmax.apply, z, dim, lam)


def hard_attention(
    z: Tensor, mode: str = "argmax", generator: torch.Generator | None = None, dim: int = -1
) -> Tensor:
    """One-hot weights: the highest score (``"argmax"``, first on ties) or one position drawn
    from softmax(z) (``"sample"``, with ``generator`` if given: the draw happens on its device).
    A row that is all −∞ gives zeros. Not differentiable: gradients are zero almost everywhere."""
    z = _scores(z, dim).transpose(dim, -1)
    empty = _all_masked(z, -1)
    if mode == "argmax":
        index = z.argmax(-1)
    elif mode == "sample":
        probs = softmax(z).masked_fill(empty, 1.0).reshape(-1, z.size(-1))
        probs = probs if generator is None else probs.to(generator.device)
        index = torch.multinomial(probs, 1, generator=generator).to(z.device).reshape(z.shape[:-1])
    else:
        raise ValueError(f"mode must be 'argmax' or 'sample', got {mode!r}")
    return F.one_hot(index, z.size(-1)).to(z.dtype).masked_fill(empty, 0.0).transpose(dim, -1)


# ---------------------------------------------------------------- reading attention maps


def _probabilities(p: Tensor) -> None:
    if not (_checks.tensor("p", p).is_floating_point() and torch.isfinite(p).all() and (p >= 0).all()):
        raise ValueError("p must hold probabilities: finite floats ≥ 0")


def entropy(p: Tensor, dim: int = -1) -> Tensor:
    """H(p) = −Σ_j p_j log p_j (nats, 0 log 0 = 0): log T for uniform attention over T positions."""
    _probabilities(p)
    return -(p * p.clamp(min=1e-30).log()).sum(dim)


def support_size(p: Tensor, dim: int = -1) -> Tensor:
    """|{j : p_j > 0}|: how many positions get any weight (sparse maps leave some at exactly 0)."""
    _probabilities(p)
    return (p > 0).sum(dim)
