"""Checkers for lessons 01 and 03: scaled dot-product scores, softmax, one head's attention, row entropy,
multi-head attention (01); sparsemax and its Jacobian, hard top-k, sigmoid attention (03). Lesson 02's are in
``masking``."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf.attention.sigmoid import sigmoid_attention
from xai_tf.exercises._check import (
    Mismatch,
    checker,
    close,
    expect_close,
    expect_pair,
    expect_rows_sum_to_one,
)


def _randn(g: torch.Generator, *shape: int) -> Tensor:
    return torch.randn(*shape, generator=g)


@checker("scaled dot-product scores", reference=att.scaled_dot_scores)
def check_scores(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 01: ``fn(Q, K)`` → z = Q Kᵀ / √d ``[n, m]`` (row i: query i's score with every key)."""
    g = torch.Generator().manual_seed(4)
    shapes = [(3, 5, 4), (4, 4, 16)]
    for n, m, d in shapes:
        Q, K = _randn(g, n, d), _randn(g, m, d)
        got = fn(Q.clone(), K.clone())
        if isinstance(got, Tensor) and got.shape == (m, n) and n != m:
            raise Mismatch(f"shape {(m, n)}: rows should be the {n} queries — compute Q Kᵀ, not K Qᵀ")
        if isinstance(got, Tensor) and got.shape == (n, m):
            if close(got, Q @ K.T):
                raise Mismatch("the scores are not scaled: divide Q Kᵀ by √d (d = the width of Q and K)")
            if close(got, Q @ K.T / d):
                raise Mismatch(f"divided by d = {d}: the scaling is √d = {d**0.5:g}")
            if n == m and close(got, K @ Q.T / d**0.5):
                raise Mismatch("row i holds key i's scores: compute Q Kᵀ (rows = queries), not K Qᵀ")
        expect_close("z", got, Q @ K.T / d**0.5)
    return len(shapes)


@checker("softmax", reference=att.softmax)
def check_softmax(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 01: ``fn(z)`` → softmax along the last dim, stable for large scores."""
    z = torch.tensor([[1.0, 2.0, 3.0], [112.0 / 8, 96.0 / 8, 0.0], [1000.0, 1001.0, 999.0]])
    got = fn(z[:2].clone())
    expect_close("softmax(z)", got, torch.softmax(z[:2], -1))
    big = fn(z[2:].clone())
    if isinstance(big, Tensor) and big.isnan().any():
        raise Mismatch("scores like 1000 give NaN: subtract the row maximum before exp")
    expect_close("softmax(large z)", big, torch.softmax(z[2:], -1))
    return 2


@checker("scaled dot-product attention", reference=att.attention)
def check_scaled_dot_product_attention(fn: Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 01: ``fn(Q, K, V)`` → ``(A V, A)`` with A = softmax(Q Kᵀ / √d)."""
    g = torch.Generator().manual_seed(1)
    shapes = [(4, 4, 8, 8), (3, 5, 16, 6)]
    for n, m, d, d_v in shapes:
        Q, K, V = (
            torch.randn(n, d, generator=g),
            torch.randn(m, d, generator=g),
            torch.randn(m, d_v, generator=g),
        )
        got = fn(Q, K, V)
        expect_pair(got)
        out, A = got
        want_A = torch.softmax(Q @ K.T / d**0.5, -1)
        if isinstance(A, Tensor) and A.shape == want_A.shape:
            if close(A, torch.softmax(Q @ K.T, -1), atol=1e-5):
                raise Mismatch("A is not scaled: divide the scores by √d before the softmax")
            if close(A, torch.softmax(Q @ K.T / d**0.5, 0), atol=1e-5):
                raise Mismatch("the softmax runs down the columns: normalise each row (dim=-1)")
            expect_rows_sum_to_one("A", A)
        expect_close("A", A, want_A)
        expect_close("output", out, want_A @ V)
    return len(shapes)


@checker("row entropy", reference=att.entropy)
def check_entropy(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 01: ``fn(A)`` → H(α) = −Σ_t α_t log α_t (nats) of each row of A, with 0 log 0 = 0."""
    T = 6
    cases = [torch.full((2, T), 1 / T), torch.softmax(_randn(torch.Generator().manual_seed(5), 3, T), -1)]
    cases.append(torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0]]))  # exact zeros: 0 log 0 = 0
    for A in cases:
        got = fn(A.clone())
        want = -(A.double() * A.double().clamp(min=1e-300).log()).sum(-1)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if got.isnan().any():
                raise Mismatch("NaN where a weight is exactly 0: take 0 · log 0 as 0 (e.g. torch.xlogy)")
            if close(got, -want):
                raise Mismatch("negative entropy: H = −Σ α log α (the minus sign is missing)")
            if close(got, want / torch.log(torch.tensor(2.0, dtype=torch.float64))):
                raise Mismatch("that is bits (log base 2): use the natural log, so uniform rows give log T")
        expect_close("H", got, want)
    return len(cases)


def _heads(t: Tensor, H: int, blocks: bool = True) -> Tensor:
    """[T, d_att] → [H, T, d_att/H]: head h is the h-th block of columns (or, not ``blocks``, every H-th)."""
    if blocks:
        return t.unflatten(-1, (H, t.shape[-1] // H)).transpose(0, 1)
    return t.unflatten(-1, (t.shape[-1] // H, H)).permute(2, 0, 1)


@checker("multi-head attention", reference=att.multi_head_attention)
def check_multi_head(fn: Callable[..., tuple[Tensor, Tensor]]) -> int:
    """Lesson 01: ``fn(E, W_q, W_k, W_v, W_o, n_heads)`` → (Concat(head_1..head_H) W_oᵀ, A ``[H, T, T]``),
    head h on rows h·d_att/H … (h+1)·d_att/H of the projections, scaled by √(d_att/H)."""
    g = torch.Generator().manual_seed(6)
    T, d_e, d_att = 5, 8, 6
    for H in (2, 3):
        E, W_o = _randn(g, T, d_e), _randn(g, d_e, d_att)
        W_q, W_k, W_v = (_randn(g, d_att, d_e) for _ in range(3))
        got = fn(E, W_q, W_k, W_v, W_o, H)
        expect_pair(got)
        out, A = got
        E64, Wq64, Wk64, Wv64, Wo64 = (t.double() for t in (E, W_q, W_k, W_v, W_o))
        want_out, want_A = att.multi_head_attention(E64, Wq64, Wk64, Wv64, Wo64, H)
        if isinstance(out, Tensor) and out.shape == (T, d_att):
            raise Mismatch("the output has width d_att: mix the concatenated heads with W_oᵀ")
        if isinstance(A, Tensor) and A.shape == want_A.shape:
            Q, K, V = (E @ W.T for W in (W_q, W_k, W_v))
            if close(A, att.attention(_heads(Q, H), _heads(K, H), _heads(V, H), scale=d_att**-0.5)[1]):
                raise Mismatch(f"scaled by √d_att: each head divides by √(d_att/H) = √{d_att // H}")
            strided = [_heads(t, H, blocks=False) for t in (Q, K, V)]
            if close(A, att.attention(strided[0], strided[1], strided[2])[1]):
                raise Mismatch("the heads take every H-th column: head h is the block of d_att/H columns")
        expect_close("A", A, want_A)
        # |output| ~ 10 here: a float32 answer cast to float64 is off by ~2e-5
        expect_close("output", out, want_out, atol=1e-4)
    return 2


@checker("sparsemax", reference=att.sparsemax)
def check_sparsemax(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(z)`` → sparsemax along the last dim."""
    sparsemax = att.sparsemax
    zs = [
        torch.tensor([-2.0, 0.0, 0.5]),
        torch.tensor([[3.0, 1.0, 0.2, 2.9], [0.0, 0.0, 0.0, 0.0]]),
        torch.randn(3, 9, generator=torch.Generator().manual_seed(3)) * 2,
    ]
    for z in zs:
        try:
            got = fn(z.clone())
        except RuntimeError as err:  # e.g. written for one row: say what the checker passes
            raise Mismatch(
                f"it failed on z of shape {tuple(z.shape)} — work along the last dim (dim=-1): {err}"
            ) from err
        if isinstance(got, Tensor) and got.shape == z.shape:
            if (got < -1e-7).any():
                raise Mismatch("negative probabilities: clip z − τ at 0")
            expect_rows_sum_to_one("p", got)
        expect_close("sparsemax(z)", got, sparsemax(z))
    return len(zs)


@checker("sparsemax Jacobian", reference=att.sparsemax_jacobian)
def check_sparsemax_jacobian(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(p)`` → the Jacobian ∂sparsemax/∂z ``[T, T]`` at the output p."""
    sparsemax = att.sparsemax

    zs = [torch.tensor([-2.0, 0.0, 0.5]), torch.tensor([0.1, 1.0, 0.9, 0.95, -1.0]), torch.zeros(4)]
    for z in zs:
        want = torch.autograd.functional.jacobian(sparsemax, z.double()).float()
        got = fn(sparsemax(z))
        if isinstance(got, Tensor) and got.shape == want.shape and (got.sum(-1).abs() > 1e-5).any():
            raise Mismatch("rows of the Jacobian must sum to 0 (adding a constant to z changes nothing)")
        expect_close("J", got, want)
    return len(zs)


@checker("sparsemax threshold", reference=att.sparsemax_threshold)
def check_sparsemax_threshold(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(z)`` → η = (Σ_{j≤k(z)} z_(j) − 1) / k(z) along the last dim, ``[..., 1]`` (or
    ``[...]``: the checker adds the last axis)."""
    zs = [
        torch.tensor([-2.0, 0.0, 0.5]),
        torch.tensor([[3.0, 1.0, 0.2, 2.9], [0.0, 0.0, 0.0, 0.0]]),
        torch.randn(3, 9, generator=torch.Generator().manual_seed(3)) * 2,
    ]
    for z in zs:
        want = att.sparsemax_threshold(z.double())
        got = fn(z.clone())
        if isinstance(got, Tensor) and got.dim() == want.dim() - 1 and got.shape == want.shape[:-1]:
            got = got.unsqueeze(-1)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            top = z.double().sort(-1, descending=True).values
            if close(got, (top.sum(-1, keepdim=True) - 1) / z.shape[-1]):
                raise Mismatch(
                    "η averages all T scores: only the k(z) largest (the support) enter the sum and the count"
                )
            if close(got, want + 1 / (z.double() > want).sum(-1, keepdim=True)):
                raise Mismatch("subtract 1 before dividing: η = (Σ_{j≤k(z)} z_(j) − 1) / k(z)")
        expect_close("η", got, want)
    return len(zs)


@checker("Tsallis regulariser", reference=att.tsallis_omega)
def check_tsallis(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 03: ``fn(p, alpha)`` → Ω_α(p) = 1/(α(α−1)) Σ_j (p_j^α − p_j) along the last dim."""
    g = torch.Generator().manual_seed(4)
    ps = [att.softmax(torch.randn(6, generator=g)), att.sparsemax(torch.randn(3, 7, generator=g) * 2)]
    alphas = (1.5, 2.0, 3.0)
    for p in ps:
        for alpha in alphas:
            want, c = att.tsallis_omega(p.double(), alpha), alpha * (alpha - 1)
            got = fn(p.clone(), alpha)
            if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
                if close(got, want + 1 / c):
                    raise Mismatch(
                        "that is lecture 001's Σ_j p_j^α / (α(α−1)): the Tsallis form subtracts p_j in the "
                        f"sum (on the simplex it is lower by 1/(α(α−1)) = {1 / c:.4g} at α = {alpha})"
                    )
                if close(got, want * c):
                    raise Mismatch(f"divide the sum by α(α−1) (= {c:g} at α = {alpha})")
            expect_close("Ω", got, want)
    return len(ps) * len(alphas)


@checker("softmax Jacobian", reference=att.softmax_jacobian)
def check_softmax_jacobian(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(p)`` → ∂softmax/∂θ = diag(p) − p pᵀ ``[T, T]`` at the output p = softmax(θ)."""
    thetas = [torch.tensor([1.0, 2.0, 0.5]), torch.randn(6, generator=torch.Generator().manual_seed(5))]
    for theta in thetas:
        want = torch.autograd.functional.jacobian(att.softmax, theta.double())
        p = att.softmax(theta)
        got = fn(p.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, torch.diag(p)):
                raise Mismatch("that is diag(p) alone: subtract the outer product p pᵀ")
            if close(got, torch.diag(p * (1 - p))):
                raise Mismatch(
                    "the off-diagonal entries are −p_i p_j, not 0: raising one score lowers the others"
                )
            if close(got, -want):
                raise Mismatch("the sign is flipped: J = diag(p) − p pᵀ")
        expect_close("J", got, want)
    return len(thetas)


@checker("hard top-k mask", reference=att.hard_topk)
def check_hard_topk(fn: Callable[[Tensor, int], Tensor]) -> int:
    """Lesson 03: ``fn(theta, k)`` → m = top_k(θ), the k-hot mask of the k largest scores along the
    last dim."""
    g = torch.Generator().manual_seed(6)
    cases = [
        (torch.randn(6, generator=g), 2),
        (torch.randn(3, 7, generator=g), 3),
        (torch.randn(5, generator=g), 1),
    ]
    for theta, k in cases:
        want = att.hard_topk(theta.double(), k)
        got = fn(theta.clone(), k)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, att.hard_topk(-theta.double(), k)):
                raise Mismatch("it keeps the k smallest scores: top_k keeps the k largest")
            if close(got, want * theta.double()):
                raise Mismatch("the mask holds the scores: put 1 at the k kept positions (and 0 elsewhere)")
            if k > 1 and close(got, att.hard_topk(theta.double(), 1)):
                raise Mismatch(f"only the argmax is kept: keep the k = {k} largest scores")
        expect_close("m", got, want)
    return len(cases)


@checker("sigmoid attention", reference=sigmoid_attention)
def check_sigmoid(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(z)`` → p = σ(z) = 1 / (1 + e^{−z}) elementwise, finite for scores like ±100."""
    zs = [
        torch.randn(4, 6, generator=torch.Generator().manual_seed(7)) * 3,
        torch.tensor([-100.0, -20, 0, 20, 100]),
    ]
    for z in zs:
        want = torch.sigmoid(z.double())
        got = fn(z.clone())
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if got.isnan().any():
                raise Mismatch("NaN for large scores: e^θ / (1 + e^θ) overflows; write 1 / (1 + e^{−θ})")
            if close(got, torch.softmax(z.double(), -1)):
                raise Mismatch("that is softmax: sigmoid weighs each score on its own, 1 / (1 + e^{−θ_j})")
            if close(got, torch.sigmoid(-z.double())):
                raise Mismatch("the sign of the exponent: σ(θ) = 1 / (1 + e^{−θ}), above 1/2 for θ > 0")
        expect_close("p", got, want)
    return len(zs)
