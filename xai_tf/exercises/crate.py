"""Checkers for lesson 13: the coding rate R(Y) and one ISTA step (tokens are columns)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.crate import ista, rate
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _matrix(d: int, T: int, seed: int) -> Tensor:
    return torch.randn(d, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@checker("coding rate")
def check_coding_rate(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 13: ``fn(Y, eps)`` → R(Y) = ½ logdet(I + d/(Tε²) YᵀY) for ``Y [d, T]`` (a 0-d tensor)."""
    cases = [(4, 9, 0.5), (9, 4, 0.5), (6, 6, 0.2), (3, 20, 1.5)]
    for i, (d, T, eps) in enumerate(cases):
        Y = _matrix(d, T, i)
        got = fn(Y.clone(), eps)
        want = rate.coding_rate(Y, eps)
        if isinstance(got, float | int):
            got = torch.tensor(float(got), dtype=torch.float64)
        if isinstance(got, Tensor) and got.shape == want.shape:
            hints = {
                "forgot the ½ in front of logdet": 2 * want,
                "α should be d/(Tε²): T is missing": 0.5
                * torch.logdet(torch.eye(T, dtype=Y.dtype) + d / eps**2 * Y.T @ Y),
                "α should be d/(Tε²): d and T are swapped": 0.5
                * torch.logdet(torch.eye(T, dtype=Y.dtype) + T / (d * eps**2) * Y.T @ Y),
                "α should be d/(Tε²): ε is not squared": 0.5
                * torch.logdet(torch.eye(T, dtype=Y.dtype) + d / (T * eps) * Y.T @ Y),
                "the identity is missing: logdet(I + α YᵀY)": 0.5 * torch.logdet(d / (T * eps**2) * Y.T @ Y)
                if T <= d
                else None,
            }
            for hint, value in hints.items():
                if (
                    value is not None
                    and torch.isfinite(value)
                    and abs(float(got) - float(value)) < 1e-6
                    and abs(float(value) - float(want)) > 1e-6
                ):
                    raise Mismatch(f"for Y of shape {tuple(Y.shape)}, ε = {eps}: {hint}")
        expect_close(f"R(Y) for Y {tuple(Y.shape)}, ε = {eps}", got, want, atol=1e-6)
    return len(cases)


@checker("ISTA step")
def check_ista_step(fn: Callable[[Tensor, Tensor, float, float], Tensor]) -> int:
    """Lesson 13: ``fn(Z, D, eta, lam)`` → ReLU(Z + η Dᵀ(Z − D Z) − ηλ 1) for ``Z [d, T]``, ``D [d, d]``."""
    cases = [(5, 3, 0.1, 0.1), (8, 6, 0.3, 0.5), (4, 1, 0.05, 0.0)]
    for i, (d, T, eta, lam) in enumerate(cases):
        Z, D = _matrix(d, T, 10 + i), _matrix(d, d, 20 + i) / d**0.5
        got = fn(Z.clone(), D.clone(), eta, lam)
        want = ista.ista_step(Z, D, eta, lam)
        if isinstance(got, Tensor) and got.shape == want.shape:
            step = Z + eta * D.T @ (Z - D @ Z)
            if (got < 0).any():
                raise Mismatch("X⁺ has negative entries: the ReLU (the constraint X ≥ 0) is missing")
            if close(got, torch.relu(Z + eta * D.T @ (D @ Z - Z) - eta * lam)) and not close(got, want):
                raise Mismatch("the gradient points the wrong way: the step is + η Dᵀ(Z − D Z)")
            if close(got, torch.relu(Z + eta * D @ (Z - D @ Z) - eta * lam)):
                raise Mismatch("the gradient of ½‖Z − DX‖² is −Dᵀ(Z − DX): multiply by Dᵀ (D.T), not D")
            if lam > 0 and close(got, torch.relu(step)):
                raise Mismatch("the threshold − ηλ is missing: without it the step does not sparsify")
            if lam > 0 and close(got, torch.relu(step - lam)):
                raise Mismatch("the threshold is ηλ, not λ: the prox of the step η·λ‖·‖₁")
        expect_close(f"X⁺ for Z {tuple(Z.shape)}, η = {eta}, λ = {lam}", got, want, atol=1e-9)
    return len(cases)
