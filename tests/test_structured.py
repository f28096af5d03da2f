"""Lesson 18's structured attention (xai_tf.structured), each against an independent reference:
brute-force sums over all 2^T assignments (written here with itertools, not the package's enumeration),
torch-struct's LinearChainCRF, lesson 03's sparsemax, scipy's SLSQP on the QP over the structures'
convex hull, and finite differences."""

import itertools
import math

import numpy as np
import pytest
import torch
import torch_struct
from scipy.optimize import minimize

from xai_tf import attention as att
from xai_tf import structured as st
from xai_tf.structured import sparsemap

F64 = torch.float64


def _draw(seed: int, t: int, batch: tuple[int, ...] = (), scale: float = 2.0):
    g = torch.Generator().manual_seed(seed)
    return scale * torch.randn(*batch, t, generator=g, dtype=F64), scale * torch.randn(
        2, 2, generator=g, dtype=F64
    )


def _assignments(t: int) -> list[tuple[int, ...]]:
    return list(itertools.product((0, 1), repeat=t))


def _score(z: tuple[int, ...], theta: list[float], a: list[list[float]]) -> float:
    return sum(th * zi for th, zi in zip(theta, z, strict=True)) + sum(
        a[p][q] for p, q in itertools.pairwise(z)
    )


def _brute_marginals(theta: list[float], a: list[list[float]]) -> list[float]:
    """p(z_i = 1) by summing exp s(z) over every z in plain Python floats (shifted by the max score)."""
    zs = _assignments(len(theta))
    s = [_score(z, theta, a) for z in zs]
    top = max(s)
    w = [math.exp(v - top) for v in s]
    return [sum(wk for wk, z in zip(w, zs, strict=True) if z[i]) / sum(w) for i in range(len(theta))]


@pytest.mark.parametrize("t", [1, 2, 3, 7, 10])
def test_marginals_equal_brute_force_enumeration(t):
    theta, a = _draw(t, t, batch=(3,))
    ref = torch.tensor([_brute_marginals(row.tolist(), a.tolist()) for row in theta], dtype=F64)
    for got in (
        st.chain_marginals(theta, a),
        st.chain_marginals_autograd(theta, a),
        st.chain_marginals_enumerated(theta, a),
    ):
        assert got.shape == (3, t) and got.dtype == F64
        assert (got - ref).abs().max() < 1e-10


def test_log_partition_equals_brute_force():
    theta, a = _draw(1, 8)
    ref = math.log(sum(math.exp(_score(z, theta.tolist(), a.tolist())) for z in _assignments(8)))
    assert abs(float(st.chain_log_partition(theta, a)) - ref) < 1e-10


def test_large_scores_stay_finite_in_log_space():
    theta, a = _draw(2, 6, scale=400.0)  # exp(400·6) overflows float64
    ref = torch.tensor(_brute_marginals(theta.tolist(), a.tolist()), dtype=F64)
    assert (st.chain_marginals(theta, a) - ref).abs().max() < 1e-10


def test_no_transition_is_independent_sigmoids():
    theta, _ = _draw(3, 9, batch=(2,))
    ref = 1 / (1 + torch.exp(-theta))
    assert (st.chain_marginals(theta, torch.zeros(2, 2, dtype=F64)) - ref).abs().max() < 1e-12
    assert (st.independent_marginals(theta) - ref).abs().max() < 1e-12


def _torch_struct_potentials(theta: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """torch-struct's log_potentials[b, n, c_next, c_prev] = φ(n, z_{n+1}, z_n): our A[z_n, z_{n+1}]
    plus the unary θ_{n+1} z_{n+1}, and θ_1 z_1 folded into the first edge."""
    b, t = theta.shape
    phi = a.T.expand(b, t - 1, 2, 2).clone()
    phi[:, :, 1, :] += theta[:, 1:, None]
    phi[:, 0, :, 1] += theta[:, :1]
    return phi


@pytest.mark.parametrize(("dtype", "bound"), [(F64, 1e-6), (torch.float32, 1e-5)])
@pytest.mark.filterwarnings("ignore:.*arg_constraints")
def test_marginals_equal_torch_struct(dtype, bound):
    """torch-struct in float64 is the reference for both dtypes. In float32 the log-space sums
    α_i + β_i − log Z add terms of size ≈ 10 here (|log Z| up to 10.6), each rounded by ≈ 10 · 2⁻²⁴
    ≈ 6e-7 (measured 7.6e-7 on this draw): 1e-6 would test float32 rounding, not the algorithm."""
    theta, a = _draw(4, 12, batch=(5,))
    dist = torch_struct.LinearChainCRF(_torch_struct_potentials(theta, a))
    edge = dist.marginals  # [b, T−1, c_next, c_prev]
    ref = torch.cat([edge[:, :1, :, 1].sum(-1), edge[:, :, 1, :].sum(-1)], dim=1)
    got = st.chain_marginals(theta.to(dtype), a.to(dtype))
    assert got.dtype == dtype and (got.double() - ref).abs().max() < bound
    log_z = st.chain_log_partition(theta.to(dtype), a.to(dtype)).double()
    assert (log_z - dist.partition).abs().max() < bound


def test_gradients_through_forward_backward_equal_autograd_through_enumeration():
    theta, a = _draw(5, 6, batch=(2,))
    weights = torch.randn(2, 6, generator=torch.Generator().manual_seed(9), dtype=F64)
    zs = torch.tensor(_assignments(6), dtype=F64)

    def enumerated(th, aa):
        pair = (
            torch.stack([aa[int(z[i - 1]), int(z[i])] for z in zs for i in range(1, 6)])
            .view(len(zs), 5)
            .sum(1)
        )
        return torch.softmax(th @ zs.T + pair, dim=-1) @ zs

    grads = []
    for f in (st.chain_marginals, st.chain_marginals_autograd, enumerated):
        th, aa = theta.clone().requires_grad_(), a.clone().requires_grad_()
        (f(th, aa) * weights).sum().backward()
        grads.append(torch.cat([th.grad.flatten(), aa.grad.flatten()]))
    assert (grads[0] - grads[2]).abs().max() < 1e-10
    assert (grads[1] - grads[2]).abs().max() < 1e-10


@pytest.mark.parametrize("seed", range(5))
def test_unstructured_sparsemap_is_sparsemax(seed):
    theta = torch.randn(9, generator=torch.Generator().manual_seed(seed), dtype=F64)
    got = st.sparsemap_unstructured(theta)
    assert (got.marginals - att.sparsemax(theta)).abs().max() < 1e-6
    assert abs(float(got.weights.sum()) - 1) < 1e-12 and (got.weights > 0).all()
    assert (got.weights @ got.structures - got.marginals).abs().max() < 1e-12


def _structures(theta: torch.Tensor, a: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
    """M [T, 2^T] (every structure's z as a column) and c [2^T] (their scores s(z))."""
    zs = _assignments(theta.numel())
    return np.array(zs, dtype=float).T, np.array([_score(z, theta.tolist(), a.tolist()) for z in zs])


def _gap(m: np.ndarray, c: np.ndarray, mu: np.ndarray, xi: np.ndarray) -> float:
    """The Frank–Wolfe gap max_s g_s − Σ_s ξ_s g_s with g_s = c_s − m_sᵀμ, μ = Mξ, over every
    structure: it bounds f(ξ) − f* of f = ½‖Mξ‖² − cᵀξ, hence ½‖μ − μ*‖², and is 0 exactly at the
    optimum."""
    g = c - m.T @ mu
    return float(g.max() - xi @ g)


def _qp_marginals(theta: torch.Tensor, a: torch.Tensor) -> np.ndarray:
    """argmin over ξ in the simplex of ½‖Mξ‖² − cᵀξ (M: all 2^T structures, c their scores): SLSQP
    proposes a support, then exact active-set steps finish it (on the support S, the KKT system
    [MₛᵀMₛ 1; 1ᵀ 0][ξ; λ] = [cₛ; 1] solved by least squares; a structure with negative weight leaves,
    the structure of largest g = c − Mᵀμ enters) until the Frank–Wolfe gap certifies ½‖μ − μ*‖² < 1e-12.
    SLSQP alone stops where rounding lets it: under the numerics matrix's ATEN_CPU_CAPABILITY=default,
    OPENBLAS_CORETYPE=Haswell on an AMD EPYC it ended at gap 1.4e-11 ("terminated successfully") on
    two draws and, on a third, three evaluations in and off the simplex (status 8)."""
    m, c = _structures(theta, a)
    res = minimize(
        lambda x: 0.5 * (m @ x) @ (m @ x) - c @ x,
        np.full(m.shape[1], 1 / m.shape[1]),
        jac=lambda x: m.T @ (m @ x) - c,
        bounds=[(0, 1)] * m.shape[1],
        constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1, "jac": lambda x: np.ones_like(x)}],
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 5000},
    )
    support = set(np.flatnonzero(res.x > 1e-9).tolist()) or {int(np.argmax(c))}
    for _ in range(100):
        xi = _active_set_step(m, c, sorted(support))
        if (xi < 0).any():
            support.discard(int(np.argmin(xi)))
            continue
        if _gap(m, c, m @ xi, xi) < 1e-13:
            break
        support.add(int(np.argmax(c - m.T @ (m @ xi))))
    assert abs(xi.sum() - 1) < 1e-12 and (xi >= 0).all()
    assert _gap(m, c, m @ xi, xi) < 1e-12  # ½‖μ_ref − μ*‖² < 1e-12
    return m @ xi


def _active_set_step(m: np.ndarray, c: np.ndarray, support: list[int]) -> np.ndarray:
    """ξ on ``support`` minimising ½‖Mξ‖² − cᵀξ with Σξ = 1 (zero elsewhere), by least squares on KKT."""
    ms = m[:, support]
    k = len(support)
    kkt = np.block([[ms.T @ ms, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
    sol = np.linalg.lstsq(kkt, np.concatenate([c[support], [1.0]]), rcond=None)[0]
    xi = np.zeros(m.shape[1])
    xi[support] = sol[:k]
    return xi


def _check_against_qp(theta: torch.Tensor, a: torch.Tensor) -> None:
    got = st.sparsemap_chain(theta, a)
    assert np.abs(got.marginals.numpy() - _qp_marginals(theta, a)).max() < 1e-6
    m, c = _structures(theta, a)
    xi = np.zeros(m.shape[1])  # SparseMAP's weights on all 2^T structures (z read as a binary number)
    xi[[int("".join(str(int(v)) for v in z), 2) for z in got.structures.tolist()]] = got.weights.numpy()
    assert abs(_gap(m, c, got.marginals.numpy(), xi)) < 1e-12
    assert (got.weights @ got.structures - got.marginals).abs().max() < 1e-12
    assert set(got.structures.flatten().tolist()) <= {0.0, 1.0}


@pytest.mark.numerics
@pytest.mark.parametrize("seed", range(12))
def test_chain_sparsemap_solves_the_qp(seed):
    t = 2 + seed % 4
    _check_against_qp(*_draw(100 + seed, t, scale=1.5))


@pytest.mark.numerics
@pytest.mark.parametrize(("t", "seed"), [(4, 169), (4, 395), (6, 214)])
def test_chain_sparsemap_steps_past_affinely_dependent_structures(t, seed, monkeypatch):
    """Instances (found by a sweep of 2,000) where the oracle adds a structure affinely dependent on
    the active ones (e.g. 0110 + 0000 = 0100 + 0010), so the KKT system is singular."""
    calls, null_step = [], sparsemap._null_step
    monkeypatch.setattr(sparsemap, "_null_step", lambda *args: calls.append(1) or null_step(*args))
    _check_against_qp(*_draw(seed, t))
    assert calls


@pytest.mark.parametrize("t", [3, 8, 12])
def test_chain_sparsemap_support_has_at_most_t_plus_one_structures(t):
    """Carathéodory: μ* ∈ [0, 1]^T is a combination of at most T + 1 structures; random instances
    whose scores make many structures competitive (scale 2: θ and A of the same size)."""
    for seed in range(40):
        theta, a = _draw(1000 * t + seed, t)
        got = st.sparsemap_chain(theta, a)
        assert 1 <= len(got.weights) <= t + 1
        assert abs(float(got.weights.sum()) - 1) < 1e-12 and (got.weights > 0).all()
        assert len(set(map(tuple, got.structures.tolist()))) == len(got.weights)


def test_chain_sparsemap_without_transition_is_the_clip_to_the_cube():
    theta = 1.5 * torch.randn(8, generator=torch.Generator().manual_seed(7), dtype=F64)
    got = st.sparsemap_chain(theta, torch.zeros(2, 2, dtype=F64))
    assert (got.marginals - theta.clamp(0, 1)).abs().max() < 1e-10


def test_viterbi_is_the_best_enumerated_structure():
    for seed in range(10):
        theta, a = _draw(200 + seed, 7)
        best = max(_assignments(7), key=lambda z: _score(z, theta.tolist(), a.tolist()))
        assert st.viterbi(theta, a).tolist() == list(best)


@pytest.mark.parametrize("seed", range(4))
def test_sparsemap_backward_matches_finite_differences(seed):
    theta, a = _draw(300 + seed, 5, scale=1.0)
    inputs = (theta.requires_grad_(), a.requires_grad_())
    assert torch.autograd.gradcheck(
        lambda th, aa: st.sparsemap_chain(th, aa).marginals, inputs, eps=1e-7, atol=1e-6
    )
    assert torch.autograd.gradcheck(
        lambda th: st.sparsemap_unstructured(th).marginals, (theta,), eps=1e-7, atol=1e-6
    )


@pytest.mark.parametrize("seed", range(3))
def test_batched_chain_sparsemap_is_the_solver_row_by_row(seed):
    """sparsemap_chain_marginals on [2, 3, T] equals sparsemap_chain on each row, values and gradients
    (θ's and A's, the latter summed over the rows), and its backward matches finite differences."""
    theta, a = _draw(400 + seed, 6, batch=(2, 3), scale=1.5)
    weights = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(seed), dtype=F64)
    th1, a1 = theta.clone().requires_grad_(), a.clone().requires_grad_()
    got = st.sparsemap_chain_marginals(th1, a1)
    (got * weights).sum().backward()
    th2, a2 = theta.clone().requires_grad_(), a.clone().requires_grad_()
    rows = [st.sparsemap_chain(r, a2).marginals for r in th2.reshape(6, 6)]
    want = torch.stack(rows).reshape(2, 3, 6)
    (want * weights).sum().backward()
    assert (got - want).abs().max() < 1e-12
    assert (th1.grad - th2.grad).abs().max() < 1e-10 and (a1.grad - a2.grad).abs().max() < 1e-10
    assert a1.grad.abs().max() > 1e-3
    inputs = (theta[0, :2].clone().requires_grad_(), a.clone().requires_grad_())
    assert torch.autograd.gradcheck(st.sparsemap_chain_marginals, inputs, eps=1e-7, atol=1e-6)


def test_autograd_marginals_carry_the_transition_gradient_when_only_it_is_trained():
    theta, a = _draw(10, 5)
    weights = torch.arange(5, dtype=F64)
    a1, a2 = a.clone().requires_grad_(), a.clone().requires_grad_()
    (st.chain_marginals_autograd(theta, a1) @ weights).backward()
    (st.chain_marginals(theta, a2) @ weights).backward()
    assert (a1.grad - a2.grad).abs().max() < 1e-10 and a1.grad.abs().max() > 1e-3


def test_float32_input_gives_float32_results():
    theta, a = _draw(8, 5)
    for f in (
        st.chain_marginals,
        st.chain_marginals_autograd,
        lambda th, aa: st.sparsemap_chain(th, aa).marginals,
        st.sparsemap_chain_marginals,
    ):
        assert f(theta.float(), a.float()).dtype == torch.float32
