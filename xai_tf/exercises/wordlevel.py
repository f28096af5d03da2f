"""Checkers for lesson 07: word-level attention, attention rollout."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


@checker("word-level attention")
def check_word_attention(fn: Callable[[Tensor, list[list[int]]], Tensor]) -> int:
    """Lesson 07: ``fn(attn [T, T], groups)`` → word attention [W, W]: summed over the pieces of the
    attended word, averaged over the pieces of the attending word."""
    from xai_tf.explain.wordlevel import word_attention

    gen = torch.Generator().manual_seed(0)
    runs = [
        (torch.randn(5, 5, generator=gen).softmax(-1), [[0], [1, 2], [3], [4]]),
        (torch.randn(6, 6, generator=gen).softmax(-1), [[0, 1, 2], [3, 4], [5]]),
        (torch.randn(3, 3, generator=gen).softmax(-1), [[0], [1], [2]]),
    ]
    for A, groups in runs:
        want = word_attention(A, groups)
        got = fn(A.clone(), groups)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
            sums = got.sum(-1)
            if (sums - 1).abs().max() > 1e-4:
                worst = int((sums - 1).abs().argmax())
                raise Mismatch(
                    f"row {worst} sums to {sums[worst]:.3f}: sum over the attended word's pieces "
                    "(columns), average over the attending word's pieces (rows)"
                )
        expect_close("Ã", got, want)
    return len(runs)


@checker("attention rollout")
def check_rollout(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 07: ``fn(attentions [L, H, T, T])`` → R = Â_L ⋯ Â_1 with Â_l = ½ mean_h A_l + ½ I."""
    from xai_tf.explain.wordlevel import attention_rollout, residual_attention

    gen = torch.Generator().manual_seed(1)
    stacks = [torch.randn(L, 2, T, T, generator=gen).softmax(-1) for L, T in [(1, 3), (2, 4), (4, 5)]]
    for attentions in stacks:
        want = attention_rollout(attentions)
        got = fn(attentions.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
            A_hat = residual_attention(attentions)
            reversed_order = torch.linalg.multi_dot([*A_hat, torch.eye(A_hat.size(-1))])
            if len(A_hat) > 1 and close(got, reversed_order, atol=1e-5):
                raise Mismatch("the product runs the wrong way: R = Â_L ⋯ Â_1 (later layers on the left)")
            plain = torch.eye(A_hat.size(-1))
            for A in attentions.mean(1):
                plain = A @ plain
            if close(got, plain, atol=1e-5):
                raise Mismatch("add the residual: Â = ½ A + ½ I before multiplying")
        expect_close("R", got, want)
    return len(stacks)
