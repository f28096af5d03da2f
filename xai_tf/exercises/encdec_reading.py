"""Checkers for lesson 17's sections 3, 4 and 6: the links read off cross-attention (per head and the heads'
mean), the attention masks of the three families over [source; target], and GNMT's length-normalised beam
score. (Sections 1, 2 and 5's checkers are in ``encdec``; this module keeps each under 300 lines.)
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.encdec.alignment import argmax_sources
from xai_tf.encdec.analysis import FAMILIES, family_mask
from xai_tf.encdec.length_penalty import beam_scores
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


@checker("beam score with GNMT's length penalty", reference=beam_scores)
def check_beam_scores(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 17: ``fn(log_p, n_words, alpha)`` → log p / lp, lp = ((5 + |Y|)/6)^α, |Y| = n_words + 1."""
    log_p, n = torch.tensor([-3.0, -7.5, -12.0, -0.4]), torch.tensor([1, 4, 9, 0])
    alphas = [0.6, 1.0, 0.0, 2.0]
    words = n.double()
    for alpha in alphas:
        got = fn(log_p.clone(), n.clone(), alpha)
        x = log_p.double()
        lp = ((5 + words + 1) / 6) ** alpha
        if alpha > 0 and isinstance(got, Tensor) and got.shape == log_p.shape:
            if close(got, x * lp):
                raise Mismatch(
                    "you multiplied by lp(Y): divide, score = log p / lp (log p < 0, so dividing helps long "
                    "translations)"
                )
            if close(got, x / ((5 + words) / 6) ** alpha):
                raise Mismatch("|Y| counts the <eos> too: the length is n_words + 1")
            if close(got, x / (5 + words + 1) ** alpha):
                raise Mismatch("lp(Y) = (5 + |Y|)^α / (5 + 1)^α: divide by 6^α too (lp = 1 for |Y| = 1)")
            if alpha != 1 and close(got, x / (alpha * (5 + words + 1) / 6)):
                raise Mismatch("α is an exponent: ((5 + |Y|)/6)^α, not α · (5 + |Y|)/6")
        expect_close(f"score (α = {alpha:g})", got, x / lp)
    return len(alphas)


def _alignment_case(seed: int, L: int, H: int, T: int, S: int) -> Tensor:
    """Cross-attention rows [L, H, T, S], sharp enough that every argmax (and the heads' mean's) is clear."""
    g = torch.Generator().manual_seed(seed)
    return (3 * torch.randn(L, H, T, S, generator=g, dtype=torch.float64)).softmax(-1).float()


@checker("links from cross-attention", reference=argmax_sources)
def check_alignment_sources(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 17: ``fn(A [L, H, T, S])`` → j* ``[L, H + 1, T]``: argmax_j A[l, h, i, j] per head, and as
    head H the argmax of the heads' mean."""
    cases = [(0, 2, 3, 4, 6), (1, 1, 2, 5, 5), (2, 2, 4, 7, 3)]
    for seed, L, H, T, S in cases:
        A = _alignment_case(seed, L, H, T, S)
        got, want = fn(A.clone()), argmax_sources(A.double())
        if isinstance(got, Tensor) and got.dim() == 3:
            heads = A.double().argmax(-1)
            by_target = argmax_sources(A.double().transpose(-1, -2))
            if (got.shape == (L, H + 1, S) and S != T) or close(got, by_target):
                raise Mismatch(
                    "you took the argmax over the target positions: one link per target word i, the argmax "
                    "over the source positions j (dim=-1)"
                )
            if got.shape == (L, H, T):
                raise Mismatch(f"shape {(L, H, T)}: append the heads' mean as head H, shape [L, H + 1, T]")
            if got.shape == want.shape and close(got, torch.cat([want[:, H:], heads], 1)):
                raise Mismatch("the heads' mean goes last, as head H (after the H heads)")
            if got.shape == want.shape and close(got[:, :H], heads) and not close(got[:, H], want[:, H]):
                raise Mismatch(
                    "the heads' mean is wrong: average the weights over the heads (dim 1), then take the "
                    "argmax — not the mean of the heads' argmaxes"
                )
        expect_close(f"j* for L = {L}, H = {H}, T = {T}, S = {S}", got, want)
    return len(cases)


@checker("the three families' masks", reference=family_mask)
def check_family_mask(fn: Callable[[str, int, int], Tensor]) -> int:
    """Lesson 17: ``fn(family, S, T)`` → bool ``[S + T, S + T]`` over [source; target], row the query, column
    the key, True = visible: all for "encoder-only", j ≤ i for "decoder-only", and for "encoder-decoder" the
    source sees the source, target i the whole source and target positions j ≤ i."""
    n = 0
    for S, T in ((3, 4), (5, 2), (1, 1)):
        causal = torch.ones(S + T, S + T, dtype=torch.bool).tril()
        for family in FAMILIES:
            got, want = fn(family, S, T), family_mask(family, S, T)
            if isinstance(got, Tensor) and got.shape == want.shape:
                if got.dtype != torch.bool:
                    raise Mismatch(f"the mask should be boolean (True = visible), got {got.dtype}")
                if family != "encoder-only" and torch.equal(got, want.T):
                    raise Mismatch(
                        f"{family}: rows are the queries, columns the keys: mask[i, j] says whether i may "
                        "read j"
                    )
                if family != "encoder-only" and torch.equal(got, causal.tril(-1)):
                    raise Mismatch(f"{family}: a position sees itself too, j ≤ i (the diagonal is visible)")
                if family == "encoder-decoder":
                    if bool(got[:S, S:].any()):
                        raise Mismatch(
                            "encoder-decoder: no source word sees the target (the encoder reads the source "
                            "alone, before the decoder writes)"
                        )
                    if torch.equal(got, causal) and not torch.equal(want, causal):
                        raise Mismatch(
                            "encoder-decoder: that is the decoder-only mask; the encoder reads the source "
                            "both ways, and every target position sees the whole source (cross-attention)"
                        )
                    if bool(got[S:, S:].all()) and T > 1:
                        raise Mismatch(
                            "encoder-decoder: target position i sees only target positions j ≤ i (the causal "
                            "mask), or teacher forcing would show it the answer"
                        )
            expect_close(
                f"{family} mask for S = {S}, T = {T}",
                got.float() if isinstance(got, Tensor) else got,
                want.float(),
            )
            n += 1
    return n
