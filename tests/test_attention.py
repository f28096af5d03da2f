"""xai_tf.attention against the entmax package, closed forms, torch's own attention, and properties."""

import math

import entmax as reference
import mpmath
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import lsq_linear

from xai_tf import attention as att

MAPS = {
    "softmax": (att.softmax, lambda z: torch.softmax(z, -1)),
    "sparsemax": (att.sparsemax, lambda z: reference.sparsemax(z, -1)),
    "entmax15": (lambda z: att.entmax(z, 1.5), lambda z: reference.entmax15(z, -1)),
    "entmax_bisect_1.25": (
        lambda z: att.entmax(z, 1.25),
        lambda z: reference.entmax_bisect(z, 1.25, -1, n_iter=100),
    ),
    "entmax_bisect_1.75": (
        lambda z: att.entmax(z, 1.75),
        lambda z: reference.entmax_bisect(z, 1.75, -1, n_iter=100),
    ),
}


def _hard_inputs(scale: float) -> torch.Tensor:
    z = torch.randn(32, 13, generator=torch.Generator().manual_seed(int(scale * 7) + 1)) * scale
    z[0, :5] = 0.0  # ties
    z[1, 2] = z[1, 7] = z[1].max() + 1  # tied maximum
    z[2, ::2] = float("-inf")  # masked entries
    return z


@pytest.mark.parametrize("name", [n for n in MAPS if n != "softmax"])
@pytest.mark.parametrize("scale", [1e-4, 1.0, 1e4])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_values_and_gradients_match_the_entmax_package(name, scale, dtype):
    """The package runs in float64 as the reference: its float32 bisection gradients are
    themselves up to 1.1e-6 away from its float64 ones (ours in float32: 1.3e-7)."""
    ours_fn, ref_fn = MAPS[name]
    z = _hard_inputs(scale).to(dtype)
    z1, z2 = z.clone().requires_grad_(), z.double().requires_grad_()
    ours, ref = ours_fn(z1), ref_fn(z2)
    assert ours.dtype == dtype
    assert (ours.double() - ref).abs().max() <= 1e-6
    g = torch.randn(ours.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    (g_ours,), (g_ref,) = torch.autograd.grad(ours, z1, g.to(dtype)), torch.autograd.grad(ref, z2, g)
    assert (g_ours.double() - g_ref).abs().max() <= 1e-6


def test_known_values():
    z = torch.tensor([-2.0, 0.0, 0.5])
    torch.testing.assert_close(att.softmax(z), torch.tensor([0.0486, 0.3592, 0.5922]), atol=1e-4, rtol=0)
    torch.testing.assert_close(att.sparsemax(z), torch.tensor([0.0, 0.25, 0.75]))
    torch.testing.assert_close(att.entmax(z, 1.5), torch.tensor([0.0, 0.3260, 0.6740]), atol=1e-4, rtol=0)
    torch.testing.assert_close(
        att.fusedmax(torch.tensor([1.0, 2.1, 1.9]), 0.1), torch.tensor([0.0, 0.5, 0.5])
    )


def test_entmax_family_limits():
    z = torch.randn(6, 9, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    assert torch.equal(att.entmax(z, 2.0), att.sparsemax(z))
    torch.testing.assert_close(att.entmax(z, 1.0), torch.softmax(z, -1))
    torch.testing.assert_close(att.entmax(z, 1.0001), torch.softmax(z, -1), atol=1e-3, rtol=0)
    with pytest.raises(ValueError, match="alpha must be a finite number ≥ 1"):
        att.entmax(z, 0.5)


def _prox_reference(z: np.ndarray, lam: float) -> np.ndarray:
    """prox_TV through its dual, a bounded least-squares problem: y = z − Dᵀu,
    u = argmin_{|u| ≤ λ} ‖Dᵀu − z‖² (D the first-difference matrix), solved by scipy's BVLS."""
    D = np.diff(np.eye(len(z)), axis=0)
    u = lsq_linear(D.T, z, bounds=(-lam, lam), method="bvls", tol=1e-14).x
    return z - D.T @ u


@pytest.mark.numerics
@pytest.mark.parametrize("n", [2, 3, 8, 25])
@pytest.mark.parametrize("lam", [0.01, 0.3, 3.0])
def test_prox_tv_matches_the_dual_solution(n, lam):
    rng = np.random.default_rng(n * 100 + int(lam * 10))
    for _ in range(10):
        z = rng.normal(size=n) * rng.choice([0.1, 1.0, 10.0])
        np.testing.assert_allclose(att.prox_tv1d(z, lam), _prox_reference(z, lam), atol=1e-9)


def test_fusedmax_is_sparsemax_at_lambda_zero_and_fuses_neighbours():
    z = torch.randn(5, 12, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(att.fusedmax(z, 0.0), att.sparsemax(z))
    p = att.fusedmax(torch.tensor([0.0, 3.0, 3.1, 2.9, 0.0, 0.2]), 0.5)
    assert p[1] == p[2] == p[3] and p[1] > 0 and p[0] == 0
    with pytest.raises(ValueError, match="lam must be a finite number ≥ 0"):
        att.fusedmax(z, -1.0)
    for lam in (float("inf"), float("nan")):
        with pytest.raises(ValueError, match="lam must be a finite number ≥ 0"):
            att.fusedmax(z, lam)


@pytest.mark.parametrize(
    "fn",
    [
        att.sparsemax,
        lambda z: att.entmax(z, 1.5),
        lambda z: att.entmax(z, 1.3),
        lambda z: att.fusedmax(z, 0.2),
        att.softmax,
    ],
    ids=["sparsemax", "entmax15", "entmax1.3", "fusedmax", "softmax"],
)
def test_gradcheck(fn):
    z = torch.randn(4, 7, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    assert torch.autograd.gradcheck(fn, (z.requires_grad_(),))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_maps_work_along_any_dim(dim):
    z = torch.randn(3, 4, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    torch.testing.assert_close(att.sparsemax(z, dim), reference.sparsemax(z, dim))
    torch.testing.assert_close(att.entmax(z, 1.5, dim), reference.entmax15(z, dim))
    p = att.fusedmax(z, 0.1, dim)
    slices = z.movedim(dim, -1).reshape(-1, z.size(dim))  # every 1-D slice along dim, one by one
    by_slice = torch.stack([att.fusedmax(row, 0.1) for row in slices])
    torch.testing.assert_close(p.movedim(dim, -1).reshape(-1, z.size(dim)), by_slice)
    torch.testing.assert_close(p.sum(dim), torch.ones(p.sum(dim).shape, dtype=torch.float64))


rows = st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    rows, st.floats(-100, 100), st.sampled_from(["softmax", "sparsemax", "entmax15", "entmax_bisect_1.25"])
)
def test_outputs_lie_on_the_simplex_and_ignore_shifts(row, shift, name):
    fn = MAPS[name][0]
    z = torch.tensor(row, dtype=torch.float64)
    p = fn(z)
    assert (p >= 0).all() and abs(p.sum().item() - 1) < 1e-9
    torch.testing.assert_close(fn(z + shift), p, atol=1e-6, rtol=0)


@pytest.mark.parametrize(
    "fn",
    [
        att.softmax,
        att.sparsemax,
        lambda z: att.entmax(z, 1.5),
        lambda z: att.entmax(z, 1.2),
        lambda z: att.entmax(z, 4.0),
        lambda z: att.fusedmax(z, 0.3),
    ],
)
def test_a_fully_masked_row_gives_zeros(fn):
    z = torch.tensor([[float("-inf")] * 4, [0.0, 1.0, float("-inf"), 2.0]], requires_grad=True)
    p = fn(z)
    assert torch.equal(p[0], torch.zeros(4)) and not p.isnan().any()
    assert p[1, 2] == 0 and abs(p[1].sum().item() - 1) < 1e-6
    (grad,) = torch.autograd.grad(p[:, 3].sum(), z)
    assert not grad.isnan().any()


def test_score_functions_against_explicit_sums():
    g = torch.Generator().manual_seed(0)
    Q, K = torch.randn(3, 4, generator=g), torch.randn(5, 6, generator=g)
    W = torch.randn(6, 4, generator=g)
    W1, W2, v = torch.randn(7, 6, generator=g), torch.randn(7, 4, generator=g), torch.randn(7, generator=g)
    for i in range(3):
        for j in range(5):
            assert att.bilinear_scores(Q, K, W)[i, j] == pytest.approx((K[j] @ W @ Q[i]).item(), rel=1e-5)
            assert att.additive_scores(Q, K, W1, W2, v)[i, j] == pytest.approx(
                (v @ torch.tanh(W1 @ K[j] + W2 @ Q[i])).item(), rel=1e-5
            )
    K4 = torch.randn(5, 4, generator=g)
    torch.testing.assert_close(att.scaled_dot_scores(Q, K4), att.dot_scores(Q, K4) / 2)


def test_attention_matches_torch_sdpa_with_causal_and_padding_masks():
    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 3, 6, 8, generator=g) for _ in range(3))
    out, A = att.attention(Q, K, V, mask=att.causal_mask(6))
    torch.testing.assert_close(out, torch.nn.functional.scaled_dot_product_attention(Q, K, V, is_causal=True))
    assert (A.triu(1) == 0).all()
    pad = att.padding_mask([4, 6], 6)  # [2, 1, 6]
    out, A = att.attention(Q, K, V, mask=pad.unsqueeze(1))
    ref = torch.nn.functional.scaled_dot_product_attention(Q, K, V, attn_mask=pad.unsqueeze(1))
    torch.testing.assert_close(out, ref)
    assert (A[0, ..., 4:] == 0).all()


def test_masked_softmax_matches_an_additive_float_mask():
    """Reference: torch's softmax of z + M with M a float 0/−∞ mask (the lecture's formula, added)."""
    z = torch.randn(2, 5, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    mask = att.causal_mask(5) & att.padding_mask([5, 3], 5)
    M = torch.zeros(2, 5, 5, dtype=torch.float64).masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(att.masked_softmax(z, mask), torch.softmax(z + M, -1))
    none = att.masked_softmax(z[0], torch.zeros(5, 5, dtype=torch.bool))
    assert torch.equal(none, torch.zeros(5, 5, dtype=torch.float64))  # nothing visible: zeros, not NaN
    with pytest.raises(TypeError, match="mask must be a bool tensor"):
        att.masked_softmax(z, mask.float())


def test_multi_head_attention_matches_torch():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(12, 3, bias=False, batch_first=True)
    X, Y = torch.randn(2, 5, 12), torch.randn(2, 7, 12)
    W_q, W_k, W_v = mha.in_proj_weight.chunk(3)  # [d_att, d_e] each, as the lecture writes them
    ref, ref_A = mha(X, Y, Y, average_attn_weights=False)
    out, A = att.multi_head_attention(X, W_q, W_k, W_v, mha.out_proj.weight, 3, Y=Y)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(A, ref_A)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    ref, _ = mha(X, X, X, attn_mask=causal)
    out, _ = att.multi_head_attention(X, W_q, W_k, W_v, mha.out_proj.weight, 3, mask=att.causal_mask(5))
    torch.testing.assert_close(out, ref)


def test_single_query_self_and_cross_attention():
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(4, 6, generator=g), torch.randn(9, 6, generator=g)
    W_q, W_k, W_v = (torch.randn(8, 6, generator=g) for _ in range(3))  # [d_att, d_e]: Q = E W_qᵀ
    out, A = att.self_attention(X, W_q, W_k, W_v)
    out1, p1 = att.single_query_attention(W_q @ X[2], X @ W_k.T, X @ W_v.T)  # q_t = W_q e_t
    torch.testing.assert_close(out[2], out1)
    torch.testing.assert_close(A[2], p1)
    torch.testing.assert_close(p1, torch.softmax((X @ W_k.T) @ (W_q @ X[2]) / math.sqrt(8), 0))
    out, A = att.cross_attention(X, Y, W_q, W_k, W_v)
    assert out.shape == (4, 8) and A.shape == (4, 9)
    with pytest.raises(ValueError, match="queries have size 8 but keys 6"):
        att.attention(X @ W_q.T, Y, Y)
    with pytest.raises(ValueError, match="9 keys but 4 values"):
        att.attention(X @ W_q.T, Y @ W_k.T, X @ W_v.T)
    with pytest.raises(ValueError, match=r"X has size 6 but W_q \[d_att, d_e\] expects d_e = 8"):
        att.self_attention(X, W_q.T, W_k, W_v)
    with pytest.raises(ValueError, match="lengths must lie in 0..6"):
        att.padding_mask([7], 6)


def test_hard_attention():
    z = torch.tensor([[0.1, 2.0, 2.0, -1.0], [5.0, 0.0, 0.0, 0.0]])
    assert att.hard_attention(z).tolist() == [[0, 1, 0, 0], [1, 0, 0, 0]]  # first maximum on ties
    draws = torch.stack(
        [att.hard_attention(z[0], "sample", torch.Generator().manual_seed(s)) for s in range(4000)]
    )
    assert (draws.sum(-1) == 1).all()
    expected = torch.softmax(z[0], -1)
    assert (draws.mean(0) - expected).abs().max() < 0.03
    with pytest.raises(ValueError, match="mode must be"):
        att.hard_attention(z, "soft")


def test_entropy_support_and_sensitivity():
    T = 8
    uniform = torch.full((T,), 1 / T)
    assert att.entropy(uniform).item() == pytest.approx(math.log(T))
    assert att.entropy(torch.eye(T)[2]).item() == 0
    assert att.support_size(torch.tensor([0.0, 0.3, 0.7, 0.0])).item() == 2
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(5, 4, generator=g), [torch.randn(4, 4, generator=g) for _ in range(3)]
    causal = att.sensitivity_to_token(
        lambda X_: att.self_attention(X_, *W, mask=att.causal_mask(5))[0], X, 2, torch.randn(4, generator=g)
    )
    assert (causal[:2] == 0).all() and (causal[2:] > 0).all()


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(1, 6),
    st.integers(0, 2**16),
    st.sampled_from(["softmax", "sparsemax", "entmax15", "entmax_bisect_1.25"]),
)
def test_causal_rows_have_zeros_above_the_diagonal(T, d, seed, name):
    g = torch.Generator().manual_seed(seed)
    Q, K, V = (torch.randn(T, d, generator=g) * 3 for _ in range(3))
    out, A = att.attention(Q, K, V, mask=att.causal_mask(T), normalizer=MAPS[name][0])
    assert (A.triu(1) == 0).all()
    torch.testing.assert_close(A.sum(-1), torch.ones(T))
    torch.testing.assert_close(out[0], V[0])  # the first position can only read itself


# ---------------------------------------------------------------- α-entmax against 60-digit arithmetic


def _entmax_mpmath(z: list[float], alpha: float, digits: int = 60) -> list[float]:
    """α-entmax at 60 (``digits``) digits, independent of the bisection. With x = (α−1) z sorted
    decreasingly, the mass m(τ) = Σ_j [x_j − τ]_+^{1/(α−1)} decreases in τ, so the support is the top k
    for the first k with m(x_(k+1)) ≥ 1; then τ = x_(k) − q^{α−1}, q = p_(k) ∈ [0, 1] the root of the
    smooth, increasing Σ_{j≤k} (x_j − x_(k) + q^{α−1})^{1/(α−1)} − 1, by mpmath's Illinois solver."""
    with mpmath.workdps(digits):
        a1 = mpmath.mpf(alpha) - 1
        x = [a1 * mpmath.mpf(v) for v in z]
        xs = sorted((v for v in x if v != -mpmath.inf), reverse=True)

        def mass(gaps: list, u) -> mpmath.mpf:  # Σ_j [gap_j + u]_+^{1/(α−1)}
            return mpmath.fsum((g + u) ** (1 / a1) for g in gaps if g + u > 0)

        k = 1
        while k < len(xs) and mass([v - xs[k] for v in xs[:k]], 0) < 1:
            k += 1
        gaps = [v - xs[k - 1] for v in xs[:k]]  # exact at this precision for these scores
        q = mpmath.findroot(lambda q: mass(gaps, q**a1) - 1, (0, 1), solver="illinois", verify=False)
        assert abs(mass(gaps, q**a1) - 1) < mpmath.mpf(10) ** -30
        return [float((v - xs[k - 1] + q**a1) ** (1 / a1)) if v - xs[k - 1] + q**a1 > 0 else 0.0 for v in x]


def _mpmath_rows(z: torch.Tensor, alpha: float, digits: int = 60) -> torch.Tensor:
    rows = [_entmax_mpmath(row, alpha, digits) for row in z.double().tolist()]
    return torch.tensor(rows, dtype=torch.float64)


ALPHAS = [1.25, 1.5, 2.0, 3.0, 5.0, 10.0]


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize(("scale", "offset"), [(1.0, 0.0), (1e-6, 0.0), (1.0, 1e3), (1e-2, 0.0)])
def test_entmax_matches_a_60_digit_reference(alpha, scale, offset):
    """float64: within 1e-14 of the exact map of the same scores (before: 6e-2 at α = 10, 3e-4 at α = 5
    for 1e-6 scores, 3e-10 at α = 3). float32: the bisection runs in float64 and is rounded once, within
    2⁻²⁵ (half an ulp below 1); α = 1.5 and 2 run in float32, within 4 ulps (2⁻²²). The entmax
    package agrees where it is itself accurate (α ≤ 3, no offset)."""
    g = torch.Generator().manual_seed(int(alpha * 10))
    z = torch.randn(3, 40, generator=g, dtype=torch.float64) * scale + offset
    z[0, ::3] = float("-inf")
    exact = _mpmath_rows(z, alpha)
    assert (att.entmax(z, alpha) - exact).abs().max() <= 1e-14
    z32 = z.float()
    bound = 2**-22 if alpha in (1.5, 2.0) else 2**-25 + 1e-15
    assert (att.entmax(z32, alpha).double() - _mpmath_rows(z32, alpha)).abs().max() <= bound
    if alpha <= 3 and offset == 0:
        assert (reference.entmax_bisect(z, alpha, n_iter=200) - exact).abs().max() <= 1e-14


def test_entmax_with_large_alpha_and_tiny_scores():
    """The reported case (1e-6 · randn(200, 5000), here 20 rows), 7e-2 off at α = 10 before: 32 halvings
    of [max − 1, max − T^{1−α}] left τ within 2.3e-10, but p_j = u_j^{1/9} with u_j = (α−1) z_j − τ of
    1e-7 to 1e-5 here. (The entmax package, bisecting τ itself, is 1.6e-3 off on some rows.)"""
    g = torch.Generator().manual_seed(0)
    z = 1e-6 * torch.randn(20, 5000, generator=g, dtype=torch.float64)
    p = att.entmax(z, 10.0)
    assert (p.sum(-1) - 1).abs().max() <= 1e-15
    assert (p[:4] - _mpmath_rows(z[:4], 10.0)).abs().max() <= 1e-14


def test_sparsemax_of_large_scores_sums_to_one():
    """Sorting and cumulative sums of scores near 1000 lose float32 digits unless the max is removed
    first (sparsemax ignores shifts): before, rows summed to 1 ± 3.7e-4."""
    g = torch.Generator().manual_seed(0)
    z = torch.randn(1000, 50, generator=g) + 1000
    p = att.sparsemax(z)
    assert (p.sum(-1) - 1).abs().max() <= 1e-6
    assert torch.equal(p, att.sparsemax(z - 1000))  # z − 1000 is exact in float32 here
    assert torch.equal(att.fusedmax(z[:100], 0.0), p[:100])


# ---------------------------------------------------------------- one rule for every map

ALL_MAPS = {
    "softmax": att.softmax,
    "sparsemax": att.sparsemax,
    "entmax15": lambda z, dim=-1: att.entmax(z, 1.5, dim),
    "entmax1.3": lambda z, dim=-1: att.entmax(z, 1.3, dim),
    "entmax4": lambda z, dim=-1: att.entmax(z, 4.0, dim),
    "fusedmax": lambda z, dim=-1: att.fusedmax(z, 0.3, dim),
    "hard": att.hard_attention,
    "hard_sample": lambda z, dim=-1: att.hard_attention(z, "sample", torch.Generator().manual_seed(0), dim),
}


@pytest.mark.parametrize("name", ALL_MAPS)
@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
def test_plus_inf_and_nan_scores_are_refused(name, bad):
    for z in (torch.tensor([1.0, bad, 0.0]), torch.tensor([[1.0, 0.0], [float("-inf"), bad]])):
        with pytest.raises(ValueError, match=r"z has \+inf or NaN scores: use −inf to mask a position"):
            ALL_MAPS[name](z)


@pytest.mark.parametrize("name", ALL_MAPS)
def test_minus_inf_removes_a_position(name):
    """map(z) is 0 where z = −∞ and equals the map of the visible scores alone elsewhere; a row with
    nothing visible is all zeros."""
    fn = ALL_MAPS[name]
    g = torch.Generator().manual_seed(1)
    z = torch.randn(6, 9, generator=g, dtype=torch.float64)
    masked = torch.rand(6, 9, generator=g) < 0.4
    masked[0], masked[1], masked[2, 1:] = True, False, True
    z = z.masked_fill(masked, float("-inf"))
    p = fn(z)
    assert (p[masked] == 0).all() and torch.equal(p[0], torch.zeros(9, dtype=torch.float64))
    for i in range(1, 6):
        assert p[i].sum().item() == pytest.approx(1, abs=1e-12)
        if name != "hard_sample":
            torch.testing.assert_close(p[i][~masked[i]], fn(z[i][~masked[i]]), atol=1e-12, rtol=0)
    if name.startswith("hard"):
        return
    w, z = torch.randn(6, 9, generator=g, dtype=torch.float64), z.requires_grad_()
    (grad,) = torch.autograd.grad((fn(z) * w).sum(), z)
    assert (grad[masked] == 0).all()
    for i in range(1, 6):  # the gradient, too, is that of the map of the visible scores
        visible = z[i][~masked[i]].detach().requires_grad_()
        (expected,) = torch.autograd.grad((fn(visible) * w[i][~masked[i]]).sum(), visible)
        torch.testing.assert_close(grad[i][~masked[i]], expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("name", ALL_MAPS)
def test_integer_and_bool_scores_are_promoted_to_float(name):
    fn = ALL_MAPS[name]
    for z in (torch.tensor([[1, 2, 3], [0, -1, 5]]), torch.tensor([True, False, True])):
        p = fn(z)
        assert p.dtype == torch.get_default_dtype()
        assert torch.equal(p, fn(z.to(torch.get_default_dtype())))
    torch.testing.assert_close(att.entmax(torch.tensor([1, 2, 3]), 2.0), torch.tensor([0.0, 0.0, 1.0]))


def test_hard_attention_of_a_fully_masked_row_is_zero():
    z = torch.tensor([[float("-inf")] * 3, [0.0, 1.0, float("-inf")]])
    for mode in ("argmax", "sample"):
        p = att.hard_attention(z, mode, torch.Generator().manual_seed(0))
        assert p.tolist()[0] == [0, 0, 0] and p[1].sum() == 1 and p[1, 2] == 0


def _mha(n_heads=2, mask=None):
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(4, 6, generator=g), [torch.randn(8, 6, generator=g) for _ in range(3)]
    W_o = torch.randn(6, 8, generator=g)  # [d_o, d_att]
    return att.multi_head_attention(X, *W, W_o, n_heads=n_heads, mask=mask)


_Q = torch.zeros(3, 4)
BAD_CALLS = {
    "empty softmax": (
        lambda: att.softmax(torch.empty(3, 0)),
        ValueError,
        "z must have at least one position",
    ),
    "empty sparsemax": (
        lambda: att.sparsemax(torch.empty(0)),
        ValueError,
        "z must have at least one position",
    ),
    "empty entmax": (lambda: att.entmax(torch.empty(2, 0), 1.3), ValueError, "at least one position"),
    "empty entmax15": (lambda: att.entmax(torch.empty(0, 2), 1.5, 0), ValueError, "at least one position"),
    "empty fusedmax": (lambda: att.fusedmax(torch.empty(3, 0), 0.1), ValueError, "at least one position"),
    "empty hard": (lambda: att.hard_attention(torch.empty(3, 0)), ValueError, "at least one position"),
    "0-d z": (
        lambda: att.sparsemax(torch.tensor(1.0)),
        TypeError,
        "z must hold real scores along at least one",
    ),
    "complex z": (
        lambda: att.softmax(torch.ones(2, dtype=torch.cfloat)),
        TypeError,
        "z must hold real scores",
    ),
    "dim softmax": (lambda: att.softmax(_Q, 2), ValueError, r"dim must be an integer in -2\.\.1.*got 2"),
    "dim sparsemax": (lambda: att.sparsemax(_Q, -3), ValueError, r"dim must be an integer in -2\.\.1"),
    "dim entmax": (lambda: att.entmax(_Q, 1.3, 5), ValueError, r"dim must be an integer in -2\.\.1"),
    "dim fusedmax": (lambda: att.fusedmax(_Q, 0.1, 2), ValueError, r"dim must be an integer in -2\.\.1"),
    "dim hard": (lambda: att.hard_attention(_Q, dim=2), ValueError, r"dim must be an integer in -2\.\.1"),
    "z list": (lambda: att.sparsemax([1.0, 2.0]), TypeError, "z must be a torch.Tensor, got list"),
    "alpha nan": (
        lambda: att.entmax(_Q, float("nan")),
        ValueError,
        "alpha must be a finite number ≥ 1, got nan",
    ),
    "alpha inf": (
        lambda: att.entmax(_Q, float("inf")),
        ValueError,
        "alpha must be a finite number ≥ 1, got inf",
    ),
    "alpha str": (lambda: att.entmax(_Q, "2"), TypeError, "alpha must be a finite number ≥ 1, got .2."),
    "lam inf": (
        lambda: att.fusedmax(_Q, float("inf")),
        ValueError,
        "lam must be a finite number ≥ 0, got inf",
    ),
    "causal -1": (lambda: att.causal_mask(-1), ValueError, "T must be an integer ≥ 0, got -1"),
    "causal 2.5": (lambda: att.causal_mask(2.5), TypeError, "T must be an integer ≥ 0, got 2.5"),
    "n_heads 0": (lambda: _mha(0), ValueError, "n_heads must be an integer ≥ 1, got 0"),
    "n_heads 3": (lambda: _mha(3), ValueError, "n_heads must divide d_att=8, got 3"),
    "n_heads 2.0": (lambda: _mha(2.0), TypeError, "n_heads must be an integer ≥ 1, got 2.0"),
    "mask float": (
        lambda: att.attention(_Q, _Q, _Q, mask=torch.ones(3, 3)),
        TypeError,
        r"mask must be a bool tensor \(True = visible\), got torch.float32",
    ),
    "mask int": (
        lambda: att.self_attention(_Q, *[torch.eye(4)] * 3, mask=torch.ones(3, 3, dtype=torch.long)),
        TypeError,
        r"mask must be a bool tensor \(True = visible\), got torch.int64",
    ),
    "mask mha": (lambda: _mha(2, torch.ones(4, 4).tril()), TypeError, "mask must be a bool tensor"),
    "lengths float": (
        lambda: att.padding_mask([2.5], 4),
        TypeError,
        "lengths must be integers, got torch.float",
    ),
    "lengths tensor": (
        lambda: att.padding_mask(torch.tensor([2.0, 1.0]), 4),
        TypeError,
        "lengths must be integers, got torch.float32",
    ),
    "padding T": (lambda: att.padding_mask([1], -2), ValueError, "T must be an integer ≥ 0, got -2"),
    "lengths 0-d": (
        lambda: att.padding_mask(torch.tensor(2), 4),
        ValueError,
        r"lengths must be 1-D.*got shape \(\)",
    ),
    "lengths bool": (
        lambda: att.padding_mask([True], 4),
        TypeError,
        "lengths must be integers, got torch.bool",
    ),
}


@pytest.mark.parametrize("case", BAD_CALLS)
def test_bad_arguments_get_a_clear_error(case):
    call, error, message = BAD_CALLS[case]
    with pytest.raises(error, match=message):
        call()


def test_empty_batches_and_zero_length_masks_still_work():
    for fn in ALL_MAPS.values():
        assert fn(torch.empty(0, 5)).shape == (0, 5)
    assert att.causal_mask(0).shape == (0, 0) and att.padding_mask([0], 0).shape == (1, 1, 0)


def test_maps_and_layers_create_tensors_on_the_input_device():
    """With the default device set to "meta", any tensor made without ``device=`` would not mix with
    the CPU inputs: every output and gradient must stay on the CPU."""
    g = torch.Generator().manual_seed(0)
    z = torch.randn(3, 7, generator=g, dtype=torch.float64)
    z[0, 2], z[1] = float("-inf"), float("-inf")
    X, W = torch.randn(4, 8, generator=g), [torch.randn(8, 8, generator=g) for _ in range(4)]
    torch.set_default_device("meta")
    try:
        for name, fn in ALL_MAPS.items():
            zz = z.clone().requires_grad_()
            p = fn(zz)
            assert p.device.type == "cpu", name
            if p.requires_grad:
                assert torch.autograd.grad(p[:, 0].sum(), zz)[0].device.type == "cpu", name
        assert att.entmax(torch.tensor([1, 2, 3], device="cpu"), 1.3).device.type == "cpu"
        mask = att.causal_mask(4, device="cpu") & att.padding_mask(torch.tensor([3], device="cpu"), 4)
        out, A = att.multi_head_attention(X, *W, n_heads=2, mask=mask)
        assert out.device.type == A.device.type == "cpu"
    finally:
        torch.set_default_device(None)


def _lecture_weights_by_hand(Q: torch.Tensor, K: torch.Tensor, combine: str) -> list[list[float]]:
    """The lecture's recipe entry by entry in IEEE arithmetic with Python floats: M_{s,t} = −inf if
    s ≤ t else 1, combined with q_s·k_t, divided by √d, then exp / sum (NaN wherever it is NaN)."""
    T, d = Q.shape
    rows = []
    for s in range(T):
        z = []
        for t in range(T):
            m, score = (-math.inf if s <= t else 1.0), float(Q[s].double() @ K[t].double())
            z.append(((m + score) if combine == "add" else (m * score)) / math.sqrt(d))
        top = max(z)
        e = [math.exp(v - top) if not math.isnan(v - top) else math.nan for v in z]
        rows.append([v / sum(e) if not math.isnan(sum(e)) and sum(e) > 0 else math.nan for v in e])
    return rows


@pytest.mark.parametrize("combine", ["add", "multiply"])
def test_the_lectures_causal_mask_gives_what_the_lesson_says(combine):
    g = torch.Generator().manual_seed(3)
    Q, K = (
        torch.randn(6, 4, generator=g, dtype=torch.float64),
        torch.randn(6, 4, generator=g, dtype=torch.float64),
    )
    A = att.lecture_masked_attention(Q, K, combine)
    expected = torch.tensor(_lecture_weights_by_hand(Q, K, combine), dtype=torch.float64)
    assert torch.equal(A.isnan(), expected.isnan())
    assert torch.allclose(A.nan_to_num(), expected.nan_to_num(), atol=1e-12)
    assert A[0].isnan().all()  # the first query sees nothing: 0/0
    if combine == "add":  # every other row: softmax over the strict past — the diagonal is hidden
        strict_past = torch.ones(6, 6, dtype=torch.bool).tril(-1)
        _, fixed = att.attention(Q, K, K, mask=strict_past)
        assert torch.allclose(A[1:], fixed[1:], atol=1e-12) and (A.diagonal()[1:] == 0).all()
    else:  # a NaN row wherever a hidden key (t ≥ s) has a negative score: −inf × negative = +inf
        negative_hidden = ((Q @ K.T) < 0) & torch.ones(6, 6, dtype=torch.bool).triu()
        assert torch.equal(A.isnan().any(-1)[1:], negative_hidden.any(-1)[1:])


def test_the_lectures_mask_is_the_wrong_way_round():
    M = att.lecture_causal_mask(4)
    assert torch.equal(M.isinf(), ~att.causal_mask(4).tril(-1))  # hides the present and the future
    assert set(M[~M.isinf()].tolist()) == {1.0}


def test_attention_at_init_against_scipy():
    from scipy.special import softmax as scipy_softmax
    from scipy.stats import entropy as scipy_entropy

    g = torch.Generator().manual_seed(4)
    X, W_q, W_k = (
        torch.randn(16, 96, generator=g),
        torch.randn(8, 96, generator=g),
        torch.randn(8, 96, generator=g),
    )
    stats = att.attention_at_init(X, W_q * 0.1, W_k * 0.1)
    Q, K = (X @ W_q.T * 0.1).double().numpy(), (X @ W_k.T * 0.1).double().numpy()
    A = scipy_softmax(Q @ K.T / math.sqrt(8), axis=-1)
    cos = (Q @ K.T) / np.outer(np.linalg.norm(Q, axis=1), np.linalg.norm(K, axis=1))
    assert stats["max |A − 1/T|"] == pytest.approx(np.abs(A - 1 / 16).max(), rel=1e-4)
    assert stats["entropy / log T"] == pytest.approx(
        scipy_entropy(A, axis=-1).mean() / math.log(16), rel=1e-5
    )
    assert stats["mean |cos(q, k)|"] == pytest.approx(np.abs(cos).mean(), rel=1e-5)


def test_orthogonality_is_scale_free_uniformity_is_not():
    g = torch.Generator().manual_seed(5)
    X, W_q, W_k = (
        torch.randn(32, 768, generator=g),
        torch.randn(64, 768, generator=g),
        torch.randn(64, 768, generator=g),
    )
    small, large = (att.attention_at_init(X, W_q * c, W_k * c) for c in (0.002, 768**-0.5))
    assert small["mean |cos(q, k)|"] == pytest.approx(large["mean |cos(q, k)|"], rel=1e-4)
    assert small["max |A − 1/T|"] < 0.01 < 0.2 < large["max |A − 1/T|"]
    assert small["entropy / log T"] > 0.9999 > 0.95 > large["entropy / log T"]


def test_self_attention_with_biases_and_d_out_matches_torch():
    g = torch.Generator().manual_seed(6)
    X = torch.randn(5, 8, generator=g, dtype=torch.float64)
    W_q, W_k, W_v = (torch.randn(w, 8, generator=g, dtype=torch.float64) for w in (4, 4, 3))  # d_out = 3
    b_q, b_k, b_v = (torch.randn(w, generator=g, dtype=torch.float64) for w in (4, 4, 3))
    out, A = att.self_attention(X, W_q, W_k, W_v, biases=(b_q, b_k, b_v))
    Q, K, V = (torch.nn.functional.linear(X, W, b) for W, b in ((W_q, b_q), (W_k, b_k), (W_v, b_v)))
    torch.testing.assert_close(out, torch.nn.functional.scaled_dot_product_attention(Q, K, V))
    assert out.shape == (5, 3) and A.shape == (5, 5)
    with pytest.raises(ValueError, match=r"the bias of W_k must have shape \(4,\), got \(3,\)"):
        att.self_attention(X, W_q, W_k, W_v, biases=(b_q, b_v, b_v))


@pytest.mark.parametrize("alpha", [1.3, 3.0])
def test_entmax_newton_threshold_on_long_rows_with_ties(alpha):
    """The Newton threshold (issue 45) on what bisection never met in these tests: rows of 1024 scores
    with ties at the support's edge and a float32 first step. Within 1e-14 (float64) and 2⁻²⁵ + 1e-15
    (float32, rounded once) of the 60-digit reference."""
    g = torch.Generator().manual_seed(7)
    z = torch.randn(2, 1024, generator=g, dtype=torch.float64)
    z[1] = (z[1] * 4).round() / 4  # many ties
    assert (att.entmax(z, alpha) - _mpmath_rows(z, alpha, 30)).abs().max() <= 1e-14
    z32 = z.float()
    assert (att.entmax(z32, alpha).double() - _mpmath_rows(z32, alpha, 30)).abs().max() <= 2**-25 + 1e-15
