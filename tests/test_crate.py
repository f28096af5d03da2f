"""Lesson 13's helpers (xai_tf.crate) against independent references: numpy eigenvalues and the
closed form for orthogonal tokens (coding rate), torch.autograd and finite differences (∇R), the
Neumann-series remainder bound, torch's scaled_dot_product_attention (MSSA's heads), scipy.optimize
(the proximal steps and the sparse code), torch.distributions + autograd (Tweedie's formula) and a
Monte Carlo mean within its standard error. Tokens are columns: Y ∈ ℝ^{d×T}."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from probes_crate import VALUES
from scipy import optimize

from xai_tf import seeds
from xai_tf.crate import denoise, ista, mixture, model, mssa, rate, study
from xai_tf.exercises import crate as exercises
from xai_tf.widgets import crate as crate_widgets


def tokens(d, T, seed=0, scale=1.0):
    return torch.randn(d, T, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * scale


def numpy_rate(Y, eps):
    Y = Y.numpy()
    d, T = Y.shape
    lam = np.linalg.eigvalsh(Y.T @ Y)
    return 0.5 * np.sum(np.log1p(d / (T * eps**2) * lam))


# ---------------------------------------------------------------- coding rate


@pytest.mark.parametrize(("d", "T"), [(5, 9), (9, 5), (6, 6)])
@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_coding_rate_against_numpy_eigenvalues(d, T, eps):
    Y = tokens(d, T, seed=d * T)
    assert rate.coding_rate(Y, eps).item() == pytest.approx(numpy_rate(Y, eps), rel=1e-12)


def test_coding_rate_of_orthogonal_tokens_in_closed_form():
    # Y = Q diag(s) with orthonormal Q: YᵀY = diag(s²), R = ½ Σ_t log(1 + α s_t²)
    d, T, eps = 10, 4, 0.3
    Q, _ = torch.linalg.qr(tokens(d, T))
    s = torch.tensor([0.5, 1.0, 2.0, 3.0], dtype=torch.float64)
    want = 0.5 * sum(np.log(1 + d / (T * eps**2) * v**2) for v in s.tolist())
    assert rate.coding_rate(Q * s, eps).item() == pytest.approx(want, rel=1e-12)


def test_gaussian_rate_distortion_of_isotropic_tokens_in_closed_form():
    """Σ = YYᵀ/T = λI: the water level is ε²/d on every axis, R = (d/2) log(dλ/ε²); and 0 once ε² ≥ dλ."""
    d, T, lam = 4, 8, 0.7
    Q = torch.linalg.qr(tokens(T, d, seed=3))[0].mT  # [d, T], orthonormal rows: Q Qᵀ = I
    Y = Q * np.sqrt(T * lam)
    for eps in (0.3, 1.0):
        assert rate.gaussian_rate_distortion(Y, eps) == pytest.approx(
            d / 2 * np.log(d * lam / eps**2), rel=1e-9
        )
    assert rate.gaussian_rate_distortion(Y, np.sqrt(d * lam) * 1.01) == 0.0


def _water_filling_by_sorting(lam: np.ndarray, eps: float) -> float:
    """R(ε) in closed form: with λ sorted ascending, the k smallest lie under the water level
    θ = (ε² − Σ_{i<k} λ_(i)) / (d − k) for the first k with θ ≤ λ_(k); R = Σ_{λ_i > θ} ½ log(λ_i / θ).
    Finite and exact (no iteration), unlike the bisection in ``rate``."""
    lam = np.sort(lam)
    for k in range(lam.size):
        theta = (eps**2 - lam[:k].sum()) / (lam.size - k)
        if theta <= lam[k]:
            return float(0.5 * np.log(lam[lam > theta] / theta).sum())
    return 0.0


@pytest.mark.numerics
@pytest.mark.parametrize(("d", "T", "eps"), [(5, 40, 0.8), (6, 6, 1.5), (8, 30, 2.5)])
def test_gaussian_rate_distortion_against_closed_form_and_scipy(d, T, eps):
    """Reverse water-filling, on tokens whose axes have very different variances, against (1) the
    closed form by sorting (to 1e-9) and (2) a generic solver of min Σ ½ log(λ_i / D_i) over
    0 < D_i ≤ λ_i, Σ D_i ≤ ε² (scipy's SLSQP). SLSQP's exit is a rounding outcome: on an AMD EPYC it
    stops 1.3e-9 off the constraint with "positive directional derivative" for (6, 6, 1.5) under the
    default BLAS path and converges under ``OPENBLAS_CORETYPE=Haswell``. So its answer is projected
    onto the feasible set (clipped to λ, scaled down to Σ D = ε²), where every point scores at least
    R(ε): the projected value must lie in [R − 1e-12, R + 1e-6] whatever way the solver stopped."""
    Y = tokens(d, T, seed=d) * torch.linspace(0.1, 2.0, d, dtype=torch.float64).unsqueeze(1)
    lam = np.linalg.eigvalsh((Y @ Y.T).numpy() / T)
    R = rate.gaussian_rate_distortion(Y, eps)
    assert R == pytest.approx(_water_filling_by_sorting(lam, eps), rel=1e-9)

    def objective(D):
        return 0.5 * np.sum(np.log(lam / D))

    res = optimize.minimize(
        objective,
        lam * eps**2 / lam.sum(),  # feasible: D_i ≤ λ_i, Σ D_i = ε²
        method="SLSQP",
        bounds=[(1e-12, float(v)) for v in lam],
        constraints=[{"type": "eq", "fun": lambda D: D.sum() - eps**2}],
        options={"ftol": 1e-12, "maxiter": 1000},
    )
    D = np.clip(res.x, 1e-12, lam)
    D *= min(1.0, eps**2 / D.sum())
    assert R - 1e-12 <= objective(D) <= R + 1e-6, (res.message, objective(D) - R)


def test_coding_rate_exceeds_the_gaussian_rate_by_half_log_one_plus_delta_over_lambda():
    """When every eigenvalue λ_i of YYᵀ/T is at least δ = ε²/d the water level is δ, so the coding
    rate ½ Σ log(1 + λ_i/δ) exceeds R(ε) = ½ Σ log(λ_i/δ) by exactly ½ Σ log(1 + δ/λ_i); below that
    it still exceeds it (y + w is a test channel of distortion ≤ ε²)."""
    d, T = 6, 50
    Y = tokens(d, T, seed=7) + 0.0
    eps = 0.5
    lam = np.linalg.eigvalsh((Y @ Y.T).numpy() / T)
    delta = eps**2 / d
    assert lam.min() >= delta
    gap = rate.coding_rate(Y, eps).item() - rate.gaussian_rate_distortion(Y, eps)
    assert gap == pytest.approx(0.5 * np.sum(np.log1p(delta / lam)), rel=1e-9)
    low_rank = tokens(d, 3, seed=8) @ tokens(3, T, seed=9)  # three eigenvalues 0 < δ
    assert rate.coding_rate(low_rank, 2.0).item() > rate.gaussian_rate_distortion(low_rank, 2.0)


def test_attention_stack_pre_ln_is_the_blocks_own_attention_half_and_recap_has_unit_rms():
    """'pre-ln' stacks Block.trace's Z^{ℓ+1/2} = Z + MHATT(LN Z) when each block is fed the previous
    one's half-step; 'recap' = RMS(Z + MHATT(Z)) leaves every token with root mean square 1 (γ = 1),
    up to ε, and its first step equals a hand RMS of the same sum."""
    with seeds.seeded(0):
        m = model.Classifier("standard", 8, 2, 4, 3, 2).double()
    Y = tokens(8, 5, seed=4).unsqueeze(0).repeat(2, 1, 1)
    pre = model.attention_stack(m, Y, "pre-ln")
    for i in range(3):
        torch.testing.assert_close(pre[i + 1], m.block(i).trace(pre[i])["mid"])
    rec = model.attention_stack(m, Y, "recap")
    for Z in rec[1:]:
        torch.testing.assert_close(Z.pow(2).mean(1), torch.ones(2, 5, dtype=Z.dtype), atol=1e-5, rtol=0)
    b = m.block(0)
    s = Y + b.out.weight @ b.attention(Y) + b.out.bias.unsqueeze(-1)
    torch.testing.assert_close(rec[1], s / s.pow(2).mean(1, keepdim=True).add(1e-6).sqrt())


def test_coding_rate_batches():
    Y = torch.stack([tokens(4, 7, seed=i) for i in range(3)])
    got = rate.coding_rate(Y, 0.5)
    assert got.shape == (3,)
    assert torch.allclose(got, torch.stack([rate.coding_rate(y, 0.5) for y in Y]))


def test_compression_rate_is_the_sum_of_projected_rates():
    U = mixture.random_bases(8, 3, 2, orthogonal=False, seed=1)
    Y = tokens(8, 11)
    want = sum(numpy_rate(U[k].T @ Y, 0.5) for k in range(3))  # α = r/(Tε²) inside each term
    assert rate.compression_rate(Y, U, 0.5).item() == pytest.approx(want, rel=1e-12)


def test_gradients_against_autograd_and_finite_differences():
    Y = tokens(6, 8, seed=3)
    U = mixture.random_bases(6, 2, 3, seed=2)
    for value, grad in (
        (
            lambda y: 0.5 * torch.logdet(torch.eye(8, dtype=y.dtype) + 6 / (8 * 0.25) * y.T @ y),
            rate.coding_rate_grad,
        ),
        (lambda y: rate.compression_rate(y, U), lambda y, eps: rate.compression_rate_grad(y, U, eps)),
    ):
        y = Y.clone().requires_grad_()
        (auto,) = torch.autograd.grad(value(y), y)
        got = grad(Y, 0.5)
        assert torch.allclose(got, auto, atol=1e-12)
        h, fd = 1e-6, torch.zeros_like(Y)
        for i in range(6):
            for t in range(8):
                e = torch.zeros_like(Y)
                e[i, t] = h
                fd[i, t] = (value(Y + e) - value(Y - e)) / (2 * h)
        assert torch.allclose(got, fd, atol=1e-7)


def test_sparse_rate_reduction_against_numpy_and_a_hand_l1():
    U = mixture.random_bases(6, 3, 2, seed=2)
    Y = tokens(6, 9, seed=3)
    want_R = numpy_rate(Y, 0.5)
    want_Rc = sum(numpy_rate(U[k].T @ Y, 0.5) for k in range(3))
    l1 = float(np.abs(Y.numpy()).sum())
    got = rate.sparse_rate_reduction(Y, U, eps=0.5, lam=0.2)
    assert got["R"] == pytest.approx(want_R, rel=1e-12)
    assert got["R^c"] == pytest.approx(want_Rc, rel=1e-12)
    assert got["ΔR"] == pytest.approx(want_R - want_Rc, rel=1e-12)
    assert got["objective"] == pytest.approx(want_R - want_Rc - 0.2 * l1, rel=1e-12)


def test_rate_reduction_is_blind_to_a_rotation_and_the_l1_term_is_not():
    # R(QY) = R(Y) and R^c(QY; QU) = R^c(Y; U) for orthogonal Q (QᵀQ = I leaves every Gram matrix
    # alone), while ‖QY‖₁ ≠ ‖Y‖₁: axis-aligned tokens (each in r of the d coordinates) are sparse,
    # their rotation is not. Only the sparsity term can prefer one basis.
    d, K, r = 6, 3, 2
    U_axis = torch.eye(d, dtype=torch.float64).reshape(d, K, r).permute(1, 0, 2)
    Y, _, _ = mixture.sample_tokens(U_axis, 10, seed=1)
    Q, _ = torch.linalg.qr(tokens(d, d, seed=7))
    before = rate.sparse_rate_reduction(Y, U_axis)
    after = rate.sparse_rate_reduction(Q @ Y, Q @ U_axis)
    for key in ("R", "R^c", "ΔR"):
        assert after[key] == pytest.approx(before[key], rel=1e-10)
    assert (Y != 0).sum() == r * 10 and after["l1"] > 1.3 * before["l1"]


# ---------------------------------------------------------------- MSSA


def test_satt_is_attention_with_q_k_v_all_equal_to_the_projection():
    d, K, r, T = 12, 3, 4, 9
    U = mixture.random_bases(d, K, r)
    Y = tokens(d, T)
    got = mssa.satt(Y, U)
    assert got.shape == (K, r, T) and mssa.mssa(Y, U).shape == (d, T)
    for k in range(K):
        W = U[k].T  # W_q = W_k = W_v = U_kᵀ ∈ ℝ^{r×d}; torch's attention takes tokens as rows
        E = Y.T
        ref = F.scaled_dot_product_attention(E @ W.T, E @ W.T, E @ W.T, scale=1.0)
        assert torch.allclose(got[k], ref.T, atol=1e-12)
    assert torch.allclose(mssa.mssa(Y, U), sum(U[k] @ got[k] for k in range(K)), atol=1e-12)


@pytest.mark.parametrize("scale", [0.02, 0.1, 0.3])
def test_neumann_step_within_the_series_remainder(scale):
    # (I + M)⁻¹ − (I − M) = M² (I + M)⁻¹ and ‖(I + M)⁻¹‖₂ ≤ 1 for M ⪰ 0, so the two updates differ by
    # at most γα Σ_k ‖Z_k‖_F ‖M_k‖₂² with M_k = α Z_kᵀZ_k
    U = mixture.random_bases(12, 3, 4)
    Y = tokens(12, 16, scale=scale)
    eps, gamma = 0.5, 0.2
    diff = mssa.neumann_step(Y, U, eps, gamma) - mssa.gradient_step(Y, U, eps, gamma)
    a = 4 / (16 * eps**2)
    bound = sum(
        gamma
        * a
        * torch.linalg.norm(U[k].T @ Y)
        * (a * torch.linalg.matrix_norm(U[k].T @ Y, ord=2) ** 2) ** 2
        for k in range(3)
    )
    assert torch.linalg.norm(diff) <= bound * (1 + 1e-9)
    assert torch.linalg.norm(diff) > 0.05 * bound  # the bound is not loose by orders of magnitude


def test_step_errors_track_the_derivation():
    U = mixture.random_bases(12, 3, 4)
    Y, _, _ = mixture.sample_tokens(U, 16, 0.1)
    small, large = mssa.step_errors(0.02 * Y, U, 0.5, 0.1), mssa.step_errors(3 * Y, U, 0.5, 0.1)
    assert small["neumann"] < 1e-3 < 1 < large["neumann"] and large["radius"] > 1 > small["radius"]
    # with Σ_k U_kU_kᵀ = I (here K r = d) and the linear similarity in place of the softmax,
    # (1 − γ̂)Y + γ̂ Σ U_k Z_k (α Z_kᵀZ_k) is the Neumann step exactly
    Z = rate.project(Y, U)
    a, g = 4 / (16 * 0.25), 0.1
    linear = (1 - g * a) * Y + g * a * (U @ (a * Z @ (Z.mT @ Z))).sum(0)
    assert torch.allclose(linear, mssa.neumann_step(Y, U, 0.5, g), atol=1e-12)


# ---------------------------------------------------------------- ISTA


def test_prox_of_nonnegative_l1_against_scipy():
    V = tokens(7, 1, seed=5).ravel().numpy()
    t = 0.4
    res = optimize.minimize(
        lambda x: 0.5 * np.sum((x - V) ** 2) + t * np.sum(x),
        np.zeros(7),
        jac=lambda x: x - V + t,
        bounds=[(0, None)] * 7,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-12},
    )
    got = ista.prox_nonneg_l1(torch.from_numpy(V).unsqueeze(-1), t).ravel().numpy()
    assert np.allclose(got, res.x, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prox_lemma_for_orthogonal_D_against_a_constrained_solver(seed):
    d, gamma, lam = 5, 0.5, 0.6
    D, _ = torch.linalg.qr(tokens(d, d, seed=10 + seed))
    y = tokens(d, 1, seed=seed)
    Dn, yn = D.numpy(), y.ravel().numpy()
    # min ½‖x − y‖² + γλ‖Dᵀx‖₁ over Dᵀx ≥ 0, where ‖Dᵀx‖₁ = 1ᵀDᵀx
    res = optimize.minimize(
        lambda x: 0.5 * np.sum((x - yn) ** 2) + gamma * lam * np.sum(Dn.T @ x),
        np.zeros(d),
        jac=lambda x: x - yn + gamma * lam * Dn @ np.ones(d),
        constraints=[optimize.LinearConstraint(Dn.T, 0, np.inf)],
        method="trust-constr",
        options={"gtol": 1e-12, "xtol": 1e-12},
    )
    got = ista.prox_orthogonal(y, D, gamma, lam).ravel().numpy()
    assert np.allclose(got, res.x, atol=1e-5)


def test_ista_converges_to_the_nonnegative_sparse_code_from_scipy():
    d, lam = 6, 0.3
    D = tokens(d, d, seed=7) / 3
    z = tokens(d, 1, seed=8)
    eta = 0.9 / torch.linalg.matrix_norm(D, ord=2).item() ** 2
    Dn, zn = D.numpy(), z.ravel().numpy()
    res = optimize.minimize(
        lambda x: 0.5 * np.sum((zn - Dn @ x) ** 2) + lam * np.sum(x),
        np.zeros(d),
        jac=lambda x: Dn.T @ (Dn @ x - zn) + lam,
        bounds=[(0, None)] * d,
        method="L-BFGS-B",
        options={"ftol": 1e-16, "gtol": 1e-12, "maxiter": 10_000},
    )
    got = ista.ista(z, D, eta, lam, steps=5000).ravel().numpy()
    assert np.allclose(got, res.x, atol=1e-5)
    # one step is the prox of a gradient step of ½‖z − Dx‖² from x = z
    one = ista.ista_step(z, D, eta, lam)
    assert torch.allclose(one, torch.relu(z - eta * D.T @ (D @ z - z) - eta * lam), atol=1e-14)


def test_sparsity_in_closed_form():
    Z = torch.tensor([[0.0, 3.0], [0.0, -4.0]])
    s = ista.sparsity(Z)
    assert s["zeros"] == 0.5 and s["l1"] == pytest.approx(7 / (2 * 5))
    assert ista.sparsity(torch.ones(3, 3))["l1"] == pytest.approx(1.0)


# ---------------------------------------------------------------- denoising


def mixture_log_density(x, U, sigma):
    K, d, _ = U.shape
    covs = U @ U.mT + sigma**2 * torch.eye(d, dtype=U.dtype)
    dist = torch.distributions.MultivariateNormal(torch.zeros(d, dtype=U.dtype), covariance_matrix=covs)
    return torch.logsumexp(dist.log_prob(x.T.unsqueeze(1)), dim=-1) - np.log(K)  # [T]


@pytest.mark.parametrize("sigma", [0.2, 0.7, 1.5])
def test_posterior_mean_is_tweedies_formula_by_autograd(sigma):
    U = mixture.random_bases(8, 3, 2, seed=4, orthogonal=False)
    x, _, _ = mixture.sample_tokens(U, 10, sigma, seed=1)
    xg = x.clone().requires_grad_()
    (score,) = torch.autograd.grad(mixture_log_density(xg, U, sigma).sum(), xg)
    assert torch.allclose(denoise.posterior_mean(x, U, sigma), x + sigma**2 * score, atol=1e-10)


@pytest.mark.parametrize(("sigma", "r"), [(0.3, 1), (0.5, 2), (1.0, 2)])
def test_posterior_mean_against_monte_carlo_within_its_standard_error(sigma, r):
    U = mixture.random_bases(6, 3, r, seed=r)
    x, _, _ = mixture.sample_tokens(U, 4, sigma, seed=2)
    mc, se = denoise.monte_carlo_mean(x, U, sigma, n=200_000, seed=3)
    z = (denoise.posterior_mean(x, U, sigma) - mc) / se
    assert z.abs().max() < 4.5  # 24 coordinates: |z| < 4.5 fails by chance with p ≈ 2e-4
    # the notes' step (no 1/(1+σ²), softmax temperature 2σ² instead of 2σ²(1+σ²)) is outside it
    zn = (denoise.notes_step(x, U, sigma) - mc) / se
    assert zn.abs().max() > 10


def test_notes_step_approaches_the_posterior_mean_as_sigma_shrinks():
    U = mixture.random_bases(12, 3, 4)
    errors = [denoise.denoising_errors(U, s)["notes"] for s in (0.05, 0.1, 0.2, 0.4)]
    assert errors == sorted(errors) and errors[0] < 0.005


def test_denoising_mse_against_the_noise_variance_and_the_posterior_risk():
    # x − z = σw: 64 tokens × 12 coordinates of σ²χ²₁/768, relative standard error √(2/768) ≈ 5 %;
    # E[z|x] minimises the mean-squared error, so it is below both the notes' step and no denoising
    U = mixture.random_bases(12, 3, 4, seed=4)
    row = denoise.denoising_errors(U, 0.5)
    assert row["mse_identity"] == pytest.approx(0.25, rel=4 * (2 / 768) ** 0.5)
    assert row["mse_exact"] < row["mse_notes"] and row["mse_exact"] < row["mse_identity"]


# ---------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("call", "kind", "message"),
    [
        (lambda: rate.coding_rate(tokens(3, 4), 0.0), ValueError, "eps must be a finite number > 0"),
        (lambda: mixture.random_bases(4, 1, 5), ValueError, "r must be an integer in 1..4"),
        (
            lambda: rate.compression_rate(tokens(4, 5), torch.zeros(2, 4, 5, dtype=torch.float64)),
            ValueError,
            "r ≤ d",
        ),
        (
            lambda: rate.compression_rate(tokens(4, 5), mixture.random_bases(6, 2, 2)),
            ValueError,
            "must match",
        ),
        (
            lambda: mssa.step_errors(tokens(4, 5), 2 * mixture.random_bases(4, 2, 2), 0.5, 0.1),
            ValueError,
            "orthonormal",
        ),
        (
            lambda: denoise.posterior_mean(tokens(4, 5), 2 * mixture.random_bases(4, 2, 2), 0.5),
            ValueError,
            "orthonormal",
        ),
        (lambda: ista.ista_step(tokens(4, 5), tokens(3, 3)), ValueError, "square d × d"),
        (
            lambda: ista.prox_orthogonal(tokens(3, 2), 2 * torch.eye(3, dtype=torch.float64), 1.0, 0.1),
            ValueError,
            "orthogonal",
        ),
        (lambda: rate.coding_rate(torch.ones(3, 4, dtype=torch.long)), TypeError, "floating-point"),
    ],
)
def test_bad_inputs_name_the_argument(call, kind, message):
    with pytest.raises(kind, match=message):
        call()


# ---------------------------------------------------------------- the small models, the study


def test_crate_heads_share_q_k_v_and_match_sdpa():
    torch.manual_seed(0)
    crate, standard = (model.Block(kind, 8, 2, 3) for kind in ("crate", "standard"))
    assert crate.proj.shape == (1, 2, 8, 3) and standard.proj.shape == (3, 2, 8, 3)
    Y = tokens(8, 5).float().unsqueeze(0)
    for block in (crate, standard):
        P = block.proj.detach()
        q, k, v = (P[i % P.size(0)] for i in range(3))  # CRATE: Q = K = V = U_kᵀ
        E = Y[0].T  # tokens as rows for torch
        heads = [
            F.scaled_dot_product_attention(E @ q[h], E @ k[h], E @ v[h], scale=3**-0.5).T for h in range(2)
        ]
        got = block.attention(Y)[0]
        assert torch.allclose(got, torch.cat(heads), atol=1e-6)


def test_crate_block_output_is_one_ista_step_on_the_normalised_input():
    torch.manual_seed(1)
    block = model.Block("crate", 6, 2, 3)
    Y = tokens(6, 4).float().unsqueeze(0)
    steps = block.trace(Y)
    mid = steps["mid"][0].T  # rows for F.layer_norm
    y = F.layer_norm(mid, (6,), block.ln2.weight, block.ln2.bias).T
    D = block.D.detach()
    assert torch.allclose(steps["out"][0], torch.relu(y + 0.1 * D.T @ (y - D @ y) - 0.01), atol=1e-6)
    assert (steps["out"] >= 0).all()


def test_subspace_task_draws_the_class_component_with_probability_p():
    U = mixture.random_bases(12, 3, 2)
    Y, classes, comps = study.subspace_task(U, 400, T=10, p=0.5, seed=1)
    share = (comps == classes.unsqueeze(-1)).float().mean().item()
    want = 0.5 + 0.5 / 3  # 4000 draws: standard error 0.0075
    assert abs(share - want) < 4 * (want * (1 - want) / 4000) ** 0.5
    assert Y.shape == (400, 12, 10) and Y.dtype == torch.float32


def test_grouped_rate_and_unit_tokens():
    Z = tokens(5, 12).reshape(1, 5, 12) * 3
    Zu = study.unit_tokens(Z)
    assert torch.allclose(torch.linalg.vector_norm(Zu, dim=0), torch.ones(12, dtype=torch.float64))
    comps = torch.tensor([0, 1, 2] * 4)
    want = sum(4 / 12 * numpy_rate(Zu[:, comps == k], 0.5) for k in range(3))
    assert study.grouped_rate(Zu, comps) == pytest.approx(want, rel=1e-12)


def test_a_short_training_run_learns_the_task():
    m, history = study.train("crate", n_train=512, options=study.OPTIONS.replace(steps=60))
    _, Y, classes, _ = study.test_set(300)
    assert study.accuracy(m, Y, classes) > 0.5  # chance is 0.25
    assert np.mean(history[-10:]) < history[0]


# ---------------------------------------------------------------- panels and checkers


def _numpy_energies(Z, P, comps, K):
    """Mean ‖U_kᵀz‖² per true component and head, in numpy: tokens of ``Z [B, d, T]`` side by side,
    unit norm, U_k the QR basis of ``P[k]`` (numpy's QR: a column's sign does not change ‖U_kᵀz‖²)."""
    tokens = Z.double().permute(1, 0, 2).reshape(Z.size(1), -1).numpy()
    tokens = tokens / np.linalg.norm(tokens, axis=0)
    energy = np.stack([((np.linalg.qr(p)[0].T @ tokens) ** 2).sum(0) for p in P.double().numpy()])
    flat = comps.reshape(-1).numpy()
    return np.stack([energy[:, flat == c].mean(1) for c in range(K)])  # [component, head]


def test_layer_panel_shows_the_mean_energy_per_component_and_head():
    _, Y, _, comps = study.test_set(20)
    torch.manual_seed(0)
    m = model.Classifier("standard", 24, 4, 4, 2, 4)
    panel = crate_widgets.layer_panel(m, Y, comps)
    outs = [Y] + [s["out"].detach() for s in m.trace(Y)]
    for depth in range(3):
        panel["depth"].value = depth
        assert panel.message.value == "" and panel.view.value.count("<circle") == 4 * 240
        want = _numpy_energies(outs[depth], m.blocks[min(depth, 1)].proj[-1].detach(), comps, 4)
        for c in range(4):
            for k in range(4):
                assert f"component {c} → head {k}: {want[c, k]:.3f}<" in panel.view.value, (depth, c, k)


def test_ista_panel_shows_the_code_numpy_computes():
    z, D, x_true = (t.numpy() for t in ista.toy_signal(seed=0))
    panel = crate_widgets.ista_panel()
    X = z.copy()
    for k in range(1, 201):  # ISTA in numpy: X ← max(X + η Dᵀ(z − D X) − ηλ, 0), η = λ = 0.1
        X = np.maximum(X + 0.1 * D.T @ (z - D @ X) - 0.1 * 0.1, 0)
        if k in (2, 3, 200):
            panel["steps"].value = k
            fit = np.linalg.norm(z - D @ X) / np.linalg.norm(z)
            err = np.linalg.norm(X - x_true) / np.linalg.norm(x_true)
            assert panel.message.value == ""
            assert f"zeros: {(X == 0).mean():.0%} of X" in panel.view.value
            assert f"‖z − DX‖/‖z‖ = {fit:.3f}; ‖X − x*‖/‖x*‖ = {err:.3f}" in panel.view.value, k
    limit = 2 / np.linalg.norm(D, 2) ** 2
    panel["eta"].value = 3.0  # above 2/‖D‖₂², refused for 200 steps
    assert f"2/‖D‖₂² = {limit:.3g}" in panel.message.value and panel.view.value == ""


def test_standard_block_attention_is_xai_tf_attention_by_hand():
    """The standard block's heads are softmax(q kᵀ/√r) v per head (tokens as rows), as written out
    by hand; CRATE's heads share one projection (``test_crate_heads_share_q_k_v_and_match_sdpa``)."""
    torch.manual_seed(0)
    block = model.Block("standard", 8, 2, 4).double()
    Y = torch.randn(3, 8, 5, dtype=torch.float64)
    q, k, v = (torch.einsum("kdr,bdt->bktr", P, Y) for P in block.proj.detach())
    heads = torch.softmax(q @ k.mT / 2.0, dim=-1) @ v  # [B, K, T, r]
    want = heads.mT.reshape(3, 8, 5)
    assert torch.allclose(block.attention(Y), want, rtol=0, atol=1e-14)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda Y, eps: None, "did you forget"),
        (lambda Y, eps: 2 * rate.coding_rate(Y, eps), "forgot the ½"),
        (
            lambda Y, eps: (
                0.5 * torch.logdet(torch.eye(Y.size(1), dtype=Y.dtype) + Y.size(0) / eps**2 * Y.T @ Y)
            ),
            "T is missing",
        ),
        (
            lambda Y, eps: (
                0.5
                * torch.logdet(
                    torch.eye(Y.size(1), dtype=Y.dtype) + Y.size(1) / (Y.size(0) * eps**2) * Y.T @ Y
                )
            ),
            "swapped",
        ),
    ],
)
def test_coding_rate_checker_says_what_is_wrong(fn, message, capsys):
    assert exercises.check_coding_rate(fn) is False
    assert message in capsys.readouterr().out
    assert exercises.check_coding_rate(lambda Y, eps: torch.tensor(numpy_rate(Y, eps)))  # independent


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (lambda Z, D, eta, lam: torch.relu(Z + eta * D.T @ (Z - D @ Z)), "threshold − ηλ is missing"),
        (lambda Z, D, eta, lam: Z + eta * D.T @ (Z - D @ Z) - eta * lam, "ReLU"),
        (lambda Z, D, eta, lam: torch.relu(Z + eta * D.T @ (D @ Z - Z) - eta * lam), "wrong way"),
        (lambda Z, D, eta, lam: torch.relu(Z + eta * D @ (Z - D @ Z) - eta * lam), "not D"),
    ],
)
def test_ista_checker_says_what_is_wrong(fn, message, capsys):
    assert exercises.check_ista_step(fn) is False
    assert message in capsys.readouterr().out
    assert exercises.check_ista_step(numpy_ista_step)  # an independent ISTA step


def numpy_ista_step(Z, D, eta, lam):
    Zn, Dn = Z.numpy(), D.numpy()
    return torch.from_numpy(np.maximum(Zn + eta * Dn.T @ (Zn - Dn @ Zn) - eta * lam, 0))


def test_layer_measures_against_numpy_at_the_input_and_zeros_by_counting():
    _, Y, _, comps = study.test_set(6)
    torch.manual_seed(0)
    m = model.Classifier("crate", 24, 4, 4, 2, 4)
    rows = study.layer_measures(m, Y, comps)
    tokens_np = Y.double().permute(1, 0, 2).reshape(24, -1).numpy()  # [d, B·T], sequence by sequence
    tokens_np = tokens_np / np.linalg.norm(tokens_np, axis=0)
    flat = comps.reshape(-1).numpy()
    want = sum(
        (flat == k).mean() * numpy_rate(torch.from_numpy(tokens_np[:, flat == k]), 0.5) for k in range(4)
    )
    assert rows[0]["Rc_true"] == pytest.approx(want, rel=1e-9)
    assert rows[0]["R"] == pytest.approx(numpy_rate(torch.from_numpy(tokens_np), 0.5), rel=1e-9)
    out = m.trace(Y)[-1]["out"].detach().numpy()
    assert rows[-1]["zeros"] == pytest.approx((out == 0).mean())


@pytest.mark.numerics
def test_energy_rule_and_dictionary_gaps_by_brute_force():
    U, Y, classes, _ = study.test_set(30)
    right = 0
    for y, c in zip(Y.double(), classes.tolist(), strict=True):
        energies = [sum(float((U[k].T @ y[:, t]).pow(2).sum()) for t in range(y.size(1))) for k in range(4)]
        right += int(np.argmax(energies) == c)
    assert study.energy_rule_accuracy(U, Y, classes) == pytest.approx(right / 30)
    torch.manual_seed(0)
    m = model.Classifier("crate", 8, 2, 2, 2, 2)
    assert max(study.dictionary_gaps(m)) < 1e-5  # D starts orthogonal
    with torch.no_grad():
        m.blocks[0].D.mul_(2.0)  # DᵀD = 4I: ‖DᵀD − I‖₂ = 3
    assert study.dictionary_gaps(m)[0] == pytest.approx(3.0, rel=1e-5)


@pytest.mark.parametrize(("name", "call", "want"), VALUES, ids=[v[0] for v in VALUES])
def test_odd_input_with_a_documented_answer(name, call, want):
    """The probe table's inputs that get an answer, not an error (half tokens, float64 into a model)."""
    assert call() == want


def test_ista_with_a_zero_dictionary_shrinks_by_eta_lam_each_step_for_any_eta():
    """Issue 44 §2 ("zero weights"): 2/‖D‖₂² was a ZeroDivisionError for D = 0. With D = 0 each step is
    X⁺ = ReLU(X − ηλ), so s steps from X = Z give ReLU(Z − sηλ) (for Z ≥ 0 after the first), at any η."""
    Z = torch.tensor([[0.9, -0.2, 3.0], [0.05, 1.5, 0.0]], dtype=torch.float64)
    got = ista.ista(Z, torch.zeros(2, 2, dtype=torch.float64), eta=7.0, lam=0.1, steps=3)
    torch.testing.assert_close(got, torch.clamp(Z - 3 * 0.7, min=0), rtol=0, atol=1e-12)  # 3 roundings
