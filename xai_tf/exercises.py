"""Checkers for the lessons' exercises: each runs known cases and says *what* is wrong.

A checker prints ``✅`` and returns True when every case passes; otherwise it prints ``❌`` with
the first problem it found (shape, a row that does not sum to 1, the first mismatching value)
and returns False. Checkers never raise, so a lesson runs top to bottom before it is solved.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


class Mismatch(Exception):
    """One failed expectation, with the message a student sees."""


def _report(topic: str, run_cases: Callable[[], int]) -> bool:
    try:
        n = run_cases()
    except Mismatch as err:
        print(f"❌ {topic}: {err}")
        return False
    except Exception as err:  # the student's code raised: say so, not a traceback
        print(f"❌ {topic}: your function raised {type(err).__name__}: {err}")
        return False
    print(f"✅ {topic}: all {n} cases pass")
    return True


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
        raise Mismatch(
            f"{name}{list(index)} is {got[index].item():.6g}, expected {want[index].item():.6g}"
        )


def check_next_token_probs(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 00: ``fn(logits [T, vocab])`` → the next-token distribution ``[vocab]``."""

    def cases() -> int:
        gen = torch.Generator().manual_seed(0)
        shapes = [(1, 5), (4, 7), (3, 50)]
        for T, vocab in shapes:
            logits = torch.randn(T, vocab, generator=gen) * 3
            got = fn(logits.clone())
            if isinstance(got, Tensor) and got.shape == (vocab,):
                total = got.sum().item()
                if abs(total - 1) > 1e-5:
                    raise Mismatch(f"the probabilities sum to {total:.4f}, not 1 (softmax?)")
                if T > 1 and torch.allclose(got, logits[0].softmax(-1)):
                    raise Mismatch("you used the first position; the next token follows the last")
            expect_close("probs", got, logits[-1].softmax(-1))
        return len(shapes)

    return _report("next-token probabilities", cases)
