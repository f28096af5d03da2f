"""The checkers of lessons 08 and 09 (issue 55): each names the typical mistakes it was written for, and
accepts right answers written another way (a loop, another dtype). The lessons' own solutions pass in
every dtype through ``test_exercises.py``'s generic tests."""

import math

import numpy as np
import pytest
import torch
from test_exercises import CHECKERS, _rejects_with

from xai_tf.exercises import faithfulness, faithfulness_adversary, toytasks
from xai_tf.faithfulness import adversary, divergence
from xai_tf.tasks import cues, recurrent


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


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda h, W, b, v: torch.softmax((h @ W.T + b) @ v, -1), "the tanh is missing"),
        (lambda h, W, b, v: torch.softmax(torch.tanh(h @ W.T + b) @ v, 0), r"over the sentences \(dim 0\)"),
        (lambda h, W, b, v: torch.tanh(h @ W.T + b) @ v, "those are the scores θ"),
    ],
)
def test_additive_weights_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(faithfulness.check_additive_weights, fn, message, capsys)


def test_additive_weights_are_the_classifiers_attention(capsys):
    from xai_tf.tasks import cues, recurrent

    torch.manual_seed(0)
    model = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))
    with torch.no_grad():
        h = model.states(model.embed(torch.tensor([cues.cue_sentences(1, seed=0)[0].ids])))
        got = faithfulness.additive_weights(h, model.W_a.weight, model.W_a.bias, model.v.weight[0])
        assert torch.allclose(got, model.attention(h), atol=1e-6)

    def loop(h, W, b, v):  # word by word, plain floats
        out = torch.zeros(h.shape[:2])
        for n in range(h.shape[0]):
            theta = [
                sum(float(vk) * math.tanh(float(W[k] @ h[n, t] + b[k])) for k, vk in enumerate(v))
                for t in range(h.shape[1])
            ]
            e = [math.exp(x - max(theta)) for x in theta]
            out[n] = torch.tensor([x / sum(e) for x in e])
        return out

    assert faithfulness.check_additive_weights(loop), capsys.readouterr().out


def _null_basis(V, with_ones=True):
    M = torch.cat([V.T, torch.ones(1, V.shape[0], dtype=V.dtype)]) if with_ones else V.T
    _, S, Vh = torch.linalg.svd(M)
    return Vh[int((S > 1e-6 * S.max()).sum()) :].T


def _null_by_count(V):  # T − d_h − 1 directions, as if the rank were always d_h + 1
    return (
        _null_basis(V)[:, : max(V.shape[0] - V.shape[1] - 1, 0)]
        if V.shape[0] > V.shape[1] + 1
        else _null_basis(V)[:, :0]
    )


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda V: _null_basis(V, with_ones=False), r"Σ_t δ_t ≠ 0: α \+ δ would no longer sum to 1"),
        (lambda V: _null_basis(V).T, r"got \(3, 7\) \(one direction per column: transpose it\)"),
        (lambda V: _null_basis(V)[:, :1], r"your columns span 1 direction\(s\), the set has 3"),
        (_null_by_count, r"span 0 direction\(s\), the set has 1 \(two rows of V are equal"),
        (lambda V: torch.ones(V.shape[0], 1), "a column δ has δ V ≠ 0"),
        (lambda V: _null_basis(V).tolist(), "return a tensor or numpy array"),
    ],
)
def test_null_directions_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(faithfulness.check_null_directions, fn, message, capsys)


def test_null_directions_checker_accepts_any_basis(capsys):
    from scipy.linalg import null_space

    def scipy_basis(V):  # numpy, float64
        return null_space(torch.cat([V.T, torch.ones(1, V.shape[0])]).double().numpy())

    def mixed(V):  # another basis of the same set: the columns of an orthonormal basis, mixed and scaled
        B = _null_basis(V)
        return B @ (3 * torch.eye(B.shape[1]) + torch.ones(B.shape[1], B.shape[1]))

    assert faithfulness.check_null_directions(scipy_basis), capsys.readouterr().out
    assert faithfulness.check_null_directions(mixed), capsys.readouterr().out


# --- lesson 09 -----------------------------------------------------------------------------------------


def _tied(E, W, scale=None, dim=-1):
    H = E @ W.T
    return torch.softmax(H @ H.transpose(-1, -2) / (scale or W.shape[0] ** 0.5), dim)


def _share(A, x, diagonal=False, normalised=True, every_position=False):
    others = ~torch.eye(x.shape[-1], dtype=torch.bool)
    same = x[..., :, None] == x[..., None, :]
    repeated = (same & others).any(-1)
    looked = torch.ones_like(others) if diagonal else others
    ratio = (A * (same & looked)).sum(-1)
    if normalised:
        ratio = ratio / (A * looked).sum(-1)
    return float(ratio.mean() if every_position else ratio[repeated].mean())


def _crossing(alphas, a, b, pick="first", interpolate=True):
    d = [u - v for u, v in zip(a, b, strict=True)]
    found = [i for i in range(len(d) - 1) if d[i] == 0 or d[i] * d[i + 1] < 0]
    if not found:
        return None
    i = found[-1] if pick == "last" else found[0]
    if d[i] == 0:
        return alphas[i]
    if not interpolate:
        return alphas[i + 1]
    return alphas[i] + d[i] / (d[i] - d[i + 1]) * (alphas[i + 1] - alphas[i])


def _stack_share(A, top, mistake=None):
    seen = top >= 0
    index = top.clamp(min=0)[:, None, None, :, None].expand(*A.shape[:-1], 1)
    source = A.transpose(-1, -2) if mistake == "column" else A
    picked = source.gather(-1, index)[..., 0]
    if mistake == "empty counted":
        return picked.mean((0, -1))
    masked = picked * seen[:, None, None]
    if mistake == "every position":
        return masked.sum((0, -1)) / seen.numel()
    if mistake == "per string":
        return (masked.sum(-1) / seen.sum(-1)[:, None, None]).mean(0)
    return masked.sum((0, -1)) / seen.sum()


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (toytasks.check_tied_attention, lambda E, W: _tied(E, W, scale=1.0), "the scores are not scaled"),
        (toytasks.check_tied_attention, lambda E, W: _tied(E, W, scale=6**0.5), r"scaled by √d_e = √6"),
        (toytasks.check_tied_attention, lambda E, W: _tied(E, W, scale=4.0), r"divided by d_att = 4"),
        (toytasks.check_tied_attention, lambda E, W: _tied(E, W, dim=-2), "the softmax ran down the columns"),
        (toytasks.check_same_token_share, lambda A, x: _share(A, x, diagonal=True), "j = i was counted"),
        (
            toytasks.check_same_token_share,
            lambda A, x: _share(A, x, normalised=False),
            r"not divided by Σ_\{j≠i\} A_ij",
        ),
        (
            toytasks.check_same_token_share,
            lambda A, x: _share(A, x, every_position=True),
            "averaged over every position: keep only those whose token repeats",
        ),
        (
            toytasks.check_same_token_share,
            lambda A, x: torch.zeros(2),
            r"return one number \(the mean over positions\)",
        ),
        (
            toytasks.check_crossing,
            lambda al, a, b: _crossing(al, a, b, interpolate=False),
            "you return the grid point 1: interpolate linearly",
        ),
        (
            toytasks.check_crossing,
            lambda al, a, b: _crossing(al, a, b, pick="last"),
            "you return the last sign change: the first one counts",
        ),
        (
            toytasks.check_crossing,
            lambda al, a, b: _crossing(al, a, b) or al[-1],
            r"never changes sign: return None, got 1.5",
        ),
        (
            toytasks.check_stack_share,
            lambda A, t: _stack_share(A, t, "every position"),
            r"divided by every position: average only over those with s\(i\) ≥ 0",
        ),
        (
            toytasks.check_stack_share,
            lambda A, t: _stack_share(A, t, "empty counted"),
            r"empty stack \(s\(i\) = −1\) were counted",
        ),
        (
            toytasks.check_stack_share,
            lambda A, t: _stack_share(A, t, "column"),
            r"that is A_\{s\(i\), i\}: row i is the query",
        ),
        (
            toytasks.check_stack_share,
            lambda A, t: _stack_share(A, t, "per string"),
            "the mean of each string's mean",
        ),
    ],
)
def test_lesson_09_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _tied_loop(E, W):  # one query row at a time, plain floats, into a float32 table
    out = torch.zeros(*E.shape[:-1], E.shape[-2])
    for b in range(E.shape[0]):
        H = [[sum(float(w) * float(e) for w, e in zip(row, vec, strict=True)) for row in W] for vec in E[b]]
        for i, hi in enumerate(H):
            s = [sum(p * q for p, q in zip(hi, hj, strict=True)) / math.sqrt(len(W)) for hj in H]
            top = max(s)
            e = [math.exp(v - top) for v in s]
            out[b, i] = torch.tensor([v / sum(e) for v in e])
    return out


def _share_loop(A, x):
    shares = []
    for b in range(x.shape[0]):
        for i in range(x.shape[1]):
            same = [j for j in range(x.shape[1]) if j != i and x[b, j] == x[b, i]]
            if same:
                total = sum(float(A[b, i, j]) for j in range(x.shape[1]) if j != i)
                shares.append(sum(float(A[b, i, j]) for j in same) / total)
    return torch.tensor(sum(shares) / len(shares), dtype=torch.float32)


def _stack_share_loop(A, top):
    B, L, H, T, _ = A.shape
    out = torch.zeros(L, H)
    pairs = [(b, i) for b in range(B) for i in range(T) if top[b, i] >= 0]
    for layer in range(L):
        for h in range(H):
            out[layer, h] = sum(float(A[b, layer, h, i, top[b, i]]) for b, i in pairs) / len(pairs)
    return out


def _tops_tuple(s):  # a tuple of numpy integers: positions all the same
    import numpy as np

    stack, tops = [], []
    for i, c in enumerate(s):
        stack.append(i) if c in "([" else stack.pop()
        tops.append(np.int64(stack[-1] if stack else -1))
    return tuple(tops)


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("check_tied_attention", _tied_loop),
        ("check_same_token_share", _share_loop),
        ("check_stack_share", _stack_share_loop),
        ("check_crossing", lambda al, a, b: _crossing(al, a, b)),
        ("check_stack_tops", _tops_tuple),
    ],
)
def test_lesson_09_checkers_pass_other_right_answers(name, fn, capsys):
    assert CHECKERS[name](fn), capsys.readouterr().out


def test_tied_attention_is_self_attention_with_tied_query_and_key_and_no_value_map():
    g = torch.Generator().manual_seed(0)
    E, W = (
        torch.randn(3, 4, 5, generator=g, dtype=torch.float64),
        torch.randn(2, 5, generator=g, dtype=torch.float64),
    )
    assert torch.allclose(toytasks.tied_attention(E, W), _tied_loop(E, W).double(), atol=1e-6)


def test_stack_tops_follow_the_automaton_and_refuse_an_invalid_string():
    assert toytasks.stack_tops("([])[]") == [0, 1, 0, -1, 4, -1]
    assert toytasks.stack_tops("(" * 6 + ")" * 6) == [
        0,
        1,
        2,
        3,
        4,
        5,
        4,
        3,
        2,
        1,
        0,
        -1,
    ]  # deeper than D = 4
    with pytest.raises(ValueError, match=r"s must be a valid Dyck string of \(\)\[\], got '\(\]'"):
        toytasks.stack_tops("(]")


# --- exercise 3.2 of lesson 08: the ε-adversary's constraint |f_α̃ − f_α*| < ε --------------------------


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            lambda fa, f, e: (fa - f).abs() <= e,
            r"\|Δf\| = ε exactly passes your test: the constraint is strict",
        ),
        (lambda fa, f, e: fa - f < e, r"without \|·\| every lower output passes"),
        (lambda fa, f, e: (fa - f).abs() < e / 2, r"\|Δf\| < ε/2, the search's safety margin"),
        (lambda fa, f, e: (fa - f).abs() >= e, "the mask is inverted"),
        (lambda fa, f, e: (fa - fa[0]).abs() < e, "not the first candidate"),
        (
            lambda fa, f, e: int(((fa - f).abs() < e).sum()),
            r"one True/False per candidate \(\d+\), not a count",
        ),
        (lambda fa, f, e: (fa - f).abs(), r"not the distances \|Δf\|"),
    ],
)
def test_within_epsilon_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(faithfulness_adversary.check_within_epsilon, fn, message, capsys)


@pytest.mark.parametrize(
    "fn",
    [
        lambda fa, f, e: [abs(float(x) - float(f)) < e for x in fa],  # a loop, a list of bools
        lambda fa, f, e: ((fa - f).abs() < e).int(),  # 0/1 integers
        lambda fa, f, e: np.abs(fa.numpy() - float(f)) < e,  # numpy
    ],
)
def test_within_epsilon_checker_accepts_right_answers_written_another_way(fn, capsys):
    assert faithfulness_adversary.check_within_epsilon(fn), capsys.readouterr().out


def test_within_epsilon_is_numpys_strict_comparison_and_holds_for_the_adversary_found():
    rng = np.random.default_rng(3)
    values, f = rng.uniform(0, 1, 50), 0.4
    want = np.abs(values - f) < 0.1
    got = faithfulness_adversary.within_epsilon(torch.from_numpy(values), f, 0.1)
    assert got.tolist() == want.tolist() and 0 < want.sum() < 50
    # |Δf| = ε exactly (0.25 − 0.125 and 0.375 − 0.25 are exact in binary) is outside: the bound is strict
    assert faithfulness_adversary.within_epsilon([0.125, 0.375, 0.3], 0.25, 0.125).tolist() == [
        False,
        False,
        True,
    ]
    torch.manual_seed(0)
    model = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB)))
    found = adversary.epsilon_adversary(model, [2, 3, 5, 7], epsilon=0.01, steps=5)
    assert bool(faithfulness_adversary.within_epsilon([found.f_adv], found.f, 0.01)[0])
