"""Checkers for lesson 00's exercise: the next-token distribution."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


@checker("next-token probabilities")
def check_next_token_probs(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 00: ``fn(logits [T, vocab])`` → the next-token distribution ``[vocab]``."""
    gen = torch.Generator().manual_seed(0)
    shapes = [(1, 5), (4, 7), (3, 50)]
    for T, vocab in shapes:
        logits = torch.randn(T, vocab, generator=gen) * 3
        got = fn(logits.clone())
        if isinstance(got, Tensor) and got.shape == (vocab,):
            total = got.sum().item()
            if close(got, logits.softmax(0)[-1]):
                raise Mismatch(
                    "that softmax ran over the positions (dim 0): take it over the vocabulary, dim=-1"
                )
            if abs(total - 1) > 1e-5:
                raise Mismatch(f"the probabilities sum to {total:.4f}, not 1 (softmax?)")
            if T > 1 and close(got, logits[0].softmax(-1)):
                raise Mismatch("you used the first position; the next token follows the last")
        expect_close("probs", got, logits[-1].softmax(-1))
    return len(shapes)
