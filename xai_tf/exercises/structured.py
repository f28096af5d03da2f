"""Checker for lesson 18: the linear-chain CRF's marginals by forward–backward.

The student writes ``fn(theta, A)`` for unary scores θ [T] and a transition score A [2, 2] (A[a, b] is
the score of z_{i−1} = a followed by z_i = b) and returns p(z_i = 1) [T] under

    p(z) ∝ exp(Σ_i θ_i z_i + Σ_{i=2}^T A[z_{i−1}, z_i]),  z ∈ {0, 1}^T.

The reference is brute-force enumeration over the 2^T structures (``chain_marginals_enumerated``, T ≤
``MAX_T`` here). Every correct answer passes: float32 or float64, a loop or vectorised, in probability or
log space; a rejection names the usual mistakes and shows the worst difference.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.structured.chain import chain_marginals_enumerated

#: The checker enumerates 2^T structures: T up to 10 keeps each case instant.
MAX_T = 10


def _cases() -> list[tuple[Tensor, Tensor, torch.dtype]]:
    g = torch.Generator().manual_seed(18)
    out = []
    for t, dtype in ((5, torch.float64), (8, torch.float64), (10, torch.float32), (1, torch.float64)):
        theta = 2 * torch.randn(t, generator=g, dtype=torch.float64)
        a = torch.randn(2, 2, generator=g, dtype=torch.float64)
        out.append((theta.to(dtype), a.to(dtype), dtype))
    big = torch.tensor([40.0, -35.0, 50.0, 45.0, -60.0], dtype=torch.float64)  # exp(±60): log space needed
    out.append((big, torch.tensor([[0.0, -30.0], [-30.0, 20.0]], dtype=torch.float64), torch.float64))
    return out


def _diagnose(got: Tensor, theta: Tensor) -> None:
    """Name a known mistake when ``got`` equals what it would give."""
    if close(got, torch.sigmoid(theta.double())):
        raise Mismatch(
            "you returned σ(θ_i), the independent case: the transition term A[z_(i-1), z_i] is missing"
        )
    if close(got, torch.softmax(theta.double(), -1)):
        raise Mismatch("you returned softmax(θ): each z_i is on/off, the marginals need not sum to 1")
    if got.numel() > 1 and close(got.double().sum(), torch.tensor(1.0, dtype=torch.float64)):
        raise Mismatch(
            "your marginals sum to 1 across positions: do not normalise over i; "
            "normalise each position over z_i ∈ {0, 1} (by Z)"
        )


@checker("CRF marginals by forward–backward")
def check_chain_marginals(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 18: ``fn(theta [T], A [2, 2])`` → p(z_i = 1) [T]."""
    n = 0
    for theta, a, dtype in _cases():
        got = fn(theta.clone(), a.clone())
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return` the marginals?")
        if not isinstance(got, Tensor):
            raise Mismatch(f"return a tensor of shape [{theta.numel()}], got {type(got).__name__}")
        if got.shape != theta.shape:
            raise Mismatch(
                f"return shape [{theta.numel()}] (one p(z_i = 1) per position), got {tuple(got.shape)}"
            )
        if not bool(torch.isfinite(got).all()):
            raise Mismatch(
                f"your marginals hold NaN or inf for θ = {theta.tolist()}: "
                "work in log space (logsumexp), never exp of a large score"
            )
        want = chain_marginals_enumerated(theta.double(), a.double())
        atol = 1e-7 if dtype == torch.float64 else 1e-5  # a float32 case stays float32-accurate if cast up
        if not close(got, want, atol=atol):
            _diagnose(got, theta)
        expect_close(f"p(z_i = 1) for T = {theta.numel()} ({dtype})", got, want, atol=atol)
        n += 1
    return n
