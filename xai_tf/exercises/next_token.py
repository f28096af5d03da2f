"""Checkers for lesson 00: the next-token distribution, the k most likely tokens, temperature, and
how surprised the model is by a text (surprisal, perplexity)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.transformer import logits as lg
from xai_tf.transformer.decoding import filtered_probs


@checker("next-token probabilities", reference=lg.last_position_probs)
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


@checker("top-k tokens", reference=lg.top_tokens)
def check_top_tokens(fn: Callable[[Tensor, int], tuple[Tensor, Tensor]]) -> int:
    """Lesson 00: ``fn(probs [D], k)`` → (ids [k], probabilities [k]), most likely first."""
    gen = torch.Generator().manual_seed(3)
    cases = [(8, 3), (20, 1), (30, 30)]
    for D, k in cases:
        probs = torch.randn(D, generator=gen).mul(2).softmax(-1)
        got = fn(probs.clone(), k)
        if got is None:
            raise Mismatch("returned None: did you forget to `return ids, probs`?")
        if not (isinstance(got, tuple | list) and len(got) == 2):
            raise Mismatch("return a pair (ids, probs)")
        ids, values = got
        want_values, want_ids = probs.double().sort(descending=True)
        if isinstance(ids, Tensor) and ids.is_floating_point():
            raise Mismatch("the first element should be the token ids (integers): return (ids, probs)")
        if isinstance(ids, Tensor) and k < D and torch.equal(ids.long().cpu(), probs.argsort()[:k]):
            raise Mismatch("those are the k *least* likely tokens: sort in descending order")
        if (
            isinstance(values, Tensor)
            and values.shape == (k,)
            and k > 1
            and close(values, want_values[:k].flip(0))
        ):
            raise Mismatch("most likely first: yours come in ascending order")
        if not (isinstance(ids, Tensor) and torch.equal(ids.long().cpu(), want_ids[:k])):
            raise Mismatch(f"ids should be {want_ids[:k].tolist()} for this case, got {ids!r}")
        expect_close("probs", values, want_values[:k])
    return len(cases)


@checker("temperature", reference=filtered_probs)
def check_temperature(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 00: ``fn(z [D], tau)`` → softmax(z / τ) [D]."""
    z = torch.tensor([2.0, 1.0, 0.5, -1.0, 3.0])
    taus = (1.0, 0.5, 2.0, 10.0)
    for tau in taus:
        got = fn(z.clone(), tau)
        want = torch.softmax(z.double() / tau, -1)
        if isinstance(got, Tensor) and got.shape == z.shape and tau != 1:
            if close(got, torch.softmax(z.double() * tau, -1)):
                raise Mismatch(f"at τ = {tau:g} that is softmax(z · τ): divide the logits by τ")
            if close(got, torch.softmax(z.double(), -1) / tau) or close(got, z.double() / tau):
                raise Mismatch("divide the logits by τ *before* the softmax: softmax(z / τ)")
        expect_close("p", got, want)
    return len(taus)


def _text(seed: int, T: int, D: int) -> tuple[Tensor, Tensor]:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(T, D, generator=g) * 2, torch.randint(0, D, (T,), generator=g)


def _surprisal_cases() -> list[tuple[Tensor, Tensor]]:
    return [_text(0, 5, 7), _text(1, 2, 4), _text(2, 9, 30)]


@checker("surprisal", reference=lg.surprisal)
def check_surprisal(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 00: ``fn(logits [T, D], ids [T])`` → s_t = −log softmax(z_t)[x_{t+1}], [T − 1]."""
    for logits, ids in _surprisal_cases():
        got = fn(logits.clone(), ids.clone())
        log_p = torch.log_softmax(logits.double(), -1)
        want = -log_p[:-1].gather(-1, ids[1:, None])[:, 0]
        if isinstance(got, Tensor) and got.shape == want.shape:
            same_position = -log_p.gather(-1, ids[:, None])[:, 0]
            if close(got, same_position[1:]) or close(got, same_position[:-1]):
                raise Mismatch("position t predicts the *next* token: score ids[t + 1] with logits[t]")
            if close(got, -want):
                raise Mismatch("the minus sign is missing: a surprisal is −log p, never negative")
            if close(got, want.neg().exp()):
                raise Mismatch("those are the probabilities p; the surprisal is −log p")
        expect_close("s", got, want)
    return 3


@checker("perplexity", reference=lg.perplexity)
def check_perplexity(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 00: ``fn(logits [T, D], ids [T])`` → exp(mean_t s_t), a 0-d tensor."""
    for logits, ids in _surprisal_cases():
        got = fn(logits.clone(), ids.clone())
        if isinstance(got, float | int) and not isinstance(got, bool):
            got = torch.tensor(float(got), dtype=torch.float64)
        s = lg.surprisal(logits.double(), ids)
        if isinstance(got, Tensor) and got.shape == ():
            if close(got, s.mean()):
                raise Mismatch("that is the mean surprisal: the perplexity is its exponential")
            if len(s) > 1 and close(got, s.sum().exp()):
                raise Mismatch("exp of the *sum*: average the surprisals over the T − 1 positions first")
        want = s.mean().exp()
        expect_close("PPL", got, want, atol=1e-5 * float(want))  # relative: PPL runs up to D
    return 3
