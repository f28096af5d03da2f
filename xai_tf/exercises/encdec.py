"""Checker for lesson 17: cross-attention with the decoder's masks.

The student writes ``fn(X, Y, W_q, W_k, W_v, src_visible) -> (out, A)`` for one sentence: decoder states
X ∈ ℝ^{T×d_e}, encoder states Y ∈ ℝ^{S×d_e}, W_q, W_k, W_v ∈ ℝ^{d_att×d_e}, ``src_visible [S]`` (False on
the source's padding); Q = X W_qᵀ, K = Y W_kᵀ, V = Y W_vᵀ, A = softmax(Q Kᵀ / √d_att) with padded keys
at −∞, ``A [T, S]``, out = A V. Cross-attention takes the source's padding mask and **no** causal mask:
every target position may read the whole source.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, expect_close, expect_rows_sum_to_one


def _reference(
    X: Tensor, Y: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, src_visible: Tensor
) -> tuple[Tensor, Tensor]:
    """The formula of the module's docstring, vectorised."""
    scores = (X @ W_q.T) @ (Y @ W_k.T).T / math.sqrt(W_q.size(0))
    A = scores.masked_fill(~src_visible, float("-inf")).softmax(-1)
    return A @ (Y @ W_v.T), A


def _case(seed: int, dtype: torch.dtype, T: int = 5, S: int = 7, real: int = 5) -> tuple[Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    X, Y = torch.randn(T, 6, generator=g, dtype=dtype), torch.randn(S, 6, generator=g, dtype=dtype)
    W = [torch.randn(4, 6, generator=g, dtype=dtype) for _ in range(3)]
    return (X, Y, *W, torch.arange(S) < real)


def _diagnose(got: Tensor, case: tuple[Tensor, ...], want: Tensor) -> None:
    """Name the usual mistakes when the weights ``got`` differ from ``want``."""
    X, Y, W_q, W_k, W_v, visible = case
    T, S = want.shape
    if got.shape == (S, T):
        raise Mismatch(f"A has shape {(S, T)}: queries come from the decoder (X), keys from the encoder (Y)")
    if got.shape != want.shape:
        return
    if torch.isnan(got).any():
        raise Mismatch(
            "A contains NaN: take the softmax over the source positions (dim=-1), "
            "after setting only the padded keys' scores to −inf"
        )
    if torch.allclose(got[:, visible].sum(0), torch.ones_like(got[0, visible]), atol=1e-4):
        raise Mismatch("the columns of A sum to 1: take the softmax over the source positions, dim=-1")
    if (got[~torch.ones(T, S, dtype=torch.bool).tril()] == 0).all() and not torch.allclose(got, want):
        raise Mismatch(
            "A is zero above the diagonal: cross-attention takes no causal mask, every target "
            "position may read the whole source (only the decoder's self-attention is causal)"
        )
    if (got[:, ~visible].abs() > 0).any():
        raise Mismatch(
            "A gives weight to the source's padding: set the scores of padded keys to −inf before the softmax"
        )
    sums = got.sum(-1)
    if (sums - 1).abs().max() > 1e-3:
        raise Mismatch(
            f"a row of A sums to {sums[(sums - 1).abs().argmax()].item():.4f}: mask the scores before "
            "the softmax (zeroing weights after it leaves rows that do not sum to 1)"
        )
    unscaled = _reference(X * math.sqrt(W_q.size(0)), Y, W_q, W_k, W_v, visible)[1]
    if torch.allclose(got.double(), unscaled.double(), atol=1e-4):
        raise Mismatch("the scores are not scaled: divide Q Kᵀ by √d_att")


@checker("cross-attention")
def check_cross_attention(fn: Callable[..., tuple[Tensor, Tensor]]) -> int:
    """Lesson 17: ``fn(X, Y, W_q, W_k, W_v, src_visible)`` → (out ``[T, d_att]``, A ``[T, S]``); see the
    module's docstring. Runs in float64 and float32; the tolerance follows the dtype."""
    n = 0
    for dtype in (torch.float64, torch.float32):
        for seed in (0, 1):
            case = _case(seed, dtype)
            result = fn(*(t.clone() for t in case))
            if result is None:
                raise Mismatch("your function returned None: did you forget to `return` it?")
            if not isinstance(result, tuple | list) or len(result) != 2:
                raise Mismatch("return a pair (out, A): the output A V and the weights A")
            out, A = result
            want_out, want_A = _reference(*case)
            atol = 1e-9 if isinstance(A, Tensor) and A.dtype == torch.float64 else 1e-5
            if isinstance(A, Tensor):
                _diagnose(A.detach(), case, want_A)
                expect_rows_sum_to_one("A", A.detach())
            expect_close("A", A, want_A, atol=atol)
            expect_close("out", out, want_out, atol=atol * 10)
            n += 1
    return n
