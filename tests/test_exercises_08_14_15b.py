"""Issue 55's last exercises of lessons 08, 14 and 15: lesson 08's attention importance of a transformer
(the column mean, section 7), lesson 14's relative position scores (section 5) and lesson 15's previous-token
score (section 1). Each checker names the typical mistakes (a wrong solution below, its ✘ line asserted),
passes right answers written another way, and each reference is tested against an independent one."""

import math

import pytest
import torch
from test_exercises import _rejects_with

from xai_tf.circuits.induction import previous_token_scores
from xai_tf.efficient import positions
from xai_tf.efficient.relative import relative_scores
from xai_tf.exercises import circuits, efficient_relative, faithfulness_importance
from xai_tf.exercises.faithfulness_importance import attention_importance

# --- lesson 08, exercise 7.2: raw_t = (1/T) Σ_s mean_h A_L[s, t] ------------------------------------------


def _seen_by(A):
    return torch.arange(A.size(-1), 0, -1, dtype=A.dtype)  # key t is seen by the T − t queries s ≥ t


IMPORTANCE_MISTAKES = [
    (lambda A: A[-1].mean(0).mean(-1), r"averages each row, over the keys t: every row sums to 1"),
    (lambda A: A[-1].mean(0).sum(0) / _seen_by(A), r"divides by the T − t queries that can see token t"),
    (lambda A: A[-1].mean(0).sum(0), r"sums over the queries s: divide by T"),
    (lambda A: A[0].mean(0).mean(0), r"reads the first layer: the importance uses the last layer's heads"),
    (lambda A: A.mean((0, 1)).mean(0), r"averages over the layers too"),
    (lambda A: A[-1].sum(0).mean(0), r"sums the heads: average them"),
    (lambda A: A[-1].mean(1), r"one number per head: average over the heads too"),
    (lambda A: A[-1].mean(0).mean(0).half(), r"is float16, .* Compute in float32 or float64"),
    (lambda A: None, r"importance is None: did you forget to `return` it\?"),
]


@pytest.mark.parametrize(("fn", "message"), IMPORTANCE_MISTAKES)
def test_attention_importance_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(faithfulness_importance.check_attention_importance, fn, message, capsys)


def _importance_loop(A):  # a float32 table filled one key at a time
    L, H, T, _ = A.shape
    out = torch.zeros(T)
    for t in range(T):
        out[t] = sum(float(A[L - 1, h, s, t]) for h in range(H) for s in range(T)) / (H * T)
    return out


@pytest.mark.parametrize(
    "fn",
    [
        _importance_loop,
        lambda A: A[-1].mean(dim=(0, 1)).double(),
        lambda A: torch.einsum("hst->t", A[-1]) / (A.size(1) * A.size(2)),
    ],
)
def test_attention_importance_checker_accepts_right_answers_written_another_way(fn, capsys):
    assert faithfulness_importance.check_attention_importance(fn), capsys.readouterr().out


def test_attention_importance_is_the_column_mean_and_favours_early_tokens_on_a_uniform_causal_map():
    g = torch.Generator().manual_seed(8)
    A = torch.rand(3, 4, 6, 6, generator=g, dtype=torch.float64)
    assert torch.allclose(attention_importance(A), _importance_loop(A).double(), atol=1e-6)
    # a uniform causal map: query s gives 1/(s + 1) to each t ≤ s, so token t gets (H_T − H_t)/T, H_n the
    # harmonic numbers: strictly decreasing in t, position alone (the lesson's "favours early tokens")
    T = 8
    seen = torch.ones(T, T, dtype=torch.float64).tril()
    uniform = (seen / seen.sum(-1, keepdim=True))[None, None]
    harmonic = [sum(1 / k for k in range(1, n + 1)) for n in range(T + 1)]
    want = torch.tensor([(harmonic[T] - harmonic[t]) / T for t in range(T)], dtype=torch.float64)
    got = attention_importance(uniform)
    assert torch.allclose(got, want, atol=1e-12) and bool((got.diff() < 0).all())


def test_attention_importance_is_the_importance_lesson_08_calls_raw():
    from probe_kit import lm

    from xai_tf.faithfulness.transformer import TRANSFORMER
    from xai_tf.tasks.sentiment import SequenceClassifier

    model = lm()
    torch.manual_seed(0)
    clf = SequenceClassifier(model.model)  # "raw" reads the body's attention, not the head
    ids = model.encode("O noble lord, thy kindness is a balm")
    raw = TRANSFORMER.explain("raw", clf, ids).scores
    with torch.no_grad():
        A = model.attentions(torch.tensor([ids]))
    assert torch.allclose(attention_importance(A.float()), raw.float(), atol=1e-6)
    assert torch.allclose(attention_importance(A.double()), _importance_loop(A).double(), atol=1e-5)


# --- lesson 14, exercise 5.1: z_ij = q_i · (k_j + a^K_{clip(j − i, −c, c) + c}) / √d_att ---------------


def _relative(Q, K, a_K, sign=1, shift=True, scale=(True, True), mask=False, position=True, c=None):
    """The scores with the typical mistakes switchable (``a_K[rows]``: a negative row wraps around)."""
    T, root = Q.size(-2), Q.size(-1) ** 0.5
    c = (a_K.size(0) - 1) // 2 if c is None else c
    i = torch.arange(T)
    rows = (sign * (i[None, :] - i[:, None])).clamp(-c, c) + (c if shift else 0)
    z = Q @ K.transpose(-2, -1) / (root if scale[0] else 1)
    if position:
        z = z + torch.einsum("...id,ijd->...ij", Q, a_K[rows]) / (root if scale[1] else 1)
    if mask:
        z = z.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf)
    return z


RELATIVE_MISTAKES = [
    (
        lambda Q, K, a: _relative(Q, K, a, sign=-1),
        r"the offsets run the wrong way: r = j − i \(key minus query\)",
    ),
    (
        lambda Q, K, a: _relative(Q, K, a, shift=False),
        r"row r \+ c of a_K holds offset r: shift the clipped offset",
    ),
    (lambda Q, K, a: _relative(Q, K, a, scale=(False, False)), r"not scaled: divide by √d_att"),
    (lambda Q, K, a: _relative(Q, K, a, scale=(True, False)), r"only q·k is scaled: divide both terms"),
    (lambda Q, K, a: _relative(Q, K, a, mask=True), r"leave the mask out: return z for every i, j"),
    (
        lambda Q, K, a: _relative(Q, K, a, position=False),
        r"that is plain dot-product attention: add q_i · a\^K",
    ),
    (
        lambda Q, K, a: _relative(Q, K, a, c=4),  # the lesson model's c, written into the code
        r"read c off a_K, which has 2c \+ 1 rows",
    ),
    (
        lambda Q, K, a: _relative(Q, K, a).transpose(-2, -1)[..., :-1],
        r"z has shape \(1, 5, 4\), expected \(1, 5, 5\)",
    ),
]


@pytest.mark.parametrize(("fn", "message"), RELATIVE_MISTAKES)
def test_relative_scores_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(efficient_relative.check_relative_scores, fn, message, capsys)


def _relative_loop(Q, K, a_K):  # pair by pair into a float32 table, the clip written out
    c, d = (a_K.size(0) - 1) // 2, Q.size(-1)
    flat_Q, flat_K = Q.reshape(-1, *Q.shape[-2:]), K.reshape(-1, *K.shape[-2:])
    out = torch.zeros(flat_Q.shape[:-1] + (Q.size(-2),))
    for b in range(flat_Q.size(0)):
        for i in range(Q.size(-2)):
            for j in range(K.size(-2)):
                r = max(-c, min(c, j - i))
                out[b, i, j] = float(flat_Q[b, i] @ (flat_K[b, j] + a_K[r + c])) / math.sqrt(d)
    return out.reshape(Q.shape[:-1] + (K.size(-2),))


def _relative_gather(Q, K, a_K):  # every query against every offset, then the pair's column picked
    T, c = Q.size(-2), (a_K.size(0) - 1) // 2
    i = torch.arange(T)
    rows = (i[None, :] - i[:, None]).clamp(-c, c) + c
    position = (Q @ a_K.T).gather(-1, rows.expand(*Q.shape[:-2], T, T))
    return ((Q @ K.transpose(-2, -1) + position) / math.sqrt(Q.size(-1))).double()


@pytest.mark.parametrize("fn", [_relative_loop, _relative_gather])
def test_relative_scores_checker_accepts_right_answers_written_another_way(fn, capsys):
    assert efficient_relative.check_relative_scores(fn), capsys.readouterr().out


def test_relative_scores_follow_the_formula_pair_by_pair():
    g = torch.Generator().manual_seed(14)
    for shape, c in (((3, 9, 5), 3), ((4, 2), 0), ((2, 2, 6, 3), 8)):
        Q, K = (
            torch.randn(*shape, generator=g, dtype=torch.float64),
            torch.randn(*shape, generator=g, dtype=torch.float64),
        )
        a_K = torch.randn(2 * c + 1, shape[-1], generator=g, dtype=torch.float64)
        assert torch.allclose(relative_scores(Q, K, a_K), _relative_loop(Q, K, a_K).double(), atol=1e-5)


def test_relative_scores_are_the_scores_of_lesson_14s_relative_model():
    """The lesson reads the trained head's attention through ``relative_scores``: with them in its place,
    the masked softmax and the a^V term (written out here) give OffsetModel's logits."""
    torch.manual_seed(3)
    model = positions.OffsetModel("relative", clip=2).double()
    x = torch.randint(10, (4, 9))
    with torch.no_grad():
        E = model.W_e[x]
        Q, K, V = E @ model.W_q.T, E @ model.W_k.T, E @ model.W_v.T
        z = relative_scores(Q, K, model.a_K)
        T = x.size(1)
        p = z.masked_fill(torch.ones(T, T, dtype=torch.bool).triu(1), -math.inf).softmax(-1)
        rows = (torch.arange(T)[None, :] - torch.arange(T)[:, None]).clamp(-2, 2) + 2
        out = p @ V + torch.einsum("bij,ijd->bid", p, model.a_V[rows])
        logits = torch.cat([out, E], -1) @ model.W_o.T
        assert torch.allclose(logits, model(x), atol=1e-10)


# --- lesson 15, exercise 1.2: mean over the batch and t = 1..T−1 of A[t, t − 1] -----------------------------


PREVIOUS_MISTAKES = [
    (lambda p: p.diagonal(1, -2, -1).mean(dim=(1, 3)), r"reads A\[t − 1, t\], above the diagonal"),
    (lambda p: p.diagonal(0, -2, -1).mean(dim=(1, 3)), r"attention to the token itself, A\[t, t\]"),
    (
        lambda p: p.diagonal(-1, -2, -1).sum(-1).mean(1) / p.size(-1),
        r"divides by T: only the T − 1 positions",
    ),
    (
        lambda p: p.diagonal(-1, -2, -1)[..., p.size(-1) // 2 - 1 :].mean(dim=(1, 3)),
        r"averages over the second half only",
    ),
    (
        lambda p: p.diagonal(-1, -2, -1).mean(-1),
        r"one score per head \[layers, heads\]: average over the batch",
    ),
    (lambda p: None, r"previous-token score is None: did you forget"),
]


@pytest.mark.parametrize(("fn", "message"), PREVIOUS_MISTAKES)
def test_previous_token_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(circuits.check_previous_token_scores, fn, message, capsys)


def _previous_loop(pattern):  # a float32 table summed one entry at a time
    L, B, H, T, _ = pattern.shape
    scores = torch.zeros(L, H)
    for layer in range(L):
        for head in range(H):
            scores[layer, head] = sum(
                float(pattern[layer, b, head, t, t - 1]) for b in range(B) for t in range(1, T)
            ) / (B * (T - 1))
    return scores


@pytest.mark.parametrize(
    "fn",
    [
        _previous_loop,
        lambda p: torch.stack([p[..., t, t - 1] for t in range(1, p.size(-1))], -1).mean((1, 3)),
    ],
)
def test_previous_token_checker_accepts_right_answers_written_another_way(fn, capsys):
    assert circuits.check_previous_token_scores(fn), capsys.readouterr().out


def test_previous_token_scores_follow_the_formula_entry_by_entry():
    g = torch.Generator().manual_seed(15)
    scores = torch.randn(2, 3, 4, 7, 7, generator=g, dtype=torch.float64)
    pattern = scores.masked_fill(torch.ones(7, 7, dtype=torch.bool).triu(1), -math.inf).softmax(-1)
    assert torch.allclose(previous_token_scores(pattern), _previous_loop(pattern).double(), atol=1e-6)
