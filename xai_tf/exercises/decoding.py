"""Checkers for lesson 05: the greedy step, a draw by the inverse CDF, the top-k and top-p (nucleus)
filters, a beam-search step, the length penalty, and appending to the key/value cache."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.transformer import decoding_steps as steps
from xai_tf.transformer.decoding import top_k_filter, top_p_filter


def _expect_filtered(name: str, got: object, logits: Tensor, want: Tensor) -> None:
    """Shared diagnosis for logit filters: what was removed must be −∞, what was kept unchanged."""
    if isinstance(got, Tensor) and got.shape == want.shape:
        removed, kept = torch.isinf(want), torch.isfinite(want)
        if (got[removed] == 0).any():
            raise Mismatch("removed tokens should get the logit −inf, not 0 (0 is an ordinary logit)")
        if not close(got[kept & torch.isfinite(got)], logits[kept & torch.isfinite(got)]):
            raise Mismatch("kept logits must stay as they were: return logits, not probabilities")
        n_got, n_want = torch.isfinite(got).sum(-1).flatten(), kept.sum(-1).flatten()
        hint = ""
        if name == "top-p" and bool((n_got < n_want).any()):
            hint = (
                "; you dropped the token that crosses p: keep a token while the mass *before* it is below p"
            )
        if (n_got == 0).any():
            raise Mismatch(f"a row keeps no token at all: at least one must survive{hint}")
        if (n_got != n_want).any():
            row = int((n_got != n_want).nonzero()[0, 0])
            raise Mismatch(
                f"{name} keeps {int(n_got[row])} tokens in row {row}, expected {int(n_want[row])}{hint}"
            )
    expect_close(f"{name}(logits)", got, want)


@checker("top-k filter", reference=top_k_filter)
def check_top_k_filter(fn: Callable[[Tensor, int], Tensor]) -> int:
    """Lesson 05: ``fn(logits, k)`` keeps the k largest logits of the last dim, −inf elsewhere
    (ties at the k-th value: the lower token id wins)."""
    gen = torch.Generator().manual_seed(0)
    z = torch.randn(10, generator=gen) * 2
    runs = [(z, 1), (z, 3), (z, 10), (torch.randn(2, 8, generator=gen), 2)]
    runs.append((torch.tensor([1.0, 2.0, 2.0, 2.0, 0.0]), 2))  # a tie: tokens 1 and 2 are kept
    for logits, k in runs:
        _expect_filtered("top-k", fn(logits.clone(), k), logits, top_k_filter(logits, k))
    return len(runs)


@checker("top-p filter", reference=top_p_filter)
def check_top_p_filter(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 05: ``fn(logits, p)`` keeps the smallest set of most likely tokens whose probability
    reaches p (always at least one), −inf elsewhere."""
    z = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
    runs = [(z, 0.5), (z, 0.6), (z, 0.9), (z, 1.0), (z, 1e-4)]
    runs.append((torch.randn(3, 12, generator=torch.Generator().manual_seed(1)) * 2, 0.7))
    for logits, p in runs:
        _expect_filtered("top-p", fn(logits.clone(), p), logits, top_p_filter(logits, p))
    return len(runs)


def _ids(got: object) -> object:
    """A token id returned as a Python int, as a tensor (a 1-D distribution's answer)."""
    return torch.tensor(got) if isinstance(got, int) and not isinstance(got, bool) else got


@checker("greedy step", reference=steps.greedy_step)
def check_greedy_step(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 05: ``fn(logits)`` → the id of the largest logit along the last dim (ties: the lower id)."""
    gen = torch.Generator().manual_seed(5)
    runs = [
        torch.randn(3, 8, generator=gen) * 2,
        torch.randn(10, generator=gen),
        torch.tensor([1.0, 3, 3, 0]),
    ]
    for z in runs:
        got, want = _ids(fn(z.clone())), z.argmax(-1)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if (
                got.is_floating_point()
                and close(got, z.max(-1).values)
                and not close(got, want.to(got.dtype))
            ):
                raise Mismatch("that is the largest logit itself: return its position, the token id (argmax)")
            if torch.equal(got.long(), z.argmin(-1)):
                raise Mismatch("that is the least likely token: greedy takes the argmax, not the argmin")
            tied = z.gather(-1, got.long().clamp(0, z.size(-1) - 1)[..., None])[..., 0] == z.max(-1).values
            if bool(tied.all()) and not torch.equal(got.long(), want):
                raise Mismatch("tokens tied for the largest logit: take the lower id (as torch.argmax does)")
        if isinstance(got, Tensor) and z.dim() == 2 and got.shape == z.shape[1:]:
            raise Mismatch("the argmax ran over the rows (dim 0): take it over the vocabulary, dim=-1")
        expect_close("token id", got, want)
    return len(runs)


@checker("a draw by the inverse CDF", reference=steps.sample_by_inverse_cdf)
def check_sample_by_inverse_cdf(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 05: ``fn(probs, u)`` → the first token v whose cumulative probability Σ_{j≤v} p_j exceeds u."""
    gen = torch.Generator().manual_seed(6)
    p = torch.tensor([0.1, 0.2, 0.3, 0.4])
    runs = [
        (p.expand(5, 4), torch.tensor([0.05, 0.15, 0.45, 0.65, 0.95])),
        (torch.tensor([0.0, 0.5, 0.0, 0.5]).expand(2, 4), torch.tensor([0.2, 0.7])),
        (torch.tensor([0.25, 0.75]), torch.tensor(0.6)),
    ]
    probs = torch.softmax(torch.randn(6, 50, generator=gen) * 2, -1)
    u = torch.rand(6, generator=gen)
    cdf = probs.double().cumsum(-1)  # keep u away from the edges, where float32 rounding may decide
    near = ((cdf - u.double()[:, None]).abs() < 1e-4).any(-1)
    runs.append((probs, torch.where(near, u * 0.99, u)))
    for probs, u in runs:
        got, want = _ids(fn(probs.clone(), u.clone())), steps.sample_by_inverse_cdf(probs, u)
        if isinstance(got, Tensor) and got.shape == want.shape and not torch.equal(got.long(), want):
            got = got.long()
            if torch.equal(got, probs.argmax(-1)):
                raise Mismatch("that is the most likely token every time (greedy): the draw u must decide")
            if torch.equal(got, (u * probs.size(-1)).long()):
                raise Mismatch(
                    "that picks a token uniformly (⌊u·V⌋): the probabilities must set the intervals"
                )
            if bool((got == want + 1).any()) and bool((got >= want).all()):
                raise Mismatch(
                    "one token too far: the cumulative sum Σ_{j≤v} p_j includes p_v itself (take the first v "
                    "where it exceeds u)"
                )
        expect_close("token id", got, want)
    return len(runs)


def _expect_tensors(got: object, n: int, names: str) -> tuple[Tensor, ...]:
    """``got`` as a tuple of ``n`` tensors (``names`` says which), else a Mismatch saying what came back."""
    if got is None:
        raise Mismatch("returned None: did you forget to `return` it?")
    if not (isinstance(got, tuple) and len(got) == n and all(isinstance(x, Tensor) for x in got)):
        raise Mismatch(f"return a tuple of {n} tensors ({names})")
    return got


def _chosen(total: Tensor, beam_width: int) -> tuple[Tensor, Tensor]:
    """The (row, token) pairs of the ``beam_width`` best entries of ``total`` ``[B, V]``, as sorted pairs."""
    best = total.flatten().argsort(descending=True, stable=True)[:beam_width]
    return best // total.size(1), best % total.size(1)


def _pairs(rows: Tensor, tokens: Tensor) -> list[tuple[int, int]]:
    return sorted(zip(rows.long().tolist(), tokens.long().tolist(), strict=True))


@checker("beam step", reference=steps.beam_step)
def check_beam_step(fn: Callable[[Tensor, Tensor, int], tuple[Tensor, Tensor, Tensor]]) -> int:
    """Lesson 05: ``fn(log_p [B], logits [B, V], beam_width)`` → ``(rows, tokens, new_log_p)`` of the
    beam_width best extensions by log_p[b] + log_softmax(logits[b])[v] (in any order; best first is usual)."""
    gen = torch.Generator().manual_seed(7)
    runs = [
        (torch.tensor([-1.0, -1.5, -4.0]), torch.randn(3, 7, generator=gen) * 2, 4),
        (torch.zeros(1), torch.randn(1, 7, generator=gen) * 2, 3),
        (torch.tensor([-0.5, -2.0]), torch.randn(2, 5, generator=gen), 10),
    ]
    for log_p, logits, beam_width in runs:
        rows, tokens, new_log_p = _expect_tensors(
            fn(log_p.clone(), logits.clone(), beam_width), 3, "rows, tokens, new_log_p"
        )
        B = len(log_p)
        if rows.shape == tokens.shape == new_log_p.shape == (B * beam_width,) and B > 1:
            raise Mismatch(
                f"{B * beam_width} extensions: keep beam_width = {beam_width} in all, the best over every "
                "hypothesis, not beam_width per hypothesis"
            )
        if rows.shape == tokens.shape == new_log_p.shape == (beam_width,):
            order = new_log_p.argsort(descending=True, stable=True)  # any order is right: compare sorted
            rows, tokens, new_log_p = rows[order], tokens[order], new_log_p[order]
            right = _pairs(*_chosen(log_p[:, None] + logits.log_softmax(-1), beam_width))
            raw = log_p[:, None] + logits
            if _pairs(rows, tokens) == _pairs(*_chosen(raw, beam_width)) and close(
                new_log_p, raw.flatten().sort(descending=True).values[:beam_width]
            ):
                raise Mismatch(
                    "you added raw logits: a hypothesis's score adds log-probabilities, log_softmax"
                )
            alone = logits.log_softmax(-1)
            if _pairs(rows, tokens) == _pairs(*_chosen(alone, beam_width)) != right:
                raise Mismatch(
                    "you ranked the extensions by the new token's log-probability alone: add the log p of "
                    "the hypothesis each extends"
                )
        want_rows, want_tokens, want_log_p = steps.beam_step(log_p.double(), logits.double(), beam_width)
        expect_close("rows", rows, want_rows)
        expect_close("tokens", tokens, want_tokens)
        expect_close("new_log_p", new_log_p, want_log_p)
    return len(runs)


@checker("length penalty", reference=steps.length_penalised)
def check_length_penalised(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 05: ``fn(log_p, n, alpha)`` → log_p / n^α, elementwise."""
    log_p, n = torch.tensor([-3.0, -7.5, -12.0]), torch.tensor([2, 5, 9])
    alphas = [0.6, 0.0, 1.0, 2.0]
    for alpha in alphas:
        got = fn(log_p.clone(), n.clone(), alpha)
        if isinstance(got, Tensor) and got.shape == log_p.shape and alpha not in (0.0, 1.0):
            if close(got, log_p * n**alpha):
                raise Mismatch(
                    "you multiplied by n^α: divide, s = log p / n^α (log p < 0, so dividing helps long texts)"
                )
            if close(got, log_p / n):
                raise Mismatch(f"you divided by n: divide by n^α, here n^{alpha:g}")
            if close(got, log_p / n * alpha) or close(got, log_p / (n * alpha)):
                raise Mismatch("α is an exponent: n^α, not α · n")
        expect_close(f"s (α = {alpha:g})", got, log_p.double() / n.double() ** alpha)
    return len(alphas)


@checker("appending to the key/value cache", reference=steps.append_kv)
def check_append_kv(fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 05: ``fn(past_k, past_v, k, v)`` → ``(K, V)``, the new positions appended after the stored
    ones along dim 2 of ``[batch, heads, T, d_h]``."""
    gen = torch.Generator().manual_seed(8)
    runs = [((3, 1, 1, 2), 1), ((2, 3, 4, 5), 1), ((1, 2, 6, 4), 3)]  # first: a wrong dim still concatenates
    for (b, h, t, d), new in runs:
        past_k, past_v = torch.randn(b, h, t, d, generator=gen), torch.randn(b, h, t, d, generator=gen)
        k, v = torch.randn(b, h, new, d, generator=gen), torch.randn(b, h, new, d, generator=gen)
        K, V = _expect_tensors(fn(past_k.clone(), past_v.clone(), k.clone(), v.clone()), 2, "K, V")
        want_K, want_V = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        if close(K, k) and close(V, v):
            raise Mismatch("you returned only the new keys and values: append them to the stored ones")
        if K.shape != want_K.shape and K.dim() == 4:
            grew = "".join(f" (yours grew dim {i})" for i in range(4) if K.shape[i] > past_k.shape[i])
            raise Mismatch(
                f"K has shape {tuple(K.shape)}, expected {tuple(want_K.shape)}: append along the positions, "
                f"dim 2 of [batch, heads, T, d_h]{grew}"
            )
        if close(K, torch.cat([k, past_k], 2)):
            raise Mismatch("the new positions go after the stored ones: torch.cat([past_k, k], dim=2)")
        if close(K, want_V) and close(V, want_K):
            raise Mismatch("K and V are swapped: return (K, V)")
        expect_close("K", K, want_K)
        expect_close("V", V, want_V)
    return len(runs)
