"""Checkers for lesson 10: the SAE's encoder, its loss, the feature activation a_j ‖W^dec_{:,j}‖, L0, FVU, and
a clamp that keeps the SAE's error term."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.sae import formulas, metrics


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


@checker("SAE loss", reference=formulas.loss)
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


@checker("feature activation", reference=formulas.feature_activation)
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


@checker("SAE encoder", reference=formulas.encode)
def check_sae_encode(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 10: ``fn(h, W_enc, b_enc)`` → the codes a(h) = ReLU(h W_encᵀ + b_enc), ``[n, F]``."""
    for seed in (3, 4):
        h, W_enc, b_enc, _, _ = _case(seed)
        got = fn(h.clone(), W_enc.clone(), b_enc.clone())
        pre = h @ W_enc.T + b_enc
        if isinstance(got, Tensor) and got.shape == pre.shape:
            if close(got, pre):
                raise Mismatch("negative codes: apply the ReLU to h W_encᵀ + b_enc")
            if close(got, torch.relu(h @ W_enc.T)):
                raise Mismatch("b_enc is missing: add the encoder bias before the ReLU")
            if close(got, torch.relu(h @ W_enc.T) + b_enc):
                raise Mismatch("b_enc was added after the ReLU: add it before, a = ReLU(h W_encᵀ + b_enc)")
        expect_close("a", got, torch.relu(pre), atol=1e-8)
    return 2


def _number(name: str, got: object) -> Tensor:
    """``got`` as a float64 0-d tensor: a float, or a tensor holding one number."""
    if got is None:
        raise Mismatch(f"{name} is None: did you forget to `return` it?")
    if isinstance(got, int | float) and not isinstance(got, bool):
        return torch.tensor(float(got), dtype=torch.float64)
    if not isinstance(got, Tensor) or got.numel() != 1:
        raise Mismatch(f"{name} should be one number (a float or a 0-d tensor), got {type(got).__name__}")
    return got.reshape(())


@checker("L0", reference=metrics.l0)
def check_l0(fn: Callable[[Tensor], object]) -> int:
    """Lesson 10: ``fn(a [n, F])`` → L0 = (1/n) Σ_i #{j : a_ij > 0}, one number."""
    g = torch.Generator().manual_seed(10)
    a = torch.relu(torch.randn(6, 8, generator=g, dtype=torch.float64) - 0.3)
    a[2] = 0.0  # a token on which no feature fires
    for codes in (a, a[:3] * 5):
        got = _number("L0", fn(codes.clone()))
        active = (codes > 0).double()
        wrong = {
            "counts a_j ≥ 0, which every ReLU output is: count the codes a_j > 0": (codes >= 0).double(),
            "that is the mean of Σ_j a_j (an L1 norm): L0 counts the active codes, a_j > 0": codes,
        }
        for why, counted in wrong.items():
            if close(got, counted.sum(-1).mean()):
                raise Mismatch(why)
        if close(got, active.sum()):
            raise Mismatch(f"that is the total over all {len(codes)} rows: average the count over the rows")
        if close(got, active.mean()):
            raise Mismatch(
                "that is the share of active features: L0 is their number per token (do not divide by F)"
            )
        expect_close("L0", got, active.sum(-1).mean())
    return 2


@checker("FVU", reference=metrics.fvu)
def check_fvu(fn: Callable[[Tensor, Tensor], object]) -> int:
    """Lesson 10: ``fn(h, s)`` (rows ``[n, d]``) → FVU = Σ_i ‖h⁽ⁱ⁾ − s⁽ⁱ⁾‖² / Σ_i ‖h⁽ⁱ⁾ − h̄‖², one number."""
    g = torch.Generator().manual_seed(5)
    h = torch.randn(8, 4, generator=g, dtype=torch.float64) * torch.tensor([3.0, 1.0, 0.5, 0.2]) + 2.0
    for noise in (0.3, 1.0):
        s = h + noise * torch.randn(8, 4, generator=g, dtype=torch.float64)
        got = _number("FVU", fn(h.clone(), s.clone()))
        error = ((h - s) ** 2).sum()
        want = error / ((h - h.mean(0)) ** 2).sum()
        if close(got, error / (h**2).sum()):
            raise Mismatch("the denominator is Σ‖h − h̄‖²: subtract the mean row h̄ before squaring")
        if close(got, 1 - want):
            raise Mismatch("that is the share of variance explained, 1 − FVU: return the unexplained share")
        if close(got, (((h - s) ** 2).sum(0) / ((h - h.mean(0)) ** 2).sum(0)).mean()):
            raise Mismatch(
                "one ratio of two sums over rows and coordinates, not the mean of per-coordinate ratios"
            )
        if close(got, error) or close(got, error / h.numel()):
            raise Mismatch("that is the squared error alone: divide it by Σ‖h − h̄‖²")
        expect_close("FVU", got, want)
    return 2


@checker("clamp with the error term", reference=formulas.clamp)
def check_clamp(fn: Callable[..., Tensor]) -> int:
    """Lesson 10: ``fn(h, W_enc, b_enc, W_dec, j, v)`` → h′ = h + (v − a_j(h)) W^dec_{:,j} at every row."""
    for seed, j, v in ((6, 2, 4.0), (7, 5, 0.0)):
        h, W_enc, b_enc, W_dec, _ = _case(seed)
        got = fn(h.clone(), W_enc.clone(), b_enc.clone(), W_dec.clone(), j, v)
        pre = h @ W_enc[j] + b_enc[j]
        want = h + (v - pre.relu())[:, None] * W_dec[:, j]
        if isinstance(got, Tensor) and got.shape == h.shape and not close(got, want):
            move = got.double() - h
            direction = W_dec[:, j] / W_dec[:, j].norm()
            off = move - (move @ direction)[:, None] * direction
            if off.norm() > 1e-4 * (1 + move.norm()):
                raise Mismatch(
                    "h′ − h has a part off W_dec[:, j]: keep the error term, h′ = s′(h) + (h − s(h)), "
                    "so that only feature j's code moves"
                )
            if close(got, h + v * W_dec[:, j]):
                raise Mismatch(
                    "h already holds a_j(h) W_dec[:, j]: add (v − a_j(h)) W_dec[:, j], not v W_dec[:, j]"
                )
            if close(got, h + (v - pre)[:, None] * W_dec[:, j]):
                raise Mismatch(
                    "a_j(h) is the ReLU of W_enc[j] h + b_enc[j]: a negative pre-activation is a code of 0"
                )
        expect_close("h′", got, want, atol=1e-8)
    return 2
