"""Argument checks shared by every public helper: a bad argument gets one clear error that names it
and the allowed range ("top_k must be an integer in 1..2048, got 2.5"), never a raw exception from
deep inside torch or scipy. A bool is not accepted as a number; NaN and ±inf fail every range.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sized

import psutil

try:
    import resource
except ImportError:  # Windows has no address-space limit to read
    resource = None  # type: ignore[assignment]
import torch
from torch import Tensor


def integer(name: str, value: object, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in lo..hi (hi = None: no upper bound)."""
    allowed = f"an integer in {lo}..{hi}" if hi is not None else f"an integer ≥ {lo}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    number = int(value)
    if number < lo or (hi is not None and number > hi):
        raise ValueError(f"{name} must be {allowed}, got {number}")
    return number


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
    number = float(value)
    if not (math.isfinite(number) and number > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {number}")
    return number


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
    number = float(value)
    if not (math.isfinite(number) and number >= low):
        raise ValueError(f"{name} must be a finite number ≥ {low:g}, got {number}")
    return number


def matrix_labels(A: object, rows: Sized, cols: Sized) -> None:
    """A heatmap's matrix is [rows, cols]: one label per row and per column."""
    shape = tuple(getattr(A, "shape", ()))
    if shape != (len(rows), len(cols)):
        raise ValueError(
            f"A is {shape} but there are {len(rows)} row and {len(cols)} column labels "
            "(rows and cols: one label per row and per column of A)"
        )


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


def strings(name: str, texts: object) -> list[str]:
    """A list of strings (sentences, words); a bare string is refused, since iterating it would
    silently treat every character as one text."""
    if isinstance(texts, str):
        raise TypeError(f"{name} must be a list of strings, got one str: wrap it as [{texts[:20]!r}]")
    if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
        raise TypeError(f"{name} must be a list of strings, got {type(texts).__name__}")
    return list(texts)


def indices(name: str, idx: object, n: int) -> list[int]:
    """Positions in 0..n−1 (a list, tuple or integer tensor); 1.7 is refused, not truncated to 1."""
    if isinstance(idx, Tensor):
        if idx.is_floating_point() or idx.is_complex() or idx.dtype == torch.bool:
            raise TypeError(f"{name} must hold integer positions in 0..{n - 1}, got a {idx.dtype} tensor")
        idx = idx.flatten().tolist()
    if not isinstance(idx, (list, tuple, range)):
        raise TypeError(f"{name} must be a list of integer positions in 0..{n - 1}, got {type(idx).__name__}")
    return [integer(f"{name}[{k}]", i, 0, n - 1) for k, i in enumerate(idx)]


def token_ids(name: str, ids: object, vocab_size: int) -> Tensor:
    """Token ids of one vocabulary as a long tensor: integers in 0..V−1. An id outside means the data
    were encoded with another vocabulary than the model's (torch would say "index out of range")."""
    if isinstance(ids, (list, tuple)):
        if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in _flat(ids)):
            raise TypeError(f"{name} must hold integer token ids in 0..{vocab_size - 1}")
        ids = torch.tensor(ids, dtype=torch.long, device="cpu")
    ids = tensor(name, ids)
    if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer token ids in 0..{vocab_size - 1}, got {ids.dtype}")
    if ids.numel() and (int(ids.min()) < 0 or int(ids.max()) >= vocab_size):
        bad = int(ids.min()) if int(ids.min()) < 0 else int(ids.max())
        raise ValueError(
            f"{name} must be token ids in 0..{vocab_size - 1} (the model's vocabulary), got {bad}: "
            "were the data encoded with another vocabulary?"
        )
    return ids.long()


def _flat(xs: object) -> list[object]:
    if isinstance(xs, (list, tuple)):
        return [y for x in xs for y in _flat(x)]
    return [xs]


def real_tensor(name: str, x: object, dims: int | None = None) -> Tensor:
    """A floating tensor (of ``dims`` dimensions when given) with finite entries.

    The dtype rule of the package: integer, bool and complex data are refused by name; parameter-free
    computations follow the input's floating dtype (``compute_dtype``: float16/bfloat16 are computed in
    float32, which CPU linear algebra needs); a trained module converts its input once, where it
    enters, to its parameters' dtype (``like``)."""
    x = tensor(name, x)
    if not x.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor (float32 or float64), got {x.dtype}")
    if dims is not None and x.dim() != dims:
        raise ValueError(f"{name} must have {dims} dimensions, got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} has NaN or ±inf entries: every entry must be a finite number")
    return x


def compute_dtype(x: Tensor) -> torch.dtype:
    """The dtype a parameter-free computation on ``x`` runs in: x's, with half precision raised to float32."""
    return torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype


def like(name: str, x: object, module: torch.nn.Module, dims: int | None = None) -> Tensor:
    """``x`` checked by ``real_tensor`` and converted once to the dtype and device of ``module``'s
    parameters (float64 data into a float32 model are computed in float32)."""
    p = next(module.parameters())
    return real_tensor(name, x, dims).to(dtype=p.dtype, device=p.device)


def same_shape(what: str, a_name: str, a: Tensor, b_name: str, b: Tensor) -> None:
    """Two tensors that pair entry by entry (scores and their mask, φ and z) have one shape."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(
            f"{a_name} is {tuple(a.shape)} but {b_name} is {tuple(b.shape)}: {what} pairs them entry by entry"
        )


def device(name: str, value: object) -> torch.device:
    """A device this machine has ("cpu", "cuda", "cuda:1", "mps" or a ``torch.device``): torch's own
    error for a missing CUDA says neither which argument nor what to use instead."""
    allowed = "'cpu', 'cuda', 'cuda:N' or 'mps' (a str or torch.device)"
    if not isinstance(value, (str, torch.device)):
        raise TypeError(f"{name} must be {allowed}, got {value!r}")
    try:
        dev = torch.device(value)
    except RuntimeError:
        raise ValueError(f"{name} {value!r} is not a torch device: use {allowed}") from None
    have = {"cpu": True, "cuda": torch.cuda.is_available(), "mps": torch.backends.mps.is_available()}
    found = ", ".join(repr(k) for k, v in have.items() if v)
    if not have.get(dev.type, False):
        raise ValueError(f"{name} {value!r} is not available on this machine, which has {found}")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        last = torch.cuda.device_count() - 1
        raise ValueError(f"{name} {value!r} is not available on this machine: it has cuda:0..cuda:{last}")
    return dev


def available_ram() -> int:
    """Bytes of RAM available now, as psutil reads it on Linux, macOS and Windows alike (a guard that
    read only Linux's /proc/meminfo never refused anything elsewhere), and no more than the process's
    address-space limit leaves (``ulimit -v``, a grader's sandbox), where it has one."""
    free = int(psutil.virtual_memory().available)
    if resource is not None:
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit != resource.RLIM_INFINITY:
            free = min(free, max(0, limit - int(psutil.Process().memory_info().vms)))
    return free


def fits(what: str, n_bytes: float, advice: str, device: torch.device | str = "cpu") -> None:
    """Refuse, before allocating, a computation whose largest buffers need more than the memory free
    now (the CPU's available RAM, or the GPU's free memory); ``advice`` says what to choose instead."""
    device = torch.device(device)
    free = torch.cuda.mem_get_info(device)[0] if device.type == "cuda" else available_ram()
    if n_bytes > free:
        raise ValueError(
            f"{what} needs {n_bytes / 2**30:.1f} GiB, more than the {free / 2**30:.1f} GiB free on "
            f"{device.type}: {advice}"
        )


def flag(name: str, value: object) -> bool:
    """True or False (a string such as "no" is truthy and would silently mean True)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def optional_callback(name: str, value: object) -> Callable[[], object] | None:
    """None or a function of no arguments (a slow panel's ``_cancel.checkpoint``)."""
    if value is not None and not callable(value):
        raise TypeError(f"{name} must be a function of no arguments or None, got {type(value).__name__}")
    return value


def floating_dtype(name: str, dtype: object) -> torch.dtype | None:
    """None (torch's default) or a floating-point torch dtype: an integer dtype would round random
    projections to zeros."""
    if dtype is not None and not (isinstance(dtype, torch.dtype) and dtype.is_floating_point):
        raise TypeError(
            f"dtype must be a floating-point dtype (torch.float32, torch.float64) or None, got {dtype!r}"
        )
    return dtype


def real_vector(name: str, x: object) -> Tensor:
    """One score per position (a list of numbers, a real tensor or numpy array ``[T]``) as a float64
    CPU tensor with finite entries: bools, strings and complex numbers are refused by name, and NaN
    too (torch ranks NaN first, scipy's τ turns it into NaN)."""
    if not isinstance(x, (Tensor, list, tuple, str)) and hasattr(x, "__array__"):
        try:
            x = torch.as_tensor(x)
        except (TypeError, RuntimeError):
            raise TypeError(f"{name} must be a list or tensor of real numbers [T]") from None
    if isinstance(x, Tensor):
        if x.dtype == torch.bool or x.is_complex():
            raise TypeError(f"{name} must hold real numbers, got a {x.dtype} tensor")
        x = x.detach().cpu().double()
    elif isinstance(x, (list, tuple)) and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) for v in x
    ):
        x = torch.tensor([float(v) for v in x], dtype=torch.float64)
    else:
        raise TypeError(f"{name} must be a list or tensor of real numbers [T], got {type(x).__name__}")
    if x.dim() != 1:
        raise ValueError(f"{name} must be a vector [T], got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} has NaN or ±inf entries: every score must be a finite number")
    return x
