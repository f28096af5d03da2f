"""Checkers for lesson 06: integrated gradients by the right Riemann sum, G-L1."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


@checker("integrated gradients (right Riemann sum)")
def check_integrated_gradients(
    fn: Callable[[Callable[[Tensor], Tensor], Tensor, Tensor, int], Tensor],
) -> int:
    """Lesson 06: ``fn(F, x, baseline, m)`` → IG by the right Riemann sum,
    (x − x') ⊙ (1/m) Σ_{k=1..m} ∇F(x' + (k/m)(x − x')), where F maps a batch ``[n, D]`` to ``[n]``."""
    from xai_tf.explain.path_integral import path_integrated_gradients

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


@checker("G-L1")
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
