"""Argument checks shared by the modules of ``xai_tf.efficient`` (lesson 14): queries, keys and
values of one attention call, and the memory a computation would need, refused before allocating."""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks


def qkv(Q: object, K: object, V: object) -> tuple[Tensor, Tensor, Tensor]:
    """``Q [..., n, d]``, ``K [..., m, d]``, ``V [..., m, d_v]``: floating, one dtype and device,
    finite; else a TypeError/ValueError that names the argument."""
    q, k, v = (_one(name, x) for name, x in (("Q", Q), ("K", K), ("V", V)))
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"Q, K and V must share one dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.size(-1) != k.size(-1):
        raise ValueError(f"Q has {q.size(-1)} features but K has {k.size(-1)}: they must match")
    if k.size(-2) != v.size(-2):
        raise ValueError(f"K has {k.size(-2)} positions but V has {v.size(-2)}: they must match")
    if k.size(-2) == 0:
        raise ValueError("K and V have no positions: there is nothing to attend to")
    return q, k, v


def _one(name: str, x: object) -> Tensor:
    x = _checks.tensor(name, x)
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got {x.dtype}")
    if x.dim() < 2 or x.size(-1) == 0:
        raise ValueError(f"{name} must be [..., positions, features] with features ≥ 1, got {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} has NaN or inf entries")
    return x


def same_dtype(name: str, x: Tensor, like_name: str, like: Tensor) -> None:
    """``x`` multiplies ``like``: one dtype and device, else a TypeError naming both (no silent promotion:
    the lesson compares float32 and float64 errors, and a float64 W would silently make them float64)."""
    if x.dtype != like.dtype or x.device != like.device:
        raise TypeError(
            f"{name} and {like_name} must share dtype and device, got {x.dtype} on {x.device} and "
            f"{like.dtype} on {like.device}: convert one, e.g. {name}.to({like_name}.dtype)"
        )


def finite_scores(s: Tensor, what: str) -> Tensor:
    """Scores (or the ratios of linear attention) that overflowed to ±inf or NaN for huge Q and K in
    float32 (a softmax or a ratio of infinities would return NaN without a word): refused by name."""
    if not torch.isfinite(s).all():
        raise ValueError(
            f"the scores {what} overflow {s.dtype} (largest finite {torch.finfo(s.dtype).max:.3g}): Q and K "
            "are too large; scale them down or compute in float64"
        )
    return s


def mask(name: str, M: object, n: int, m: int) -> Tensor | None:
    """An optional boolean mask that broadcasts to ``[..., n, m]`` (True = may attend)."""
    if M is None:
        return None
    M = _checks.tensor(name, M)
    if M.dtype != torch.bool:
        raise TypeError(f"{name} must be a boolean tensor (True = visible), got {M.dtype}")
    if M.dim() < 2 or M.size(-2) not in (1, n) or M.size(-1) not in (1, m):
        raise ValueError(f"{name} must broadcast to [..., {n}, {m}], got {tuple(M.shape)}")
    return M


def fits(what: str, n_bytes: float, device: torch.device | str = "cpu") -> None:
    """``_checks.fits`` with lesson 14's advice: a smaller n, or chunked attention."""
    _checks.fits(
        what,
        n_bytes,
        "choose a smaller n (or chunked_attention, which never builds the n × n matrix)",
        device,
    )


def scale(d: int) -> float:
    """1/√d_att, the scaling of the scores."""
    return 1 / math.sqrt(d)
