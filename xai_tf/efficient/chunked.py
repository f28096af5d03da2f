"""Exact attention without the n × n matrix (lesson 14): keys in chunks, softmax online.

Rabe & Staats (2021), *Self-attention Does Not Need O(n²) Memory* — the idea FlashAttention
(Dao et al., 2022) implements as one fused kernel. For one query with scores s_j = q·k_j/√d_att,
keep a running maximum m, a running sum ℓ and a running weighted sum a; for each chunk C of keys

    m′ = max(m, max_{j∈C} s_j),
    ℓ′ = e^{m−m′} ℓ + Σ_{j∈C} e^{s_j−m′},
    a′ = e^{m−m′} a + Σ_{j∈C} e^{s_j−m′} v_j,

and after the last chunk the output is a/ℓ = Σ_j softmax(s)_j v_j exactly (up to rounding). Only a
``[queries, chunk]`` block of scores exists at any time: memory O(n·c) instead of O(n²) (O(c_q·c)
with queries chunked too). ``naive_attention`` is the reference that builds all n × n scores.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.efficient import _common


def _visible(
    n: int, m: int, i0: int, j0: int, rows: int, cols: int, causal: bool, mask, device
) -> Tensor | None:
    """The mask block for queries i0..i0+rows and keys j0..j0+cols (None: everything visible)."""
    block = None
    if causal:  # query i sees key j ≤ i + (m − n): the last query sees every key
        i = torch.arange(i0, i0 + rows, device=device).unsqueeze(-1) + (m - n)
        block = torch.arange(j0, j0 + cols, device=device) <= i
    if mask is not None:
        part = mask[
            ..., i0 : i0 + rows if mask.size(-2) > 1 else 1, j0 : j0 + cols if mask.size(-1) > 1 else 1
        ]
        block = part if block is None else block & part
    return block


def naive_attention(
    Q: Tensor, K: Tensor, V: Tensor, causal: bool = False, mask: Tensor | None = None
) -> Tensor:
    """softmax(Q Kᵀ / √d_att + masks) V with all n × m scores in memory (the lecture's A(x, M) V).

    ``Q [..., n, d]``, ``K [..., m, d]``, ``V [..., m, d_v]`` → ``[..., n, d_v]``. A query that
    sees no key gets zeros. Refused before allocating when the scores would not fit in memory."""
    Q, K, V = _common.qkv(Q, K, V)
    n, m, causal = Q.size(-2), K.size(-2), _checks.flag("causal", causal)
    mask = _common.mask("mask", mask, n, m)
    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2]).numel()
    _common.fits(
        f"full attention at n={n}, m={m} (3 score matrices)", 3 * batch * n * m * Q.element_size(), Q.device
    )
    s = (Q @ K.transpose(-2, -1)) * _common.scale(Q.size(-1))
    visible = _visible(n, m, 0, 0, n, m, causal, mask, Q.device)
    if visible is not None:
        s = s.masked_fill(~visible, float("-inf"))
    top = s.amax(-1, keepdim=True)
    e = (s - top.masked_fill(top == float("-inf"), 0)).exp()
    total = e.sum(-1, keepdim=True)
    return (e / total.masked_fill(total == 0, 1)) @ V


def online_softmax_update(
    m: Tensor, ell: Tensor, acc: Tensor, s: Tensor, v: Tensor
) -> tuple[Tensor, Tensor, Tensor]:
    """One chunk of the online softmax: ``m, ell [..., n, 1]``, ``acc [..., n, d_v]`` so far, scores
    ``s [..., n, c]`` of the chunk's keys (−∞ = masked), values ``v [..., c, d_v]``:

    m' = max(m, max_j s_j),  ℓ' = e^{m−m'} ℓ + Σ_j e^{s_j−m'},  a' = e^{m−m'} a + Σ_j e^{s_j−m'} v_j.

    Start from m = −∞, ℓ = 0, a = 0; the output is a/ℓ. A row that has seen only −∞ keeps m = −∞."""
    for name, x in (("m", m), ("ell", ell), ("acc", acc), ("s", s), ("v", v)):
        if not _checks.tensor(name, x).is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if s.size(-1) != v.size(-2):
        raise ValueError(f"s has {s.size(-1)} keys but v has {v.size(-2)}: one value row per key")
    for name, x in (("m", m), ("ell", ell), ("acc", acc)):
        if x.dim() < 2 or x.size(-2) != s.size(-2):
            raise ValueError(
                f"m, ell, acc and s must have one row per query ({x.size(-2) if x.dim() > 1 else 0} in "
                f"{name}), got s with {s.size(-2)}"
            )
    if torch.isnan(s).any() or torch.isposinf(s).any():
        raise ValueError("s has +inf or NaN scores: use −inf to mask a key")
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    shift = m_new.masked_fill(m_new == float("-inf"), 0)  # nothing seen yet: e^{−∞ − 0} = 0, not NaN
    rescale, e = (m - shift).exp(), (s - shift).exp()
    return m_new, rescale * ell + e.sum(-1, keepdim=True), rescale * acc + e @ v


def chunked_attention(
    Q: Tensor,
    K: Tensor,
    V: Tensor,
    chunk_size: int = 256,
    causal: bool = False,
    mask: Tensor | None = None,
    query_chunk_size: int | None = None,
) -> Tensor:
    """softmax(Q Kᵀ / √d_att) V exactly, keys ``chunk_size`` at a time with the online softmax
    (``online_softmax_update``), queries ``query_chunk_size`` at a time (None: all at once).
    Peak extra memory ~ queries × chunk_size scores, never n × m. Same arguments as
    ``naive_attention``; a causal chunk wholly in a query block's future is skipped."""
    Q, K, V = _common.qkv(Q, K, V)
    n, m, causal = Q.size(-2), K.size(-2), _checks.flag("causal", causal)
    c = _checks.integer("chunk_size", chunk_size, 1)
    cq = n if query_chunk_size is None else _checks.integer("query_chunk_size", query_chunk_size, 1)
    mask = _common.mask("mask", mask, n, m)
    Q = Q * _common.scale(Q.size(-1))
    out = []
    for i0 in range(0, n, cq):
        q = Q[..., i0 : i0 + cq, :]
        rows = q.size(-2)
        lead = torch.broadcast_shapes(q.shape[:-2], K.shape[:-2])
        m_run = torch.full((*lead, rows, 1), float("-inf"), dtype=Q.dtype, device=Q.device)
        l_run = torch.zeros_like(m_run)
        acc = torch.zeros((*lead, rows, V.size(-1)), dtype=Q.dtype, device=Q.device)
        for j0 in range(0, m, c):
            if causal and j0 > i0 + rows - 1 + (m - n):
                break  # every later key is in the future of every query of this block
            s = q @ K[..., j0 : j0 + c, :].transpose(-2, -1)
            visible = _visible(n, m, i0, j0, rows, s.size(-1), causal, mask, Q.device)
            if visible is not None:
                s = s.masked_fill(~visible, float("-inf"))
            m_run, l_run, acc = online_softmax_update(m_run, l_run, acc, s, V[..., j0 : j0 + c, :])
        out.append(acc / l_run.masked_fill(l_run == 0, 1))
    return torch.cat(out, -2)
