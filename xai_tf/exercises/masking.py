"""Checkers for lesson 02: the causal mask, the masked softmax A(x, M), the padding mask, masked
attention and cross-attention."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf.exercises._check import (
    Mismatch,
    checker,
    close,
    expect_close,
    expect_masked_zero,
    expect_pair,
    expect_rows_sum_to_one,
)


@checker("causal mask", reference=att.causal_mask)
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


def _masks() -> list[Tensor]:
    """A causal mask, and causal + padding (keys 3, 4 hidden) with one query (0) that sees nothing."""
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    padded = causal & (torch.arange(5) < 3)
    padded[0] = False
    return [causal, padded]


@checker("masked softmax", reference=att.masked_softmax)
def check_masked_softmax(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 02: ``fn(z, mask)`` → softmax(z + M), M = 0 where ``mask`` is True, −∞ elsewhere; a row
    with nothing visible gives zeros."""
    z = torch.randn(5, 5, generator=torch.Generator().manual_seed(7)) * 2
    for mask in _masks():
        got = fn(z.clone(), mask)
        want = torch.softmax(z.masked_fill(~mask, float("-inf")), -1).nan_to_num(0.0)
        if isinstance(got, Tensor) and got.shape == z.shape:
            if close(got, torch.softmax(z * mask, -1)):
                raise Mismatch(
                    "the mask was multiplied in: hidden scores became 0, not −∞, so they still count"
                )
            if got.isnan().any():
                row = int(got.isnan().any(-1).nonzero()[0])
                if not mask[row].any():
                    raise Mismatch(f"row {row} sees nothing and is NaN (0/0): give such a row zeros")
                raise Mismatch(
                    f"row {row} is NaN though it sees keys: add −∞ to hidden scores, never multiply by it"
                )
            expect_masked_zero("A", got, mask)
            expect_rows_sum_to_one("A", got, mask)
        expect_close("A", got, want)
    return 2


@checker("padding mask", reference=att.padding_mask)
def check_padding_mask(fn: Callable[[list[int], int], Tensor]) -> int:
    """Lesson 02: ``fn(lengths, T)`` → boolean ``[batch, 1, T]``, True at keys j < length."""
    cases = [([6, 4], 6), ([1, 3, 0], 3)]
    for lengths, T in cases:
        got = fn(list(lengths), T)
        want = torch.arange(T) < torch.tensor(lengths)[:, None]
        if isinstance(got, Tensor) and got.shape == want.shape:
            raise Mismatch(
                f"shape {tuple(got.shape)}: add a query axis, [batch, 1, T], to broadcast over the queries"
            )
        if isinstance(got, Tensor) and got.dtype != torch.bool:
            raise Mismatch(f"the mask should be boolean (True = visible), got {got.dtype}")
        if isinstance(got, Tensor) and got.shape == (len(lengths), 1, T):
            if torch.equal(got[:, 0], torch.arange(T) <= torch.tensor(lengths)[:, None]):
                raise Mismatch("key j = length is visible: the real tokens are 0 … length − 1 (use <, not ≤)")
            if torch.equal(got[:, 0], ~want):
                raise Mismatch("True should mark the real tokens (visible); yours marks the padding")
        expect_close("mask", got.float() if isinstance(got, Tensor) else got, want[:, None].float())
    return len(cases)


@checker("masked attention", reference=att.attention)
def check_masked_attention(fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> int:
    """Lesson 02: ``fn(Q, K, V, mask)`` → ``(A V, A)``; masked positions get exactly 0 and a row
    with nothing visible gives zeros (no NaN)."""
    g = torch.Generator().manual_seed(2)
    Q, K, V = (
        torch.randn(5, 8, generator=g),
        torch.randn(5, 8, generator=g),
        torch.randn(5, 3, generator=g),
    )
    for mask in _masks():
        got = fn(Q, K, V, mask)
        expect_pair(got)
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


@checker("cross-attention", reference=att.cross_attention)
def check_encoder_decoder_attention(fn: Callable[..., tuple[Tensor, Tensor]]) -> int:
    """Lesson 02: ``fn(E_dec, E_enc, W_q, W_k, W_v)`` → (Z, A) with Q = E_dec W_qᵀ, K = E_enc W_kᵀ,
    V = E_enc W_vᵀ, A = softmax(Q Kᵀ / √d_att) of shape ``[n_dec, n_enc]``."""
    g = torch.Generator().manual_seed(8)
    n_dec, n_enc, d_e, d_att = 3, 5, 6, 4
    E_dec, E_enc = torch.randn(n_dec, d_e, generator=g), torch.randn(n_enc, d_e, generator=g)
    W_q, W_k, W_v = (torch.randn(d_att, d_e, generator=g) for _ in range(3))
    got = fn(E_dec, E_enc, W_q, W_k, W_v)
    expect_pair(got)
    out, A = got
    if isinstance(A, Tensor) and A.shape == (n_enc, n_dec):
        raise Mismatch(
            f"A has shape {(n_enc, n_dec)}: the queries come from the decoder (one row per decoder position)"
        )
    if isinstance(A, Tensor) and A.shape == (n_dec, n_dec):
        raise Mismatch("A is square: the keys and values come from the encoder, E_enc, not the decoder")
    want_out, want_A = att.cross_attention(*(t.double() for t in (E_dec, E_enc, W_q, W_k, W_v)))
    expect_close("A", A, want_A)
    expect_close("output", out, want_out)
    return 1
