"""Argument checks shared by every public helper: a bad argument gets one clear error that names it
and the allowed range ("top_k must be an integer in 1..2048, got 2.5"), never a raw exception from
deep inside torch or scipy. A bool is not accepted as a number; NaN and ±inf fail every range.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sized

import torch
from torch import Tensor


def integer(name: str, value: object, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in lo..hi (hi = None: no upper bound)."""
    allowed = f"an integer in {lo}..{hi}" if hi is not None else f"an integer ≥ {lo}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def real(
    name: str, value: object, lo: float, hi: float, *, open_lo: bool = False, open_hi: bool = False
) -> float:
    """``value`` as a finite float in the interval from lo to hi (each end open or closed)."""
    interval = f"{'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in {interval}, got {value!r}")
    value = float(value)
    inside = (lo < value if open_lo else lo <= value) and (value < hi if open_hi else value <= hi)
    if not (math.isfinite(value) and inside):
        raise ValueError(f"{name} must be a finite number in {interval}, got {value}")
    return value


def positive(name: str, value: object) -> float:
    """A finite number > 0 (a temperature, a learning rate)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number > 0, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}")
    return float(value)


def finite(name: str, value: object) -> float:
    """Any finite number (a length penalty)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        kind = ValueError if isinstance(value, numbers.Real) and not isinstance(value, bool) else TypeError
        raise kind(f"{name} must be a finite number, got {value!r}")
    return float(value)


def tensor(name: str, x: object) -> Tensor:
    """``x`` must be a torch.Tensor."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(x).__name__}")
    return x


def same_length(what: str, a_name: str, a: Sized, b_name: str, b: Sized) -> None:
    """Two sequences that go together (values and their labels) have one entry each."""
    if len(a) != len(b):
        raise ValueError(f"{len(a)} {a_name} but {len(b)} {b_name}: {what} needs one of each")


def at_least(name: str, value: object, low: float) -> float:
    """A finite number ≥ ``low`` (α ≥ 1 of entmax, λ ≥ 0 of fusedmax)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a finite number ≥ {low:g}, got {value!r}")
    if not (math.isfinite(value) and value >= low):
        raise ValueError(f"{name} must be a finite number ≥ {low:g}, got {value}")
    return float(value)


def matrix_labels(A: object, rows: Sized, cols: Sized) -> None:
    """A heatmap's matrix is [rows, cols]: one label per row and per column."""
    shape = tuple(getattr(A, "shape", ()))
    if shape != (len(rows), len(cols)):
        raise ValueError(f"A is {shape} but there are {len(rows)} row and {len(cols)} column labels")


def scores(name: str, z: Tensor, dim: int = -1) -> Tensor:
    """Scores or logits: at least one position along ``dim``; −∞ is allowed (a masked position, a
    removed token), +∞ and NaN are not."""
    if not isinstance(z, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(z).__name__}")
    if z.dim() == 0 or z.size(dim) == 0:
        raise ValueError(
            f"{name} must have at least one position along dim={dim}, got shape {tuple(z.shape)}"
        )
    if torch.isnan(z).any() or torch.isposinf(z).any():
        raise ValueError(f"{name} has +inf or NaN scores: use −inf to mask a position")
    return z
