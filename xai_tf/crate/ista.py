"""The ISTA block: CRATE's MLP as one proximal-gradient step towards a sparse code (lesson 13;
Yu et al. 2023, §2.4). For the sparse-coding problem with a dictionary D ∈ ℝ^{d×d},

    min_{X ≥ 0}  ½ ‖Z − D X‖²_F + λ ‖X‖₁,

one ISTA step from X (started at X = Z, as CRATE does) is

    X⁺ = ReLU(X + η Dᵀ(Z − D X) − ηλ 1),

because the proximal map of ηλ‖·‖₁ plus the constraint X ≥ 0 is V ↦ ReLU(V − ηλ). The notes' lemma:
for orthogonal D, prox_{γλ‖Dᵀ·‖₁⁺}(Y) = argmin_{DᵀX ≥ 0} ½‖X − Y‖² + γλ‖DᵀX‖₁ = D ReLU(DᵀY − γλ 1).
Tokens are columns.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.crate import _common

MAX_STEPS = 10_000


def _dictionary(D: object, d: int, orthogonal: bool = False) -> Tensor:
    D = _common.tokens("D", D)
    if D.dim() != 2 or D.shape != (d, d):
        raise ValueError(f"D must be a square d × d dictionary with d = {d}, got {tuple(D.shape)}")
    if orthogonal:
        off = (D.mT @ D - torch.eye(d, dtype=D.dtype, device=D.device)).abs().max().item()
        if off > 1e-6:
            raise ValueError(
                f"D must be orthogonal (DᵀD = I, which the lemma assumes), got max |DᵀD − I| = {off:.3g}"
            )
    return D


def prox_nonneg_l1(V: Tensor, t: float) -> Tensor:
    """argmin_{X ≥ 0} ½‖X − V‖² + t‖X‖₁ = ReLU(V − t), entry by entry."""
    V = _common.tokens("V", V)
    t = _checks.at_least("t", t, 0.0)
    return torch.relu(V - t)


def _inputs(Z: object, D: object, eta: object, lam: object) -> tuple[Tensor, Tensor, float, float]:
    Z = _common.tokens("Z", Z)
    D = _dictionary(D, Z.size(-2))
    _common.same_dtype(Z, D, ("Z", "D"))
    return Z, D, _checks.positive("eta", eta), _checks.at_least("lam", lam, 0.0)


def _step(Z: Tensor, D: Tensor, eta: float, lam: float, X: Tensor) -> Tensor:
    return torch.relu(X + eta * D.mT @ (Z - D @ X) - eta * lam)


def ista_step(Z: Tensor, D: Tensor, eta: float = 0.1, lam: float = 0.1, X: Tensor | None = None) -> Tensor:
    """X⁺ = ReLU(X + η Dᵀ(Z − D X) − ηλ 1) for ``Z [..., d, T]``; X = Z when not given (CRATE)."""
    Z, D, eta, lam = _inputs(Z, D, eta, lam)
    X = Z if X is None else _common.tokens("X", X)
    if X.shape != Z.shape:
        raise ValueError(f"X must have the shape of Z {tuple(Z.shape)}, got {tuple(X.shape)}")
    return _step(Z, D, eta, lam, X)


def ista(Z: Tensor, D: Tensor, eta: float = 0.1, lam: float = 0.1, steps: int = 1) -> Tensor:
    """``steps`` ISTA steps from X = Z (1 ≤ steps ≤ 10 000: the lesson's codes settle within a few
    hundred). ISTA is guaranteed to converge for η < 2/‖D‖₂² only; several steps with a larger η are
    refused, naming eta and the bound, instead of returning codes that grow without limit (or NaN).
    A zero dictionary D = 0 has no bound (2/0 = ∞): each step is X⁺ = ReLU(X − ηλ), which every η
    takes to 0."""
    Z, D, eta, lam = _inputs(Z, D, eta, lam)
    steps = _checks.integer("steps", steps, 1, MAX_STEPS)
    norm = torch.linalg.matrix_norm(D.double(), ord=2).item()
    limit = 2 / norm**2 if norm > 0 else math.inf
    if steps > 1 and eta >= limit:
        raise ValueError(
            f"eta = {eta:g} is too large: ISTA is guaranteed to converge for η < 2/‖D‖₂² = {limit:.3g} "
            "only; choose a smaller eta"
        )
    X = Z
    for _ in range(steps):
        X = _step(Z, D, eta, lam, X)
    return X


def prox_orthogonal(Y: Tensor, D: Tensor, gamma: float, lam: float) -> Tensor:
    """The lemma's closed form D ReLU(DᵀY − γλ 1) for an orthogonal D (checked)."""
    Y = _common.tokens("Y", Y)
    D = _dictionary(D, Y.size(-2), orthogonal=True)
    _common.same_dtype(Y, D, ("Y", "D"))
    gamma, lam = _checks.positive("gamma", gamma), _checks.at_least("lam", lam, 0.0)
    return D @ prox_nonneg_l1(D.mT @ Y, gamma * lam)


def sparsity(Z: Tensor) -> dict[str, float]:
    """``zeros``: the share of entries that are exactly 0; ``l1``: ‖Z‖₁ / (√n ‖Z‖_F) for n entries,
    which is 1 for a matrix of equal magnitudes and 1/√n for a single non-zero (scale-free)."""
    Z = _common.tokens("Z", Z)
    n = Z.numel()
    norm = float(torch.linalg.vector_norm(Z))
    return {
        "zeros": float((Z == 0).sum()) / n,
        "l1": float(Z.abs().sum()) / (n**0.5 * norm) if norm > 0 else 0.0,
    }


def toy_signal(
    d: int = 16, nonzeros: int = 3, noise: float = 0.05, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """A dictionary D (unit columns), a non-negative sparse code x* and z = D x* + noise: ``(z, D, x*)``."""
    d = _checks.integer("d", d, 2)
    _checks.fits(f"toy_signal(d = {d})", 3 * d * d * 8, "choose a smaller d")
    nonzeros = _checks.integer("nonzeros", nonzeros, 1, d)
    g = seeds.generator(seed)
    D = torch.randn(d, d, generator=g, dtype=torch.float64)
    D = D / torch.linalg.vector_norm(D, dim=0)
    x = torch.zeros(d, 1, dtype=torch.float64)
    x[torch.randperm(d, generator=g)[:nonzeros], 0] = 1 + torch.rand(
        nonzeros, generator=g, dtype=torch.float64
    )
    z = D @ x + noise * torch.randn(d, 1, generator=g, dtype=torch.float64)
    return z, D, x
