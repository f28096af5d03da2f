"""Checkers for lesson 04: LayerNorm."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


@checker("LayerNorm")
def check_layer_norm(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(u, gamma, beta)`` → γ ⊙ (u − μ) / √(σ² + 1e-5) + β over the last dim."""
    import torch.nn.functional as F

    gen = torch.Generator().manual_seed(0)
    shapes = [(8,), (3, 16), (2, 5, 32)]
    for shape in shapes:
        u = torch.randn(shape, generator=gen) * 3 + 1
        gamma, beta = torch.randn(shape[-1], generator=gen), torch.randn(shape[-1], generator=gen)
        want = F.layer_norm(u, shape[-1:], gamma, beta, 1e-5)
        got = fn(u.clone(), gamma, beta)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            unbiased = (u - u.mean(-1, keepdim=True)) / torch.sqrt(u.var(-1, keepdim=True) + 1e-5)
            if close(got, gamma * unbiased + beta, atol=1e-4):
                raise Mismatch("σ² is the biased variance (divide by d, not d − 1): var(unbiased=False)")
            plain = F.layer_norm(u, shape[-1:], None, None, 1e-5)
            if close(got, plain, atol=1e-4):
                raise Mismatch("apply the learned scale γ and shift β after normalising")
        expect_close("LN(u)", got, want, atol=1e-4)
    return len(shapes)
