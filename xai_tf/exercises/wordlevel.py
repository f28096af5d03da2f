"""Checkers for lesson 07: word-level attention, the previous-token share of a head, the attention a
word receives, the residual-augmented attention Â and attention rollout."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain import wordlevel as wl


@checker("word-level attention", reference=wl.word_attention)
def check_word_attention(fn: Callable[[Tensor, list[list[int]]], Tensor]) -> int:
    """Lesson 07: ``fn(attn [T, T], groups)`` → word attention [W, W]: summed over the pieces of the
    attended word, averaged over the pieces of the attending word."""
    gen = torch.Generator().manual_seed(0)
    runs = [
        (torch.randn(5, 5, generator=gen).softmax(-1), [[0], [1, 2], [3], [4]]),
        (torch.randn(6, 6, generator=gen).softmax(-1), [[0, 1, 2], [3, 4], [5]]),
        (torch.randn(3, 3, generator=gen).softmax(-1), [[0], [1], [2]]),
    ]
    for A, groups in runs:
        want = wl.word_attention(A, groups)
        got = fn(A.clone(), groups)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
            if close(got, wl.word_attention(A.T, groups).T, atol=1e-5):
                raise Mismatch(
                    "summed over the attending word's pieces, averaged over the attended word's: "
                    "the other way round (sum to, average from)"
                )
            sums = got.sum(-1)
            if (sums - 1).abs().max() > 1e-4:
                worst = int((sums - 1).abs().argmax())
                raise Mismatch(
                    f"row {worst} sums to {sums[worst]:.3f}: sum over the attended word's pieces "
                    "(columns), average over the attending word's pieces (rows)"
                )
        expect_close("Ã", got, want)
    return len(runs)


@checker("attention rollout", reference=wl.attention_rollout)
def check_rollout(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 07: ``fn(attentions [L, H, T, T])`` → R = Â_L ⋯ Â_1 with Â_l = ½ mean_h A_l + ½ I."""
    gen = torch.Generator().manual_seed(1)
    stacks = [torch.randn(L, 2, T, T, generator=gen).softmax(-1) for L, T in [(1, 3), (2, 4), (4, 5)]]
    for attentions in stacks:
        want = wl.attention_rollout(attentions)
        got = fn(attentions.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
            A_hat = wl.residual_attention(attentions)
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


def _stacks(seed: int) -> list[Tensor]:
    """Random attention stacks [L, H, T, T] whose rows sum to 1 (not causal: A[i, i + 1] ≠ 0)."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(L, H, T, T, generator=gen).mul(2).softmax(-1) for L, H, T in [(1, 1, 3), (2, 3, 5)]]


@checker("previous-token share", reference=wl.previous_token_share)
def check_previous_token_share(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 07: ``fn(attentions [L, H, T, T])`` → mean_{i ≥ 1} A[i, i − 1] per layer and head [L, H]."""
    stacks = _stacks(2)
    for attentions in stacks:
        got = fn(attentions.clone())
        previous = attentions.double().diagonal(offset=-1, dim1=-2, dim2=-1)
        want = previous.mean(-1)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, attentions.double().diagonal(offset=1, dim1=-2, dim2=-1).mean(-1)):
                raise Mismatch("that is A[i, i + 1], the *next* token: the previous one is A[i, i − 1]")
            if close(got, previous.sum(-1) / attentions.size(-1)):
                raise Mismatch("divided by T: query 0 has no previous token, average over the T − 1 others")
        expect_close("prev", got, want)
    return len(stacks)


@checker("attention received", reference=wl.received_per_word)
def check_received_per_word(fn: Callable[[Tensor, list[list[int]]], Tensor]) -> int:
    """Lesson 07: ``fn(attentions [L, H, T, T], groups)`` → received(w) [W]: the attention to w's pieces,
    summed, averaged over queries, heads and layers."""
    cases = list(zip(_stacks(4), ([[0], [1, 2]], [[0, 1], [2], [3, 4]]), strict=True))
    for attentions, groups in cases:
        got = fn(attentions.clone(), groups)
        to_token = attentions.double().mean((0, 1)).mean(0)
        want = torch.stack([to_token[g].sum() for g in groups])
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, torch.stack([to_token[g].mean() for g in groups])):
                raise Mismatch("averaged over the word's pieces: attention *to* a word is summed over them")
            if close(got, want * attentions.size(-1)):
                raise Mismatch("summed over the queries: average over them (divide by T), so that Σ_w = 1")
            by_row = attentions.double().mean((0, 1)).mean(-1)
            if close(got, torch.stack([by_row[g].sum() for g in groups])):
                raise Mismatch("that is attention *given* (rows): a word receives along its columns")
        expect_close("received", got, want)
    return len(cases)


@checker("residual attention", reference=wl.residual_attention)
def check_residual_attention(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 07: ``fn(attentions [L, H, T, T])`` → Â_l = ½ mean_h A_l + ½ I [L, T, T]."""
    stacks = _stacks(5)
    for attentions in stacks:
        got = fn(attentions.clone())
        eye = torch.eye(attentions.size(-1), dtype=torch.float64)
        mean = attentions.double().mean(1)
        if isinstance(got, Tensor) and got.shape == mean.shape:
            if close(got, mean + eye):
                raise Mismatch("rows sum to 2: take ½ A + ½ I, not A + I")
            if attentions.size(1) > 1 and close(got, 0.5 * attentions.double().amax(1) + 0.5 * eye):
                raise Mismatch("that is the max over heads: rollout averages the heads (mean over dim 1)")
        expect_close("Â", got, 0.5 * mean + 0.5 * eye)
    return len(stacks)
