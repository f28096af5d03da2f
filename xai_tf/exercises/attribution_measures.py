"""Checkers for lesson 20's measures of an attribution: the contrastive gradient × input (section 2), the
completeness gap (section 3) and Spearman's ρ (section 6; its methods' checkers: ``attribution_map``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain import formulas


def _number(got: object) -> object:
    """A Python or numpy number as a 0-dimensional float64 tensor; anything else as it is."""
    if isinstance(got, (int, float, np.floating, np.integer)) and not isinstance(got, bool):
        return torch.tensor(float(got), dtype=torch.float64)
    return got


@checker("completeness gap", reference=formulas.completeness_delta)
def check_completeness_gap(fn: Callable[[Tensor, float, float], object]) -> int:
    """Lesson 20: ``fn(scores, f_x, f_base)`` → Σ_t scores_t − (F(x) − F(x′)), a number (a float or a
    0-dimensional tensor), for scores ``[T]`` and the outputs F(x), F(x′)."""
    cases = [
        (torch.tensor([0.5, -1.25, 2.0, 0.75]), 3.5, 1.0),
        (torch.tensor([1.0, 2.0, -0.5]), -0.75, 2.5),
        (torch.tensor([0.3, 0.2, 0.1, 0.4, -0.2]), 1.8, 1.1),
    ]
    for scores, f_x, f_base in cases:
        got = _number(fn(scores.clone(), f_x, f_base))
        want = formulas.completeness_delta(scores, f_x, f_base)
        if isinstance(got, Tensor) and got.numel() == 1 and not close(got.reshape(()), want):
            total, difference = scores.double().sum(), f_x - f_base
            wrong = [
                (
                    "F(x′) − F(x) in place of F(x) − F(x′): the sign of the change is flipped",
                    total + difference,
                ),
                ("F(x′) is missing: the scores explain the change F(x) − F(x′), not F(x)", total - f_x),
                (
                    "that is |delta| / |F(x) − F(x′)|: return delta, signed",
                    (total - difference).abs() / difference,
                ),
                (
                    "the scores are averaged: completeness is about their sum, Σ_t",
                    scores.double().mean() - difference,
                ),
            ]
            for message, value in wrong:
                if close(got.reshape(()), value):
                    raise Mismatch(message)
        if isinstance(got, Tensor) and got.shape == (1,):
            raise Mismatch(
                "return one number (a float or a 0-dimensional tensor), not a tensor of shape (1,)"
            )
        expect_close("delta", got, want)
    return len(cases)


def _pearson(a: Tensor, b: Tensor) -> Tensor:
    a, b = a.double() - a.double().mean(), b.double() - b.double().mean()
    return (a * b).sum() / (a.norm() * b.norm())


@checker("Spearman's ρ", reference=formulas.spearman_rho)
def check_spearman(fn: Callable[[Tensor, Tensor], object]) -> int:
    """Lesson 20: ``fn(a, b)`` → Spearman's ρ of two score vectors ``[T]`` (a number): the Pearson
    correlation of their ranks, tied values sharing their mean rank."""
    g = torch.Generator().manual_seed(6)
    a = torch.tensor([0.3, 2.0, 0.3, -1.0, 5.0, 0.3, 4.0])  # three ties
    b = torch.tensor([1.0, 3.0, 2.0, 0.0, 2.0, -4.0, 9.0])
    cases = [(torch.randn(8, generator=g), torch.randn(8, generator=g)), (a, b), (a.exp(), b**3)]
    for x, y in cases:
        got = _number(fn(x.clone(), y.clone()))
        want = formulas.spearman_rho(x, y)
        if isinstance(got, Tensor) and got.numel() == 1 and not close(got.reshape(()), want):
            order_x, order_y = x.argsort(stable=True).double(), y.argsort(stable=True).double()
            rank_x, rank_y = order_x.argsort().double(), order_y.argsort().double()
            d2, T = float(((rank_x - rank_y) ** 2).sum()), len(x)
            if close(got.reshape(()), _pearson(x, y)):
                raise Mismatch("that is Pearson's r of the values: correlate their ranks")
            if close(got.reshape(()), _pearson(order_x, order_y)):
                raise Mismatch("argsort gives the order, not the ranks: the ranks are argsort of argsort")
            if close(got.reshape(()), _pearson(rank_x, rank_y)) or close(
                got.reshape(()), torch.tensor(1 - 6 * d2 / (T * (T**2 - 1)), dtype=torch.float64)
            ):
                raise Mismatch(
                    "tied values got different ranks: give each the mean of the ranks they span "
                    "(1 − 6 Σd² / (T(T² − 1)) holds only without ties)"
                )
        if isinstance(got, Tensor) and got.shape == (1,):
            raise Mismatch(
                "return one number (a float or a 0-dimensional tensor), not a tensor of shape (1,)"
            )
        expect_close("ρ", got, want)
    return len(cases)


@checker("contrastive gradient × input", reference=formulas.contrastive_gradient_x_input)
def check_contrastive_gradient(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 20: ``fn(g_target, g_foil, E)`` → scores ``[T]``, Σ_j (g_target − g_foil)_tj E_tj, for the
    gradients of the two logits and the embeddings, all ``[T, d_e]``."""
    g = torch.Generator().manual_seed(20)
    cases = 0
    for dtype in (torch.float32, torch.float64):
        for T, d in ((5, 4), (3, 7)):
            gt, gf, E = (torch.randn(T, d, generator=g, dtype=torch.float64).to(dtype) for _ in range(3))
            got = fn(gt.clone(), gf.clone(), E.clone())
            want = formulas.contrastive_gradient_x_input(gt.double(), gf.double(), E.double())
            cases += 1
            if isinstance(got, Tensor) and got.shape == (d,):
                raise Mismatch(
                    f"shape ({d},): that sums over the tokens; sum over the embedding dims j (dim -1)"
                )
            if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
                gt64, gf64, E64 = gt.double(), gf.double(), E.double()
                wrong = [
                    ("the sign is flipped: foil − target; F_c is z_target − z_foil", -want),
                    (
                        "that is the target's gradient × input alone: subtract the foil's",
                        (gt64 * E64).sum(-1),
                    ),
                    (
                        "the input is missing: multiply the difference by E before summing",
                        (gt64 - gf64).sum(-1),
                    ),
                    (
                        "that is the difference of the gradients' norms: take (g_target − g_foil) · E_t",
                        gt64.norm(dim=-1) - gf64.norm(dim=-1),
                    ),
                ]
                for message, value in wrong:
                    if close(got, value):
                        raise Mismatch(message)
            expect_close(f"scores (T={T}, d_e={d}, {str(dtype)[6:]})", got, want)
    return cases
