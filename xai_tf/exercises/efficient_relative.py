"""Checker for lesson 14's relative position scores (section 5, Shaw et al. 2018):

    z_ij = q_i · (k_j + a^K_{r(i,j)}) / √d_att,   r(i, j) = clip(j − i, −c, c),   a^K ``[2c + 1, d_att]``,

offset r stored in row r + c of a^K (``xai_tf.efficient.relative.relative_scores``)."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.efficient.relative import relative_scores
from xai_tf.exercises._check import Mismatch, checker, close, expect_close

#: (seed, leading shape, T, d_att, c): offsets clipped (T − 1 > c) with a batch and without one, then c
#: larger than any offset (no clipping), so a c fixed in the code (the lesson's model has c = 4) fails.
CASES = [
    (2, (1,), 5, 2, 6),
    (0, (2,), 7, 4, 2),
    (1, (), 6, 3, 1),
]  # unclipped first: a c fixed in the code is named


def _case(seed: int, lead: tuple[int, ...], T: int, d: int, c: int) -> tuple[Tensor, Tensor, Tensor]:
    g = torch.Generator().manual_seed(seed)
    Q, K = (torch.randn(*lead, T, d, generator=g, dtype=torch.float64) for _ in range(2))
    return Q, K, torch.randn(2 * c + 1, d, generator=g, dtype=torch.float64) * 2


def _with_rows(Q: Tensor, K: Tensor, a_K: Tensor, rows: Tensor, scale: tuple[float, float]) -> Tensor:
    """(q_i · k_j) / scale[0] + (q_i · a_K[rows[i, j]]) / scale[1] (negative rows wrap, as in a_K[rows])."""
    position = torch.einsum("...id,ijd->...ij", Q, a_K[rows])
    return Q @ K.transpose(-2, -1) / scale[0] + position / scale[1]


def _diagnose(got: Tensor, Q: Tensor, K: Tensor, a_K: Tensor) -> None:
    """Raise the Mismatch that names a typical mistake, where ``got`` is one."""
    T, c, root = Q.size(-2), (a_K.size(0) - 1) // 2, math.sqrt(Q.size(-1))
    i = torch.arange(T)
    offset = i[None, :] - i[:, None]  # j − i
    right = offset.clamp(-c, c) + c
    if torch.isinf(got).any():
        raise Mismatch("leave the mask out: return z for every i, j (the model masks the future afterwards)")
    if close(got, _with_rows(Q, K, a_K, (-offset).clamp(-c, c) + c, (root, root))):
        raise Mismatch(
            "the offsets run the wrong way: r = j − i (key minus query), so a key before i has r < 0"
        )
    if close(got, _with_rows(Q, K, a_K, offset.clamp(-c, c), (root, root))):
        raise Mismatch(
            "row r + c of a_K holds offset r: shift the clipped offset by c (a negative index wraps around "
            "to the last rows)"
        )
    if close(got, _with_rows(Q, K, a_K, right, (1.0, 1.0))):
        raise Mismatch("not scaled: divide by √d_att")
    if close(got, _with_rows(Q, K, a_K, right, (root, 1.0))):
        raise Mismatch("only q·k is scaled: divide both terms, z_ij = q_i · (k_j + a^K_r) / √d_att")
    if close(got, Q @ K.transpose(-2, -1) / root):
        raise Mismatch("that is plain dot-product attention: add q_i · a^K_{r(i,j)}")


@checker("relative position scores", reference=relative_scores)
def check_relative_scores(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 14: ``fn(Q, K, a_K)`` with ``Q, K [..., T, d_att]`` and ``a_K [2c + 1, d_att]`` →
    ``[..., T, T]``, z_ij = q_i · (k_j + a^K_{clip(j − i, −c, c) + c}) / √d_att, no mask."""
    for seed, lead, T, d, c in CASES:
        Q, K, a_K = _case(seed, lead, T, d, c)
        got = fn(Q.float(), K.float(), a_K.float())
        want = relative_scores(Q, K, a_K)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            _diagnose(got, Q, K, a_K)
            if c >= T - 1:
                raise Mismatch(f"read c off a_K, which has 2c + 1 rows: here c = {c}, every offset unclipped")
        expect_close("z", got, want)
    return len(CASES)
