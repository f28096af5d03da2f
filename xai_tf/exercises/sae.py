"""Checkers for lesson 10: the sparse autoencoder's loss, and the feature activation a_j ‖W^dec_{:,j}‖."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, expect_close


def _case(seed: int, n: int = 6, d: int = 4, F: int = 8) -> tuple[Tensor, ...]:
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
    h: Tensor, W_enc: Tensor, b_enc: Tensor, W_dec: Tensor, b_dec: Tensor, lam: float, norms: bool = True
):
    a = torch.relu(h @ W_enc.T + b_enc)
    s = a @ W_dec.T + b_dec
    weight = W_dec.norm(dim=0) if norms else 1.0
    return ((h - s) ** 2).sum(-1).mean() + lam * (a * weight).sum(-1).mean()


@checker("SAE loss")
def check_sae_loss(fn: Callable[..., Tensor]) -> int:
    """Lesson 10: ``fn(h, W_enc, b_enc, W_dec, b_dec, lam)`` → L, a 0-d tensor, with ``h [n, d]``."""
    for seed, lam in ((0, 0.0), (1, 0.3), (2, 2.0)):
        h, W_enc, b_enc, W_dec, b_dec = _case(seed)
        got = fn(h.clone(), W_enc.clone(), b_enc.clone(), W_dec.clone(), b_dec.clone(), lam)
        if isinstance(got, Tensor) and got.shape == () and lam > 0:
            for wrong, why in (
                (_loss(h, W_enc, b_enc, W_dec, b_dec, lam, norms=False), "the penalty misses ‖W^dec_{:,j}‖"),
                (_loss(h, W_enc, b_enc, W_dec, b_dec, lam) * len(h), "L sums over the rows: take the mean"),
            ):
                if torch.isclose(got.double(), wrong) and not torch.isclose(
                    wrong, _loss(h, W_enc, b_enc, W_dec, b_dec, lam)
                ):
                    raise Mismatch(why)
        expect_close("L", got, _loss(h, W_enc, b_enc, W_dec, b_dec, lam), atol=1e-8)
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
            if torch.allclose(got.double(), (h @ W_enc.T + b_enc) * W_dec.norm(dim=0)):
                raise Mismatch("negative values: apply the ReLU to W^enc h + b^enc")
            if torch.allclose(got.double(), torch.relu(h @ W_enc.T + b_enc) * W_enc.norm(dim=1)):
                raise Mismatch(
                    "scaled by ‖W^enc_{j,:}‖: the feature activation uses the decoder column's norm"
                )
            if torch.allclose(got.double(), torch.relu(h @ W_enc.T + b_enc) * W_dec.norm(dim=1).mean()):
                raise Mismatch("the norm is over a row of W^dec: take each column's norm, dim=0")
        expect_close("a_j ‖W^dec_j‖", got, want, atol=1e-8)
    return 2
