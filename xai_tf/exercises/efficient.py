"""Checkers for lesson 14: the fitted exponent of a cost, the online-softmax update of chunked attention,
a sliding-window mask, causal linear attention by prefix sums, and ∂p/∂α of α-entmax."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import attention as att
from xai_tf.efficient import adaptive, chunked, cost, linear, sparse
from xai_tf.exercises._check import Mismatch, checker, close, expect_close

NEG_INF = float("-inf")


def _triple(got: object) -> tuple[object, object, object]:
    if got is None:
        raise Mismatch("returned None: did you forget to `return` (m, ell, acc)?")
    if not (isinstance(got, tuple) and len(got) == 3):
        raise Mismatch(f"return a triple (m, ell, acc), got {type(got).__name__}")
    return got


@checker("online softmax update", reference=chunked.online_softmax_update)
def check_online_softmax_update(fn: Callable[..., tuple[Tensor, Tensor, Tensor]]) -> int:
    """Lesson 14: ``fn(m, ell, acc, s, v)`` → ``(m′, ℓ′, a′)`` for one chunk of scores ``s [n, c]``
    and values ``v [c, d_v]``; after the last chunk a/ℓ must be softmax(s) v."""
    g = torch.Generator().manual_seed(14)
    n, T, c, d_v = 3, 10, 4, 2
    s, v = (
        torch.randn(n, T, generator=g, dtype=torch.float64) * 3,
        torch.randn(T, d_v, generator=g, dtype=torch.float64),
    )
    s[0, :c] = NEG_INF  # query 0 sees nothing in the first chunk
    m = torch.full((n, 1), NEG_INF, dtype=torch.float64)
    ell, acc = torch.zeros(n, 1, dtype=torch.float64), torch.zeros(n, d_v, dtype=torch.float64)
    for j0 in range(0, T, c):
        seen = s[:, : j0 + c]
        got = _triple(
            fn(m.clone(), ell.clone(), acc.clone(), s[:, j0 : j0 + c].clone(), v[j0 : j0 + c].clone())
        )
        m_want = seen.max(-1, keepdim=True).values
        shift = m_want.masked_fill(m_want == NEG_INF, 0)
        e = (seen - shift).exp()
        ell_want, acc_want = e.sum(-1, keepdim=True), e @ v[: j0 + c]
        for name, x in zip(("m", "ell", "acc"), got, strict=True):
            if isinstance(x, Tensor) and x.isnan().any():
                raise Mismatch(
                    f"{name} has NaN after chunk {j0 // c}: a row that has seen only −∞ has m = −∞, and "
                    "e^(−∞ − (−∞)) is NaN — use 0 in place of m′ when m′ = −∞"
                )
        expect_close("m′", got[0], m_want, atol=1e-9)
        if j0 > 0 and isinstance(got[1], Tensor) and got[1].shape == ell_want.shape:
            unscaled = ell + (s[:, j0 : j0 + c] - shift).exp().sum(-1, keepdim=True)
            if close(got[1], unscaled) and not close(unscaled, ell_want):
                raise Mismatch("ℓ′ adds the new terms to the old sum without rescaling it by e^(m − m′)")
        expect_close("ℓ′", got[1], ell_want, atol=1e-9)
        expect_close("a′", got[2], acc_want, atol=1e-9)
        m, ell, acc = m_want, ell_want, acc_want
    return len(range(0, T, c))


@checker("sliding-window mask", reference=sparse.sliding_window_mask)
def check_sliding_window_mask(fn: Callable[[int, int], Tensor]) -> int:
    """Lesson 14: ``fn(n, window)`` → boolean ``[n, n]``, True where 0 ≤ i − j ≤ window (causal)."""
    cases = [(6, 2), (8, 1), (5, 5), (1, 1)]
    for n, w in cases:
        got = fn(n, w)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the mask?")
        if not isinstance(got, Tensor):
            raise Mismatch(f"the mask should be a torch.Tensor, got {type(got).__name__}")
        if got.shape != (n, n):
            raise Mismatch(f"for n={n} the mask should be [{n}, {n}], got {tuple(got.shape)}")
        if got.dtype != torch.bool:
            raise Mismatch(f"the mask should be boolean (True = may attend), got {got.dtype}")
        i, j = torch.arange(n).unsqueeze(-1), torch.arange(n)
        want = (i - j >= 0) & (i - j <= w)
        future = got & (j > i)
        if future.any():
            a, b = (int(x) for x in future.nonzero()[0])
            raise Mismatch(f"position {a} may attend to position {b}, which is in its future")
        rows = got.sum(-1)
        bad = rows != want.sum(-1)
        if bad.any():
            r = int(bad.nonzero()[0])
            raise Mismatch(
                f"with n={n}, window={w}, row {r} sees {int(rows[r])} positions; it should see itself and up "
                f"to {w} before it ({int(want[r].sum())} positions)"
            )
        expect_close("mask", got.float(), want.float())
    return len(cases)


def _number(name: str, got: object) -> Tensor:
    """A number the student returned (float, int, numpy or 0-d tensor) as a 0-d tensor, else a Mismatch."""
    if got is None:
        raise Mismatch(f"{name} is None: did you forget to `return` it?")
    if isinstance(got, Tensor) and got.numel() == 1:
        return got.reshape(())
    try:
        return torch.tensor(float(got), dtype=torch.float64)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise Mismatch(f"{name} should be a number, got {type(got).__name__}") from None


def _slope(x: list[float], y: list[float]) -> float:
    """Least-squares slope of y on x (the closed form, independent of numpy's polyfit)."""
    mx, my = sum(x) / len(x), sum(y) / len(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / sum((a - mx) ** 2 for a in x)


@checker("fitted exponent", reference=cost.fit_exponent)
def check_fit_exponent(fn: Callable[[list[float], list[float], int], float]) -> int:
    """Lesson 14: ``fn(ns, costs, last)`` → the least-squares slope of log(cost) on log(n) over the ``last``
    points, cost ∝ n^slope."""
    ns = [128.0, 256.0, 512.0, 1024.0, 2048.0]
    cases = [
        [0.9, 1.1, 2.9, 11.8, 44.0],  # fixed costs first, then about n²
        [3.0, 5.5, 10.0, 21.0, 39.0],  # about n
        [1.0, 1.2, 1.3, 1.3, 1.6],  # nearly flat
    ]
    for costs in cases:
        for last in (3, 5):
            got = _number("the exponent", fn(list(ns), list(costs), last))
            lx, ly = [math.log(n) for n in ns[-last:]], [math.log(c) for c in costs[-last:]]
            want = torch.tensor(_slope(lx, ly), dtype=torch.float64)
            if close(got, torch.tensor(_slope(ns[-last:], ly), dtype=torch.float64)):
                raise Mismatch("that is the slope of log(cost) against n: take the log of n as well")
            if close(
                got, torch.tensor((ly[-1] - ly[0]) / (lx[-1] - lx[0]), dtype=torch.float64)
            ) and not close(got, want):
                raise Mismatch(
                    "that is the slope between the first and last point only: fit a least-squares line "
                    "through all the `last` points"
                )
            every = _slope([math.log(n) for n in ns], [math.log(c) for c in costs])
            if last < len(ns) and close(got, torch.tensor(every, dtype=torch.float64)):
                raise Mismatch(f"with last = {last}, fit only the last {last} points, not all {len(ns)}")
            expect_close(f"the exponent for last = {last}", got, want, atol=1e-8)
    return 2 * len(cases)


def _linear_wrong(Q: Tensor, K: Tensor, V: Tensor) -> dict[str, Tensor]:
    """The typical wrong versions of causal linear attention, each with what its message says."""
    fq, fk = F.elu(Q) + 1, F.elu(K) + 1
    A = (fq @ fk.transpose(-2, -1)).tril()
    eq, ek = Q.exp(), K.exp()
    E = (eq @ ek.transpose(-2, -1)).tril()
    return {
        "every output reads every key, later ones too: the sums run over j ≤ i only (prefix sums, "
        "torch.cumsum along the positions)": linear.linear_attention(Q, K, V, causal=False),
        "the outputs are not normalised: divide φ(q_i)ᵀ S_i by φ(q_i)ᵀ z_i": A @ V,
        "φ is elu(x) + 1, not exp(x)": (E / E.sum(-1, keepdim=True)) @ V,
    }


@checker("causal linear attention", reference=linear.linear_attention)
def check_linear_attention(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 14: ``fn(Q, K, V)`` with ``Q, K [..., n, d]``, ``V [..., n, d_v]`` → ``out [..., n, d_v]``,
    out_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i, S_i = Σ_{j ≤ i} φ(k_j) v_jᵀ, z_i = Σ_{j ≤ i} φ(k_j), φ = elu + 1."""
    g = torch.Generator().manual_seed(14)
    shapes = [(), (2,)]  # one sequence, and a batch of two (the lesson's cells pass [1, n, d])
    for lead in shapes:
        Q, K = (torch.randn(*lead, 7, 4, generator=g, dtype=torch.float64) for _ in range(2))
        V = torch.randn(*lead, 7, 3, generator=g, dtype=torch.float64)
        got = fn(Q.float(), K.float(), V.float())
        want = linear.linear_attention_quadratic(Q, K, V)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            for message, wrong in _linear_wrong(Q, K, V).items():
                if close(got, wrong):
                    raise Mismatch(message)
        expect_close("out", got, want)
    return len(shapes)


def _entmax_cases() -> list[tuple[Tensor, float]]:
    g = torch.Generator().manual_seed(4)
    z = torch.randn(3, 6, generator=g, dtype=torch.float64) * 2
    return [(att.entmax(z, alpha), alpha) for alpha in (1.3, 1.5, 1.8)]


@checker("∂p/∂α of α-entmax", reference=adaptive.entmax_alpha_grad)
def check_entmax_alpha_grad(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 14: ``fn(p, alpha)`` → ∂p/∂α along the last dim at p = α-entmax(z): on the support
    (p_j − p̃_j)/(α−1)² + (h_j − p̃_j Σ_k h_k)/(α−1), h_j = −p_j log p_j, p̃_j = p_j^{2−α}/Σ_k p_k^{2−α};
    0 off it."""
    cases = _entmax_cases()
    for p, alpha in cases:
        got = fn(p.float(), alpha)
        want = adaptive.entmax_alpha_grad(p, alpha)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            if got.isnan().any() and (p == 0).any():
                raise Mismatch(
                    "NaN where p_j = 0: 0 · log 0 is NaN in floating point; h_j = 0 off the support "
                    "(compute it with torch.where on p > 0)"
                )
            on = p > 0
            s = torch.where(on, p.clamp(min=1e-300).pow(2 - alpha), 0.0)
            h = torch.where(on, -p * p.clamp(min=1e-300).log(), 0.0)
            raw = (p - s) / (alpha - 1) ** 2 + (h - s * h.sum(-1, keepdim=True)) / (alpha - 1)
            if close(got, torch.where(on, raw, 0.0), atol=1e-4):
                raise Mismatch("p̃ is not normalised: divide p_j^(2−α) by its sum over the row")
            p_t = s / s.sum(-1, keepdim=True)
            swapped = (p - p_t) / (alpha - 1) + (h - p_t * h.sum(-1, keepdim=True)) / (alpha - 1) ** 2
            if close(got, torch.where(on, swapped, 0.0), atol=1e-4):
                raise Mismatch(
                    "the powers of (α − 1) are swapped: the first term over (α−1)², the second over (α−1)"
                )
        expect_close(f"∂p/∂α at α = {alpha}", got, want, atol=1e-4)
    return len(cases)
