"""Lesson 03's helpers: the regularised argmax π_Ω against the closed-form maps and the `entmax`
package, and the hard-attention gradient estimators against the exact gradient of the expected loss
(computed here independently, by enumerating the draws and by finite differences)."""

import itertools
import math

import numpy as np
import pytest
import torch
from entmax import entmax_bisect
from scipy.special import logsumexp
from scipy.stats import entropy as scipy_entropy

from xai_tf import attention as att
from xai_tf.attention import hard, regularized

# ------------------------------------------------------------------ π_Ω(θ) = argmax_{p∈Δ} pᵀθ − Ω(p)


def _thetas(n=6, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(T, generator=g, dtype=torch.float64) * 2 for T in (2, 3, 5, 8, 8, 11)[:n]]


@pytest.mark.parametrize(
    ("omega", "closed_form"),
    [
        ("argmax", lambda t: torch.nn.functional.one_hot(t.argmax(), t.numel()).double()),
        ("softmax", lambda t: torch.softmax(t, -1)),
        ("sparsemax", att.sparsemax),
        ("entmax", lambda t: att.entmax(t, 1.5)),
        ("fusedmax", lambda t: att.fusedmax(t, 0.3)),
    ],
)
def test_the_generic_solver_finds_the_closed_form_maps(omega, closed_form):
    for theta in _thetas():
        got = regularized.regularized_argmax(theta, omega, alpha=1.5, lam=0.3)
        torch.testing.assert_close(got, closed_form(theta), atol=1e-6, rtol=0)


@pytest.mark.parametrize("alpha", [1.2, 1.5, 2.0, 3.0])
def test_tsallis_regulariser_gives_the_entmax_package(alpha):
    for theta in _thetas(4, seed=1):
        want = entmax_bisect(theta, alpha=alpha, n_iter=200)
        torch.testing.assert_close(
            regularized.regularized_argmax(theta, "entmax", alpha=alpha), want, atol=1e-6, rtol=0
        )


@pytest.mark.parametrize(
    ("omega", "closed_form"),
    [
        ("softmax", lambda t: torch.softmax(t, -1)),
        ("sparsemax", att.sparsemax),
        ("entmax", lambda t: att.entmax(t, 1.5)),
        ("fusedmax", lambda t: att.fusedmax(t, 0.3)),
    ],
)
def test_the_closed_form_beats_every_random_point_of_the_simplex(omega, closed_form):
    """Without the solver: pᵀθ − Ω(p) at the closed-form p is ≥ its value at 20,000 Dirichlet points."""
    rng = np.random.default_rng(0)
    for theta in _thetas(4, seed=2):
        p_star = closed_form(theta)
        P = torch.from_numpy(rng.dirichlet(np.full(theta.numel(), 0.5), size=20_000))
        P = torch.cat([P, torch.eye(theta.numel(), dtype=torch.float64)])
        values = P @ theta - regularized.omega_value(P, omega, alpha=1.5, lam=0.3)
        best = p_star @ theta - regularized.omega_value(p_star, omega, alpha=1.5, lam=0.3)
        assert (values <= best + 1e-12).all()


def test_omega_values_match_their_definitions():
    p = torch.tensor([0.5, 0.3, 0.2, 0.0], dtype=torch.float64)
    assert regularized.omega_value(p, "argmax") == 0
    assert math.isclose(regularized.omega_value(p, "softmax"), -scipy_entropy(p.numpy()), rel_tol=1e-12)
    assert math.isclose(regularized.omega_value(p, "sparsemax"), 0.19, rel_tol=1e-12)  # ½(.25 + .09 + .04)
    assert math.isclose(regularized.omega_value(p, "entmax", alpha=2.0), 0.19 - 0.5, rel_tol=1e-12)
    near_one = regularized.omega_value(p, "entmax", alpha=1 + 1e-6)  # Tsallis → Shannon as α → 1
    assert math.isclose(near_one, -scipy_entropy(p.numpy()), rel_tol=1e-5)
    # ½‖p‖² + λ(|.3 − .5| + |.2 − .3| + |0 − .2|) with λ = 0.1
    assert math.isclose(regularized.omega_value(p, "fusedmax", lam=0.1), 0.19 + 0.05, rel_tol=1e-12)


def test_the_variational_form_of_max_and_its_smoothings():
    for theta in _thetas():
        t = theta.numpy()
        assert math.isclose(regularized.regularized_max(theta, "argmax"), t.max(), abs_tol=1e-9)
        assert math.isclose(regularized.regularized_max(theta, "softmax"), logsumexp(t), abs_tol=1e-9)
        p = att.sparsemax(theta).numpy()
        assert math.isclose(
            regularized.regularized_max(theta, "sparsemax"), p @ t - 0.5 * p @ p, abs_tol=1e-9
        )


def test_the_gradient_of_the_smoothed_max_is_the_map():
    """Danskin: ∇ max_Ω(θ) = π_Ω(θ), by central differences of the solver's value."""
    theta, h = _thetas(3, seed=3)[2], 1e-5
    for omega, closed_form in [("softmax", lambda t: torch.softmax(t, -1)), ("sparsemax", att.sparsemax)]:
        e = torch.eye(theta.numel(), dtype=torch.float64)
        fd = [
            (
                regularized.regularized_max(theta + h * e[j], omega)
                - regularized.regularized_max(theta - h * e[j], omega)
            )
            / (2 * h)
            for j in range(theta.numel())
        ]
        torch.testing.assert_close(
            torch.tensor(fd, dtype=torch.float64), closed_form(theta), atol=1e-5, rtol=0
        )


def test_the_lectures_jacobian_example():
    """p* = [.99, .01, 0] and [.5, .5, 0] (θ = p* with a low third score) give one sparsemax Jacobian."""
    want = torch.tensor([[0.5, -0.5, 0], [-0.5, 0.5, 0], [0, 0, 0]], dtype=torch.float64)
    for p_star in ([0.99, 0.01, 0.0], [0.5, 0.5, 0.0]):
        theta = torch.tensor(p_star[:2] + [-1.0], dtype=torch.float64)
        torch.testing.assert_close(att.sparsemax(theta), torch.tensor(p_star, dtype=torch.float64))
        torch.testing.assert_close(torch.autograd.functional.jacobian(att.sparsemax, theta), want)


# ------------------------------------------------------------------ hard attention and estimators

THETA = torch.tensor([1.0, 0.5, 0.0, -0.5, 0.2], dtype=torch.float64)
VALUES = torch.tensor([1.0, -1.0, 2.0, 0.5, -0.5], dtype=torch.float64)
K, TARGET = 2, 1.5


def _loss(m):
    return ((m * VALUES).sum(-1) / K - TARGET) ** 2


def _expected_loss_reference(theta):
    """Σ over ordered draws of Π_i exp θ_{s_i} / Σ_{j left} exp θ_j × L, in plain Python."""
    w, total = [math.exp(t) for t in theta], 0.0
    for draw in itertools.permutations(range(len(theta)), K):
        prob, left = 1.0, set(range(len(theta)))
        for s in draw:
            prob *= w[s] / sum(w[j] for j in left)
            left.remove(s)
        y_hat = sum(VALUES[s].item() for s in draw) / K
        total += prob * (y_hat - TARGET) ** 2
    return total


def _exact_gradient_reference(h=1e-6):
    theta = THETA.tolist()
    grad = []
    for j in range(len(theta)):
        up, down = list(theta), list(theta)
        up[j] += h
        down[j] -= h
        grad.append((_expected_loss_reference(up) - _expected_loss_reference(down)) / (2 * h))
    return torch.tensor(grad, dtype=torch.float64)


def test_expected_loss_and_its_gradient_match_the_enumeration():
    theta = THETA.clone().requires_grad_(True)
    value = hard.expected_loss(theta, K, _loss)
    assert math.isclose(value.item(), _expected_loss_reference(THETA.tolist()), rel_tol=1e-12)
    (grad,) = torch.autograd.grad(value, theta)
    torch.testing.assert_close(grad, _exact_gradient_reference(), atol=1e-7, rtol=0)


def test_perturb_and_map_draws_subsets_with_the_sequential_probabilities():
    g = hard._gumbel((40_000, 5), torch.Generator().manual_seed(0))
    masks = hard.hard_topk(THETA + g, K)
    assert (masks.sum(-1) == K).all()
    w = THETA.exp()
    for subset in itertools.combinations(range(5), K):
        a, b = subset
        want = (w[a] / w.sum() * w[b] / (w.sum() - w[a]) + w[b] / w.sum() * w[a] / (w.sum() - w[b])).item()
        freq = (masks[:, list(subset)].sum(-1) == K).double().mean().item()
        assert abs(freq - want) < 4 * math.sqrt(want * (1 - want) / len(masks))


def test_hard_and_relaxed_topk():
    theta = torch.tensor([[0.3, 2.0, -1.0, 1.0], [5.0, 4.0, 3.0, 2.0]], dtype=torch.float64)
    want = np.zeros((2, 4))
    for row, t in enumerate(theta.numpy()):
        want[row, np.argsort(-t)[:2]] = 1
    torch.testing.assert_close(hard.hard_topk(theta, 2), torch.from_numpy(want))
    soft = hard.relaxed_topk(theta, 2, 1.0)
    torch.testing.assert_close(soft.sum(-1), torch.full((2,), 2.0, dtype=torch.float64))
    torch.testing.assert_close(hard.relaxed_topk(theta, 2, 1e-3), torch.from_numpy(want), atol=1e-6, rtol=0)
    torch.testing.assert_close(hard.relaxed_topk(theta, 1, 0.5), torch.softmax(theta / 0.5, -1))


@pytest.mark.parametrize(
    ("estimator", "kwargs"),
    [("reinforce", {}), ("reinforce", {"baseline": 1.7}), ("perturb_and_map", {})],
)
def test_unbiased_estimators_average_to_the_exact_gradient(estimator, kwargs):
    n = 40_000
    G = hard.gradient_estimates(THETA, K, _loss, estimator, n, torch.Generator().manual_seed(1), **kwargs)
    z = (G.mean(0) - _exact_gradient_reference()) / (G.std(0) / math.sqrt(n))
    assert z.abs().max() < 4, z


@pytest.mark.parametrize(
    ("estimator", "kwargs"),
    [("straight_through", {}), ("gumbel_softmax", {"tau": 1.0}), ("gumbel_softmax", {"tau": 0.5})],
)
def test_biased_estimators_do_not(estimator, kwargs):
    n = 40_000
    G = hard.gradient_estimates(THETA, K, _loss, estimator, n, torch.Generator().manual_seed(1), **kwargs)
    z = (G.mean(0) - _exact_gradient_reference()) / (G.std(0) / math.sqrt(n))
    assert z.abs().max() > 10, z


def test_a_baseline_lowers_reinforces_variance():
    b = _expected_loss_reference(THETA.tolist())
    variance = [
        hard.gradient_estimates(
            THETA, K, _loss, "reinforce", 20_000, torch.Generator().manual_seed(2), baseline=c
        )
        .var(0)
        .sum()
        for c in (0.0, b)
    ]
    assert variance[0] > 2 * variance[1], variance


# ------------------------------------------------------------ bad inputs (rows for tests/test_bad_inputs.py)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: regularized.regularized_argmax(THETA, "sigmoid"), ValueError, "omega must be one of"),
        (
            lambda: regularized.regularized_argmax([1.0, 2.0], "softmax"),
            TypeError,
            "theta must be a torch.Tensor",
        ),
        (
            lambda: regularized.regularized_argmax(torch.zeros(2, 3), "softmax"),
            ValueError,
            "theta must be a 1-D",
        ),
        (
            lambda: regularized.regularized_max(torch.tensor([1.0, math.inf]), "argmax"),
            ValueError,
            "theta must be finite",
        ),
        (
            lambda: regularized.regularized_max(THETA, "entmax", alpha=1.0),
            ValueError,
            r"alpha must be a finite number in \(1, 10\]",
        ),
        (
            lambda: regularized.omega_value(torch.tensor([0.5, -0.5]), "sparsemax"),
            ValueError,
            "p must hold probabilities",
        ),
        (
            lambda: regularized.omega_value(torch.tensor([0.5, 0.5]), "fusedmax", lam=-1),
            ValueError,
            "lam must be a finite number ≥ 0",
        ),
        (lambda: hard.hard_topk(THETA, 6), ValueError, "k must be an integer in 1..5, got 6"),
        (lambda: hard.hard_topk(torch.tensor([1.0, math.nan]), 1), ValueError, "theta must be finite"),
        (lambda: hard.relaxed_topk(THETA, 2, 0.0), ValueError, "tau must be a finite number > 0, got 0.0"),
        (lambda: hard.expected_loss(THETA, 2, "mse"), TypeError, "loss must be a function of the mask"),
        (
            lambda: hard.expected_loss(torch.zeros(12, dtype=torch.float64), 6, _loss),
            ValueError,
            "k must keep",
        ),
        (
            lambda: hard.gradient_estimates(THETA, 2, _loss, "reinforce", 0),
            ValueError,
            "n must be an integer in 1..10000000, got 0",
        ),
        (
            lambda: hard.gradient_estimates(THETA, 2, _loss, "score", 10),
            ValueError,
            "estimator must be one of",
        ),
        (
            lambda: hard.gradient_estimates(THETA, 2, _loss, "reinforce", 10, baseline=math.nan),
            ValueError,
            "baseline must be a finite number",
        ),
    ],
)
def test_bad_inputs_name_the_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_estimate_summary_against_numpy():
    G = torch.randn(50, 4, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    exact = torch.tensor([0.1, -0.2, 0.0, 0.3], dtype=torch.float64)
    g, e = G.numpy(), exact.numpy()
    mean, var = g.mean(0), g.var(0, ddof=1)
    got = hard.estimate_summary(G, exact)
    assert got["bias"] == pytest.approx(np.linalg.norm(mean - e), rel=1e-12)
    assert got["noise of the mean"] == pytest.approx(np.sqrt(var.sum() / 50), rel=1e-12)
    assert got["max |z|"] == pytest.approx(np.max(np.abs(mean - e) / np.sqrt(var / 50)), rel=1e-12)
    assert got["variance"] == pytest.approx(var.sum(), rel=1e-12)


def _threshold_by_bisection(z: np.ndarray) -> float:
    """η with Σ_j max(z_j − η, 0) = 1, by bisection: the sum falls from ≥ 1 at max z − 1 to 0 at max z."""
    lo, hi = z.max() - 1.0, z.max()
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.maximum(z - mid, 0).sum() > 1 else (lo, mid)
    return (lo + hi) / 2


def test_sparsemax_threshold_solves_the_simplex_constraint():
    g = torch.Generator().manual_seed(3)
    z = torch.randn(20, 9, generator=g, dtype=torch.float64) * 3
    want = torch.tensor([[_threshold_by_bisection(row)] for row in z.numpy()], dtype=torch.float64)
    torch.testing.assert_close(att.sparsemax_threshold(z), want, atol=1e-12, rtol=0)
    torch.testing.assert_close((z - att.sparsemax_threshold(z)).clamp(min=0), att.sparsemax(z))
    masked = torch.tensor([[-2.0, 0.0, 0.5, -math.inf], [-math.inf] * 4])
    assert att.sparsemax_threshold(masked).flatten().tolist() == [-0.25, math.inf]  # exact in binary


def _central_differences(fn, theta: torch.Tensor, h: float = 1e-6) -> torch.Tensor:
    """J[i, j] = (fn(θ + h e_j)_i − fn(θ − h e_j)_i) / 2h, column by column."""
    eye = torch.eye(len(theta), dtype=theta.dtype)
    return torch.stack([(fn(theta + h * e) - fn(theta - h * e)) / (2 * h) for e in eye], dim=1)


def test_the_jacobians_match_central_differences():
    g = torch.Generator().manual_seed(4)
    for theta in torch.randn(5, 7, generator=g, dtype=torch.float64) * 2:
        torch.testing.assert_close(
            att.softmax_jacobian(torch.softmax(theta, -1)),
            _central_differences(lambda t: torch.softmax(t, -1), theta),
            atol=1e-8,
            rtol=0,
        )
        torch.testing.assert_close(
            att.sparsemax_jacobian(att.sparsemax(theta)),
            _central_differences(att.sparsemax, theta),
            atol=1e-8,
            rtol=0,
        )
    p = att.sparsemax(torch.randn(3, 6, generator=g, dtype=torch.float64))  # a batch: one J per row
    assert att.sparsemax_jacobian(p).shape == (3, 6, 6)
    with pytest.raises(ValueError, match="p must hold probabilities"):
        att.softmax_jacobian(torch.tensor([0.5, -0.5]))


@pytest.mark.parametrize("alpha", [1.5, 2.0, 3.0])
def test_tsallis_omega_against_its_special_values(alpha):
    p = torch.softmax(torch.randn(4, 6, generator=torch.Generator().manual_seed(5), dtype=torch.float64), -1)
    lecture = p.pow(alpha).sum(-1) / (alpha * (alpha - 1))  # the lecture's form: the −p_j terms left out
    torch.testing.assert_close(att.tsallis_omega(p, alpha), lecture - 1 / (alpha * (alpha - 1)))
    if alpha == 2.0:
        torch.testing.assert_close(att.tsallis_omega(p, alpha), 0.5 * (p * p).sum(-1) - 0.5)
    near_one = att.tsallis_omega(p, 1 + 1e-7)
    torch.testing.assert_close(near_one, torch.xlogy(p, p).sum(-1), atol=1e-6, rtol=0)
