"""Checkers for lesson 15: the induction and previous-token scores of every head from its attention
patterns, the K-composition score, mean ablation of one head, the normalised logit difference and
attribution patching's first-order estimate."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.circuits.composition import k_composition
from xai_tf.circuits.induction import induction_scores, previous_token_scores
from xai_tf.circuits.steps import first_order_estimate, mean_ablate, normalised_logit_difference
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


@checker("induction score", reference=induction_scores)
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


@checker("previous-token score", reference=previous_token_scores)
def check_previous_token_scores(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 15: ``fn(pattern)`` with ``pattern [layers, batch, heads, T, T]`` → ``[layers, heads]``, the
    mean over the batch and t = 1..T−1 of A[t, t − 1]."""
    for seed in (3, 4):
        pattern = _patterns(seed)
        got = fn(pattern.clone())
        want = previous_token_scores(pattern)
        T = pattern.size(-1)
        below = pattern.diagonal(-1, -2, -1)  # A[t, t − 1], t = 1..T−1
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, pattern.diagonal(1, -2, -1).mean(dim=(1, 3))):
                raise Mismatch(
                    "that reads A[t − 1, t], above the diagonal, where a causal head puts nothing: "
                    "the query is row t, the previous token column t − 1"
                )
            if close(got, pattern.diagonal(0, -2, -1).mean(dim=(1, 3))):
                raise Mismatch("that is attention to the token itself, A[t, t]: look one token back")
            if close(got, below.sum(-1).mean(1) / T):
                raise Mismatch("that divides by T: only the T − 1 positions t = 1..T−1 have a previous token")
            if close(got, below[..., T // 2 - 1 :].mean(dim=(1, 3))):
                raise Mismatch(
                    "that averages over the second half only: the score runs over every t = 1..T−1"
                )
        if isinstance(got, Tensor) and got.shape == pattern.shape[:3]:
            raise Mismatch("one score per head [layers, heads]: average over the batch (dim 1) too")
        expect_close("previous-token score", got, want, atol=1e-8)
    return 2


@checker("K-composition", reference=k_composition)
def check_k_composition(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 15: ``fn(W_QK, W_OV)`` → the 0-d tensor C_K = ‖W_QK W_OVᵀ‖_F / (‖W_QK‖_F ‖W_OV‖_F)."""
    g = torch.Generator().manual_seed(15)
    d, d_h = 6, 2
    cases = 3
    for _ in range(cases):
        U, V, U2 = (torch.randn(d, d_h, generator=g, dtype=torch.float64) for _ in range(3))
        W_QK, W_OV = U @ V.T, U2 @ torch.randn(d_h, d, generator=g, dtype=torch.float64)
        got = fn(W_QK.float(), W_OV.float())
        want = k_composition(W_QK, W_OV)
        fro = torch.linalg.matrix_norm
        if isinstance(got, Tensor) and got.numel() == 1 and not close(got.reshape(()), want):
            if close(got.reshape(()), fro(W_QK @ W_OV) / (fro(W_QK) * fro(W_OV))):
                raise Mismatch("W_OV is not transposed: the key reads x W_OV, so the product is W_QK W_OVᵀ")
            if close(got.reshape(()), fro(W_QK @ W_OV.T)):
                raise Mismatch("not normalised: divide by ‖W_QK‖_F ‖W_OV‖_F, so that C_K lies in [0, 1]")
        if isinstance(got, Tensor) and got.shape != ():
            raise Mismatch(f"return a 0-d tensor (one number), got shape {tuple(got.shape)}")
        expect_close("C_K", got, want)
    return cases


@checker("mean ablation", reference=mean_ablate)
def check_mean_ablate(fn: Callable[[Tensor, int], Tensor]) -> int:
    """Lesson 15: ``fn(z, head)`` with ``z [batch, heads, T, d_h]`` → a copy with head ``head`` replaced by
    its mean over the batch and the positions; ``z`` itself left unchanged."""
    g = torch.Generator().manual_seed(3)
    z = torch.randn(3, 4, 5, 2, generator=g, dtype=torch.float64) + 1
    for head in (0, 2):
        given = z.float()
        got = fn(given, head)
        want = mean_ablate(z, head)
        if not torch.equal(given, z.float()):
            raise Mismatch("your function changed z in place: clone it first (the model still needs its z)")
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            zeroed = z.clone()
            zeroed[:, head] = 0
            if close(got, zeroed):
                raise Mismatch("that is zero ablation: set the head to its mean, not to 0")
            per_sequence = z.clone()
            per_sequence[:, head] = z[:, head].mean(dim=1, keepdim=True)
            if close(got, per_sequence):
                raise Mismatch("the mean is over the positions only: average over the batch and positions")
            if not close(
                got[:, [h for h in range(4) if h != head]], want[:, [h for h in range(4) if h != head]]
            ):
                raise Mismatch(f"heads other than {head} changed: only head {head} is ablated")
        expect_close("z′", got, want)
    return 2


@checker("normalised logit difference", reference=normalised_logit_difference)
def check_normalised_logit_difference(fn: Callable[..., Tensor]) -> int:
    """Lesson 15: ``fn(logits, correct, wrong, ld_clean, ld_corrupted)`` with ``logits [batch, T, vocab]``
    → m ``[batch]`` = (LD − LD_corrupted) / (LD_clean − LD_corrupted), LD = z_T[correct] − z_T[wrong]."""
    g = torch.Generator().manual_seed(5)
    logits = torch.randn(3, 4, 7, generator=g, dtype=torch.float64) * 3
    cases = [(2, 5, 4.0, -1.5), (0, 6, -2.0, 3.0)]
    for c, w, clean, corrupted in cases:
        got = fn(logits.float(), c, w, clean, corrupted)
        want = normalised_logit_difference(logits, c, w, clean, corrupted)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            ld = logits[:, -1, c] - logits[:, -1, w]
            if close(got, 1 - want):
                raise Mismatch(
                    "that is 1 − m: 0 should mean 'as the corrupted run', so subtract LD_corrupted"
                )
            if close(got, ld):
                raise Mismatch(
                    "that is the raw LD: normalise it, (LD − LD_corrupted) / (LD_clean − LD_corrupted)"
                )
            first = (logits[:, 0, c] - logits[:, 0, w] - corrupted) / (clean - corrupted)
            if close(got, first):
                raise Mismatch(
                    "that reads the first position: the answer is predicted at the last, logits[:, -1]"
                )
        expect_close("m", got, want)
    return len(cases)


@checker("first-order estimate", reference=first_order_estimate)
def check_first_order_estimate(fn: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 15: ``fn(m_target, a_source, a_target, grad)`` with activations and gradient ``[layers, T, d]``
    and ``m_target`` 0-d or ``[layers, T]`` → ``[layers, T]``, m_target + Σ_d (a_source − a_target) · grad."""
    g = torch.Generator().manual_seed(6)
    a_source, a_target, grad = (torch.randn(2, 3, 4, generator=g, dtype=torch.float64) for _ in range(3))
    targets = [torch.tensor(0.25, dtype=torch.float64), torch.randn(2, 3, generator=g, dtype=torch.float64)]
    for m_target in targets:  # one number for the run, or one per cell
        got = fn(m_target.float(), a_source.float(), a_target.float(), grad.float())
        want = first_order_estimate(m_target, a_source, a_target, grad)
        if isinstance(got, Tensor) and got.shape == a_source.shape:
            raise Mismatch("one number per cell: sum the product over the last dim d, .sum(-1)")
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, first_order_estimate(m_target, a_target, a_source, grad)):
                raise Mismatch(
                    "the step has the wrong sign: it goes from a_target to a_source, a_source − a_target"
                )
            if close(got, want - m_target):
                raise Mismatch(
                    "that is the change in m only: add m_target, the metric of the run being patched"
                )
        expect_close("estimate", got, want)
    return len(targets)
