"""Checkers for lessons 01–03: softmax, scaled dot-product attention, the causal mask, masked
attention, sparsemax and its Jacobian."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import (
    Mismatch,
    checker,
    close,
    expect_close,
    expect_masked_zero,
    expect_rows_sum_to_one,
)


def _expect_pair(got: object) -> None:
    if got is None:
        raise Mismatch("returned None: did you forget to `return` it?")
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("return a pair (output, A)")


@checker("softmax")
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


@checker("scaled dot-product attention")
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
        _expect_pair(got)
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


@checker("causal mask")
def check_causal_mask(fn: Callable[[int], Tensor]) -> int:
    """Lesson 02: ``fn(T)`` → boolean ``[T, T]``, True where position i may attend to j (j ≤ i)."""
    for T in (1, 4, 7):
        got = fn(T)
        if isinstance(got, Tensor) and got.dtype != torch.bool:
            raise Mismatch(f"the mask should be boolean (True = visible), got {got.dtype}")
        if (
            isinstance(got, Tensor)
            and got.shape == (T, T)
            and torch.equal(got, ~torch.ones(T, T, dtype=torch.bool).tril())
        ):
            raise Mismatch("True should mark what a position may see; yours marks what it may not")
        if isinstance(got, Tensor) and got.shape == (T, T) and T > 1 and got[0, 1]:
            raise Mismatch("position 0 may attend to position 1: that is looking into the future")
        expect_close("mask", got.float() if isinstance(got, Tensor) else got, torch.ones(T, T).tril())
    return 3


@checker("masked attention")
def check_masked_attention(fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 02: ``fn(Q, K, V, mask)`` → ``(A V, A)``; masked positions get exactly 0 and a row
    with nothing visible gives zeros (no NaN)."""
    g = torch.Generator().manual_seed(2)
    Q, K, V = (
        torch.randn(5, 8, generator=g),
        torch.randn(5, 8, generator=g),
        torch.randn(5, 3, generator=g),
    )
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    padded = causal & (torch.arange(5) < 3)  # keys 3 and 4 are padding
    padded[0] = False  # a query that sees nothing
    for mask in (causal, padded):
        got = fn(Q, K, V, mask)
        _expect_pair(got)
        out, A = got
        if isinstance(A, Tensor) and A.isnan().any():
            raise Mismatch("A has NaN: a row with every position masked must give zeros")
        if isinstance(A, Tensor) and A.shape == mask.shape:
            expect_masked_zero("A", A, mask)
            expect_rows_sum_to_one("A", A, mask)
        scores = (Q @ K.T / 8**0.5).masked_fill(~mask, float("-inf"))
        want = torch.nan_to_num(torch.softmax(scores, -1))
        expect_close("A", A, want)
        expect_close("output", out, want @ V)
    return 2


@checker("sparsemax")
def check_sparsemax(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(z)`` → sparsemax along the last dim."""
    from xai_tf.attention import sparsemax

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


@checker("sparsemax Jacobian")
def check_sparsemax_jacobian(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 03: ``fn(p)`` → the Jacobian ∂sparsemax/∂z ``[T, T]`` at the output p."""
    from xai_tf.attention import sparsemax

    zs = [torch.tensor([-2.0, 0.0, 0.5]), torch.tensor([0.1, 1.0, 0.9, 0.95, -1.0]), torch.zeros(4)]
    for z in zs:
        want = torch.autograd.functional.jacobian(sparsemax, z.double()).float()
        got = fn(sparsemax(z))
        if isinstance(got, Tensor) and got.shape == want.shape and (got.sum(-1).abs() > 1e-5).any():
            raise Mismatch("rows of the Jacobian must sum to 0 (adding a constant to z changes nothing)")
        expect_close("J", got, want)
    return len(zs)
