"""Checkers for lesson 16: Bahdanau's additive scores, the weights and context vector from scores, the
whole step, Luong's bilinear scores, the alignment error rate of link sets, one sentence's word losses
(exposure bias) and the length penalty of beam search.

The whole step:
The student writes ``fn(s, h, W_a, U_a, v_a, i)`` with the decoder states ``s`` [T+1, d] (row 0 is s_0),
the encoder states ``h`` [S, d], W_a, U_a [d_att, d], v_a [d_att] and a step i ≥ 1, and returns
(α_i [S], c_i [d]):

    e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j),   α_ij = softmax_j e_ij,   c_i = Σ_j α_ij h_j.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.seq2seq import step as sa
from xai_tf.seq2seq.attention import additive_attention
from xai_tf.seq2seq.decoding import length_penalty
from xai_tf.seq2seq.metrics import alignment_error_rate
from xai_tf.seq2seq.word_loss import word_losses


def _case(
    seed: int, dtype: torch.dtype, S: int = 5, T: int = 4, d: int = 6, d_att: int = 3
) -> tuple[Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
        for shape in ((T + 1, d), (S, d), (d_att, d), (d_att, d), (d_att,))
    )


def _reference(case: tuple[Tensor, ...], i: int) -> tuple[Tensor, Tensor]:
    s, h, W_a, U_a, v_a = case
    alpha, c = additive_attention(
        s[i - 1][None].double(), h[None].double(), W_a.double(), U_a.double(), v_a.double()
    )
    return alpha[0], c[0]


@checker("additive attention", reference=sa.additive_step)
def check_additive_attention(fn: Callable[..., tuple[Tensor, Tensor]]) -> int:
    """Lesson 16: ``fn(s, h, W_a, U_a, v_a, i)`` → (α_i [S], c_i [d]) for s_{i−1} = s[i − 1]."""
    n = 0
    for seed, dtype, i in ((0, torch.float64, 1), (1, torch.float64, 3), (2, torch.float32, 2)):
        case = _case(seed, dtype)
        got = fn(*(t.clone() for t in case), i)
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return alpha, c`?")
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise Mismatch("return two tensors: (alpha of shape [S], c of shape [d])")
        alpha, c = got
        want_alpha, want_c = _reference(case, i)
        exact = all(isinstance(t, Tensor) and t.dtype == torch.float64 for t in (alpha, c))
        atol = 1e-10 if dtype == torch.float64 and exact else 1e-5  # the tolerance follows the dtype
        if isinstance(alpha, Tensor) and alpha.shape == want_alpha.shape:
            a = alpha.double()
            if torch.allclose(a, torch.ones_like(a)):
                raise Mismatch(
                    "every α_ij is 1: softmax over the wrong axis (normalise over the source words j)"
                )
            if not torch.isclose(a.sum(), torch.tensor(1.0, dtype=torch.float64), atol=1e-4):
                raise Mismatch(
                    f"α sums to {float(a.sum()):.4g}, not 1: the softmax must run over the source words j"
                )
            if i < case[0].size(0) and torch.allclose(a, _reference(case, i + 1)[0], atol=atol):
                raise Mismatch(
                    "that scores s_i, the state after step i: "
                    "Bahdanau scores the previous state s_{i−1} = s[i − 1]"
                )
        expect_close("alpha", alpha, want_alpha, atol=atol)
        expect_close("c", c, want_c, atol=atol)
        n += 1
    return n


@checker("additive scores", reference=sa.additive_scores)
def check_additive_scores(fn: Callable[..., Tensor]) -> int:
    """Lesson 16: ``fn(s_prev [d], h [S, d], W_a, U_a [d_att, d], v_a [d_att])`` → e [S]."""
    for seed in (3, 4):
        s, h, W_a, U_a, v_a = _case(seed, torch.float32)
        got = fn(s[0].clone(), h.clone(), W_a.clone(), U_a.clone(), v_a.clone())
        s0, hd, Wd, Ud, vd = (t.double() for t in (s[0], h, W_a, U_a, v_a))
        want = torch.tanh(Wd @ s0 + hd @ Ud.T) @ vd
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, (Wd @ s0 + hd @ Ud.T) @ vd):
                raise Mismatch("the tanh is missing: e_j = v_aᵀ tanh(W_a s_{i−1} + U_a h_j)")
            if close(got, torch.tanh(Ud @ s0 + hd @ Wd.T) @ vd):
                raise Mismatch("W_a and U_a are swapped: W_a multiplies the decoder state, U_a the h_j")
        expect_close("e", got, want)
    return 2


@checker("context vector", reference=sa.context_vector)
def check_context_vector(fn: Callable[[Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 16: ``fn(e [S], h [S, d])`` → (α = softmax(e) [S], c = Σ_j α_j h_j [d])."""
    g = torch.Generator().manual_seed(6)
    cases = [(torch.randn(S, generator=g) * 2, torch.randn(S, 4, generator=g)) for S in (1, 5)]
    for e, h in cases:
        got = fn(e.clone(), h.clone())
        if got is None:
            raise Mismatch("returned None: did you forget to `return alpha, c`?")
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise Mismatch("return two tensors: (alpha of shape [S], c of shape [d])")
        alpha, c = got
        want_alpha = torch.softmax(e.double(), 0)
        want_c = want_alpha @ h.double()
        if isinstance(c, Tensor) and c.shape == want_c.shape and not close(c, want_c):
            if close(c, e.double() @ h.double()):
                raise Mismatch("c used the raw scores e as weights: turn them into α = softmax(e) first")
            if close(c, h.double().mean(0)):
                raise Mismatch("c is the plain mean of the h_j: weight each h_j by its α_j")
        expect_close("alpha", alpha, want_alpha)
        expect_close("c", c, want_c)
    return len(cases)


@checker("bilinear scores", reference=sa.bilinear_scores)
def check_bilinear_scores(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 16: ``fn(s_prev [d], h [S, d], W_a [d, d])`` → e_j = s_{i−1}ᵀ W_a h_j, [S]."""
    g = torch.Generator().manual_seed(9)
    for S, d in ((4, 3), (6, 5)):
        s_prev, h, W_a = (
            torch.randn(d, generator=g),
            torch.randn(S, d, generator=g),
            torch.randn(d, d, generator=g),
        )
        got = fn(s_prev.clone(), h.clone(), W_a.clone())
        sd, hd, Wd = s_prev.double(), h.double(), W_a.double()
        if isinstance(got, Tensor) and got.shape == (S,):
            if close(got, hd @ sd):
                raise Mismatch("that is the dot score s_{i−1}ᵀ h_j: put W_a between them")
            if close(got, (hd @ Wd) @ sd):
                raise Mismatch("W_a is transposed: e_j = s_{i−1}ᵀ (W_a h_j), i.e. (h @ W_a.T) @ s_prev")
        expect_close("e", got, (hd @ Wd.T) @ sd)
    return 2


def _links() -> list[tuple[list[set[tuple[int, int]]], list[set[tuple[int, int]]]]]:
    """(predicted, sure) corpora: one sentence, then two of different sizes (so that averaging the
    sentences' AERs differs from the corpus AER)."""
    return [
        ([{(0, 0), (1, 2), (2, 1)}], [{(0, 0), (1, 1), (2, 1), (2, 2)}]),
        (
            [{(0, 0), (1, 1)}, {(0, 0), (1, 2), (2, 2), (3, 3), (4, 4)}],
            [{(0, 0), (1, 1)}, {(0, 1), (1, 2), (2, 2), (3, 4), (4, 4), (4, 3)}],
        ),
    ]


@checker("alignment error rate", reference=alignment_error_rate)
def check_aer(fn: Callable[[list, list], object]) -> int:
    """Lesson 16: ``fn(predicted, sure)`` (lists of link sets, one per sentence) → AER with P = S,
    1 − 2 Σ|A ∩ S| / (Σ|A| + Σ|S|), summed over the corpus."""
    for predicted, sure in _links():
        got = fn([set(a) for a in predicted], [set(s) for s in sure])
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the AER?")
        if isinstance(got, Tensor):
            got = got.reshape(()) if got.numel() == 1 else got
        elif isinstance(got, float | int) and not isinstance(got, bool):
            got = torch.tensor(float(got), dtype=torch.float64)
        both = sum(len(a & s) for a, s in zip(predicted, sure, strict=True))
        size = sum(map(len, predicted)) + sum(map(len, sure))
        want = torch.tensor(1 - 2 * both / size, dtype=torch.float64)
        if isinstance(got, Tensor) and got.shape == ():
            if close(got, 1 - want):
                raise Mismatch("that is 1 − AER, the agreement (F1): AER is an error rate, 0 is perfect")
            recall = both / sum(map(len, sure))
            if close(got, torch.tensor(1 - recall, dtype=torch.float64)):
                raise Mismatch("that is 1 − |A ∩ S| / |S| (recall only): divide 2|A ∩ S| by |A| + |S|")
            per_sentence = [
                1 - 2 * len(a & s) / (len(a) + len(s)) for a, s in zip(predicted, sure, strict=True)
            ]
            if len(predicted) > 1 and close(got, torch.tensor(sum(per_sentence) / len(per_sentence))):
                raise Mismatch("the mean of the sentences' AERs: sum the counts over the corpus, then divide")
        expect_close("AER", got, want)
    return 2


@checker("word losses", reference=word_losses)
def check_word_losses(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 16: ``fn(logits [T, V], targets [T])`` → ℓ_i = −log softmax(z_i)_{y_i} ``[T]``, finite for
    logits as large as the hundreds."""
    g = torch.Generator().manual_seed(8)
    cases = [(torch.randn(5, 7, generator=g) * 3, torch.randint(0, 7, (5,), generator=g))]
    cases.append((torch.randn(4, 6, generator=g) * 100, cases[0][1][:4] % 6))
    for z, y in cases:
        want = word_losses(z.double(), y)
        got = fn(z.clone(), y.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            picked = z.double().gather(1, y[:, None])[:, 0]
            if not got.isfinite().all():
                raise Mismatch("inf or NaN for large logits: log(softmax(z)) underflows; use log_softmax")
            if close(got, -picked):
                raise Mismatch("that is −z_{i,y_i}: normalise first, ℓ_i = −log softmax(z_i)_{y_i}")
            if close(got, -want):
                raise Mismatch("the sign: ℓ_i = −log p(y_i | …) is ≥ 0")
            if close(got, -torch.softmax(z.double(), -1).gather(1, y[:, None])[:, 0]):
                raise Mismatch("that is −p(y_i): take the log of the probability")
            if close(got, -torch.log_softmax(z.double(), 0).gather(1, y[:, None])[:, 0]):
                raise Mismatch("normalised over the positions: the softmax runs over the vocabulary (dim=-1)")
        if isinstance(got, Tensor) and got.shape == ():
            raise Mismatch(f"one number: return one loss per position, shape {tuple(want.shape)} (no mean)")
        expect_close("ℓ", got, want)
    return len(cases)


@checker("length penalty", reference=length_penalty)
def check_length_penalty(fn: Callable[[int, float], object]) -> int:
    """Lesson 16: ``fn(length, alpha)`` → lp(y) = ((5 + |y|)/6)^α (a number)."""
    cases = [(1, 1.0), (7, 1.0), (12, 0.6), (30, 2.0), (4, 0.0)]
    for length, alpha in cases:
        got = fn(length, alpha)
        if isinstance(got, float | int) and not isinstance(got, bool):
            got = torch.tensor(float(got), dtype=torch.float64)
        elif isinstance(got, Tensor) and got.numel() == 1:
            got = got.reshape(())
        want = torch.tensor(length_penalty(length, alpha), dtype=torch.float64)
        if isinstance(got, Tensor) and got.shape == () and not close(got, want):
            if close(got, torch.tensor((5.0 + length) ** alpha)):
                raise Mismatch("divide by 6: lp = ((5 + |y|)/6)^α, which is 1 for a one-word output")
            if close(got, torch.tensor(alpha * (5.0 + length) / 6)):
                raise Mismatch("α is the exponent: ((5 + |y|)/6)^α, not α (5 + |y|)/6")
            if close(got, torch.tensor(float(length) ** alpha)):
                raise Mismatch("the 5 and the 6 are missing: lp = ((5 + |y|)/6)^α, not |y|^α")
        expect_close("lp", got, want)
    return len(cases)
