"""Checker for lesson 08's transformer attention importance (section 7): the attention the queries pay
each token, averaged over them, from the last layer's heads,

    raw_t = (1/T) Σ_s mean_h A_L[s, t],

the importance that ``xai_tf.faithfulness.transformer.TRANSFORMER`` calls "raw" (``explain.encoder.received``
with the map ``attention``). In a causal map key t is seen by the T − t queries s ≥ t only, and the others
give it 0: the column mean still divides by T, which favours early tokens.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain.encoder import received


def attention_importance(A: Tensor) -> Tensor:
    """``[T]``: raw_t = (1/T) Σ_s mean_h A_L[s, t] of a model's attentions ``A`` ``[L, H, T, T]`` on one
    phrase (layers, heads, queries s, keys t): the last layer's map, averaged over its heads, then over the
    queries (rows)."""
    A = _checks.real_tensor("A", A, dims=4)
    if A.size(-1) != A.size(-2) or 0 in A.shape:
        raise ValueError(f"A must be [L, H, T, T] with at least one of each, got shape {tuple(A.shape)}")
    return received(A, "attention")


def _causal_maps(seed: int, L: int, H: int, T: int) -> Tensor:
    """Random causal attention ``[L, H, T, T]`` (float64): query s sees keys t ≤ s, rows sum to 1."""
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(L, H, T, T, generator=g, dtype=torch.float64) * 2
    return scores.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -torch.inf).softmax(-1)


#: (seed, layers, heads, T): two layers whose maps differ, then one layer of several heads.
CASES = [(0, 2, 3, 6), (1, 3, 2, 5), (2, 1, 4, 7)]


def _diagnose(got: Tensor, A: Tensor) -> None:
    """Raise the Mismatch that names a typical mistake, where ``got`` is one."""
    L, H, T, _ = A.shape
    seen_by = torch.arange(T, 0, -1, dtype=A.dtype)  # key t is seen by the T − t queries s ≥ t
    last = A[-1]
    if close(got, last.mean(0).mean(-1)):
        raise Mismatch(
            "that averages each row, over the keys t: every row sums to 1, so every token gets 1/T. "
            "Average each column, over the queries s (dim −2)"
        )
    if close(got, last.mean(0).sum(0) / seen_by):
        raise Mismatch(
            "that divides by the T − t queries that can see token t: the importance divides by T, every "
            "query counts (which is why it favours early tokens)"
        )
    if close(got, last.mean(0).sum(0)):
        raise Mismatch("that sums over the queries s: divide by T, the number of queries (a mean)")
    if L > 1 and close(got, A[0].mean(0).mean(0)):
        raise Mismatch("that reads the first layer: the importance uses the last layer's heads, A[-1]")
    if L > 1 and close(got, A.mean((0, 1)).mean(0)):
        raise Mismatch("that averages over the layers too: use the last layer's heads only, A[-1]")
    if H > 1 and close(got, last.sum(0).mean(0)):
        raise Mismatch("that sums the heads: average them (mean over dim 0 of A[-1])")
    if got.shape == (H, T):
        raise Mismatch("one number per head: average over the heads too, one number per token [T]")


@checker("attention importance", reference=attention_importance)
def check_attention_importance(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 08: ``fn(A)`` with ``A [L, H, T, T]`` → ``[T]``, raw_t = (1/T) Σ_s mean_h A_L[s, t]."""
    for seed, L, H, T in CASES:
        A = _causal_maps(seed, L, H, T)
        got = fn(A.float())
        want = attention_importance(A)
        if isinstance(got, Tensor) and not close(got, want):
            _diagnose(got, A)
        expect_close("importance", got, want)
    return len(CASES)
