"""Lesson 05's checkers (issue 54): each names its typical mistakes, and accepts a right answer written
as a loop into a float32 table as well as vectorised (the lesson's own solutions, in every dtype, are
passed by test_exercises.py's generic tests)."""

import math

import pytest
import torch
from test_exercises import _rejects_with

from xai_tf.exercises import decoding


def _greedy_loop(z):
    rows = z.reshape(-1, z.shape[-1]).tolist()
    ids = [max(range(len(r)), key=lambda v, r=r: (r[v], -v)) for r in rows]
    return torch.tensor(ids).reshape(z.shape[:-1])


def _greedy_sorted_unstable(z):  # the last of the tied tokens
    flipped = z.flip(-1).argmax(-1)
    return z.shape[-1] - 1 - flipped


def _inverse_cdf_loop(probs, u):
    rows, us = probs.reshape(-1, probs.shape[-1]).tolist(), u.reshape(-1).tolist()
    out = []
    for row, x in zip(rows, us, strict=True):
        total, pick = 0.0, len(row) - 1
        for v, p in enumerate(row):
            total += p
            if total > x:
                pick = v
                break
        out.append(pick)
    return torch.tensor(out).reshape(u.shape)


def _inverse_cdf_exclusive(probs, u):  # the mass *before* v exceeds u: one token too far
    before = probs.cumsum(-1) - probs
    return (before <= u[..., None]).sum(-1).clamp(max=probs.shape[-1] - 1)


def _beam_loop(log_p, logits, beam_width):
    log_sm = logits.log_softmax(-1)
    table = [
        (float(log_p[b]) + float(log_sm[b, v]), b, v)
        for b in range(logits.shape[0])
        for v in range(logits.shape[1])
    ]
    best = sorted(table, key=lambda e: -e[0])[:beam_width]
    return (
        torch.tensor([b for _, b, _ in best]),
        torch.tensor([v for _, _, v in best]),
        torch.tensor([s for s, _, _ in best], dtype=torch.float32),
    )


def _beam_worst_first(log_p, logits, beam_width):
    rows, tokens, scores = decoding.steps.beam_step(log_p, logits, beam_width)
    return rows.flip(0), tokens.flip(0), scores.flip(0)


def _beam_alone(log_p, logits, beam_width):  # ranks by the new token's log-probability only
    log_sm = logits.log_softmax(-1)
    best = log_sm.flatten().argsort(descending=True)[:beam_width]
    rows, tokens = best // logits.shape[1], best % logits.shape[1]
    return rows, tokens, log_p[rows] + log_sm[rows, tokens]


def _beam_raw(log_p, logits, beam_width):  # raw logits, not log-probabilities
    total = (log_p[:, None] + logits).flatten()
    best = total.argsort(descending=True)[:beam_width]
    return best // logits.shape[1], best % logits.shape[1], total[best]


def _beam_per_hypothesis(log_p, logits, beam_width):
    scores, tokens = (log_p[:, None] + logits.log_softmax(-1)).topk(beam_width, -1)
    return torch.arange(len(log_p)).repeat_interleave(beam_width), tokens.flatten(), scores.flatten()


def _penalty_loop(log_p, n, alpha):
    return torch.tensor([lp / m**alpha for lp, m in zip(log_p.tolist(), n.tolist(), strict=True)])


def _append_loop(past_k, past_v, k, v):  # position by position into preallocated float32 tables
    T = past_k.shape[2] + k.shape[2]
    K, V = (
        torch.zeros(*past_k.shape[:2], T, past_k.shape[3]),
        torch.zeros(*past_k.shape[:2], T, past_k.shape[3]),
    )
    for t in range(T):
        old = t < past_k.shape[2]
        K[:, :, t] = past_k[:, :, t] if old else k[:, :, t - past_k.shape[2]]
        V[:, :, t] = past_v[:, :, t] if old else v[:, :, t - past_k.shape[2]]
    return K, V


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (
            decoding.check_greedy_step,
            lambda z: z.max(-1).values,
            "the largest logit itself: return its position",
        ),
        (decoding.check_greedy_step, lambda z: z.argmin(-1), "not the argmin"),
        (decoding.check_greedy_step, lambda z: z.argmax(0), r"ran over the rows \(dim 0\)"),
        (decoding.check_greedy_step, _greedy_sorted_unstable, "take the lower id"),
        (decoding.check_greedy_step, lambda z: None, "token id is None"),
        (
            decoding.check_sample_by_inverse_cdf,
            lambda p, u: p.argmax(-1),
            r"the most likely token every time \(greedy\)",
        ),
        (
            decoding.check_sample_by_inverse_cdf,
            lambda p, u: (u * p.shape[-1]).long(),
            "picks a token uniformly",
        ),
        (decoding.check_sample_by_inverse_cdf, _inverse_cdf_exclusive, "one token too far"),
        (decoding.check_beam_step, _beam_alone, "log-probability alone: add the log p of the hypothesis"),
        (decoding.check_beam_step, _beam_raw, "you added raw logits"),
        (decoding.check_beam_step, _beam_per_hypothesis, "not beam_width per hypothesis"),
        (decoding.check_beam_step, lambda lp, z, b: (lp, z), r"return a tuple of 3 tensors"),
        (decoding.check_length_penalised, lambda lp, n, a: lp * n**a, "you multiplied by n\\^α"),
        (decoding.check_length_penalised, lambda lp, n, a: lp / n, "you divided by n: divide by n\\^α"),
        (decoding.check_length_penalised, lambda lp, n, a: lp / (n * a), "α is an exponent"),
        (
            decoding.check_length_penalised,
            lambda lp, n, a: lp / n**0.5,
            r"s \(α = 0.6\)\[2\] is -4, expected -3.21",
        ),
        (decoding.check_append_kv, lambda pk, pv, k, v: (k, v), "only the new keys and values"),
        (
            decoding.check_append_kv,
            lambda pk, pv, k, v: (torch.cat([pk, k], 0), torch.cat([pv, v], 0)),
            r"along the positions, dim 2 .* \(yours grew dim 0\)",
        ),
        (
            decoding.check_append_kv,
            lambda pk, pv, k, v: (torch.cat([pk, k], -1), torch.cat([pv, v], -1)),
            r"yours grew dim 3",
        ),
        (
            decoding.check_append_kv,
            lambda pk, pv, k, v: (torch.cat([k, pk], 2), torch.cat([v, pv], 2)),
            "the new positions go after the stored ones",
        ),
        (
            decoding.check_append_kv,
            lambda pk, pv, k, v: (torch.cat([pv, v], 2), torch.cat([pk, k], 2)),
            "K and V are swapped",
        ),
    ],
)
def test_lesson_05_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (decoding.check_greedy_step, _greedy_loop),
        (decoding.check_greedy_step, lambda z: int(z.argmax()) if z.dim() == 1 else z.argmax(-1)),
        (decoding.check_sample_by_inverse_cdf, _inverse_cdf_loop),
        (
            decoding.check_sample_by_inverse_cdf,
            lambda p, u: torch.searchsorted(p.double().cumsum(-1), u.double()[..., None], right=True)[..., 0],
        ),
        (decoding.check_beam_step, _beam_loop),
        (decoding.check_beam_step, _beam_worst_first),
        (decoding.check_length_penalised, _penalty_loop),
        (decoding.check_append_kv, _append_loop),
    ],
)
def test_lesson_05_checkers_pass_loops_and_other_right_answers(checker, fn, capsys):
    assert checker(fn), capsys.readouterr().out


def test_the_length_penalty_checker_accepts_a_float64_answer(capsys):
    assert decoding.check_length_penalised(lambda lp, n, a: lp.double() / n.double().pow(a))
    assert capsys.readouterr().out.startswith("✔")
    assert math.isclose(
        decoding.steps.length_penalised(torch.tensor([-8.0]), torch.tensor([4]), 0.5).item(), -4.0
    )
