"""Checker for lesson 20: exact Shapley values by enumerating the coalitions."""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from math import factorial

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close

Game = Callable[[Tensor], Tensor]  # coalitions z [S, T] (0/1) → values v(z) [S]


def _brute_force(v: Game, T: int) -> Tensor:
    """φ by the other definition: the mean over all T! orders of each player's marginal contribution."""
    phi = torch.zeros(T, dtype=torch.float64)
    for order in permutations(range(T)):
        z = torch.zeros(T + 1, T, dtype=torch.float64)
        for step, i in enumerate(order, 1):
            z[step:, i] = 1  # row k: the first k players of the order
        values = v(z).double()
        phi[list(order)] += values[1:] - values[:-1]
    return phi / factorial(T)


def _subsets(T: int) -> Tensor:
    r = torch.arange(2**T)
    return ((r[:, None] >> torch.arange(T)) & 1).double()


def _shapley_weight(s: int, T: int) -> float:
    return factorial(s) * factorial(T - s - 1) / factorial(T)


def _banzhaf_weight(s: int, T: int) -> float:
    return 1 / 2 ** (T - 1)


def _uniform_weight(s: int, T: int) -> float:
    return 1 / T


def _weighted(v: Game, T: int, weight: Callable[[int, int], float], marginal: bool = True) -> Tensor:
    """Σ_{S ∌ i} weight(|S|) (v(S ∪ i) − v(S)) (or weight · v(S ∪ i) alone): the usual wrong versions."""
    z = _subsets(T)
    phi = torch.zeros(T, dtype=torch.float64)
    for i in range(T):
        S = z[z[:, i] == 0]
        with_i = S.clone()
        with_i[:, i] = 1
        w = torch.tensor([weight(int(s), T) for s in S.sum(1)], dtype=torch.float64)
        phi[i] = (w * (v(with_i).double() - (v(S).double() if marginal else 0))).sum()
    return phi


def _games(dtype: torch.dtype) -> list[tuple[Game, int]]:
    g = torch.Generator().manual_seed(0)
    w = torch.tensor([2.0, -1.0, 0.5, 3.0], dtype=dtype)
    P = torch.randn(5, 5, generator=g, dtype=torch.float64).to(dtype)
    return [
        (lambda z: z.to(dtype) @ w, 4),  # additive: φ = w
        (lambda z: ((z.to(dtype) @ P) * z.to(dtype)).sum(-1) + 2 * z[:, 0] * z[:, 3], 5),  # interactions
        (lambda z: (z.sum(1) >= 2).to(dtype), 3),  # majority of 3: φ = 1/3 each
    ]


@checker("exact Shapley values")
def check_exact_shapley(fn: Callable[[Game, int], Tensor]) -> int:
    """Lesson 20: ``fn(v, T)`` → φ ``[T]``, φ_i = Σ_{S ⊆ N∖{i}} |S|! (T − |S| − 1)! / T! (v(S ∪ {i}) − v(S)),
    where ``v`` maps coalitions ``[S, T]`` (0/1, one row per coalition) to values ``[S]``; games in float64
    and float32."""
    cases = 0
    for dtype in (torch.float64, torch.float32):
        for v, T in _games(dtype):
            want = _brute_force(v, T)
            got = fn(v, T)
            cases += 1
            if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-5):
                banzhaf = _weighted(v, T, _banzhaf_weight)
                no_marginal = _weighted(v, T, _shapley_weight, marginal=False)
                no_binomial = _weighted(v, T, _uniform_weight)
                if close(got, banzhaf, atol=1e-5):
                    raise Mismatch(
                        "each coalition weighs 1/2^(T−1) here: that is the Banzhaf value; the "
                        "Shapley weight is |S|! (T − |S| − 1)! / T!"
                    )
                if close(got, no_marginal, atol=1e-5):
                    raise Mismatch("sum the marginal contributions v(S ∪ {i}) − v(S), not v(S ∪ {i}) alone")
                if close(got, no_binomial, atol=1e-5):
                    raise Mismatch(
                        "a coalition's weight is |S|! (T − |S| − 1)! / T!, not 1/T: divide by the "
                        "number of coalitions of each size too"
                    )
                if close(got, -want, atol=1e-5):
                    raise Mismatch("the sign is flipped: v(S ∪ {i}) − v(S), with i added")
                total = float(want.sum())
                if abs(float(got.double().sum()) - total) > 1e-4 * max(1.0, abs(total)):
                    raise Mismatch(
                        f"your values sum to {float(got.sum()):.6g}; Shapley values sum to "
                        f"v(all) − v(none) = {total:.6g} (efficiency)"
                    )
            expect_close(f"φ ({str(dtype)[6:]} game, T = {T})", got, want)
    return cases
