"""Checkers for lesson 17: the warm-up schedule, label smoothing's targets, the sinusoidal positions, the
decoder's self-attention mask, and cross-attention with the decoder's masks.

For cross-attention the student writes ``fn(X, Y, W_q, W_k, W_v, src_visible) -> (out, A)`` for one
sentence: decoder states X ∈ ℝ^{T×d_e}, encoder states Y ∈ ℝ^{S×d_e}, W_q, W_k, W_v ∈ ℝ^{d_att×d_e},
``src_visible [S]`` (False on the source's padding); Q = X W_qᵀ, K = Y W_kᵀ, V = Y W_vᵀ,
A = softmax(Q Kᵀ / √d_att) with padded keys at −∞, ``A [T, S]``, out = A V.
Cross-attention takes the source's padding mask and **no** causal mask: every target position may read
the whole source.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf.encdec import recipe, stack
from xai_tf.exercises._check import Mismatch, checker, close, expect_close, expect_rows_sum_to_one
from xai_tf.transformer.blocks import sinusoidal_positions


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


@checker("cross-attention", reference=att.cross_attention)
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


@checker("warm-up schedule", reference=recipe.schedule)
def check_schedule(fn: Callable[[Tensor, float, int], Tensor]) -> int:
    """Lesson 17: ``fn(t, lr_max, warmup)`` → lr(t) = lr_max · min(1, t/w) · (max(t, w)/w)^(−1/2) for every
    step of ``t`` (a float tensor of steps counted from 1)."""
    cases = [
        (torch.arange(1.0, 41.0), 5e-3, 10),
        (torch.tensor([1.0, 2000, 4000, 8000, 16000, 10**5]), 1e-3, 4000),
    ]
    for t, lr_max, w in cases:
        got = fn(t.clone(), lr_max, w)
        t64 = t.double()
        rise = lr_max * torch.clamp(t64 / w, max=1.0)
        if close(got, rise):
            raise Mismatch(
                f"your rate stays at lr_max after step w = {w}: after the warm-up it falls as t^(-1/2)"
            )
        if close(got, rise * torch.clamp(t64, min=w) ** -0.5):
            raise Mismatch(
                f"lr({w}) should be the peak lr_max = {lr_max:g}: "
                "the decay is (max(t, w) / w)^(-1/2), divide by w"
            )
        if close(got, lr_max * torch.clamp(t64, min=w) ** -0.5 * w**0.5):
            raise Mismatch("the warm-up is missing: for t ≤ w the rate rises linearly, lr_max · t / w")
        expect_close(f"lr(t) for w = {w}", got, recipe.schedule(t64, lr_max, w), atol=1e-5 * lr_max)
    return len(cases)


@checker("label smoothing", reference=recipe.smoothed_targets)
def check_smoothed_targets(fn: Callable[[Tensor, int, float], Tensor]) -> int:
    """Lesson 17: ``fn(y, n_words, eps)`` → q = (1 − ε) onehot(y) + ε/K ``[n, K]``."""
    cases = [(torch.tensor([2, 0, 4]), 5, 0.1), (torch.tensor([6, 1]), 7, 0.3)]
    for y, K, eps in cases:
        got = fn(y.clone(), K, eps)
        onehot = torch.nn.functional.one_hot(y, K).double()
        if close(got, (1 - eps) * onehot + eps / (K - 1) * (1 - onehot)):
            raise Mismatch(
                "the right word's target is 1 − ε: ε/K goes to every word, the right one included, "
                "so the right word gets 1 − ε + ε/K and each other ε/K"
            )
        if close(got, onehot + eps / K):
            raise Mismatch("the rows sum to 1 + ε: scale the one-hot part by 1 − ε")
        if close(got, (1 - eps) * onehot + eps):
            raise Mismatch("ε is spread over the K words: each gets ε/K, not ε")
        expect_close(f"q for K = {K}, ε = {eps}", got, recipe.smoothed_targets(y, K, eps).double())
    return len(cases)


@checker("sinusoidal positions", reference=sinusoidal_positions)
def check_positions(fn: Callable[[int, int], Tensor]) -> int:
    """Lesson 17: ``fn(T, d)`` → PE ``[T, d]``, PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(…)."""
    for T, d in ((6, 8), (50, 16)):
        got = fn(T, d)
        pos = torch.arange(T, dtype=torch.float64)[:, None]
        angle = pos * 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        want = torch.stack([angle.sin(), angle.cos()], -1).flatten(1)
        if close(got, torch.stack([angle.cos(), angle.sin()], -1).flatten(1)):
            raise Mismatch("sin and cos are swapped: column 2i holds the sine, column 2i + 1 the cosine")
        if close(got, torch.cat([angle.sin(), angle.cos()], -1)):
            raise Mismatch("the sines fill the first half: interleave them, sin in column 2i, cos in 2i + 1")
        slow = pos * 10000.0 ** (-torch.arange(0, d // 2, dtype=torch.float64) / d)
        if close(got, torch.stack([slow.sin(), slow.cos()], -1).flatten(1)):
            raise Mismatch("the exponent of 10000 is 2i/d (i the pair of columns), not i/d")
        expect_close(f"PE for T = {T}, d = {d}", got, want)
    return 2


@checker("decoder self-attention mask", reference=stack.target_mask)
def check_target_mask(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 17: ``fn(tgt_visible [B, T])`` → boolean ``[B, 1, T, T]``, True where t may read u: u ≤ t and
    u a real (not padding) target position."""
    visible = torch.arange(5) < torch.tensor([5, 3, 1])[:, None]
    got = fn(visible.clone())
    B, T = visible.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    want = causal & visible[:, None, None, :]
    if isinstance(got, Tensor) and got.shape == (B, T, T):
        raise Mismatch(f"shape {(B, T, T)}: add a head axis, [B, 1, T, T], to broadcast over the heads")
    if isinstance(got, Tensor) and got.dtype != torch.bool:
        raise Mismatch(f"the mask should be boolean (True = visible), got {got.dtype}")
    if isinstance(got, Tensor) and got.shape == want.shape:
        if torch.equal(got, ~want):
            raise Mismatch("True should mark what a position may read (PyTorch's masks mark the hidden ones)")
        if torch.equal(got, causal.expand_as(got)):
            raise Mismatch(
                "the padded target positions are visible as keys: combine the causal mask with tgt_visible"
            )
        if (got & ~causal).any():
            raise Mismatch(
                "a position reads a later one: the decoder's self-attention needs the causal mask u ≤ t"
            )
    expect_close("mask", got.float() if isinstance(got, Tensor) else got, want.float())
    return 1
