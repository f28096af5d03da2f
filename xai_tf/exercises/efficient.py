"""Checkers for lesson 14: the online-softmax update of chunked attention, and a sliding-window mask."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close

NEG_INF = float("-inf")


def _triple(got: object) -> tuple[object, object, object]:
    if got is None:
        raise Mismatch("returned None: did you forget to `return` (m, ell, acc)?")
    if not (isinstance(got, tuple) and len(got) == 3):
        raise Mismatch(f"return a triple (m, ell, acc), got {type(got).__name__}")
    return got


@checker("online softmax update")
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


@checker("sliding-window mask")
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
