"""Checkers for lesson 06: G-L1, gradient × input, the straight-line path, integrated gradients by the
right Riemann sum, Gauss–Legendre nodes and weights, the completeness gap, the probability's gradient."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain.attribution import gradient_times_input
from xai_tf.explain.ig_steps import (
    completeness_delta,
    g_l1,
    gauss_legendre,
    probability_gradient,
    straight_path,
)
from xai_tf.explain.path_integral import path_integrated_gradients


@checker("integrated gradients (right Riemann sum)", reference=path_integrated_gradients)
def check_integrated_gradients(
    fn: Callable[[Callable[[Tensor], Tensor], Tensor, Tensor, int], Tensor],
) -> int:
    """Lesson 06: ``fn(F, x, baseline, m)`` → IG by the right Riemann sum,
    (x − x') ⊙ (1/m) Σ_{k=1..m} ∇F(x' + (k/m)(x − x')), where F maps a batch ``[n, D]`` to ``[n]``."""
    w = torch.tensor([2.0, -1.0, 0.5])

    def toy(p: Tensor) -> Tensor:
        return torch.relu(torch.relu(p[:, 0]) - 1 - torch.relu(p[:, 1]))

    runs = [
        (lambda p: p @ w, torch.tensor([1.0, 4.0, -2.0]), torch.tensor([0.5, 0.0, 1.0]), 5),
        (toy, torch.tensor([3.0, 1.0]), torch.zeros(2), 4),
        (lambda p: (p**2).sum(-1), torch.tensor([1.0, -2.0]), torch.tensor([0.5, 0.5]), 10),
    ]
    for F, x, baseline, m in runs:
        want = path_integrated_gradients(F, x, baseline, n_steps=m)
        got = fn(F, x.clone(), baseline.clone(), m)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
            alphas = torch.arange(m) / m  # left sum: α = 0, …, (m−1)/m
            points = (baseline + alphas[:, None] * (x - baseline)).requires_grad_(True)
            left = (x - baseline) * torch.autograd.grad(F(points).sum(), points)[0].mean(0)
            if close(got, left, atol=1e-5):
                raise Mismatch("that is the left Riemann sum: take α = k/m for k = 1..m (α = 0 is no step)")
            grads_only = want / (x - baseline).masked_fill(x == baseline, 1)
            if close(got, grads_only, atol=1e-5):
                raise Mismatch("multiply the averaged gradient by (x − baseline)")
        expect_close("IG", got, want)
    return len(runs)


@checker("G-L1", reference=g_l1)
def check_g_l1(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 06: ``fn(g)`` for a gradient g ``[T, d]`` → G-L1 ``[T]`` = (1/d) Σ_j |g_tj|."""
    gen = torch.Generator().manual_seed(0)
    gs = [torch.randn(5, 16, generator=gen), torch.tensor([[3.0, -4.0], [1.0, 1.0]])]
    for g in gs:
        want = g.abs().mean(-1)
        got = fn(g.clone())
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, g.mean(-1)):
                raise Mismatch("take absolute values first: the plain mean is G-avg")
            if close(got, g.abs().sum(-1)):
                raise Mismatch("divide by d: G-L1 is the mean of |g|, not the sum")
        if isinstance(got, Tensor) and got.shape != want.shape and got.shape == (g.size(-1),):
            raise Mismatch(
                f"reduce over the embedding dim (the last): one score per token, {tuple(want.shape)}"
            )
        expect_close("G-L1", got, want)
    return len(gs)


def _random(*shape: int, seed: int) -> Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


@checker("gradient × input", reference=gradient_times_input)
def check_gradient_x_input(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 06: ``fn(g, E)`` for g = ∇ and E ``[T, d_e]`` → ``[T]``, Σ_j ∇_tj E_tj."""
    cases = [
        (_random(5, 8, seed=1), _random(5, 8, seed=2)),
        (torch.tensor([[1.0, -2.0]]), torch.tensor([[3.0, 4.0]])),
    ]
    for g, E in cases:
        want = (g.double() * E.double()).sum(-1)
        got = fn(g.clone(), E.clone())
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, (g * E).mean(-1)):
                raise Mismatch("that is the mean over j: gradient × input *sums* ∇_tj E_tj over the d_e dims")
            if close(got, (g.abs() * E.abs()).sum(-1)):
                raise Mismatch("gradient × input is signed: multiply ∇ and E as they are, no absolute values")
        if isinstance(got, Tensor) and got.shape == (g.size(-1),):
            raise Mismatch(
                "you summed over the tokens (dim 0): sum over the embedding dims, "
                f"one score per token {tuple(want.shape)}"
            )
        expect_close("gradient × input", got, want)
    return len(cases)


@checker("the straight-line path", reference=straight_path)
def check_straight_path(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 06: ``fn(E_base, E, alphas)`` → ``[m, T, d_e]``, the points E' + α_k (E − E')."""
    E_base, E = _random(3, 4, seed=3), _random(3, 4, seed=4)
    cases = [torch.tensor([0.0, 0.25, 1.0]), torch.linspace(0.1, 0.9, 5)]
    for alphas in cases:
        want = E_base.double() + alphas.double()[:, None, None] * (E.double() - E_base.double())
        got = fn(E_base.clone(), E.clone(), alphas.clone())
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, E + alphas[:, None, None] * (E_base - E)):
                raise Mismatch("the path runs backwards: α = 0 must give the baseline E', α = 1 the input E")
            if close(got, E_base + alphas[:, None, None] * E):
                raise Mismatch("the step is α (E − E'), not α E: the path must end at E when α = 1")
        if isinstance(got, Tensor) and got.shape == E.shape:
            raise Mismatch(
                f"one point per α: the answer has shape {tuple(want.shape)}; "
                "give alphas two new axes, alphas[:, None, None]"
            )
        expect_close("path", got, want)
    return len(cases)


@checker("Gauss–Legendre nodes and weights", reference=gauss_legendre)
def check_gauss_legendre(fn: Callable[[int], tuple[Tensor, Tensor]]) -> int:
    """Lesson 06: ``fn(m)`` → ``(alphas, weights)`` ``[m]`` each: the Gauss–Legendre rule on [0, 1]."""
    ms = [1, 2, 5, 12]
    for m in ms:
        x, v = (torch.from_numpy(a) for a in np.polynomial.legendre.leggauss(m))
        got = fn(m)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` it?")
        if not (isinstance(got, tuple) and len(got) == 2):
            raise Mismatch("return a pair (alphas, weights)")
        alphas, weights = got
        if (
            isinstance(alphas, Tensor)
            and isinstance(weights, Tensor)
            and alphas.shape == weights.shape == (m,)
        ):
            order = alphas.argsort()  # any order of the pairs (α_k, w_k) is the same rule
            alphas, weights = alphas[order], weights[order]
        if isinstance(alphas, Tensor) and close(alphas, x):
            raise Mismatch("those are the nodes of [−1, 1]: map them to [0, 1] with α = (x + 1) / 2")
        if isinstance(weights, Tensor) and close(weights, v):
            raise Mismatch("the weights of [−1, 1] sum to 2: halve them so that they sum to 1 on [0, 1]")
        if isinstance(weights, Tensor) and m > 2 and close(weights, torch.full((m,), 1 / m)):
            raise Mismatch("equal weights 1/m belong to the Riemann sum: use leggauss's weights v_k, halved")
        expect_close("alphas", alphas, (x + 1) / 2)
        expect_close("weights", weights, v / 2)
    return len(ms)


@checker("the completeness gap", reference=completeness_delta)
def check_completeness_delta(fn: Callable[[Tensor, float, float], object]) -> int:
    """Lesson 06: ``fn(attributions, f_input, f_baseline)`` → delta = Σ_{t,j} IG_tj − (F(x) − F(x′))."""
    cases = [(_random(4, 6, seed=5), 2.5, -0.75), (torch.tensor([[0.5, 0.25], [1.0, -1.0]]), 1.0, -0.5)]
    for ig, f_x, f_b in cases:
        want = ig.double().sum() - (f_x - f_b)
        got = fn(ig.clone(), f_x, f_b)
        if isinstance(got, float | int | np.floating):  # a plain number is an answer too
            got = torch.tensor(float(got), dtype=torch.float64)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, -want):
                raise Mismatch("the sign is reversed: delta = Σ IG − (F(x) − F(x′))")
            if close(got, ig.sum() - f_x):
                raise Mismatch("the baseline is missing: IG explains F(x) − F(x′), not F(x)")
        if isinstance(got, Tensor) and got.shape == ig.shape[:1]:
            raise Mismatch("sum over the tokens *and* the embedding dims: delta is one number")
        expect_close("delta", got, want)
    return len(cases)


@checker("the probability's gradient", reference=probability_gradient)
def check_prob_gradient(fn: Callable[[Tensor, Tensor, int], Tensor]) -> int:
    """Lesson 06: ``fn(p, dz, w)`` for probabilities p ``[D]`` and logit gradients dz ``[D, n]`` →
    ∂p_w = p_w (dz_w − Σ_v p_v dz_v) ``[n]``."""
    cases = [
        (_random(6, seed=6).mul(2).softmax(-1), _random(6, 4, seed=7), 2),
        (torch.tensor([0.7, 0.2, 0.1]), torch.eye(3), 0),
    ]
    for p, dz, w in cases:
        want = p.double()[w] * (dz.double()[w] - p.double() @ dz.double())
        got = fn(p.clone(), dz.clone(), w)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, dz[w] - p @ dz):
                raise Mismatch("the factor p_w is missing in front of the bracket")
            if close(got, p[w] * (dz[w] - dz.mean(0))):
                raise Mismatch(
                    "the mean of the logits' gradients is weighted by p_v, not uniform: Σ_v p_v ∂z_v"
                )
            if close(got, p[w] * dz[w]):
                raise Mismatch("that is p_w ∂z_w: subtract the probability-weighted mean Σ_v p_v ∂z_v")
        expect_close("∂p_w", got, want)
    return len(cases)
