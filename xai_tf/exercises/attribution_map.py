"""Checkers for lesson 20's methods: occlusion, DeepLIFT's rescale multiplier, exact Shapley values by
enumerating the coalitions, and Kernel SHAP's Shapley kernel (its measures: ``attribution_measures``)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations
from math import factorial

import torch
import torch.nn.functional as Fn
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain import formulas
from xai_tf.explain import perturbation as pt

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


@checker("exact Shapley values", reference=formulas.shapley_of_game)
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


def _batched(F: Callable[[Tensor], Tensor]) -> Callable[[Tensor], Tensor]:
    """``F`` that refuses one sequence ``[T, d_e]``: the lesson's F takes a batch ``[n, T, d_e]``."""

    def call(E: Tensor) -> Tensor:
        if not isinstance(E, Tensor) or E.dim() != 3:
            shape = tuple(E.shape) if isinstance(E, Tensor) else type(E).__name__
            raise Mismatch(f"F takes a batch [n, T, d_e], got {shape}: call F(E[None]) for one sequence")
        return F(E)

    return call


def _occlusion_setting(dtype: torch.dtype) -> tuple[Callable[[Tensor], Tensor], Tensor, Tensor]:
    """A nonlinear F of a batch [n, 5, 3] (an interaction of tokens 1 and 3), E and a non-zero E′."""
    g = torch.Generator().manual_seed(20)
    E, E_base = (torch.randn(5, 3, generator=g, dtype=torch.float64).to(dtype) for _ in range(2))
    w = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0], dtype=dtype)

    def F(X: Tensor) -> Tensor:
        return (X.sum(-1) * w).sum(-1) + 2 * X[..., 1, 0] * X[..., 3, 2] + torch.tanh(X[..., 4, 1])

    return F, E, E_base


@checker("occlusion", reference=pt.occlusion)
def check_occlusion(fn: Callable[..., Tensor]) -> int:
    """Lesson 20: ``fn(F, E, E_base, window)`` → scores ``[T]``: for each window W of ``window`` tokens
    (stride 1), Δ_W = F(E) − F(E with the tokens of W replaced by E_base's); a token's score is the mean
    Δ_W over the windows that cover it."""
    cases = 0
    for dtype in (torch.float32, torch.float64):
        F, E, E_base = _occlusion_setting(dtype)
        for window in (1, 2, 3):
            got = fn(_batched(F), E.clone(), E_base.clone(), window)
            want = pt.occlusion(F, E.double(), E_base.double(), window)
            cases += 1
            if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
                if close(got, -want):
                    raise Mismatch("the sign is flipped: the score is F(E) − F(occluded), the drop")
                if close(got, pt.occlusion(F, E.double(), torch.zeros_like(E_base).double(), window)):
                    raise Mismatch("the occluded tokens became zeros: replace them by the baseline's, E_base")
                T = len(E)  # token t is covered by the windows starting at max(0, t − w + 1)..min(t, T − w)
                n = torch.tensor([min(t, T - window) - max(0, t - window + 1) + 1 for t in range(T)])
                if close(got, want * n):
                    raise Mismatch(
                        "the drops are summed over the windows: take their mean (divide by how many cover it)"
                    )
                if close(got, want * n / window):
                    raise Mismatch(
                        f"divided by the window ({window}): a token at the edge is covered by fewer windows"
                    )
            expect_close(f"scores (window {window}, {str(dtype)[6:]})", got, want)
    return cases


def _rescale_cases(dtype: torch.dtype) -> list[tuple[Callable[[Tensor], Tensor], Tensor, Tensor]]:
    """GELU, tanh and ReLU at random z and z′, some entries with z = z′ exactly (the 0/0 case)."""
    g = torch.Generator().manual_seed(4)
    z, z_ref = (torch.randn(3, 6, generator=g, dtype=torch.float64).to(dtype) for _ in range(2))
    z_ref[:, :2] = z[:, :2]
    return [(Fn.gelu, z, z_ref), (torch.tanh, z * 2, z_ref * 2), (torch.relu, z, z_ref)]


def _slope(f: Callable[[Tensor], Tensor], z: Tensor) -> Tensor:
    at = z.detach().double().requires_grad_(True)
    return torch.autograd.grad(f(at).sum(), at)[0]


@checker("DeepLIFT's rescale multiplier", reference=formulas.rescale_multiplier)
def check_rescale_multiplier(fn: Callable[[Callable, Tensor, Tensor], Tensor]) -> int:
    """Lesson 20: ``fn(f, z, z_ref)`` → m = (f(z) − f(z′)) / (z − z′) entry by entry, and f′(z) where
    z = z′; for GELU, tanh and ReLU in float32 and float64."""
    cases = 0
    for dtype in (torch.float32, torch.float64):
        for f, z, z_ref in _rescale_cases(dtype):
            got = fn(f, z.clone(), z_ref.clone())
            want = formulas.rescale_multiplier(f, z.double(), z_ref.double())
            cases += 1
            if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
                if got.isnan().any():
                    raise Mismatch(
                        "NaN where z = z′ (0/0): there the multiplier is the gradient f′(z) (torch.where)"
                    )
                if close(got, _slope(f, z)):
                    raise Mismatch(
                        "that is the gradient f′(z) everywhere: the rescale rule is the secant Δf / Δz"
                    )
                if close(got[:, 2:], 1 / want[:, 2:]):
                    raise Mismatch("upside down: m = Δf / Δz = (f(z) − f(z′)) / (z − z′)")
                if close(got[:, 2:], want[:, 2:]) and close(got[:, :2], torch.zeros_like(want[:, :2])):
                    raise Mismatch("0 where z = z′: there the multiplier is the gradient f′(z)")
            expect_close(f"m ({getattr(f, '__name__', 'f')}, {str(dtype)[6:]})", got, want)
    return cases


@checker("the Shapley kernel", reference=formulas.shapley_kernel)
def check_shapley_kernel(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 20: ``fn(z)`` → π(z) ``[N]`` for coalitions ``[N, T]`` (0/1), π(z) = (T − 1) / (C(T, |z|)
    |z| (T − |z|)), infinite for the empty and the full coalition."""
    cases = 0
    for T in (3, 5, 8):
        z = (
            pt.all_coalitions(T)
            if T < 8
            else pt.kernel_shap_coalitions(T, 40, torch.Generator().manual_seed(1))
        )
        got = fn(z.clone())
        want = formulas.shapley_kernel(z)
        cases += 1
        inside = torch.isfinite(want)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            k = z.double().sum(1)[inside]
            size = torch.tensor([factorial(int(s)) * factorial(T - int(s) - 1) / factorial(T) for s in k])
            if close(got[inside], (T - 1) / (k * (T - k))):
                raise Mismatch(
                    "that is p(k), the kernel summed over the C(T, k) coalitions of size k: divide by C(T, k)"
                )
            if close(got[inside], size.to(torch.float64)):
                raise Mismatch(
                    "that is the Shapley value's weight |S|! (T − |S| − 1)! / T!, not the kernel π(z)"
                )
            if close(got[inside], want[inside]):
                raise Mismatch(
                    "π(z) is infinite for the empty and the full coalition (|z| = 0 or T): yours gives "
                    f"{got[~inside].tolist()}"
                )
            ratio = got[inside].double() / want[inside]
            if close(ratio, torch.full_like(ratio, float(ratio[0]))):
                raise Mismatch(
                    f"off by a constant factor {float(ratio[0]):.4g} (the fit would not change, the kernel "
                    "does): the numerator is T − 1"
                )
        expect_close(f"π (T = {T})", got, want)
    return cases
