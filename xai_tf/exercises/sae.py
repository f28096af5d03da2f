"""Checkers for lesson 10: the sparse autoencoder's loss, and the feature activation a_j ‖W^dec_{:,j}‖."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _case(seed: int, n: int = 6, d: int = 4, F: int = 8) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(n, d, generator=g, dtype=torch.float64)
    W_enc = torch.randn(F, d, generator=g, dtype=torch.float64)
    b_enc = torch.randn(F, generator=g, dtype=torch.float64) * 0.5
    W_dec = torch.randn(d, F, generator=g, dtype=torch.float64) * torch.linspace(
        0.2, 3, F, dtype=torch.float64
    )
    b_dec = torch.randn(d, generator=g, dtype=torch.float64)
    return h, W_enc, b_enc, W_dec, b_dec


def _loss(
    h: Tensor,
    W_enc: Tensor,
    b_enc: Tensor,
    W_dec: Tensor,
    b_dec: Tensor,
    lam: float,
    norm: str = "dec",
    rows: str = "mean",
    square: bool = True,
) -> Tensor:
    """L, or a known mistake: ``norm`` "dec" (right), "none", "dec²", "enc"; ``rows`` "mean" (right),
    "sum" (over the rows), "all" (a mean over rows and coordinates),
    "error" (that in ‖h − s‖² only); ``square=False``: ‖h − s‖."""
    a = torch.relu(h @ W_enc.T + b_enc)
    s = a @ W_dec.T + b_dec
    weight = {"dec": W_dec.norm(dim=0), "none": 1.0, "dec²": W_dec.norm(dim=0) ** 2, "enc": W_enc.norm(dim=1)}
    error = ((h - s) ** 2).sum(-1) if square else (h - s).norm(dim=-1)
    penalty = (a * weight[norm]).sum(-1)
    if rows in ("all", "error"):  # a mean over the coordinates of h − s (and of a, for "all")
        error, penalty = error / h.size(1), penalty / (a.size(1) if rows == "all" else 1)
    return (error + lam * penalty).sum() if rows == "sum" else (error + lam * penalty).mean()


MISTAKES = (
    ({"norm": "none"}, "the penalty misses ‖W^dec_{:,j}‖: weigh each a_j by its decoder column's norm"),
    ({"norm": "dec²"}, "the penalty weighs a_j by ‖W^dec_{:,j}‖²: use the norm itself, not its square"),
    ({"norm": "enc"}, "the penalty weighs a_j by ‖W^enc_{j,:}‖: use the decoder column ‖W^dec_{:,j}‖"),
    ({"rows": "sum"}, "L sums over the rows: take the mean (1/n) Σ_i"),
    (
        {"rows": "all"},
        "L averages over the coordinates too: ‖h − s‖² and Σ_j are sums, only the rows are averaged",
    ),
    ({"rows": "error"}, "‖h − s‖² is averaged over the d coordinates: sum them, average only the rows"),
    ({"square": False}, "the reconstruction term is ‖h − s‖: square it"),
)


@checker("SAE loss")
def check_sae_loss(fn: Callable[..., Tensor]) -> int:
    """Lesson 10: ``fn(h, W_enc, b_enc, W_dec, b_dec, lam)`` → L, a 0-d tensor, with ``h [n, d]``."""
    for seed, lam in ((1, 0.3), (2, 2.0), (0, 0.0)):
        case = _case(seed)
        got = fn(*(t.clone() for t in case), lam)
        want = _loss(*case, lam)
        if isinstance(got, Tensor) and got.shape == () and not close(got, want):
            for kwargs, why in MISTAKES:
                if close(got, _loss(*case, lam, **kwargs)):
                    raise Mismatch(why)
        expect_close("L", got, want, atol=1e-8)
    return 3


@checker("feature activation")
def check_feature_activation(fn: Callable[..., Tensor]) -> int:
    """Lesson 10: ``fn(h, W_enc, b_enc, W_dec)`` → a_j(h) ‖W^dec_{:,j}‖ for every row and feature,
    ``[n, F]``."""
    for seed in (0, 1):
        h, W_enc, b_enc, W_dec, _ = _case(seed)
        want = torch.relu(h @ W_enc.T + b_enc) * W_dec.norm(dim=0)
        got = fn(h.clone(), W_enc.clone(), b_enc.clone(), W_dec.clone())
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, (h @ W_enc.T + b_enc) * W_dec.norm(dim=0)):
                raise Mismatch("negative values: apply the ReLU to W^enc h + b^enc")
            if close(got, torch.relu(h @ W_enc.T + b_enc) * W_enc.norm(dim=1)):
                raise Mismatch(
                    "scaled by ‖W^enc_{j,:}‖: the feature activation uses the decoder column's norm"
                )
            if close(got, torch.relu(h @ W_enc.T + b_enc)):
                raise Mismatch("that is the code a_j alone: multiply by ‖W^dec_{:,j}‖")
            if close(got, torch.relu(h @ W_enc.T + b_enc) * W_dec.norm(dim=0) ** 2):
                raise Mismatch("scaled by ‖W^dec_{:,j}‖²: use the norm, not its square")
            if close(got, torch.relu(h @ W_enc.T + b_enc) * W_dec.norm(dim=1).mean()):
                raise Mismatch("the norm is over a row of W^dec: take each column's norm, dim=0")
        expect_close("a_j ‖W^dec_j‖", got, want, atol=1e-8)
    return 2
