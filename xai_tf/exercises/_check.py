"""What every exercise checker shares (all lessons): the report, and checks that name what is wrong.

A checker is written as a function that runs known cases against the student's function, raises
``Mismatch`` with the message a student should see at the first problem, and returns how many
cases it ran. ``@checker(topic)`` turns it into what a lesson calls: it prints ``✔`` and returns
True when every case passes, otherwise prints ``✘`` with the problem and returns False. A checker
never raises, so a lesson runs top to bottom before it is solved.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

import torch
from torch import Tensor


class Mismatch(Exception):
    """One failed expectation, with the message a student sees."""


def checker(topic: str) -> Callable[[Callable[..., int]], Callable[..., bool]]:
    """Decorate ``run_cases(student_fn) -> n_cases`` into ``check(student_fn) -> bool`` (see above)."""

    def decorate(run_cases: Callable[..., int]) -> Callable[..., bool]:
        @wraps(run_cases)
        def check(fn: Callable) -> bool:
            try:
                n = run_cases(fn)
            except Mismatch as err:
                print(f"✘ {topic}: {err}")
                return False
            except Exception as err:  # the student's code raised: say so, not a traceback
                print(f"✘ {topic}: your function raised {type(err).__name__}: {err}")
                return False
            print(f"✔ {topic}: all {n} cases pass")
            return True

        return check

    return decorate


def expect_close(name: str, got: object, want: Tensor, atol: float = 1e-5) -> None:
    """Raise ``Mismatch`` naming the first difference between ``got`` and ``want``."""
    if got is None:
        raise Mismatch(f"{name} is None: did you forget to `return` it?")
    if not isinstance(got, Tensor):
        raise Mismatch(f"{name} should be a torch.Tensor, got {type(got).__name__}")
    if got.shape != want.shape:
        raise Mismatch(f"{name} has shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    bad = ~torch.isclose(got.double(), want.double(), atol=atol, rtol=0)
    if bad.any():
        index = tuple(int(i) for i in bad.nonzero()[0])
        raise Mismatch(f"{name}{list(index)} is {got[index].item():.6g}, expected {want[index].item():.6g}")


def expect_rows_sum_to_one(name: str, A: Tensor, visible: Tensor | None = None) -> None:
    """Every row of ``A`` sums to 1 (to 0 where ``visible`` shows nothing in the row)."""
    sums = A.sum(-1)
    want = torch.ones_like(sums) if visible is None else visible.any(-1).to(sums.dtype).expand_as(sums)
    bad = (sums - want).abs() > 1e-5
    if bad.any():
        row = tuple(int(i) for i in bad.nonzero()[0])
        raise Mismatch(f"row {list(row)} of {name} sums to {sums[row].item():.4f}, not {want[row].item():g}")


def expect_masked_zero(name: str, A: Tensor, visible: Tensor) -> None:
    """``A`` is exactly 0 wherever ``visible`` is False."""
    leaked = (A != 0) & ~visible
    if leaked.any():
        i = tuple(int(x) for x in leaked.nonzero()[0])
        raise Mismatch(f"{name}{list(i)} = {A[i].item():.4g} but that position is masked: it leaked")
