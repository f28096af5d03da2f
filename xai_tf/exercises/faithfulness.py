"""Checkers for lesson 08: Kendall's τ of two importance vectors, and erasing attention weights with
renormalisation (Serrano & Smith)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import torch
from scipy import stats
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _tau_a(a: np.ndarray, b: np.ndarray) -> float:
    """τ_a: (concordant − discordant) / n_0, with no correction for ties."""
    pairs = list(combinations(range(len(a)), 2))
    return sum(np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) for i, j in pairs) / len(pairs)


def _ties(a: np.ndarray) -> int:
    """n_a: the pairs i < j with a_i = a_j."""
    return sum(a[i] == a[j] for i, j in combinations(range(len(a)), 2))


@checker("Kendall τ")
def check_kendall_tau(fn: Callable[[Tensor, Tensor], float]) -> int:
    """Lesson 08: ``fn(a, b)`` → τ_b of two importance vectors (scipy.stats.kendalltau's statistic)."""
    rng = np.random.default_rng(8)
    cases = [
        (np.array([0.1, 0.5, 0.2, 0.9]), np.array([1.0, 3.0, 2.0, 4.0])),
        (np.array([0.1, 0.5, 0.2, 0.9]), np.array([4.0, 3.0, 2.0, 1.0])),
        (rng.normal(size=7), rng.normal(size=7)),
        (np.array([0.0, 0.0, 0.3, 0.7, 0.7]), np.array([0.2, 0.1, 0.4, 0.3, 0.9])),  # ties
    ]
    for a, b in cases:
        got = fn(torch.from_numpy(a), torch.from_numpy(b))
        if got is None:
            raise Mismatch("returned None: did you forget to `return` τ?")
        try:
            got = float(got)
        except (TypeError, ValueError):
            hint = ": return its .statistic" if hasattr(got, "statistic") else ""
            raise Mismatch(f"return one number τ, got {type(got).__name__}{hint}") from None
        want = float(stats.kendalltau(a, b).statistic)
        if abs(got - want) > 1e-6:
            if abs(got - np.corrcoef(a, b)[0, 1]) < 1e-6:
                raise Mismatch("that is Pearson's r of the values, not Kendall's τ (pairs counted)")
            n0 = len(a) * (len(a) - 1) / 2
            if abs(got - _tau_a(a, b) * n0 / (n0 - _ties(a)) / (n0 - _ties(b))) < 1e-6:
                raise Mismatch(
                    "the denominator is the square root √((n_0 − n_a)(n_0 − n_b)), not the product"
                )
            if abs(got - _tau_a(a, b)) < 1e-6:
                raise Mismatch(
                    f"for a = {a.tolist()} you return τ_a = {got:.4f}: with ties the denominator is "
                    f"√((n_0 − n_a)(n_0 − n_b)), not n_0 (τ_b = {want:.4f})"
                )
            if abs(got - stats.spearmanr(a, b).statistic) < 1e-6:
                raise Mismatch("that is Spearman's ρ (ranks correlated), not Kendall's τ (pairs counted)")
            raise Mismatch(
                f"for a = {np.round(a, 3).tolist()}, b = {np.round(b, 3).tolist()}: "
                f"τ = {want:.4f}, got {got:.4f}"
            )
    return len(cases)


@checker("erasure with renormalisation")
def check_erase(fn: Callable[[Tensor, Sequence[int]], Tensor]) -> int:
    """Lesson 08: ``fn(alpha, removed)`` → α′ with α′_t = 0 on ``removed`` and the rest rescaled to sum 1."""
    cases = [
        (torch.tensor([0.5, 0.2, 0.2, 0.1], dtype=torch.float64), [0]),
        (torch.tensor([0.1, 0.6, 0.3], dtype=torch.float64), [1, 2]),
        (torch.tensor([0.25, 0.25, 0.25, 0.25], dtype=torch.float64), []),
    ]
    for alpha, removed in cases:
        got = fn(alpha.clone(), list(removed))
        kept = torch.ones(len(alpha), dtype=torch.bool)
        kept[removed] = False
        want = torch.where(kept, alpha, torch.zeros_like(alpha))
        want = want / want.sum()
        if isinstance(got, Tensor) and removed and got.shape == (len(alpha) - len(removed),):
            raise Mismatch(
                f"α′ has {len(got)} entries for {len(alpha)} words: "
                "zero the removed weights, do not delete them"
            )
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, torch.where(kept, alpha, torch.zeros_like(alpha))) and removed:
                raise Mismatch(
                    f"removing {removed} from {alpha.tolist()}: the rest must be renormalised to sum to 1"
                )
            if close(got, alpha.softmax(-1).masked_fill(~kept, 0)) and removed:
                raise Mismatch("α′ is renormalised by dividing by the kept weights' sum, not by a softmax")
        expect_close(f"α′ for removed = {removed}", got, want, atol=1e-9)
    return len(cases)
