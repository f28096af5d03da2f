"""The checkers of lessons 08 and 09 (issue 55): each names the typical mistakes it was written for, and
accepts right answers written another way (a loop, another dtype). The lessons' own solutions pass in
every dtype through ``test_exercises.py``'s generic tests."""

import math

import pytest
import torch
from test_exercises import CHECKERS, _rejects_with

from xai_tf.exercises import faithfulness
from xai_tf.faithfulness import divergence


def _jsd_with_log(p, q):  # forgets that 0 · log 0 = 0
    m = (p + q) / 2
    return ((p * (p / m).log()).sum(-1) + (q * (q / m).log()).sum(-1)) / 2


def _top_k(scores, cues, lowest=False, divide=True):
    k = sum(cues)
    top = scores.argsort(descending=not lowest)[:k]
    hits = sum(cues[int(t)] for t in top)
    return hits / k if divide else hits


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (faithfulness.check_jsd, _jsd_with_log, r"NaN where a weight is exactly 0: 0 · log 0"),
        (faithfulness.check_jsd, lambda p, q: divergence.jsd(p, q).sqrt(), "that is √JSD, the distance"),
        (faithfulness.check_jsd, lambda p, q: divergence.jsd(p, q) / math.log(2), r"in bits \(log₂\)"),
        (
            faithfulness.check_jsd,
            lambda p, q: torch.xlogy(p, 2 * p / (p + q)).sum(-1),
            r"KL\(p ‖ m\) alone",
        ),
        (faithfulness.check_tvd, lambda p, q: (p - q).abs().sum(-1), "twice the TVD: halve it"),
        (faithfulness.check_tvd, lambda p, q: (p - q).abs().amax(-1), r"the largest \|p_t − q_t\| alone"),
        (faithfulness.check_tvd, lambda p, q: (p - q).sum(-1) / 2, "summed with their signs"),
        (
            faithfulness.check_deceive_penalty,
            lambda a, m: torch.log1p(-(a * m).sum(-1)),
            "the sign is flipped",
        ),
        (
            faithfulness.check_deceive_penalty,
            lambda a, m: -torch.log((a * m).sum(-1)),
            r"−log\(αᵀm\) rewards attention on m",
        ),
        (
            faithfulness.check_deceive_penalty,
            lambda a, m: -torch.log1p(-a * m).sum(-1),
            "sum αᵀm first",
        ),
        (
            faithfulness.check_deceive_penalty,
            lambda a, m: -torch.log1p(-a * m),
            r"shape \(3, 4\): one penalty per sentence",
        ),
        (
            faithfulness.check_precision_at_k,
            lambda s, c: _top_k(s, c, lowest=True),
            r"you took the k \*lowest\* scores",
        ),
        (
            faithfulness.check_precision_at_k,
            lambda s, c: _top_k(s, c, divide=False),
            r"you return the count 1: divide by k = 2",
        ),
        (
            faithfulness.check_precision_at_k,
            lambda s, c: c[int(s.argmax())],
            "you kept the top word only: k is the number of cues, 2",
        ),
        (faithfulness.check_precision_at_k, lambda s, c: [0.5], "return one number P@k, got list"),
    ],
)
def test_lesson_08_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _jsd_loop(p, q):  # one row at a time, plain floats, into a float32 table
    out = torch.zeros(len(p))
    for r, (pr, qr) in enumerate(zip(p.tolist(), q.tolist(), strict=True)):
        total = 0.0
        for a, b in zip(pr, qr, strict=True):
            m = (a + b) / 2
            total += (a * math.log(a / m) if a else 0.0) + (b * math.log(b / m) if b else 0.0)
        out[r] = total / 2
    return out


def _tvd_loop(p, q):
    return torch.tensor(
        [sum(abs(a - b) for a, b in zip(pr, qr, strict=True)) / 2 for pr, qr in zip(p, q, strict=True)]
    )


def _penalty_loop(alpha, m):
    return torch.tensor(
        [
            -math.log(1 - sum(float(a) * float(w) for a, w in zip(ar, mr, strict=True)))
            for ar, mr in zip(alpha, m, strict=True)
        ]
    )


def _precision_sorted(scores, cues):  # sorted() over (score, position) pairs, a numpy float at the end
    import numpy as np

    k = sum(cues)
    top = sorted(range(len(cues)), key=lambda t: -float(scores[t]))[:k]
    return np.float64(sum(cues[t] for t in top) / k)


def _kendall_loop(a, b):
    n = len(a)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    s = [(float(a[i]) - float(a[j])) * (float(b[i]) - float(b[j])) for i, j in pairs]
    ties_a = sum(float(a[i]) == float(a[j]) for i, j in pairs)
    ties_b = sum(float(b[i]) == float(b[j]) for i, j in pairs)
    n0 = len(pairs)
    return (sum(x > 0 for x in s) - sum(x < 0 for x in s)) / math.sqrt((n0 - ties_a) * (n0 - ties_b))


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("check_jsd", _jsd_loop),
        ("check_tvd", _tvd_loop),
        ("check_deceive_penalty", _penalty_loop),
        ("check_precision_at_k", _precision_sorted),
        ("check_kendall_tau", _kendall_loop),
    ],
)
def test_lesson_08_checkers_pass_other_right_answers(name, fn, capsys):
    assert CHECKERS[name](fn), capsys.readouterr().out


def test_kendall_tau_is_the_statistic_of_scipys_tau_b():
    from scipy import stats

    a, b = [0.0, 0.0, 0.3, 0.7, 0.7], [0.2, 0.1, 0.4, 0.3, 0.9]
    got = faithfulness.kendall_tau(torch.tensor(a), torch.tensor(b))
    assert got == pytest.approx(stats.kendalltau(a, b, variant="b").statistic, abs=1e-12)
    assert got == pytest.approx(_kendall_loop(torch.tensor(a), torch.tensor(b)), abs=1e-12)
