"""Relative position scores (Shaw, Uszkoreit & Vaswani 2018; lesson 14, section 5): the head adds a
learned vector a^K_r for the clipped offset r(i, j) = clip(j − i, −c, c) of key j from query i to the key,

    z_ij = q_i · (k_j + a^K_{r(i,j)}) / √d_att,

a^K ``[2c + 1, d_att]`` holding offset r in row r + c. This is the score of
``xai_tf.efficient.positions.OffsetModel`` with relative positions, before its causal mask.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks


def _offset_index(T: int, clip: int, device: torch.device | None = None) -> Tensor:
    """``[T, T]`` long: the row r(i, j) + c = clip(j − i, −c, c) + c of a^K read by query i at key j."""
    T, clip = _checks.integer("T", T, 1), _checks.integer("clip", clip, 0)
    i = torch.arange(T, device=device)
    return (i[None, :] - i[:, None]).clamp(-clip, clip) + clip


def relative_scores(Q: Tensor, K: Tensor, a_K: Tensor) -> Tensor:
    """``[..., T, T]``: z_ij = q_i · (k_j + a^K_{r(i,j)}) / √d_att for queries and keys ``Q, K`` ``[..., T,
    d_att]`` and offset vectors ``a_K`` ``[2c + 1, d_att]`` (c read off its rows), no mask."""
    Q, K, a_K = (_checks.real_tensor(n, x) for n, x in (("Q", Q), ("K", K), ("a_K", a_K)))
    if Q.dim() < 2 or Q.shape != K.shape or 0 in Q.shape:
        raise ValueError(
            f"Q and K must be [..., T, d_att] of one shape, got {tuple(Q.shape)} and {tuple(K.shape)}"
        )
    if a_K.dim() != 2 or a_K.size(0) % 2 == 0 or a_K.size(1) != Q.size(-1):
        raise ValueError(
            f"a_K must be [2c + 1, d_att] = [odd, {Q.size(-1)}] (one row per offset −c..c), "
            f"got shape {tuple(a_K.shape)}"
        )
    if not (Q.dtype == K.dtype == a_K.dtype):
        raise TypeError(f"Q, K and a_K must share one dtype, got {Q.dtype}, {K.dtype} and {a_K.dtype}")
    T = Q.size(-2)
    r = _offset_index(T, (a_K.size(0) - 1) // 2, Q.device)
    content = Q @ K.transpose(-2, -1)  # q_i · k_j
    position = (Q @ a_K.T).gather(-1, r.expand(*Q.shape[:-2], T, T))  # q_i · a^K_{r(i,j)}
    return (content + position) / math.sqrt(Q.size(-1))
