"""SparseMAP (Niculae et al. 2018): the structured counterpart of sparsemax.

A structure s has unary indicators m_s (which positions it attends) and other parts n_s (here the
chain's transitions), scored c_s = θᵀm_s + ψᵀn_s. SparseMAP returns the marginals
μ* = argmax_{μ ∈ M} θᵀμ + ψᵀν − ½‖μ‖²  over the marginal polytope M = conv{(m_s, n_s)}, written as
μ* = Σ_s ξ_s m_s with weights ξ on the simplex, solved by the active-set method (Nocedal & Wright
§16.5) on  min_ξ ½‖Mξ‖² − cᵀξ: only a MAP oracle  argmax_s (θ − μ)ᵀm_s + ψᵀn_s  is needed, and the
solution is a combination of at most dim(μ) + 1 structures (Carathéodory).

Backward (the paper's §3.3): on the active set S, with Q = M_SᵀM_S, ∂ξ_S/∂c_S = Z = Q⁻¹ − Q⁻¹11ᵀQ⁻¹ /
(1ᵀQ⁻¹1), so ∂μ/∂θ = M_S Z M_Sᵀ and ∂μ/∂ψ = M_S Z N_Sᵀ. Z g is read off the KKT system below.

Unstructured SparseMAP (the structures are the one-hot vectors, M = I, ψ empty) is sparsemax.
The solver runs in float64 NumPy on the CPU (a few small linear systems per step); the results come back in
θ's dtype and on its device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.structured import chain

#: A MAP oracle: given unary scores η [D] (float64 NumPy), the structure argmax_s ηᵀm_s + ψᵀn_s as
#: (m_s [D], n_s [K]).
Oracle = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]

_TOL = 1e-12


class SparseMAP(NamedTuple):
    """The solution: ``marginals`` μ [D] (differentiable), ``weights`` ξ [S] (positive, summing to 1,
    largest first) and ``structures`` [S, D], the m_s of the structures in the support."""

    marginals: Tensor
    weights: Tensor
    structures: Tensor


def _kkt(m: np.ndarray, rhs: np.ndarray, top: float) -> np.ndarray:
    """Solve [[Q, 1], [1ᵀ, 0]] [x; τ] = [rhs; top] with Q = M_SᵀM_S; returns x."""
    s = m.shape[1]
    k = np.ones((s + 1, s + 1))
    k[:s, :s], k[s, s] = m.T @ m, 0.0
    return np.linalg.solve(k, np.append(rhs, top))[:s]


def _null_step(stacked: np.ndarray, c: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """When the active structures are affinely dependent (the columns of [M_S; 1ᵀ] have a null
    direction d: M_S d = 0, 1ᵀd = 0), ½‖M_Sξ‖² − c_Sᵀξ changes along d by −t·cᵀd only: step
    ξ + t·d with cᵀd ≥ 0 until the first weight reaches 0 (t = min_{d_s < 0} ξ_s / −d_s)."""
    d = np.linalg.svd(stacked)[2][-1]
    d = d if float(c @ d) >= 0 else -d
    ratios = np.where(d < -_TOL, xi / np.where(d < -_TOL, -d, 1.0), np.inf)
    k = int(ratios.argmin())
    xi = np.clip(xi + ratios[k] * d, 0.0, None)
    xi[k] = 0.0
    return xi


def _ratio_step(xi: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Move from ξ towards ξ̂ until the first weight reaches 0: α = min_{ξ̂_s < ξ_s} ξ_s / (ξ_s − ξ̂_s)."""
    shrink = xi > target
    alpha = min(1.0, float((xi[shrink] / (xi[shrink] - target[shrink])).min()))
    return xi + alpha * (target - xi)


def _drop(
    ms: list[np.ndarray], ns: list[np.ndarray], xi: np.ndarray
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """Remove the structures whose weight reached 0 from the active set."""
    keep = xi > _TOL
    ms = [v for v, k in zip(ms, keep, strict=True) if k]
    ns = [v for v, k in zip(ns, keep, strict=True) if k]
    return ms, ns, xi[keep] / xi[keep].sum()


def _active_set(
    eta: np.ndarray, psi: np.ndarray, oracle: Oracle, max_iter: int = 1000
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """min_ξ ½‖M_Sξ‖² − c_Sᵀξ on the simplex (c_s = ηᵀm_s + ψᵀn_s): solve the KKT system on the
    active set S; if some weight would turn negative, step to the boundary and drop it; otherwise add
    the oracle's structure for η − μ while its score exceeds the active ones' common score τ.
    Returns M_S [D, S], N_S [K, S] and ξ [S]."""
    m0, n0 = oracle(eta)
    ms, ns, xi = [m0], [n0], np.ones(1)
    for _ in range(max_iter):
        m, n = np.stack(ms, 1), np.stack(ns, 1)
        c, stacked = eta @ m + psi @ n, np.vstack([m, np.ones((1, m.shape[1]))])
        if np.linalg.matrix_rank(stacked, rtol=1e-9) < m.shape[1]:
            ms, ns, xi = _drop(ms, ns, _null_step(stacked, c, xi))
            continue
        target = _kkt(m, c, 1.0)
        if (target < -_TOL).any():
            ms, ns, xi = _drop(ms, ns, _ratio_step(xi, target))
            continue
        xi = np.clip(target, 0.0, None)
        mu = m @ xi
        m_new, n_new = oracle(eta - mu)
        tau = float(((eta - mu) @ m + psi @ n).max())
        if float((eta - mu) @ m_new + psi @ n_new) <= tau + 1e-10 * max(1.0, abs(tau)):
            return m, n, xi
        ms, ns, xi = [*ms, m_new], [*ns, n_new], np.append(xi, 0.0)
    raise RuntimeError(f"SparseMAP's active set did not converge in {max_iter} steps")


def _numpy(t: Tensor) -> np.ndarray:
    return t.detach().cpu().double().numpy()


class _SparseMAPFunction(torch.autograd.Function):
    """μ = M_S ξ forward; backward g ↦ (M_S Z M_Sᵀ g, N_S Z M_Sᵀ g), Z M_Sᵀ g from the KKT system."""

    @staticmethod
    def forward(ctx: Any, theta: Tensor, psi: Tensor, oracle: Oracle) -> tuple[Tensor, Tensor, Tensor]:
        m, n, xi = _active_set(_numpy(theta), _numpy(psi), oracle)
        ctx.m, ctx.n = m, n
        mu, xi_t, m_t = (torch.from_numpy(v).to(theta) for v in (m @ xi, xi, np.ascontiguousarray(m.T)))
        ctx.mark_non_differentiable(xi_t, m_t)
        return mu, xi_t, m_t

    @staticmethod
    def backward(ctx: Any, g: Tensor, *_: Tensor) -> tuple[Tensor, Tensor, None]:
        grad_c = _kkt(ctx.m, ctx.m.T @ _numpy(g), 0.0)
        return torch.from_numpy(ctx.m @ grad_c).to(g), torch.from_numpy(ctx.n @ grad_c).to(g), None


def _solve(theta: Tensor, psi: Tensor, oracle: Oracle) -> SparseMAP:
    mu, xi, m = _SparseMAPFunction.apply(theta, psi, oracle)
    order = torch.argsort(xi, descending=True)
    order = order[xi[order] > 0]
    return SparseMAP(mu, xi[order], m[order])


def sparsemap_unstructured(theta: Tensor) -> SparseMAP:
    """SparseMAP over the one-hot structures m_s = e_s (M = I, no ψ): μ* = argmax_{μ ∈ Δ} θᵀμ − ½‖μ‖²,
    which is sparsemax(θ). θ is one score vector [T]; the oracle is argmax_i (θ − μ)_i."""
    theta = _checks.real_tensor("theta", theta, dims=1)
    if theta.numel() == 0:
        raise ValueError("theta must be [T] with T ≥ 1 positions, got shape (0,)")
    theta = theta.to(_checks.compute_dtype(theta))

    def oracle(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (np.arange(eta.size) == eta.argmax()).astype(np.float64), np.zeros(0)

    return _solve(theta, theta.new_zeros(0), oracle)


def sparsemap_chain(theta: Tensor, transition: Tensor) -> SparseMAP:
    """SparseMAP over the binary chain's structures z ∈ {0, 1}^T: m_s = z, n_s[a, b] = #{i : z_{i−1} = a,
    z_i = b} (flattened), ψ = A (flattened), so c_s = s(z) = Σ_i θ_i z_i + Σ_i A[z_{i−1}, z_i]. μ* = the
    marginals in [0, 1]^T, a combination of at most T + 1 structures; the MAP oracle is Viterbi.
    With A = 0 the structures are all subsets and μ* = clip(θ, 0, 1)."""
    theta, transition = chain._inputs(theta, transition)
    if theta.dim() != 1:
        raise ValueError(f"theta must be one chain [T], got shape {tuple(theta.shape)}")
    return _solve(theta, transition.flatten(), _chain_oracle(_numpy(transition)))


def _chain_oracle(transition: np.ndarray) -> Oracle:
    """Viterbi for η with A fixed: (z, the counts of each transition a → b in z, flattened as ψ is)."""

    def oracle(eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        z = chain.viterbi_array(eta, transition)
        return z, np.bincount((2 * z[:-1] + z[1:]).astype(np.int64), minlength=4).astype(np.float64)

    return oracle


class _ChainMarginals(torch.autograd.Function):
    """``sparsemap_chain``'s μ for each chain of a batch θ [N, T], one autograd node for the batch;
    backward sums each chain's ∂μ/∂ψ into A's gradient."""

    @staticmethod
    def forward(ctx: Any, theta: Tensor, transition: Tensor) -> Tensor:
        oracle, psi = _chain_oracle(_numpy(transition)), _numpy(transition).ravel()
        solved = [_active_set(row, psi, oracle) for row in _numpy(theta)]
        ctx.solved = [(m, n) for m, n, _ in solved]
        return torch.from_numpy(np.stack([m @ xi for m, _, xi in solved])).to(theta)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Tensor, Tensor]:
        grad_theta, grad_psi = [], np.zeros(4)
        for (m, n), g_row in zip(ctx.solved, _numpy(g), strict=True):
            grad_c = _kkt(m, m.T @ g_row, 0.0)
            grad_theta.append(m @ grad_c)
            grad_psi += n @ grad_c
        return torch.from_numpy(np.stack(grad_theta)).to(g), torch.from_numpy(grad_psi.reshape(2, 2)).to(g)


def sparsemap_chain_marginals(theta: Tensor, transition: Tensor) -> Tensor:
    """μ* of ``sparsemap_chain`` for every chain of θ [..., T] at once (the same solver row by row,
    with one autograd node for the batch: lesson 18's decoder calls it on [B, S] scores each step)."""
    theta, transition = chain._inputs(theta, transition)
    flat = theta.reshape(-1, theta.size(-1))
    return _ChainMarginals.apply(flat, transition).reshape(theta.shape)
