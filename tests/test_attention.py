"""xai_tf.attention against the entmax package, closed forms, torch's own attention, and properties."""

import math

import entmax as reference
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
    with pytest.raises(ValueError, match="alpha must be ≥ 1"):
        att.entmax(z, 0.5)


def _prox_reference(z: np.ndarray, lam: float) -> np.ndarray:
    """prox_TV through its dual, a bounded least-squares problem: y = z − Dᵀu,
    u = argmin_{|u| ≤ λ} ‖Dᵀu − z‖² (D the first-difference matrix), solved by scipy's BVLS."""
    D = np.diff(np.eye(len(z)), axis=0)
    u = lsq_linear(D.T, z, bounds=(-lam, lam), method="bvls", tol=1e-14).x
    return z - D.T @ u


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
    with pytest.raises(ValueError, match="lam must be ≥ 0"):
        att.fusedmax(z, -1.0)
    with pytest.raises(ValueError, match="finite"):
        att.fusedmax(torch.tensor([0.0, float("-inf")]), 0.1)


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
    "fn", [att.softmax, att.sparsemax, lambda z: att.entmax(z, 1.5), lambda z: att.entmax(z, 1.2)]
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


def test_multi_head_attention_matches_torch():
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(12, 3, bias=False, batch_first=True)
    X, Y = torch.randn(2, 5, 12), torch.randn(2, 7, 12)
    W_q, W_k, W_v = (w.T for w in mha.in_proj_weight.chunk(3))
    ref, ref_A = mha(X, Y, Y, average_attn_weights=False)
    out, A = att.multi_head_attention(X, W_q, W_k, W_v, mha.out_proj.weight.T, 3, Y=Y)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(A, ref_A)
    causal = torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)
    ref, _ = mha(X, X, X, attn_mask=causal)
    out, _ = att.multi_head_attention(X, W_q, W_k, W_v, mha.out_proj.weight.T, 3, mask=att.causal_mask(5))
    torch.testing.assert_close(out, ref)


def test_single_query_self_and_cross_attention():
    g = torch.Generator().manual_seed(0)
    X, Y = torch.randn(4, 6, generator=g), torch.randn(9, 6, generator=g)
    W_q, W_k, W_v = (torch.randn(6, 8, generator=g) for _ in range(3))
    out, A = att.self_attention(X, W_q, W_k, W_v)
    out1, p1 = att.single_query_attention(X[2] @ W_q, X @ W_k, X @ W_v)
    torch.testing.assert_close(out[2], out1)
    torch.testing.assert_close(A[2], p1)
    torch.testing.assert_close(p1, torch.softmax((X @ W_k) @ (X[2] @ W_q) / math.sqrt(8), 0))
    out, A = att.cross_attention(X, Y, W_q, W_k, W_v)
    assert out.shape == (4, 8) and A.shape == (4, 9)
    with pytest.raises(ValueError, match="queries have size 8 but keys 6"):
        att.attention(X @ W_q, Y, Y)
    with pytest.raises(ValueError, match="9 keys but 4 values"):
        att.attention(X @ W_q, Y @ W_k, X @ W_v)
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
