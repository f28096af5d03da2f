"""Checker for lesson 15: the induction score of every head from its attention patterns."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.circuits.induction import induction_scores
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _patterns(seed: int, L: int = 2, B: int = 3, H: int = 2, half: int = 5) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    T = 2 * half
    scores = torch.randn(L, B, H, T, T, generator=g, dtype=torch.float64)
    return scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -torch.inf).softmax(-1)


def _offset_score(pattern: Tensor, offset: int) -> Tensor:
    """Mean A[t, t − n + offset] over t = n..2n−1 (offset 1 is the induction score)."""
    half = pattern.size(-1) // 2
    return pattern.diagonal(offset=offset - half, dim1=-2, dim2=-1)[..., offset:].mean(dim=(1, 3))


@checker("induction score")
def check_induction_scores(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 15: ``fn(pattern)`` with ``pattern [layers, batch, heads, 2n, 2n]`` → ``[layers, heads]``,
    the mean over the batch and t = n..2n−1 of A[t, t − n + 1]."""
    for seed in (0, 1, 2):
        pattern = _patterns(seed)
        got = fn(pattern.clone())
        want = induction_scores(pattern)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, _offset_score(pattern, 0)):
                raise Mismatch(
                    "that scores attention to the earlier copy of x_t itself: look one token later"
                )
            if close(got, pattern.diagonal(-1, -2, -1).mean(dim=(1, 3))):
                raise Mismatch("that is the previous-token score A[t, t − 1]: look back n − 1 tokens")
        expect_close("induction score", got, want, atol=1e-8)
    return 3
