"""Checkers for lesson 13 (tokens are columns): the coding rate R(Y), the compression term R^c, one head's
SATT_k, the non-negative soft threshold, one ISTA step, the rate within true components R^c(Z | Π), and
the posterior mean of the denoising view."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.crate import denoise, ista, mixture, mssa, rate, study
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _matrix(d: int, T: int, seed: int) -> Tensor:
    return torch.randn(d, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@checker("coding rate", reference=rate.coding_rate)
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


@checker("ISTA step", reference=ista.ista_step)
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


@checker("compression term", reference=rate.compression_rate)
def check_compression_rate(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 13: ``fn(Y, U, eps)`` → R^c(Y; U_[K]) = Σ_k R(U_kᵀY), each term with α = r/(Tε²), for
    ``Y [d, T]`` and ``U [K, d, r]`` (a 0-d tensor)."""
    cases = [(12, 3, 4, 10, 0.5), (6, 2, 2, 5, 0.3), (8, 4, 1, 9, 1.0)]
    for i, (d, K, r, T, eps) in enumerate(cases):
        U = mixture.random_bases(d, K, r, seed=i)
        Y = _matrix(d, T, 30 + i)
        got = fn(Y.clone(), U.clone(), eps)
        want = rate.compression_rate(Y, U, eps)
        if isinstance(got, float | int):
            got = torch.tensor(float(got), dtype=torch.float64)
        Z = U.mT @ Y  # [K, r, T]
        eye = torch.eye(T, dtype=Y.dtype)
        if isinstance(got, Tensor) and got.numel() == 1:
            got = got.reshape(())
            hints = {
                "inside each term α = r/(Tε²): U_kᵀY has r rows, not d": 0.5
                * torch.logdet(eye + d / (T * eps**2) * Z.mT @ Z).sum(),
                "sum the K terms R(U_kᵀY), do not average them": want / K,
                "each term is the rate of the projection U_kᵀY, not of Y itself": K
                * rate.coding_rate(Y, eps),
            }
            for hint, value in hints.items():
                if close(got, value) and not close(value, want):
                    raise Mismatch(f"for Y {tuple(Y.shape)} and U {tuple(U.shape)}: {hint}")
        expect_close(f"Rᶜ(Y) for Y {tuple(Y.shape)}, U {tuple(U.shape)}, ε = {eps}", got, want, atol=1e-8)
    return len(cases)


@checker("SATT", reference=mssa.satt)
def check_satt(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 13: ``fn(Y, U)`` → ``[K, r, T]``: SATT_k(Y) = Z_k softmax(Z_kᵀZ_k) with Z_k = U_kᵀY and the
    softmax over each column (tokens are columns)."""
    cases = [(12, 3, 4, 8), (6, 2, 3, 5)]
    for i, (d, K, r, T) in enumerate(cases):
        U = mixture.random_bases(d, K, r, seed=10 + i)
        Y = _matrix(d, T, 40 + i) / 2
        got = fn(Y.clone(), U.clone())
        want = mssa.satt(Y, U)
        Z = U.mT @ Y
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, Z @ torch.softmax(Z.mT @ Z, dim=-1)) and not close(got, want):
                raise Mismatch(
                    "the softmax ran along the rows: tokens are columns here, so each column of the "
                    "scores must sum to 1 (softmax over dim=-2)"
                )
            if close(got, Z @ (Z.mT @ Z)):
                raise Mismatch("the similarity Z_kᵀZ_k goes through a softmax before it weighs the tokens")
            if close(got, torch.softmax(Z.mT @ Z, dim=-2) @ Z.mT):
                raise Mismatch("the values multiply from the left: Z_k softmax(Z_kᵀZ_k), an r × T matrix")
        elif isinstance(got, Tensor) and got.shape == (K, T, r):
            raise Mismatch(f"return [K, r, T] = {tuple(want.shape)} (tokens are columns), got [K, T, r]")
        expect_close(f"SATT(Y) for Y {tuple(Y.shape)}, U {tuple(U.shape)}", got, want, atol=1e-9)
    return len(cases)


@checker("non-negative soft threshold", reference=ista.prox_nonneg_l1)
def check_soft_threshold(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 13: ``fn(V, t)`` → argmin_{X ≥ 0} ½‖X − V‖² + t‖X‖₁ = ReLU(V − t), entry by entry."""
    cases = [(0.5, 1), (0.0, 2), (2.0, 3)]
    for t, seed in cases:
        V = _matrix(5, 7, 50 + seed) * 2
        got = fn(V.clone(), t)
        want = ista.prox_nonneg_l1(V, t)
        if isinstance(got, Tensor) and got.shape == want.shape and t > 0:
            if close(got, V.sign() * (V.abs() - t).clamp(min=0)):
                raise Mismatch(
                    "that is the two-sided soft threshold: with the constraint X ≥ 0 the negative side "
                    "is 0 as well, ReLU(V − t)"
                )
            if close(got, torch.relu(V)):
                raise Mismatch("the threshold t is missing: ReLU(V − t), not ReLU(V)")
            if close(got, torch.relu(V) - t):
                raise Mismatch("subtract t before the ReLU: ReLU(V − t), not ReLU(V) − t")
        expect_close(f"the threshold of V with t = {t}", got, want, atol=1e-12)
    return len(cases)


def _as_tensor(value: object) -> object:
    """A Python number as a 0-d float32 tensor, judged at float32's precision (``.item()`` of a float32
    result is a float too); anything else as it is."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return torch.tensor(float(value), dtype=torch.float32)
    return value.reshape(()) if isinstance(value, Tensor) and value.numel() == 1 else value


@checker("rate within true components", reference=study.grouped_rate)
def check_grouped_rate(fn: Callable[[Tensor, Tensor, float], object]) -> int:
    """Lesson 13: ``fn(Z, components, eps)`` → R^c(Z | Π) = Σ_k (N_k/N) R(Z_k) for tokens ``Z [d, N]`` and
    integer ``components [N]``, Z_k the N_k tokens of component k (each R with α = d/(N_k ε²));
    a number or a 0-d tensor. The components are unbalanced, so weighing by N_k/N and by 1/K differ."""
    cases = [(5, [0] * 3 + [1] * 7 + [2] * 2, 0.5), (4, [1, 0, 1, 1, 0, 1, 1, 1, 1], 1.0)]
    for i, (d, labels, eps) in enumerate(cases):
        Z, components = _matrix(d, len(labels), 60 + i), torch.tensor(labels)
        got = _as_tensor(fn(Z.clone(), components.clone(), eps))
        want = torch.tensor(study.grouped_rate(Z, components, eps), dtype=torch.float64)
        groups = [Z[:, components == k] for k in components.unique().tolist()]
        rates = torch.stack([rate.coding_rate(Zk, eps) for Zk in groups])
        if isinstance(got, Tensor) and got.dim() == 0:
            N = Z.size(1)
            same_alpha = torch.stack(  # every group's α with all N tokens
                [
                    Zk.size(1)
                    / N
                    * 0.5
                    * torch.logdet(torch.eye(Zk.size(1), dtype=Z.dtype) + d / (N * eps**2) * Zk.T @ Zk)
                    for Zk in groups
                ]
            ).sum()
            hints = {
                "weigh each component's rate by its share N_k/N: the rates were summed": rates.sum(),
                "weigh each component's rate by its share N_k/N, not by 1/K": rates.mean(),
                "that is R(Z) of all tokens together: split the tokens by their component first": (
                    rate.coding_rate(Z, eps)
                ),
                "each R(Z_k) has its own α = d/(N_k ε²): N_k tokens, not all N": same_alpha,
            }
            for hint, value in hints.items():
                if close(got, value) and not close(value, want):
                    raise Mismatch(hint)
        expect_close(f"Rᶜ(Z | Π) for Z {tuple(Z.shape)}, components {labels}", got, want, atol=1e-9)
    return len(cases)


def _weighted_projections(x: Tensor, U: Tensor, temperature: float, shrink: float, dim: int = -2) -> Tensor:
    """Σ_k softmax(‖U_kᵀx‖² / temperature) U_kU_kᵀx / shrink, the softmax along ``dim`` of the [K, T]
    energies (−2: over the subspaces, right; −1: over the tokens, a mistake)."""
    Z = U.mT @ x  # [K, r, T]
    w = torch.softmax((Z**2).sum(-2) / temperature, dim=dim)
    return (U @ (Z * w.unsqueeze(-2))).sum(-3) / shrink


@checker("posterior mean", reference=denoise.posterior_mean)
def check_posterior_mean(fn: Callable[[Tensor, Tensor, float], Tensor]) -> int:
    """Lesson 13: ``fn(x, U, sigma)`` → E[z | x] = Σ_k softmax_k(‖U_kᵀx‖²/(2σ²(1+σ²))) U_kU_kᵀx/(1+σ²)
    for tokens ``x [d, T]`` (columns) and orthonormal bases ``U [K, d, r]``."""
    cases = [(6, 3, 2, 4, 0.5), (12, 3, 4, 5, 1.0), (8, 2, 3, 3, 0.3)]
    for i, (d, K, r, T, sigma) in enumerate(cases):
        U = mixture.random_bases(d, K, r, seed=20 + i)
        x, _, _ = mixture.sample_tokens(U, T, sigma=sigma, seed=20 + i)
        got = fn(x.clone(), U.clone(), sigma)
        want = denoise.posterior_mean(x, U, sigma)
        if isinstance(got, Tensor) and got.shape == want.shape:
            s2 = sigma**2
            hints = {
                "that is the notes' σ → 0 form: the exact mean divides by 1 + σ² and its softmax has the "
                "temperature 2σ²(1 + σ²)": _weighted_projections(x, U, 2 * s2, 1.0),
                "the factor 1/(1 + σ²) is missing": _weighted_projections(x, U, 2 * s2 * (1 + s2), 1.0),
                "the softmax's temperature is 2σ²(1 + σ²), not 2σ²": _weighted_projections(
                    x, U, 2 * s2, 1 + s2
                ),
                "the softmax runs over the K subspaces of each token, not over the tokens": (
                    _weighted_projections(x, U, 2 * s2 * (1 + s2), 1 + s2, dim=-1)
                ),
            }
            for hint, value in hints.items():
                if close(got, value) and not close(value, want):
                    raise Mismatch(f"σ = {sigma}: {hint}")
        expect_close(f"E[z | x] for x {tuple(x.shape)}, σ = {sigma}", got, want, atol=1e-9)
    return len(cases)
