"""Checkers for lesson 05: the top-k and top-p (nucleus) filters."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _expect_filtered(name: str, got: object, logits: Tensor, want: Tensor) -> None:
    """Shared diagnosis for logit filters: what was removed must be −∞, what was kept unchanged."""
    if isinstance(got, Tensor) and got.shape == want.shape:
        removed, kept = torch.isinf(want), torch.isfinite(want)
        if (got[removed] == 0).any():
            raise Mismatch("removed tokens should get the logit −inf, not 0 (0 is an ordinary logit)")
        if not close(got[kept & torch.isfinite(got)], logits[kept & torch.isfinite(got)]):
            raise Mismatch("kept logits must stay as they were: return logits, not probabilities")
        n_got, n_want = torch.isfinite(got).sum(-1).flatten(), kept.sum(-1).flatten()
        hint = ""
        if name == "top-p" and bool((n_got < n_want).any()):
            hint = (
                "; you dropped the token that crosses p: keep a token while the mass *before* it is below p"
            )
        if (n_got == 0).any():
            raise Mismatch(f"a row keeps no token at all: at least one must survive{hint}")
        if (n_got != n_want).any():
            row = int((n_got != n_want).nonzero()[0, 0])
            raise Mismatch(
                f"{name} keeps {int(n_got[row])} tokens in row {row}, expected {int(n_want[row])}{hint}"
            )
    expect_close(f"{name}(logits)", got, want)


@checker("top-k filter")
def check_top_k_filter(fn: Callable[[Tensor, int], Tensor]) -> int:
    """Lesson 05: ``fn(logits, k)`` keeps the k largest logits of the last dim, −inf elsewhere
    (ties at the k-th value: the lower token id wins)."""
    from xai_tf.transformer.decoding import top_k_filter

    gen = torch.Generator().manual_seed(0)
    z = torch.randn(10, generator=gen) * 2
    runs = [(z, 1), (z, 3), (z, 10), (torch.randn(2, 8, generator=gen), 2)]
    runs.append((torch.tensor([1.0, 2.0, 2.0, 2.0, 0.0]), 2))  # a tie: tokens 1 and 2 are kept
    for logits, k in runs:
        _expect_filtered("top-k", fn(logits.clone(), k), logits, top_k_filter(logits, k))
    return len(runs)


@checker("top-p filter")
def check_top_p_filter(fn: Callable[[Tensor, float], Tensor]) -> int:
    """Lesson 05: ``fn(logits, p)`` keeps the smallest set of most likely tokens whose probability
    reaches p (always at least one), −inf elsewhere."""
    from xai_tf.transformer.decoding import top_p_filter

    z = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
    runs = [(z, 0.5), (z, 0.6), (z, 0.9), (z, 1.0), (z, 1e-4)]
    runs.append((torch.randn(3, 12, generator=torch.Generator().manual_seed(1)) * 2, 0.7))
    for logits, p in runs:
        _expect_filtered("top-p", fn(logits.clone(), p), logits, top_p_filter(logits, p))
    return len(runs)
