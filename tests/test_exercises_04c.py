"""Lesson 04's checkers for sections 1, 4, 7 and 11.3 (issue 54): each names its typical mistakes, and
accepts a right answer written as a loop (into a float32 table where the answer is a tensor) as well as
vectorised (the lesson's own solutions, in every dtype, are passed by test_exercises.py's generic tests)."""

import math
from collections import Counter

import pytest
import torch
import torch.nn.functional as F
from test_exercises import _rejects_with

from xai_tf.exercises import blocks_parts as parts

# --- section 1: one BPE merge -------------------------------------------------------------------------------


def _merge(word, left, right):
    out, i = [], 0
    while i < len(word):
        if word[i : i + 2] == (left, right):
            out.append(left + right)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def _merge_step_with(words, weighted=True, tie="alphabetical", merge=_merge, per_word_set=False):
    """One merge with the typical mistakes switchable."""
    counts = Counter()
    for word, n in words.items():
        seen = (
            list(dict.fromkeys(zip(word, word[1:], strict=False)))
            if per_word_set
            else zip(word, word[1:], strict=False)
        )
        for pair in seen:
            counts[pair] += n if weighted else 1
    if tie == "alphabetical":
        pair = min(counts, key=lambda p: (-counts[p], p))
    else:  # the first pair met among the most frequent: Counter.most_common's order
        pair = counts.most_common(1)[0][0]
    return pair, counts[pair], {merge(w, *pair): n for w, n in words.items()}


def _merge_first_only(word, left, right):
    for i in range(len(word) - 1):
        if word[i : i + 2] == (left, right):
            return (*word[:i], left + right, *word[i + 2 :])
    return word


def _merge_step_loop(words):
    """Counts in a plain dict, the best pair by a scan, the merge by a while loop."""
    counts = {}
    for word, n in words.items():
        for i in range(len(word) - 1):
            counts[word[i], word[i + 1]] = counts.get((word[i], word[i + 1]), 0) + n
    best = None
    for pair, c in counts.items():
        if best is None or c > counts[best] or (c == counts[best] and pair < best):
            best = pair
    return best, counts[best], {_merge(w, *best): n for w, n in words.items()}


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda w: _merge_step_with(w, weighted=False), r"weight each pair by its word's frequency"),
        (
            lambda w: _merge_step_with(w, tie="first met"),
            r"tie at 4: ties go to the alphabetically first pair",
        ),
        (
            lambda w: _merge_step_with(w, merge=_merge_first_only),
            r"merge every occurrence .* not only the first",
        ),
        (lambda w: _merge_step_with(w, merge=lambda word, a, b: word), "the words came back unchanged"),
        (
            lambda w: (*_merge_step_with(w)[:2], dict.fromkeys(_merge_step_with(w)[2], 1)),
            "each word keeps its frequency",
        ),
        (
            lambda w: (
                _merge_step_with(w)[0],
                _merge_step_with(w, per_word_set=True)[1],
                _merge_step_with(w)[2],
            ),
            r"count every occurrence of \('a', 'n'\) in a word",
        ),
        (lambda w: _merge_step_with(w)[:2], r"return a triple \(pair, count, words\)"),
        (lambda w: ("es", 9, w), "the pair should be a tuple"),
    ],
)
def test_merge_step_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(parts.check_merge_step, fn, message, capsys)


def test_merge_step_checker_passes_a_loop(capsys):
    assert parts.check_merge_step(_merge_step_loop), capsys.readouterr().out


# --- section 4: the pre-LN block ----------------------------------------------------------------------------


def _post_ln(f, ln_1, attn, ln_2, mlp):
    mid = ln_1(f + attn(f))
    return ln_2(mid + mlp(mid))


def _parallel(f, ln_1, attn, ln_2, mlp):
    return f + attn(ln_1(f)) + mlp(ln_2(f))


def _one_norm(f, ln_1, attn, ln_2, mlp):
    mid = f + attn(ln_1(f))
    return mid + mlp(ln_1(mid))


def _no_residual(f, ln_1, attn, ln_2, mlp):
    mid = attn(ln_1(f))
    return mid + mlp(ln_2(mid))


def _block_loop(f, ln_1, attn, ln_2, mlp):
    """One sequence at a time (the sub-layers mix positions, so a sequence is the smallest unit), into a
    float32 table."""
    rows = f.reshape(-1, *f.shape[-2:])
    out = torch.zeros(rows.shape, dtype=torch.float32)
    for b, x in enumerate(rows):
        mid = x + attn(ln_1(x))
        out[b] = mid + mlp(ln_2(mid))
    return out.reshape(f.shape)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (_post_ln, "that is the post-LN block"),
        (_parallel, "the MLP reads f' = f \\+ attn\\(ln_1\\(f\\)\\)"),
        (_one_norm, "the MLP has its own LayerNorm"),
        (lambda f, l1, a, l2, m: f + a(l1(f)), "the MLP's update is missing"),
        (_no_residual, r"each sub-layer \*adds\* its output"),
        (lambda f, *p: f, r"block\(f\)\[.*\] is"),
    ],
)
def test_pre_ln_block_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(parts.check_pre_ln_block, fn, message, capsys)


def test_pre_ln_block_checker_passes_a_loop(capsys):
    assert parts.check_pre_ln_block(_block_loop), capsys.readouterr().out


# --- section 7: the parameter count -------------------------------------------------------------------------


def _count(D, n, d, L, ln=4, attn_bias=4, mlp_bias=5, tied=1, final=2, positions=1):
    block = 12 * d * d + (ln + attn_bias + mlp_bias) * d
    return D * d * tied + positions * n * d + L * block + final * d


def _count_loop(D, n, d, L):
    """Layer by layer, each matrix and bias, summed as a float32 tensor."""
    shapes = [(D, d), (n, d)]
    for _ in range(L):
        shapes += [
            (d,),
            (d,),
            (d, 3 * d),
            (3 * d,),
            (d, d),
            (d,),
            (d,),
            (d,),
            (d, 4 * d),
            (4 * d,),
            (4 * d, d),
            (d,),
        ]
    shapes += [(d,), (d,)]
    return torch.tensor(float(sum(math.prod(s) for s in shapes)), dtype=torch.float32)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda D, n, d, L: _count(D, n, d, L, ln=2, final=1), "each LayerNorm has a shift β"),
        (lambda D, n, d, L: _count(D, n, d, L, tied=2), r"the unembedding is W_e itself \(weight tying\)"),
        (lambda D, n, d, L: _count(D, n, d, L, mlp_bias=0), "the MLP's two layers have biases too"),
        (
            lambda D, n, d, L: _count(D, n, d, L, attn_bias=0),
            "the attention's W_q, W_k, W_v and W_o have biases",
        ),
        (lambda D, n, d, L: _count(D, n, d, L, positions=0), "the position embedding W_p"),
        (
            lambda D, n, d, L: _count(D, n, d, L, ln=0, attn_bias=0, mlp_bias=0, final=0),
            "12 d_e² per block is",
        ),
        (
            lambda D, n, d, L: _count(D, n, d, L) + 1,
            r"the count for D=101, n_ctx=16, d_e=8, L=2 is 2,697, expected 2,696",
        ),
        (lambda *a: [1], "should be a number, got list"),
    ],
)
def test_parameter_count_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(parts.check_parameter_count, fn, message, capsys)


@pytest.mark.parametrize(
    "fn", [_count_loop, lambda *a: float(_count(*a)), lambda *a: torch.tensor(_count(*a))]
)
def test_parameter_count_checker_accepts_floats_and_tensors(fn, capsys):
    assert parts.check_parameter_count(fn), capsys.readouterr().out


# --- section 11.3: SwiGLU ----------------------------------------------------------------------------------


def _swiglu_with(act=F.silu, swap=False):
    def mlp(u, W_gate, W_up, W_down):
        gate, value = u @ W_gate.T, u @ W_up.T
        if swap:
            gate, value = value, gate
        return (act(gate) * value) @ W_down.T

    return mlp


def _swiglu_loop(u, W_gate, W_up, W_down):
    """Row by row and unit by unit in plain Python, into a float32 table."""
    rows = u.reshape(-1, u.shape[-1]).tolist()
    out = torch.zeros(len(rows), W_down.shape[0], dtype=torch.float32)
    for r, x in enumerate(rows):
        hidden = []
        for g_row, v_row in zip(W_gate.tolist(), W_up.tolist(), strict=True):
            g = sum(a * b for a, b in zip(g_row, x, strict=True))
            v = sum(a * b for a, b in zip(v_row, x, strict=True))
            hidden.append(g / (1 + math.exp(-g)) * v)
        for o, w_row in enumerate(W_down.tolist()):
            out[r, o] = sum(a * b for a, b in zip(w_row, hidden, strict=True))
    return out.reshape(*u.shape[:-1], W_down.shape[0])


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (_swiglu_with(act=F.gelu), "that gates with GELU"),
        (_swiglu_with(swap=True), "SiLU goes on the gate W_gate u"),
        (_swiglu_with(act=torch.sigmoid), "that is GLU's gate"),
        (lambda u, g, v, d: F.silu(u @ g.T) @ d.T, "the gate multiplies W_up u elementwise"),
        (lambda u, g, v, d: F.silu((u @ g.T) * (u @ v.T)) @ d.T, "SiLU applies to the gate W_gate u alone"),
        (lambda u, g, v, d: (F.silu(u @ g) * (u @ v)) @ d, "your function raised RuntimeError"),
    ],
)
def test_swiglu_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(parts.check_swiglu, fn, message, capsys)


def test_swiglu_checker_passes_a_loop(capsys):
    assert parts.check_swiglu(_swiglu_loop), capsys.readouterr().out
