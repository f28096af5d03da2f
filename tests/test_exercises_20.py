"""Lesson 20's checkers (issue 55): each names the typical mistakes (a wrong solution per message) and
accepts other right answers (a loop or vectorised, float32 or float64, a Python float where a number is
asked for). The lesson's own solutions pass in every dtype through test_exercises.py's generic tests."""

import math

import pytest
import torch
from scipy import stats
from test_exercises import _rejects_with

from xai_tf.exercises import attribution_map as am
from xai_tf.exercises import attribution_measures as ms
from xai_tf.explain import formulas as fo
from xai_tf.explain import perturbation as pt


def _ranks(x, ties="mean"):
    if ties == "order":  # ties broken by position
        return x.argsort(stable=True).argsort().double() + 1
    return torch.stack([(x < v).sum() + ((x == v).sum() + 1) / 2 for v in x]).double()


def _pearson(a, b):
    a, b = a.double() - a.double().mean(), b.double() - b.double().mean()
    return (a * b).sum() / (a.norm() * b.norm())


def _six_d_squared(a, b):
    d2, T = float(((_ranks(a, "order") - _ranks(b, "order")) ** 2).sum()), len(a)
    return 1 - 6 * d2 / (T * (T**2 - 1))


def _occlusion_loop(F, E, E_base, window, combine="mean", base=None):
    """Occlusion one window at a time; ``combine`` and ``base`` switch on the usual mistakes."""
    T = E.shape[0]
    total, count = torch.zeros(T, dtype=E.dtype), torch.zeros(T, dtype=E.dtype)
    f_x = F(E[None])[0]
    for s in range(T - window + 1):
        X = E.clone()
        X[s : s + window] = (E_base if base is None else base)[s : s + window]
        total[s : s + window] += f_x - F(X[None])[0]
        count[s : s + window] += 1
    return {"mean": total / count, "sum": total, "window": total / window}[combine]


def _occlusion_vectorised(F, E, E_base, window):
    T = E.shape[0]
    starts = torch.arange(T - window + 1)
    covered = (starts[:, None] <= torch.arange(T)) & (torch.arange(T) < starts[:, None] + window)  # [K, T]
    X = torch.where(covered[..., None], E_base, E)
    drops = F(E[None]) - F(X)
    return (covered * drops[:, None]).sum(0) / covered.sum(0)


def _rescale(f, z, z_ref, at_equal="slope"):
    u = z.detach().clone().requires_grad_(True)
    (slope,) = torch.autograd.grad(f(u).sum(), u)
    dz = z - z_ref
    secant = (f(z) - f(z_ref)) / torch.where(dz == 0, torch.ones_like(dz), dz)
    return torch.where(dz == 0, slope if at_equal == "slope" else torch.zeros_like(dz), secant)


def _kernel(z, binomial=True, ends=None, numerator=None):
    T = z.shape[1]
    k = z.sum(1).double()
    C = torch.tensor([math.comb(T, int(s)) for s in k], dtype=torch.float64) if binomial else 1
    pi = (T - 1 if numerator is None else numerator) / (C * k * (T - k))
    return pi if ends is None else torch.where(torch.isinf(pi), torch.full_like(pi, ends), pi)


def _shapley_value_weights(z):
    T = z.shape[1]
    k = z.sum(1)
    w = [
        math.factorial(int(s)) * math.factorial(T - int(s) - 1) / math.factorial(T)
        for s in k.clamp(max=T - 1)
    ]
    return torch.where((k == 0) | (k == T), math.inf, torch.tensor(w, dtype=torch.float64))


@pytest.mark.parametrize(
    ("checker", "fn", "message"),
    [
        (am.check_occlusion, lambda F, E, B, w: -_occlusion_loop(F, E, B, w), "the sign is flipped"),
        (
            am.check_occlusion,
            lambda F, E, B, w: _occlusion_loop(F, E, B, w, base=torch.zeros_like(B)),
            "became zeros: replace them by the baseline's, E_base",
        ),
        (
            am.check_occlusion,
            lambda F, E, B, w: _occlusion_loop(F, E, B, w, "sum"),
            "the drops are summed over the windows: take their mean",
        ),
        (
            am.check_occlusion,
            lambda F, E, B, w: _occlusion_loop(F, E, B, w, "window"),
            r"divided by the window \(2\): a token at the edge is covered by fewer windows",
        ),
        (
            am.check_occlusion,
            lambda F, E, B, w: F(E) * torch.ones(len(E)),
            r"F takes a batch \[n, T, d_e\], got \(5, 3\): call F\(E\[None\]\)",
        ),
        (
            ms.check_completeness_gap,
            lambda s, a, b: s.sum() - (b - a),
            "F\\(x′\\) − F\\(x\\) in place of F\\(x\\) − F\\(x′\\)",
        ),
        (ms.check_completeness_gap, lambda s, a, b: s.sum() - a, "F\\(x′\\) is missing"),
        (
            ms.check_completeness_gap,
            lambda s, a, b: (s.sum() - (a - b)).abs() / abs(a - b),
            r"that is \|delta\| / \|F\(x\) − F\(x′\)\|",
        ),
        (ms.check_completeness_gap, lambda s, a, b: s.mean() - (a - b), "the scores are averaged"),
        (
            ms.check_completeness_gap,
            lambda s, a, b: (s.sum() - (a - b))[None],
            r"not a tensor of shape \(1,\)",
        ),
        (
            am.check_rescale_multiplier,
            lambda f, z, r: (f(z) - f(r)) / (z - r),
            r"NaN where z = z′ \(0/0\): there the multiplier is the gradient",
        ),
        (
            am.check_rescale_multiplier,
            lambda f, z, r: _rescale(f, z, z),
            "that is the gradient f′\\(z\\) everywhere: the rescale rule is the secant",
        ),
        (
            am.check_rescale_multiplier,
            lambda f, z, r: 1 / _rescale(f, z, r),
            "upside down",
        ),
        (
            am.check_rescale_multiplier,
            lambda f, z, r: _rescale(f, z, r, at_equal="zero"),
            "0 where z = z′",
        ),
        (ms.check_spearman, _pearson, "that is Pearson's r of the values: correlate their ranks"),
        (
            ms.check_spearman,
            lambda a, b: _pearson(a.argsort(), b.argsort()),
            "argsort gives the order, not the ranks",
        ),
        (
            ms.check_spearman,
            lambda a, b: _pearson(_ranks(a, "order"), _ranks(b, "order")),
            "tied values got different ranks: give each the mean",
        ),
        (ms.check_spearman, _six_d_squared, r"1 − 6 Σd² / \(T\(T² − 1\)\) holds only without ties"),
        (
            am.check_shapley_kernel,
            lambda z: _kernel(z, binomial=False),
            r"that is p\(k\), the kernel summed over the C\(T, k\) coalitions",
        ),
        (
            am.check_shapley_kernel,
            _shapley_value_weights,
            r"that is the Shapley value's weight \|S\|! \(T − \|S\| − 1\)! / T!",
        ),
        (
            am.check_shapley_kernel,
            lambda z: _kernel(z, ends=1e6),
            r"π\(z\) is infinite for the empty and the full coalition .* gives \[1000000.0, 1000000.0\]",
        ),
        (
            am.check_shapley_kernel,
            lambda z: _kernel(z, numerator=z.shape[1]),
            r"off by a constant factor 1.5 .*the numerator is T − 1",
        ),
    ],
)
def test_lesson_20_checkers_name_the_mistake(checker, fn, message, capsys):
    _rejects_with(checker, fn, message, capsys)


@pytest.mark.parametrize(
    ("checker", "fn"),
    [
        (am.check_occlusion, _occlusion_loop),
        (am.check_occlusion, _occlusion_vectorised),
        (am.check_occlusion, lambda F, E, B, w: pt.occlusion(F, E, B, w).float()),
        (ms.check_completeness_gap, lambda s, a, b: float(s.sum()) - (a - b)),
        (ms.check_completeness_gap, lambda s, a, b: sum(s.tolist()) - a + b),
        (ms.check_completeness_gap, lambda s, a, b: (s.sum() - (a - b)).float()),
        (am.check_rescale_multiplier, _rescale),
        (am.check_rescale_multiplier, lambda f, z, r: _rescale(f, z.double(), r.double())),
        (am.check_shapley_kernel, _kernel),
        (am.check_shapley_kernel, lambda z: _kernel(z).float()),
        (am.check_exact_shapley, fo.shapley_of_game),
        (ms.check_spearman, lambda a, b: _pearson(_ranks(a), _ranks(b))),
        (ms.check_spearman, lambda a, b: float(stats.spearmanr(a.numpy(), b.numpy()).statistic)),
        (ms.check_spearman, lambda a, b: _pearson(_ranks(a), _ranks(b)).float()),
    ],
)
def test_lesson_20_checkers_pass_other_right_answers(checker, fn, capsys):
    assert checker(fn), capsys.readouterr().out


def _contrast(gt, gf, E):
    return ((gt - gf) * E).sum(-1)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda gt, gf, E: _contrast(gf, gt, E), "the sign is flipped: foil − target"),
        (lambda gt, gf, E: (gt * E).sum(-1), "the target's gradient × input alone"),
        (lambda gt, gf, E: (gt - gf).sum(-1), "the input is missing"),
        (lambda gt, gf, E: gt.norm(dim=-1) - gf.norm(dim=-1), "the difference of the gradients' norms"),
        (lambda gt, gf, E: ((gt - gf) * E).sum(0), r"shape \(4,\): that sums over the tokens"),
        (lambda gt, gf, E: None, "is None: did you forget"),
    ],
)
def test_contrastive_gradient_checker_names_the_mistake(fn, message, capsys):
    _rejects_with(ms.check_contrastive_gradient, fn, message, capsys)


@pytest.mark.parametrize(
    "fn",
    [
        _contrast,
        lambda gt, gf, E: (gt * E).sum(-1) - (gf * E).sum(-1),
        lambda gt, gf, E: torch.einsum("td,td->t", gt - gf, E).double(),
        lambda gt, gf, E: torch.stack([(gt[t] - gf[t]) @ E[t] for t in range(len(E))]),
    ],
)
def test_contrastive_gradient_checker_passes_other_right_answers(fn, capsys):
    assert ms.check_contrastive_gradient(fn), capsys.readouterr().out
