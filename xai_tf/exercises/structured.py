"""Checkers for lesson 18: the monotone share of an alignment, the chain CRF's log-partition, its
marginals by forward–backward, its MAP structure by Viterbi, Kim et al.'s normalised marginals, and the
HAN's attention pooling.

For the marginals the student writes ``fn(theta, A)`` for unary scores θ [T] and a transition score
A [2, 2] (A[a, b] is the score of z_{i−1} = a followed by z_i = b) and returns p(z_i = 1) [T] under

    p(z) ∝ exp(Σ_i θ_i z_i + Σ_{i=2}^T A[z_{i−1}, z_i]),  z ∈ {0, 1}^T.

The reference is brute-force enumeration over the 2^T structures (``chain_marginals_enumerated``, T ≤
``MAX_T`` here). Every correct answer passes: float32 or float64, a loop or vectorised, in probability or
log space; a rejection names the usual mistakes and shows the worst difference.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close, expect_pair
from xai_tf.structured import bias
from xai_tf.structured.chain import (
    chain_log_partition,
    chain_marginals,
    chain_marginals_enumerated,
    viterbi,
)
from xai_tf.structured.normalized import normalized_marginals
from xai_tf.structured.pooling import attention_pool

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


@checker("CRF marginals by forward–backward", reference=chain_marginals)
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


def _share(
    links: set[tuple[int, int]], keep: Callable[[int, int, int, int], bool], go_on: Callable[[int, int], bool]
) -> float:
    """Σ over link pairs kept by ``keep(i, j, i2, j2)`` of ``go_on(j, j2)``, over their number."""
    pairs = [(j, j2) for i, j in links for i2, j2 in links if keep(i, j, i2, j2)]
    return sum(go_on(j, j2) for j, j2 in pairs) / len(pairs)


@checker("monotone share", reference=bias.monotone_share)
def check_monotone_share(fn: Callable[[set[tuple[int, int]]], float]) -> int:
    """Lesson 18: ``fn(links)`` → #{i < i′, j ≤ j′} / #{i < i′} over pairs of links (i, j), (i′, j′)."""
    cases = [
        {(0, 0), (1, 1), (1, 2), (2, 2), (3, 4), (4, 3)},
        {(0, 1), (1, 0), (2, 2), (2, 3), (3, 3)},
        {(0, 0), (1, 1), (2, 2)},
    ]
    for links in cases:
        got: object = fn(set(links))
        if isinstance(got, int | float) and not isinstance(got, bool):
            got = torch.tensor(float(got), dtype=torch.float64)
        if isinstance(got, Tensor) and got.numel() == 1:
            got = got.reshape(())  # a number, a 0-d or a one-element tensor
        want = torch.tensor(bias.monotone_share(links), dtype=torch.float64)
        if isinstance(got, Tensor) and got.dim() == 0 and not close(got, want):
            if close(got, torch.tensor(_share(links, lambda i, j, i2, j2: i < i2, lambda a, b: a < b))):
                raise Mismatch("j′ = j counts as in order (j ≤ j′): two target words on one source word")
            if close(got, torch.tensor(_share(links, lambda i, j, i2, j2: i <= i2, lambda a, b: a <= b))):
                raise Mismatch("count only pairs with i < i′: links of the same target word have no order")
        expect_close(f"the share for {sorted(links)}", got, want)
    return len(cases)


def _log_z_enumerated(theta: Tensor, a: Tensor) -> Tensor:
    """log Σ_z exp s(z) over all 2^T structures, in float64."""
    z = torch.tensor(list(itertools.product((0, 1), repeat=theta.numel())), dtype=torch.long)
    scores = (theta.double() * z).sum(-1) + a.double()[z[:, :-1], z[:, 1:]].sum(-1)
    return torch.logsumexp(scores, 0)


@checker("CRF log-partition by the forward algorithm", reference=chain_log_partition)
def check_log_partition(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 18: ``fn(theta [T], A [2, 2])`` → log Z = log Σ_z exp s(z), a 0-dimensional tensor."""
    huge = torch.tensor([800.0, -700.0, 900.0], dtype=torch.float64)  # exp(900) overflows even float64
    cases = [
        *_cases(),
        (huge, torch.tensor([[0.0, -300.0], [-300.0, 400.0]], dtype=torch.float64), huge.dtype),
    ]
    n = 0
    for theta, a, dtype in cases:
        got = fn(theta.clone(), a.clone())
        if isinstance(got, Tensor) and got.numel() == 1:
            got = got.reshape(())
        want = _log_z_enumerated(theta, a)
        if isinstance(got, Tensor) and got.dim() == 0 and not close(got, want):
            if not bool(torch.isfinite(got)):
                raise Mismatch(
                    f"log Z is {got.item()} for θ = {theta.tolist()}: stay in log space (logsumexp), "
                    "never exp of a large score"
                )
            if close(got, torch.nn.functional.softplus(theta.double()).sum()):
                raise Mismatch("you returned Σ_i log(1 + exp θ_i), the independent case: add A[z_(i-1), z_i]")
            best = max(_score(z, theta, a) for z in itertools.product((0, 1), repeat=theta.numel()))
            if close(got, torch.tensor(best, dtype=torch.float64)):
                raise Mismatch("you took the max (the best structure's score): log Z sums, use logsumexp")
        atol = 1e-7 if dtype == torch.float64 else 1e-5
        expect_close(f"log Z for T = {theta.numel()} ({dtype})", got, want, atol=atol)
        n += 1
    return n


def _score(z: tuple[int, ...] | list[int], theta: Tensor, a: Tensor) -> float:
    """s(z) = Σ_i θ_i z_i + Σ_i A[z_(i-1), z_i] in float64."""
    t, m = theta.double().tolist(), a.double().tolist()
    return sum(x * c for x, c in zip(t, z, strict=True)) + sum(
        m[p][q] for p, q in zip(z, z[1:], strict=False)
    )


@checker("Viterbi", reference=viterbi)
def check_viterbi(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 18: ``fn(theta [T], A [2, 2])`` → a structure z [T] (0/1 entries) of the largest score s(z);
    any of several tied best structures passes."""
    cases = [(torch.tensor([1.0, -0.5, 1.0]), torch.tensor([[0.0, 0.0], [0.0, 2.0]]))]
    cases += [(theta, a) for theta, a, _ in _cases()]
    for theta, a in cases:
        got = fn(theta.clone(), a.clone())
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return` the structure?")
        if not isinstance(got, Tensor) or got.shape != theta.shape:
            shape = tuple(got.shape) if isinstance(got, Tensor) else type(got).__name__
            raise Mismatch(f"return z as a tensor of shape [{theta.numel()}], got {shape}")
        if not bool(((got == 0) | (got == 1)).all()):
            raise Mismatch("z must hold 0/1 entries (one structure), not probabilities or scores")
        z = [int(v) for v in got.tolist()]
        best = max(_score(c, theta, a) for c in itertools.product((0, 1), repeat=theta.numel()))
        mine = _score(z, theta, a)
        if not close(torch.tensor(mine), torch.tensor(best)) and z == (theta > 0).long().tolist():
            raise Mismatch(
                f"z_i = [θ_i > 0] for θ = {[round(x, 3) for x in theta.tolist()]}: "
                "the sign of each θ_i alone ignores the transition score A; "
                "keep back-pointers and trace the best path back"
            )
        expect_close(
            f"the score s(z) of your z for T = {theta.numel()}", torch.tensor(mine), torch.tensor(best)
        )
    return len(cases)


@checker("attention pooling", reference=attention_pool)
def check_attention_pool(fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 18: ``fn(h [T, d], W [d, d], b [d], u_ctx [d])`` → (s [d], α [T]) with u_t = tanh(W h_t + b),
    α = softmax_t(u_tᵀ u_ctx), s = Σ_t α_t h_t."""
    g = torch.Generator().manual_seed(18)
    for T, d in ((5, 6), (1, 4)):
        h, W = torch.randn(T, d, generator=g), 2 * torch.randn(d, d, generator=g)
        b, u = torch.randn(d, generator=g), 2 * torch.randn(d, generator=g)
        got = fn(h.clone(), W.clone(), b.clone(), u.clone())
        expect_pair(got)
        s, alpha = got
        h64, W64, b64, u64 = (x.double() for x in (h, W, b, u))
        want_s, want_alpha = attention_pool(h64, W64, b64, u64)
        if T > 1 and isinstance(alpha, Tensor) and not close(alpha, want_alpha):
            if close(alpha, torch.softmax((h64 @ W64.T + b64) @ u64, -1)):
                raise Mismatch("u_t = tanh(W h_t + b): the tanh is missing")
            if close(alpha, torch.softmax(torch.tanh(h64 @ W64 + b64) @ u64, -1)):
                raise Mismatch("W h_t for the rows h_t of h is h @ W.T, not h @ W")
        u_t = torch.tanh(h64 @ W64.T + b64)
        if T > 1 and close(s, want_alpha @ u_t) and not close(s, want_s):
            raise Mismatch("pool the states h_t, not u_t: s = Σ_t α_t h_t")
        expect_close(f"α for T = {T}", alpha, want_alpha)
        expect_close(f"s for T = {T}", s, want_s)
    return 2


@checker("normalised CRF marginals", reference=normalized_marginals)
def check_normalized_marginals(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 18: ``fn(p [T, S], lam)`` → α = λ p / Σ_j p_j, each row (a target word) over its sources."""
    g = torch.Generator().manual_seed(4)
    cases = [((3, 5), 2.0), ((4, 4), 1.0), ((1, 6), 0.5)]
    for shape, lam in cases:
        p = torch.rand(*shape, generator=g, dtype=torch.float64).clamp(0.02, 0.98)
        got = fn(p.float().clone(), lam)
        p = p.float().double()
        want = lam * p / p.sum(-1, keepdim=True)
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, lam * p.softmax(-1)):
                raise Mismatch(
                    "softmax(p) exponentiates the marginals: divide them by their sum, p_j / Σ_j′ p_j′"
                )
            if shape[0] > 1 and close(got, lam * p / p.sum(0, keepdim=True)):
                raise Mismatch(
                    "you divided by the column sums: normalise each row (one target word) over its source "
                    "positions, dim=-1"
                )
            if lam != 1 and close(got, p / p.sum(-1, keepdim=True)):
                raise Mismatch(f"each row should sum to λ = {lam:g}: multiply the normalised marginals by λ")
            if close(got, lam * p / p.amax(-1, keepdim=True)):
                raise Mismatch("divide by the row's sum, not by its largest marginal")
        expect_close(f"α for λ = {lam:g}", got, want)
    return len(cases)
