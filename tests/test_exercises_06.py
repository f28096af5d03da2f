"""Lesson 06's checkers placed where each idea is taught (issue 54): each names its typical mistakes, and
accepts other right answers (loops, float32 tables, any order of the Gauss–Legendre pairs). The lesson's
solutions in every float dtype, and the library references, are covered by ``test_exercises.py``."""

import numpy as np
import pytest
import torch
from test_exercises import CHECKERS, _rejects_with

from xai_tf.exercises import attribution


def _gl_unmapped(m):
    x, v = np.polynomial.legendre.leggauss(m)
    return torch.from_numpy(x), torch.from_numpy(v / 2)


def _gl_unhalved(m):
    x, v = np.polynomial.legendre.leggauss(m)
    return torch.from_numpy((x + 1) / 2), torch.from_numpy(v)


def _gl_riemann_weights(m):  # Gauss–Legendre nodes with the Riemann sum's weights 1/m
    x, _ = np.polynomial.legendre.leggauss(m)
    return torch.from_numpy((x + 1) / 2), torch.full((m,), 1 / m, dtype=torch.float64)


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (attribution.check_gradient_x_input, lambda g, E: (g * E).mean(-1), r"\*sums\* ∇_tj E_tj"),
        (attribution.check_gradient_x_input, lambda g, E: (g.abs() * E.abs()).sum(-1), "no absolute values"),
        (
            attribution.check_gradient_x_input,
            lambda g, E: (g * E).sum(0),
            r"summed over the tokens \(dim 0\)",
        ),
        (attribution.check_gradient_x_input, lambda g, E: g @ E.T, r"has shape \(5, 5\), expected \(5,\)"),
        (attribution.check_straight_path, lambda Eb, E, a: E + a[:, None, None] * (Eb - E), "runs backwards"),
        (attribution.check_straight_path, lambda Eb, E, a: Eb + a[:, None, None] * E, r"not α E"),
        (attribution.check_straight_path, lambda Eb, E, a: Eb + a.mean() * (E - Eb), r"one point per α"),
        (attribution.check_gauss_legendre, _gl_unmapped, r"nodes of \[−1, 1\]: map them"),
        (attribution.check_gauss_legendre, _gl_unhalved, "halve them"),
        (
            attribution.check_gauss_legendre,
            _gl_riemann_weights,
            "equal weights 1/m belong to the Riemann sum",
        ),
        (
            attribution.check_gauss_legendre,
            lambda m: torch.linspace(0, 1, m),
            r"return a pair \(alphas, weights\)",
        ),
        (attribution.check_completeness_delta, lambda a, fx, fb: (fx - fb) - a.sum(), "the sign is reversed"),
        (attribution.check_completeness_delta, lambda a, fx, fb: a.sum() - fx, "the baseline is missing"),
        (
            attribution.check_completeness_delta,
            lambda a, fx, fb: a.sum(-1) - (fx - fb),
            "delta is one number",
        ),
        (attribution.check_completeness_delta, lambda a, fx, fb: None, r"delta is None: did you forget"),
        (attribution.check_prob_gradient, lambda p, dz, w: dz[w] - p @ dz, "the factor p_w is missing"),
        (
            attribution.check_prob_gradient,
            lambda p, dz, w: p[w] * (dz[w] - dz.mean(0)),
            "weighted by p_v, not uniform",
        ),
        (
            attribution.check_prob_gradient,
            lambda p, dz, w: p[w] * dz[w],
            "subtract the probability-weighted mean",
        ),
        (attribution.check_prob_gradient, lambda p, dz, w: p[w] * (p @ dz - dz[w]), r"∂p_w\[\d\] is"),
    ],
)
def test_lesson_06_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


def _gl_descending_float32(m):  # the same rule, pairs in another order, in float32
    x, v = np.polynomial.legendre.leggauss(m)
    return torch.tensor((x[::-1] + 1) / 2, dtype=torch.float32), torch.tensor(
        v[::-1] / 2, dtype=torch.float32
    )


def _gl_by_golub_welsch(m):  # an independent right answer: the eigenvalues of the Jacobi matrix
    k = torch.arange(1, m, dtype=torch.float64)
    J = torch.diag(k / torch.sqrt(4 * k**2 - 1), 1)
    x, vectors = torch.linalg.eigh(J + J.T)
    return (x + 1) / 2, vectors[0] ** 2  # weights 2 v₀² on [−1, 1], halved on [0, 1]


def _grad_x_input_loop(g, E):
    return torch.tensor(
        [sum(float(a) * float(b) for a, b in zip(gr, er, strict=True)) for gr, er in zip(g, E, strict=True)]
    )


def _prob_gradient_loop(p, dz, w):  # entry by entry in Python floats, returned in float32
    D, n = dz.shape
    mean = [sum(float(p[v]) * float(dz[v, i]) for v in range(D)) for i in range(n)]
    return torch.tensor([float(p[w]) * (float(dz[w, i]) - mean[i]) for i in range(n)], dtype=torch.float32)


def _path_loop(E_base, E, alphas):
    return torch.stack([E_base + float(a) * (E - E_base) for a in alphas]).float()


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("check_gauss_legendre", _gl_descending_float32),
        ("check_gauss_legendre", _gl_by_golub_welsch),
        ("check_gradient_x_input", _grad_x_input_loop),
        ("check_straight_path", _path_loop),
        ("check_prob_gradient", _prob_gradient_loop),
        ("check_completeness_delta", lambda a, fx, fb: float(a.double().sum()) - fx + fb),  # a Python float
        ("check_completeness_delta", lambda a, fx, fb: np.float64(a.double().sum().item() - (fx - fb))),
    ],
)
def test_lesson_06_checkers_accept_other_right_answers(name, fn, capsys):
    assert CHECKERS[name](fn), capsys.readouterr().out
