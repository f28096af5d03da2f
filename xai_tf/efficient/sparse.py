"""Sparse attention patterns (lesson 14): restricted (sliding-window) and strided attention.

Child, Gray, Radford & Sutskever (2019), *Generating Long Sequences with Sparse Transformers*:
position i attends to a set S_i of positions instead of all of them. With window (stride) l,

- local / sliding window:  S_i = {j : i − l ≤ j ≤ i}  (causal; |i − j| ≤ l when not causal);
- strided:                 S_i = {j ≤ i : (i − j) mod l = 0};

the Sparse Transformer gives one head each pattern (or alternates them by layer), so that any
position reaches any other in two steps. The lecture's "restricted self-attention" of size r is the
sliding window: O(r·n·d) per layer, maximum path length O(n/r).

Masks are boolean ``[n, n]``, True where i may attend to j. ``windowed_attention`` computes the
sliding window's output without any n × n tensor (keys gathered in bands of l + 1), which is what
gives the O(r·n·d) cost; ``sparse_attention`` applies any mask to full scores (the pattern, not the
savings).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.efficient import _common
from xai_tf.efficient.chunked import naive_attention


def _n(n: object) -> int:
    """The pattern's size n ≥ 1, refused before allocating when its n × n offsets (8 bytes each)
    and masks would not fit in memory."""
    n = _checks.integer("n", n, 1)
    _checks.fits(f"an n × n attention pattern at n={n}", 11 * n * n, "choose a smaller n")
    return n


def _offsets(n: int, device: torch.device | str | None) -> Tensor:
    """i − j for every query i and key j, ``[n, n]``."""
    return torch.arange(n, device=device).unsqueeze(-1) - torch.arange(n, device=device)


def sliding_window_mask(
    n: int, window: int, causal: bool = True, device: torch.device | str | None = None
) -> Tensor:
    """M_ij = (0 ≤ i − j ≤ l) if causal else (|i − j| ≤ l), l = ``window`` in 1..n. ``[n, n]`` bool."""
    window, causal = _checks.integer("window", window, 1, _n(n)), _checks.flag("causal", causal)
    offset = _offsets(n, device)
    return ((offset >= 0) & (offset <= window)) if causal else offset.abs() <= window


def strided_mask(
    n: int, stride: int, causal: bool = True, device: torch.device | str | None = None
) -> Tensor:
    """M_ij = ((i − j) mod l = 0), and j ≤ i if causal; l = ``stride`` in 1..n. ``[n, n]`` bool."""
    stride, causal = _checks.integer("stride", stride, 1, _n(n)), _checks.flag("causal", causal)
    offset = _offsets(n, device)
    keep = offset.remainder(stride) == 0
    return keep & (offset >= 0) if causal else keep


def sparse_transformer_mask(n: int, stride: int, device: torch.device | str | None = None) -> Tensor:
    """The union of the causal local (window = stride − 1) and strided patterns: every position
    reaches every earlier one in at most two steps (Child et al. 2019, fig. 3c)."""
    stride = _checks.integer("stride", stride, 1, _n(n))
    return sliding_window_mask(n, max(stride - 1, 1), True, device) | strided_mask(n, stride, True, device)


def sparse_attention(Q: Tensor, K: Tensor, V: Tensor, mask: Tensor) -> Tensor:
    """softmax over the visible scores only: full attention with ``mask`` (True = visible)
    ``[n, n]``. Shows the pattern; costs as much as full attention."""
    if mask is None:
        raise ValueError("mask is None: sparse_attention needs a boolean [n, n] pattern (True = visible)")
    return naive_attention(Q, K, V, mask=mask)


def windowed_attention(Q: Tensor, K: Tensor, V: Tensor, window: int) -> Tensor:
    """Causal sliding-window attention, out_i = Σ_{i−l ≤ j ≤ i} softmax_j(q_i·k_j/√d_att) v_j,
    from bands of l + 1 keys per query: memory and time O(l·n·d), no n × n tensor.
    ``Q, K, V [..., n, d]`` (self-attention: one n), ``window`` = l in 1..n."""
    Q, K, V = _common.qkv(Q, K, V)
    n = Q.size(-2)
    if K.size(-2) != n:
        raise ValueError(f"windowed_attention is self-attention: Q has {n} positions but K has {K.size(-2)}")
    window = _checks.integer("window", window, 1, n)
    _common.fits(
        f"windowed attention at n={n}, window={window}",
        2 * K.numel() * (window + 1) * K.element_size(),
        Q.device,
    )
    pad = (0, 0, window, 0)  # window positions before the first: masked below
    Kb = F.pad(K, pad).unfold(-2, window + 1, 1)  # [..., n, d, l + 1]
    Vb = F.pad(V, pad).unfold(-2, window + 1, 1)  # [..., n, d_v, l + 1]
    s = (Q.unsqueeze(-2) @ Kb).squeeze(-2) * _common.scale(Q.size(-1))  # [..., n, l + 1]
    before_start = (
        torch.arange(n, device=Q.device).unsqueeze(-1) + torch.arange(window + 1, device=Q.device) < window
    )
    p = s.masked_fill(before_start, float("-inf")).softmax(-1)
    return (Vb @ p.unsqueeze(-1)).squeeze(-1)
