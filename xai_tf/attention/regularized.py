"""Attention maps as regularised argmaxes (lecture 001's unifying view; used by lesson 03).

For scores θ ∈ ℝ^T and a regulariser Ω on the simplex Δ = {p ∈ ℝ^T : p ≥ 0, Σ_j p_j = 1}:

    π_Ω(θ) = argmax_{p ∈ Δ} pᵀθ − Ω(p),        max_Ω(θ) = max_{p ∈ Δ} pᵀθ − Ω(p).

With the lecture's Ω (Niculae & Blondel, 2017; Peters, Niculae & Martins, 2019):

| map        | Ω(p)                                       |
|------------|--------------------------------------------|
| argmax     | 0  (so max_Ω(θ) = max_j θ_j: the variational form of max) |
| softmax    | Σ_j p_j log p_j  (negative Shannon entropy) |
| sparsemax  | ½ ‖p‖²                                     |
| entmax     | 1/(α(α−1)) Σ_j (p_j^α − p_j)  (Tsallis)    |
| fusedmax   | ½ ‖p‖² + λ Σ_j |p_{j+1} − p_j|             |

``regularized_argmax`` solves the problem with a *generic* solver (scipy's SLSQP on the simplex;
Ω = 0, a linear programme: scipy's ``linprog``), knowing nothing of the closed forms in
``xai_tf.attention.maps``: that they agree is the point (lesson 03 shows it,
``tests/test_attention_flavors.py`` tests it). Fusedmax's |·| is made smooth for the solver by
auxiliary variables d_j ≥ |p_{j+1} − p_j|.
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.optimize import linprog, minimize
from torch import Tensor

from xai_tf import _checks

#: The regularisers Ω by name, in the lecture's order.
OMEGAS = ("argmax", "softmax", "sparsemax", "entmax", "fusedmax")


def _omega_name(omega: object) -> str:
    if omega not in OMEGAS:
        raise ValueError(f"omega must be one of {', '.join(map(repr, OMEGAS))}, got {omega!r}")
    return str(omega)


def _theta(theta: object) -> np.ndarray:
    """θ as a finite 1-D float64 array with at least one score."""
    t = _checks.tensor("theta", theta)
    if t.dim() != 1 or t.numel() == 0 or t.is_complex():
        raise ValueError(
            f"theta must be a 1-D real tensor with at least one score, got shape {tuple(t.shape)}"
        )
    if not torch.isfinite(t).all():
        raise ValueError("theta must be finite (the generic solver has no masked positions)")
    return t.detach().double().cpu().numpy()


def omega_value(p: Tensor, omega: str, alpha: float = 1.5, lam: float = 0.1) -> Tensor:
    """Ω(p) for p on the simplex (last dim), in the lecture's notation:

    argmax: 0; softmax: Σ_j p_j log p_j (0 log 0 = 0); sparsemax: ½‖p‖²;
    entmax: 1/(α(α−1)) Σ_j (p_j^α − p_j) (α > 1; α → 1 gives Σ p log p);
    fusedmax: ½‖p‖² + λ Σ_j |p_{j+1} − p_j|.
    """
    omega = _omega_name(omega)
    p = _checks.tensor("p", p)
    if not (p.is_floating_point() and p.dim() >= 1 and torch.isfinite(p).all() and (p >= 0).all()):
        raise ValueError("p must hold probabilities: finite floats ≥ 0 along at least one dim")
    if omega == "argmax":
        return torch.zeros_like(p.sum(-1))
    if omega == "softmax":
        return torch.xlogy(p, p).sum(-1)
    if omega == "entmax":
        return tsallis_omega(p, alpha)
    half_sq = 0.5 * (p * p).sum(-1)
    if omega == "sparsemax":
        return half_sq
    lam = _checks.at_least("lam", lam, 0)
    return half_sq + lam * p.diff(dim=-1).abs().sum(-1)


def tsallis_omega(p: Tensor, alpha: float) -> Tensor:
    """α-entmax's regulariser, the Tsallis form of Peters et al. (2019), along the last dim:

        Ω_α(p) = 1/(α(α−1)) Σ_j (p_j^α − p_j),   α > 1.

    Lecture 001 prints Σ_j p_j^α / (α(α−1)), which on the simplex is larger by the constant 1/(α(α−1)).
    """
    p = _checks.tensor("p", p)
    if not (p.is_floating_point() and p.dim() >= 1 and torch.isfinite(p).all() and (p >= 0).all()):
        raise ValueError("p must hold probabilities: finite floats ≥ 0 along at least one dim")
    alpha = _checks.real("alpha", alpha, 1, 10, open_lo=True)
    return (p.pow(alpha) - p).sum(-1) / (alpha * (alpha - 1))


def _solve(theta: np.ndarray, omega: str, alpha: float, lam: float) -> tuple[np.ndarray, float]:
    """argmax_{p∈Δ} pᵀθ − Ω(p) by SLSQP (Ω = 0: a linear programme, by HiGHS' simplex method, which
    ends on a vertex); returns (p*, the maximum)."""
    T = len(theta)
    if omega == "argmax":
        res = linprog(-theta, A_eq=np.ones((1, T)), b_eq=[1.0], bounds=[(0, None)] * T, method="highs-ds")
        return res.x, float(res.x @ theta)
    n_aux = T - 1 if omega == "fusedmax" else 0  # d_j ≥ |p_{j+1} − p_j|
    floor = 1e-300 if omega == "softmax" else 0.0  # log p needs p > 0

    def parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[:T], x[T:]

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:  # −(pᵀθ − Ω(p)) and its gradient
        p, d = parts(x)
        grad = np.zeros_like(x)
        value, grad[:T] = -p @ theta, -theta
        if omega == "softmax":
            q = np.maximum(p, floor)
            value, grad[:T] = value + (q * np.log(q)).sum(), grad[:T] + np.log(q) + 1
        elif omega == "entmax":
            value += (p**alpha - p).sum() / (alpha * (alpha - 1))
            grad[:T] += (alpha * p ** (alpha - 1) - 1) / (alpha * (alpha - 1))
        elif omega in ("sparsemax", "fusedmax"):
            value, grad[:T] = value + 0.5 * p @ p, grad[:T] + p
        if n_aux:
            value, grad[T:] = value + lam * d.sum(), lam
        return value, grad

    D = np.diff(np.eye(T), axis=0)  # (T−1, T): p ↦ p_{j+1} − p_j
    constraints = [
        {"type": "eq", "fun": lambda x: x[:T].sum() - 1, "jac": lambda x: np.r_[np.ones(T), np.zeros(n_aux)]}
    ]
    if n_aux:
        A = np.block([[-D, np.eye(n_aux)], [D, np.eye(n_aux)]])  # d − Dp ≥ 0 and d + Dp ≥ 0
        constraints.append({"type": "ineq", "fun": lambda x: A @ x, "jac": lambda x: A})
    start = np.r_[np.full(T, 1 / T), np.zeros(n_aux)]
    bounds = [(floor, 1.0)] * T + [(0.0, None)] * n_aux
    res = minimize(
        objective, start, jac=True, method="SLSQP", bounds=bounds, constraints=constraints,
        options={"ftol": 1e-15, "maxiter": 1000},
    )  # fmt: skip
    p = np.clip(res.x[:T], 0.0, None)
    p /= p.sum()
    return p, -objective(np.r_[p, np.abs(D @ p)] if n_aux else p)[0]


def _parameters(omega: object, alpha: object, lam: object) -> tuple[str, float, float]:
    omega = _omega_name(omega)
    alpha = _checks.real("alpha", alpha, 1, 10, open_lo=True) if omega == "entmax" else 1.5
    lam = _checks.at_least("lam", lam, 0) if omega == "fusedmax" else 0.0
    return omega, alpha, lam


def regularized_argmax(theta: Tensor, omega: str, alpha: float = 1.5, lam: float = 0.1) -> Tensor:
    """π_Ω(θ) = argmax_{p ∈ Δ} pᵀθ − Ω(p) for one 1-D θ, solved by a generic solver (SLSQP; for
    Ω = 0 the linear-programming simplex method).

    ``omega`` names Ω (``"argmax"``, ``"softmax"``, ``"sparsemax"``, ``"entmax"`` with 1 < α ≤ 10,
    ``"fusedmax"`` with λ ≥ 0). Returns p* as float64; accurate to ~1e-6, not to the last digit:
    a reference for the closed forms, not a replacement. Argmax's maximiser is a vertex (a one-hot
    p) when θ has a unique maximum, and any point of the face of the tied maxima otherwise.
    """
    omega, alpha, lam = _parameters(omega, alpha, lam)
    return torch.from_numpy(_solve(_theta(theta), omega, alpha, lam)[0])


def regularized_max(theta: Tensor, omega: str, alpha: float = 1.5, lam: float = 0.1) -> float:
    """max_Ω(θ) = max_{p ∈ Δ} pᵀθ − Ω(p), the value at π_Ω(θ), by the same generic solver.

    With Ω = 0 this is the variational form of the maximum: max_j θ_j = max_{p ∈ Δ} pᵀθ; with the
    negative entropy it is log Σ_j exp θ_j (whose gradient is softmax(θ))."""
    omega, alpha, lam = _parameters(omega, alpha, lam)
    return float(_solve(_theta(theta), omega, alpha, lam)[1])
