"""Lessons 17 and 18's later exercises (issue 54: one in each section that introduces a computation): the
links read off cross-attention (17 §3), the three families' masks (17 §4), GNMT's beam score (17 §6) and
Kim et al.'s normalised CRF marginals (18 §4). Each checker names its typical mistakes and accepts loops
as well as vectorised answers; the lessons' own solutions pass in every float dtype by
``test_exercises``'s generic tests (SOLUTIONS, CHECKERS)."""

import pytest
import torch
from test_exercises import CHECKERS, SOLUTIONS, _rejects_with

from xai_tf.exercises import encdec_reading as ex17
from xai_tf.exercises import structured as ex18

NEW = ["check_alignment_sources", "check_beam_scores", "check_family_mask", "check_normalized_marginals"]


def test_each_new_checker_has_a_lesson_solution():
    assert set(NEW) <= set(SOLUTIONS) and set(NEW) <= set(CHECKERS)


# --- 17 §3: links from cross-attention -----------------------------------------------------------------


def _with_mean(A):
    return torch.cat([A, A.mean(1, keepdim=True)], 1)


def _sources_loop(A):
    """A student's loop: one Python max per row, the heads' mean summed by hand."""
    L, H, T, S = A.shape
    out = torch.zeros(L, H + 1, T, dtype=torch.long)
    for layer in range(L):
        for i in range(T):
            for h in range(H + 1):
                row = [
                    sum(float(A[layer, k, i, j]) for k in range(H)) / H
                    if h == H
                    else float(A[layer, h, i, j])
                    for j in range(S)
                ]
                out[layer, h, i] = max(range(S), key=row.__getitem__)
    return out


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda A: _with_mean(A).argmax(-2), "argmax over the target positions"),
        (lambda A: A.argmax(-1), r"append the heads' mean as head H, shape \[L, H \+ 1, T\]"),
        (
            lambda A: torch.cat(
                [A.argmax(-1), A.argmax(-1).double().mean(1, keepdim=True).round().long()], 1
            ),
            "average the weights over the heads .* not the mean of the heads' argmaxes",
        ),
        (lambda A: torch.cat([A.mean(1, keepdim=True), A], 1).argmax(-1), "the heads' mean goes last"),
        (lambda A: _with_mean(A).argmin(-1), r"j\* for L = 2"),
        (lambda A: None, "is None: did you forget"),
    ],
)
def test_alignment_sources_names_the_mistake(fn, message, capsys):
    _rejects_with(ex17.check_alignment_sources, fn, message, capsys)


def test_alignment_sources_accepts_a_loop_and_float_indices(capsys):
    assert ex17.check_alignment_sources(_sources_loop)
    assert ex17.check_alignment_sources(lambda A: _with_mean(A.double()).argmax(-1).float())
    assert capsys.readouterr().out.count("✔") == 2


# --- 17 §6: GNMT's beam score --------------------------------------------------------------------------


def _scores_loop(log_p, n_words, alpha):
    return torch.tensor(
        [float(s) / ((5 + int(n) + 1) / 6) ** alpha for s, n in zip(log_p, n_words, strict=True)]
    )


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda s, n, a: s * ((5 + n + 1) / 6) ** a, r"you multiplied by lp\(Y\): divide"),
        (lambda s, n, a: s / ((5 + n) / 6) ** a, r"\|Y\| counts the <eos> too: the length is n_words \+ 1"),
        (lambda s, n, a: s / (5 + n + 1) ** a, r"divide by 6\^α too"),
        (lambda s, n, a: s / (a * (5 + n + 1) / 6), "α is an exponent"),
        (lambda s, n, a: s / (n + 1) ** a, r"score \(α = 0.6\)"),
        (lambda s, n, a: None, r"score \(α = 0.6\) is None"),
    ],
)
def test_beam_scores_names_the_mistake(fn, message, capsys):
    _rejects_with(ex17.check_beam_scores, fn, message, capsys)


def test_beam_scores_accepts_a_loop(capsys):
    assert ex17.check_beam_scores(_scores_loop)
    assert capsys.readouterr().out.startswith("✔")


# --- 18 §4: Kim et al.'s normalised marginals ----------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda p, lam: lam * p.softmax(-1), r"softmax\(p\) exponentiates the marginals"),
        (lambda p, lam: lam * p / p.sum(0, keepdim=True), "you divided by the column sums"),
        (lambda p, lam: p / p.sum(-1, keepdim=True), "each row should sum to λ = 2: multiply"),
        (lambda p, lam: lam * p / p.amax(-1, keepdim=True), "not by its largest marginal"),
        (lambda p, lam: lam * p / p.sum(), r"α for λ = 2"),
        (lambda p, lam: None, r"α for λ = 2 is None"),
    ],
)
def test_normalized_marginals_names_the_mistake(fn, message, capsys):
    _rejects_with(ex18.check_normalized_marginals, fn, message, capsys)


def test_normalized_marginals_accepts_a_loop(capsys):
    def loop(p, lam):
        return torch.stack([torch.stack([lam * x / sum(row) for x in row]) for row in p])

    assert ex18.check_normalized_marginals(loop)
    assert capsys.readouterr().out.startswith("✔")


# --- 17 §4: the three families' masks ------------------------------------------------------------------


def _mask_right(family, S, T):
    M = torch.ones(S + T, S + T, dtype=torch.bool)
    if family == "encoder-only":
        return M
    M = M.tril()
    if family == "encoder-decoder":
        M[:, :S] = True
        M[:S, S:] = False
    return M


def _mask_loop(family, S, T):
    """A student's loop over the pairs, the rule written out per position."""
    n = S + T
    out = torch.zeros(n, n, dtype=torch.bool)
    for i in range(n):
        for j in range(n):
            if family == "encoder-only":
                out[i, j] = True
            elif family == "decoder-only":
                out[i, j] = j <= i
            else:
                out[i, j] = j < S or (i >= S and j <= i)
    return out


def _mask_source_reads_target(family, S, T):
    M = _mask_right(family, S, T)
    if family == "encoder-decoder":
        M[:S, S:] = True
    return M


def _mask_target_not_causal(family, S, T):
    M = _mask_right(family, S, T)
    if family == "encoder-decoder":
        M[S:, S:] = True
    return M


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (_mask_source_reads_target, "no source word sees the target"),
        (
            lambda f, S, T: _mask_right("decoder-only" if f == "encoder-decoder" else f, S, T),
            "that is the decoder-only mask",
        ),
        (_mask_target_not_causal, r"target position i sees only target positions j ≤ i"),
        (lambda f, S, T: _mask_right(f, S, T).T.contiguous(), "rows are the queries, columns the keys"),
        (
            lambda f, S, T: (
                _mask_right(f, S, T) & ~torch.eye(S + T, dtype=torch.bool)
                if f == "decoder-only"
                else _mask_right(f, S, T)
            ),
            "a position sees itself too",
        ),
        (lambda f, S, T: _mask_right(f, S, T).float(), "the mask should be boolean"),
        (lambda f, S, T: None, "encoder-only mask for S = 3, T = 4 is None"),
    ],
)
def test_family_mask_names_the_mistake(fn, message, capsys):
    _rejects_with(ex17.check_family_mask, fn, message, capsys)


def test_family_mask_accepts_a_loop(capsys):
    assert ex17.check_family_mask(_mask_loop) and ex17.check_family_mask(_mask_right)
    assert capsys.readouterr().out.count("✔") == 2
