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
The solver runs in float64 on the CPU (a few small linear systems per step); the results come back in
θ's dtype and on its device.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.structured import chain

#: A MAP oracle: given unary scores η [D], the structure argmax_s ηᵀm_s + ψᵀn_s as (m_s [D], n_s [K]).
Oracle = Callable[[Tensor], tuple[Tensor, Tensor]]

_TOL = 1e-12


class SparseMAP(NamedTuple):
    """The solution: ``marginals`` μ [D] (differentiable), ``weights`` ξ [S] (positive, summing to 1,
    largest first) and ``structures`` [S, D], the m_s of the structures in the support."""

    marginals: Tensor
    weights: Tensor
    structures: Tensor


def _kkt(m: Tensor, rhs: Tensor, top: float) -> Tensor:
    """Solve [[Q, 1], [1ᵀ, 0]] [x; τ] = [rhs; top] with Q = M_SᵀM_S; returns x."""
    s = m.size(1)
    k = m.new_zeros(s + 1, s + 1)
    k[:s, :s], k[:s, s], k[s, :s] = m.T @ m, 1.0, 1.0
    return torch.linalg.solve(k, torch.cat([rhs, rhs.new_tensor([top])]))[:s]


def _null_step(stacked: Tensor, c: Tensor, xi: Tensor) -> Tensor:
    """When the active structures are affinely dependent (the columns of [M_S; 1ᵀ] have a null
    direction d: M_S d = 0, 1ᵀd = 0), ½‖M_Sξ‖² − c_Sᵀξ changes along d by −t·cᵀd only: step
    ξ + t·d with cᵀd ≥ 0 until the first weight reaches 0 (t = min_{d_s < 0} ξ_s / −d_s)."""
    d = torch.linalg.svd(stacked)[2][-1]
    d = d if float(c @ d) >= 0 else -d
    ratios = torch.where(d < -_TOL, xi / -d, torch.inf)
    k = int(ratios.argmin())
    xi = (xi + ratios[k] * d).clamp_min(0)
    xi[k] = 0.0
    return xi


def _ratio_step(xi: Tensor, target: Tensor) -> Tensor:
    """Move from ξ towards ξ̂ until the first weight reaches 0: α = min_{ξ̂_s < ξ_s} ξ_s / (ξ_s − ξ̂_s)."""
    shrink = xi > target
    alpha = min(1.0, float((xi[shrink] / (xi[shrink] - target[shrink])).min()))
    return xi + alpha * (target - xi)


def _drop(ms: list[Tensor], ns: list[Tensor], xi: Tensor) -> tuple[list[Tensor], list[Tensor], Tensor]:
    """Remove the structures whose weight reached 0 from the active set."""
    keep = (xi > _TOL).tolist()
    ms = [v for v, k in zip(ms, keep, strict=True) if k]
    ns = [v for v, k in zip(ns, keep, strict=True) if k]
    return ms, ns, xi[xi > _TOL] / xi[xi > _TOL].sum()


def _active_set(
    eta: Tensor, psi: Tensor, oracle: Oracle, max_iter: int = 1000
) -> tuple[Tensor, Tensor, Tensor]:
    """min_ξ ½‖M_Sξ‖² − c_Sᵀξ on the simplex (c_s = ηᵀm_s + ψᵀn_s): solve the KKT system on the
    active set S; if some weight would turn negative, step to the boundary and drop it; otherwise add
    the oracle's structure for η − μ while its score exceeds the active ones' common score τ.
    Returns M_S [D, S], N_S [K, S] and ξ [S]."""
    m0, n0 = oracle(eta)
    ms, ns, xi = [m0], [n0], eta.new_ones(1)
    for _ in range(max_iter):
        m, n = torch.stack(ms, 1), torch.stack(ns, 1)
        c, stacked = eta @ m + psi @ n, torch.cat([m, m.new_ones(1, m.size(1))])
        if int(torch.linalg.matrix_rank(stacked, rtol=1e-9)) < m.size(1):
            ms, ns, xi = _drop(ms, ns, _null_step(stacked, c, xi))
            continue
        target = _kkt(m, c, 1.0)
        if bool((target < -_TOL).any()):
            ms, ns, xi = _drop(ms, ns, _ratio_step(xi, target))
            continue
        xi = target.clamp_min(0)
        mu = m @ xi
        m_new, n_new = oracle(eta - mu)
        tau = float(((eta - mu) @ m + psi @ n).max())
        if float((eta - mu) @ m_new + psi @ n_new) <= tau + 1e-10 * max(1.0, abs(tau)):
            return m, n, xi
        ms, ns, xi = [*ms, m_new], [*ns, n_new], torch.cat([xi, xi.new_zeros(1)])
    raise RuntimeError(f"SparseMAP's active set did not converge in {max_iter} steps")


class _SparseMAPFunction(torch.autograd.Function):
    """μ = M_S ξ forward; backward g ↦ (M_S Z M_Sᵀ g, N_S Z M_Sᵀ g), Z M_Sᵀ g from the KKT system."""

    @staticmethod
    def forward(ctx: Any, theta: Tensor, psi: Tensor, oracle: Oracle) -> tuple[Tensor, Tensor, Tensor]:
        m, n, xi = _active_set(theta.detach().cpu().double(), psi.detach().cpu().double(), oracle)
        ctx.m, ctx.n = m, n
        mu = (m @ xi).to(theta)
        xi, m = xi.to(theta), m.T.to(theta)
        ctx.mark_non_differentiable(xi, m)
        return mu, xi, m

    @staticmethod
    def backward(ctx: Any, g: Tensor, *_: Tensor) -> tuple[Tensor, Tensor, None]:
        grad_c = _kkt(ctx.m, ctx.m.T @ g.detach().cpu().double(), 0.0)
        return (ctx.m @ grad_c).to(g), (ctx.n @ grad_c).to(g), None


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

    def oracle(eta: Tensor) -> tuple[Tensor, Tensor]:
        return torch.nn.functional.one_hot(eta.argmax(), eta.numel()).to(eta), eta.new_zeros(0)

    return _solve(theta, theta.new_zeros(0), oracle)


def sparsemap_chain(theta: Tensor, transition: Tensor) -> SparseMAP:
    """SparseMAP over the binary chain's structures z ∈ {0, 1}^T: m_s = z, n_s[a, b] = #{i : z_{i−1} = a,
    z_i = b} (flattened), ψ = A (flattened), so c_s = s(z) = Σ_i θ_i z_i + Σ_i A[z_{i−1}, z_i]. μ* = the
    marginals in [0, 1]^T, a combination of at most T + 1 structures; the MAP oracle is Viterbi.
    With A = 0 the structures are all subsets and μ* = clip(θ, 0, 1)."""
    theta, transition = chain._inputs(theta, transition)
    if theta.dim() != 1:
        raise ValueError(f"theta must be one chain [T], got shape {tuple(theta.shape)}")
    a = transition.detach().cpu().double()

    def oracle(eta: Tensor) -> tuple[Tensor, Tensor]:
        z = chain.viterbi(eta, a)
        counts = eta.new_zeros(2, 2).index_put_(
            (z[:-1].long(), z[1:].long()), eta.new_ones(z.numel() - 1), accumulate=True
        )
        return z, counts.flatten()

    return _solve(theta, transition.flatten(), oracle)
