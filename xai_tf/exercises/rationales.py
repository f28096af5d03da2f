"""Checkers for lesson 11: conicity of a set of vectors, and Lei et al.'s rationale penalty Ω(z)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.faithfulness.conicity import conicity
from xai_tf.rationales.penalty import omega


def _expect(what: str, got: Tensor, want: Tensor) -> None:
    expect_close(what, got, want.double(), atol=1e-6)


def _value(name: str, got: object) -> Tensor:
    if got is None:
        raise Mismatch(f"returned None: did you forget to `return` {name}?")
    if isinstance(got, int | float):
        return torch.tensor(float(got), dtype=torch.float64)
    if not isinstance(got, Tensor) or got.numel() != 1:
        raise Mismatch(f"{name} should be one number (a float or a 0-d tensor), got {type(got).__name__}")
    return got.reshape(())


@checker("conicity")
def check_conicity(fn: Callable[[Tensor], object]) -> int:
    """Lesson 11: ``fn(H [m, d])`` → conicity(H) = (1/m) Σ_i cos(h_i, mean(H)), 0 when mean(H) = 0."""
    g = torch.Generator().manual_seed(11)
    eye = torch.eye(3, dtype=torch.float64)
    cases = [
        ("identical vectors", torch.tensor([[2.0, -1.0, 0.5]], dtype=torch.float64).repeat(4, 1)),
        ("an orthonormal set", eye),
        ("random vectors", torch.randn(6, 5, generator=g, dtype=torch.float64) + 0.3),
        (
            "vectors of different lengths",
            torch.randn(5, 4, generator=g, dtype=torch.float64) * torch.arange(1.0, 6.0)[:, None],
        ),
    ]
    for what, H in cases:
        got = _value("the conicity", fn(H.clone()))
        want = conicity(H)
        mistake = (H @ H.mean(0)).mean() / H.norm(dim=-1).mean() / H.mean(0).norm()
        if close(got, mistake) and not close(mistake, want):
            raise Mismatch("divide each cosine by its own ‖h_i‖ before averaging, not by the mean norm")
        _expect(f"the conicity of {what}", got, want)
    got = _value("the conicity", fn(torch.cat([eye, -eye])))
    if torch.isnan(got):
        raise Mismatch(
            "± an orthonormal set has mean 0, and cos(h, 0) = 0/0 is NaN: return 0 (no common direction)"
        )
    _expect("the conicity of ± an orthonormal set (mean 0)", got, torch.tensor(0.0))
    return len(cases) + 1


@checker("rationale penalty Ω")
def check_omega(fn: Callable[[Tensor, float, float], object]) -> int:
    """Lesson 11: ``fn(z [T], lam1, lam2)`` → Ω(z) = λ₁ Σ_i |z_i| + λ₂ Σ_i |z_i − z_{i+1}|."""
    cases = [
        (torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0]), 0.5, 2.0),
        (torch.tensor([1.0, 1.0, 1.0]), 1.0, 5.0),
        (torch.tensor([0.2, 0.9, 0.0, 0.4]), 0.3, 0.7),
        (torch.tensor([1.0]), 1.0, 1.0),
    ]
    for z, lam1, lam2 in cases:
        got = _value("Ω(z)", fn(z.clone(), lam1, lam2))
        wrap = lam2 * (z[-1] - z[0]).abs()
        want = omega(z, lam1, lam2).double()
        if len(z) > 2 and wrap > 0 and close(got, want + wrap):
            raise Mismatch(
                "Ω counts a jump from the last word back to the first: pairs are (i, i + 1), i < T"
            )
        _expect(f"Ω({z.tolist()}, λ₁={lam1}, λ₂={lam2})", got, want)
    return len(cases)
