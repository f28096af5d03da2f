"""Checkers for lesson 09: the histogram labels of a sequence, and the last unmatched open bracket
after each position of a Dyck string."""

from __future__ import annotations

import numbers
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.tasks.dyck import parse_dyck
from xai_tf.tasks.histogram import histogram_labels


@checker("histogram labels")
def check_histogram_labels(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 09: ``fn(x)`` for tokens ``x [L]`` → ``y [L]`` with y_i = number of j with x_j = x_i."""
    g = torch.Generator().manual_seed(9)
    cases = [
        torch.tensor([3, 0, 11, 0, 8, 0, 8, 0, 8, 0]),
        torch.tensor([5]),
        torch.randint(4, (12,), generator=g),
    ]
    cases.append(torch.arange(7))
    for x in cases:
        got, want = fn(x.clone()), histogram_labels(x)
        if isinstance(got, Tensor) and got.shape == want.shape and torch.equal(got, want - 1):
            raise Mismatch(
                f"for x = {x.tolist()} you count the other equal tokens only: x_i counts itself too"
            )
        if isinstance(got, Tensor) and got.shape == (len(x), len(x)):
            raise Mismatch(f"for x = {x.tolist()} you return the L × L matrix [x_i = x_j]: sum it over j")
        if isinstance(got, Tensor) and got.dim() == 1 and len(got) == int(x.max()) + 1 != len(x):
            raise Mismatch(
                f"for x = {x.tolist()} you return one count per token value (bincount): "
                "y needs one count per position, the count of x_i"
            )
        if (
            isinstance(got, Tensor)
            and len(x) > 1
            and got.shape == want.shape
            and close(got, want.double() / len(x))
        ):
            raise Mismatch(f"for x = {x.tolist()} you return a share (a mean): y_i is a count, a sum")
        if isinstance(got, Tensor) and got.dtype.is_floating_point is False:
            got = got.double()
        expect_close(f"y for x = {x.tolist()}", got, want.double())
    return len(cases)


@checker("last unmatched open bracket")
def check_stack_tops(fn: Callable[[str], list[int]]) -> int:
    """Lesson 09: ``fn(s)`` for a valid Dyck string → the list s(i) per position: the position of the
    last unmatched open bracket after reading s[: i + 1], −1 when every bracket so far is matched."""
    cases = ["([])[]", "(([[]]))", "()[]()", "[([][()])]", "(" + "[" * 3 + "]" * 3 + ")"]
    for s in cases:
        got, want = fn(s), parse_dyck(s, D=8).top
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the list?")
        got = got.tolist() if isinstance(got, Tensor) else list(got) if isinstance(got, tuple) else got
        if not isinstance(got, list) or len(got) != len(s):
            raise Mismatch(f"for {s!r} return a list of {len(s)} positions, got {got!r}")
        odd = [v for v in got if isinstance(v, bool) or not isinstance(v, numbers.Integral)]
        if odd:
            raise Mismatch(
                f"for {s!r} every entry must be a position (an int, −1 for an empty stack), got {odd[0]!r}"
                + (" — push the index i, not the bracket" if isinstance(odd[0], str) else "")
            )
        got = [int(v) for v in got]
        if got != want:
            i = next(i for i, (u, v) in enumerate(zip(got, want, strict=True)) if u != v)
            if got[1:] == want[:-1]:
                hint = " (s(i) is the top *after* reading position i: update the stack first)"
            elif got == parse_dyck(s, D=8).depth:
                hint = " (that is the depth of the stack: s(i) is the position of its top)"
            elif s[i] in ")]":
                hint = " (after a closing bracket the top is the open bracket *below* the popped one)"
            else:
                hint = ""
            raise Mismatch(
                f"for {s!r}, after position {i} ({s[i]!r}) you say {got[i]}, expected {want[i]}{hint}"
            )
    return len(cases)
