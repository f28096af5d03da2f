"""What every exercise checker shares (all lessons): the report, and checks that name what is wrong.

A checker is written as a function that runs known cases against the student's function, raises
``Mismatch`` with the message a student should see at the first problem, and returns how many
cases it ran. ``@checker(topic)`` turns it into what a lesson calls: it prints ``✔`` and returns
True when every case passes, otherwise prints ``✘`` with the problem and returns False. A checker
never raises, so a lesson runs top to bottom before it is solved — unless called with
``strict=True`` or under nbgrader's autograder or validator (``NBGRADER_EXECUTION`` set), where a
failure raises ``AssertionError`` with the same message, so that the grade cell scores 0.

``@checker(topic, reference=fn)`` also names the library function that answers the exercise;
``use(check, student_fn)`` (the line of a lesson's check cell) checks and returns the function the
lesson continues with: the student's where it passed (in the lesson's dtype), the reference otherwise,
saying so.
Answers in float16 or bfloat16 are refused before any case is judged (see ``ULPS``): the
student is told to compute in float32 or float64.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from functools import wraps

import numpy as np
import torch
from torch import Tensor


class Mismatch(Exception):
    """One failed expectation, with the message a student sees."""


def _grading() -> bool:
    """Whether nbgrader runs this kernel to autograde or validate (it sets NBGRADER_EXECUTION)."""
    return bool(os.environ.get("NBGRADER_EXECUTION"))


def checker(
    topic: str, reference: Callable | None = None
) -> Callable[[Callable[..., int]], Callable[..., bool]]:
    """Decorate ``run_cases(student_fn) -> n_cases`` into ``check(student_fn, strict=False) -> bool``
    (see above); ``reference`` is kept as ``check.reference`` for ``use``."""

    def decorate(run_cases: Callable[..., int]) -> Callable[..., bool]:
        @wraps(run_cases)
        def check(fn: Callable, strict: bool = False) -> bool:
            try:
                n = run_cases(_refusing_coarse(fn))
            except Mismatch as err:
                problem = str(err)
            except NotImplementedError:
                problem = "not written yet (your function raises NotImplementedError)"
            except Exception as err:  # the student's code raised: say so, not a traceback
                problem = f"your function raised {type(err).__name__}: {err}"
            else:
                print(f"✔ {topic}: all {n} cases pass")
                return True
            if strict or _grading():
                raise AssertionError(f"✘ {topic}: {problem}")
            print(f"✘ {topic}: {problem}")
            return False

        check.reference = reference  # type: ignore[attr-defined]
        check.topic = topic  # type: ignore[attr-defined]
        return check

    return decorate


def _cast(x: object, dtype: torch.dtype) -> object:
    """``x`` with every floating tensor in it (alone or in a tuple) cast to ``dtype``."""
    if isinstance(x, Tensor) and x.is_floating_point():
        return x.to(dtype)
    if isinstance(x, tuple):
        return tuple(_cast(v, dtype) for v in x)
    return x


def use(check: Callable[..., bool], fn: Callable) -> Callable:
    """Run ``check`` on the student's ``fn`` and return the function the lesson continues with: ``fn``
    where every case passed (its floating outputs cast to the dtype of its first floating tensor argument,
    else torch's default, so that a float64 answer does not break the next float32 cell; ``__wrapped__``
    is ``fn``), else the checker's library reference, with a printed line saying so."""
    reference = getattr(check, "reference", None)
    if reference is None:
        raise ValueError(f"check must be a checker made with @checker(topic, reference=...), got {check!r}")
    if check(fn):

        @wraps(fn)
        def in_lesson_dtype(*args: object) -> object:
            floats = (a.dtype for a in args if isinstance(a, Tensor) and a.is_floating_point())
            return _cast(fn(*args), next(floats, torch.get_default_dtype()))

        return in_lesson_dtype
    print(f"  the lesson goes on with {reference.__module__}.{reference.__qualname__} until yours passes")
    return reference


# A correct float32 computation differs from the float64 reference by a few hundred rounding steps of
# the largest value involved; a mistake differs by far more. The tolerance of an element is therefore
# atol + ULPS · ε · (|want| + max |want|), with ε the machine epsilon of the coarser of the two dtypes
# (torch.finfo; 0 for integers and booleans), so float32 and float64 answers are each judged at their own
# precision and ``atol`` stays the floor a float64 answer is held to. Answers coarser than float32
# (float16, bfloat16) are refused with a message: at their own ε the tolerance is about
# 2 (|want| + max |want|), wide enough to pass a wrong answer (out × 1.5, c = the mean of h).
ULPS = 256


def _eps(dtype: torch.dtype) -> float:
    return torch.finfo(dtype).eps if dtype.is_floating_point else 0.0


def _too_coarse(got: Tensor) -> bool:
    """Whether ``got`` is a floating dtype coarser than float32 (float16, bfloat16)."""
    return _eps(got.dtype) > torch.finfo(torch.float32).eps


def _coarse_dtype(result: object) -> str | None:
    """The name of the first float16/bfloat16 dtype in ``result`` (a tensor, a numpy value or a tuple,
    list or dict of them), or None."""
    if isinstance(result, Tensor):
        return str(result.dtype)[6:] if _too_coarse(result) else None
    if isinstance(result, np.ndarray | np.generic):
        return str(result.dtype) if result.dtype == np.float16 else None
    if isinstance(result, tuple | list | dict):
        items = result.values() if isinstance(result, dict) else result
        return next((name for name in map(_coarse_dtype, items) if name is not None), None)
    return None


def _refusing_coarse(fn: Callable) -> Callable:
    """``fn``, raising ``Mismatch`` when it returns float16 or bfloat16 (checked before the diagnoses)."""

    @wraps(fn)
    def call(*args: object, **kwargs: object) -> object:
        result = fn(*args, **kwargs)
        dtype = _coarse_dtype(result)
        if dtype is not None:
            raise Mismatch(_coarse_message("your function's answer", dtype))
        return result

    return call


def _coarse_message(name: str, dtype: str) -> str:
    digits = round(-math.log10(torch.finfo(getattr(torch, dtype)).eps))
    return (
        f"{name} is {dtype}, which keeps about {digits} significant digits: too few to tell a mistake "
        "from rounding. Compute in float32 or float64 (e.g. `.float()` or `.double()`)"
    )


def expect_fine_dtype(name: str, got: Tensor) -> None:
    """Raise ``Mismatch`` when ``got`` is float16 or bfloat16: answers are checked in float32 or float64."""
    if _too_coarse(got):
        raise Mismatch(_coarse_message(name, str(got.dtype)[6:]))


def tolerance(got: Tensor, want: Tensor, atol: float = 1e-5) -> Tensor:
    """The per-element tolerance for ``got`` against ``want`` (float64, broadcast to ``want``)."""
    eps = max(_eps(got.dtype), _eps(want.dtype))
    size = want.detach().double().abs().nan_to_num(0.0, posinf=0.0, neginf=0.0)
    return atol + ULPS * eps * (size + (size.max() if size.numel() else 0.0))


def _difference(got: Tensor, want: Tensor) -> Tensor:
    """|got − want| in float64: 0 where both are the same infinity, inf where exactly one is NaN/inf."""
    g, w = got.detach().double().cpu(), want.detach().double().cpu()
    same = (g == w) | (g.isnan() & w.isnan())
    return torch.where(same, torch.zeros_like(g), (g - w).abs().nan_to_num(torch.inf, torch.inf))


def close(got: object, want: Tensor, atol: float = 1e-5) -> bool:
    """Whether ``got`` is a tensor of ``want``'s shape equal to it within ``tolerance``; never for a float16
    or bfloat16 ``got`` (see ``expect_fine_dtype``)."""
    if not isinstance(got, Tensor) or got.shape != want.shape or _too_coarse(got):
        return False
    return bool((_difference(got, want) <= tolerance(got, want, atol).cpu()).all())


def expect_close(name: str, got: object, want: Tensor, atol: float = 1e-5) -> None:
    """Raise ``Mismatch`` at the element of ``got`` farthest from ``want`` beyond its tolerance, with both
    values to ten digits, the difference and the tolerance used; or when ``got`` is float16/bfloat16."""
    if got is None:
        raise Mismatch(f"{name} is None: did you forget to `return` it?")
    if not isinstance(got, Tensor):
        raise Mismatch(f"{name} should be a torch.Tensor, got {type(got).__name__}")
    if got.shape != want.shape:
        raise Mismatch(f"{name} has shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    expect_fine_dtype(name, got)
    difference, allowed = _difference(got, want), tolerance(got, want, atol).cpu()
    excess = difference - allowed
    if (excess > 0).any():
        flat = int(excess.flatten().argmax())
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), want.shape))
        raise Mismatch(
            f"{name}{list(index)} is {got[index].item():.10g}, expected {want[index].item():.10g} "
            f"(off by {difference[index].item():.3g}; the tolerance for {str(got.dtype)[6:]} is "
            f"{allowed[index].item():.2g})"
        )


def expect_pair(got: object) -> None:
    """``got`` is a pair (output, A), else a Mismatch that says what came back."""
    if got is None:
        raise Mismatch("returned None: did you forget to `return` it?")
    if not (isinstance(got, tuple) and len(got) == 2):
        raise Mismatch("return a pair (output, A)")


def expect_rows_sum_to_one(name: str, A: Tensor, visible: Tensor | None = None) -> None:
    """Every row of ``A`` sums to 1 (to 0 where ``visible`` shows nothing in the row)."""
    expect_fine_dtype(name, A)
    sums = A.sum(-1)
    want = torch.ones_like(sums) if visible is None else visible.any(-1).to(sums.dtype).expand_as(sums)
    bad = (sums - want).abs() > tolerance(sums, want)
    if bad.any():
        row = tuple(int(i) for i in bad.nonzero()[0])
        raise Mismatch(f"row {list(row)} of {name} sums to {sums[row].item():.4f}, not {want[row].item():g}")


def expect_masked_zero(name: str, A: Tensor, visible: Tensor) -> None:
    """``A`` is exactly 0 wherever ``visible`` is False."""
    leaked = (A != 0) & ~visible
    if leaked.any():
        i = tuple(int(x) for x in leaked.nonzero()[0])
        raise Mismatch(f"{name}{list(i)} = {A[i].item():.4g} but that position is masked: it leaked")
