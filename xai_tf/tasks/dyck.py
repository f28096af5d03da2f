"""Bounded-depth Dyck languages (lesson 09; Wen, Li, Liu & Risteski 2023): data and the push-down
automaton that gives the ground truth.

Dyck_{k,D}: balanced strings of k bracket types, "(" ")" and "[" "]" for k = 2, whose nesting depth
never exceeds D. The automaton reads a string left to right with a stack: an open bracket is
pushed, a closing bracket must match the top and pops it. After position i the stack top is the
*last unmatched open bracket* s(i) (−1 when the stack is empty) — the position a human expects a
model to look at, because it alone decides which closing bracket may come next. The task per
prefix: the class of the next closing bracket, c_i = 0 if the stack is empty, else 1 + the type of
the bracket at s(i).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks, seeds

BRACKETS = "()[]{}<>"  # type t opens with BRACKETS[2t] and closes with BRACKETS[2t + 1]
MAX_BRACKETS = 10_000_000  # n · N of one sample: a Python loop at about 1 µs a bracket (10 s)


@dataclass(frozen=True)
class DyckParse:
    """What the automaton saw: ``valid`` (balanced, matched, depth ≤ D), ``error`` (a one-line reason,
    "" if valid), and per position the depth after it and the stack top s(i) (−1: empty)."""

    valid: bool
    error: str
    depth: list[int]
    top: list[int]


def _alphabet(k: int) -> str:
    return BRACKETS[: 2 * _checks.integer("k", k, 1, len(BRACKETS) // 2)]


def parse_dyck(s: str, k: int = 2, D: int = 4) -> DyckParse:
    """Run the push-down automaton on ``s``; it stops at the first error: the offending bracket is not
    applied (an open bracket beyond depth D is not pushed, a wrong closing one pops nothing), so the
    error's position and every later one get the depth and top from before the error."""
    if not isinstance(s, str):
        raise TypeError(f"s must be a string of brackets, got {type(s).__name__}")
    alphabet, D = _alphabet(k), _checks.integer("D", D, 1)
    stack: list[int] = []
    depth, top, error = [], [], ""
    for i, c in enumerate(s):
        if not error:
            if c not in alphabet:
                error = f"position {i}: {c!r} is not a bracket of {alphabet!r}"
            elif alphabet.index(c) % 2 == 0:
                if len(stack) == D:
                    error = f"position {i}: depth {D + 1} exceeds D = {D}"
                else:
                    stack.append(i)
            elif not stack:
                error = f"position {i}: {c!r} closes nothing (the stack is empty)"
            elif alphabet.index(s[stack[-1]]) != alphabet.index(c) - 1:
                error = f"position {i}: {c!r} does not match {s[stack[-1]]!r} at position {stack[-1]}"
            else:
                stack.pop()
        depth.append(len(stack))
        top.append(stack[-1] if stack else -1)
    if not error and stack:
        error = f"unbalanced: {len(stack)} bracket(s) still open at the end"
    return DyckParse(not error, error, depth, top)


def sample_dyck(n: int, N: int = 24, k: int = 2, D: int = 4, seed: int = 0) -> list[str]:
    """``n`` seeded strings of Dyck_{k,D} of even length ``N``: at each step open a uniformly chosen
    type with probability 1/2, close the top otherwise — except that the walk must open at depth 0
    and close at depth D or when the remaining steps equal the depth. At most 10⁷ brackets in all
    (n · N), checked before drawing."""
    n = _checks.integer("n", n, 1, MAX_BRACKETS // 2)
    N, D = _checks.integer("N", N, 2, MAX_BRACKETS // n), _checks.integer("D", D, 1)
    if N % 2:
        raise ValueError(f"N must be even (a balanced string), got {N}")
    alphabet = _alphabet(k)
    g = seeds.generator(seed)
    coins, types = torch.rand(n, N, generator=g).tolist(), torch.randint(k, (n, N), generator=g).tolist()
    out = []
    for coin, kind in zip(coins, types, strict=True):
        stack: list[int] = []
        chars = []
        for i in range(N):
            h = len(stack)
            if h == 0 or (h < D and h < N - i and coin[i] < 0.5):
                stack.append(kind[i])
                chars.append(alphabet[2 * kind[i]])
            else:
                chars.append(alphabet[2 * stack.pop() + 1])
        out.append("".join(chars))
    return out


def corrupt(s: str, k: int = 2, seed: int = 0) -> str:
    """``s`` with one seeded position replaced by another bracket (the result may still be valid:
    check it with ``parse_dyck``)."""
    alphabet = _alphabet(k)
    if not isinstance(s, str):
        raise TypeError(f"s must be a non-empty string of brackets, got {type(s).__name__}")
    if not s:
        raise ValueError("s must be a non-empty string of brackets, got ''")
    _brackets([s], alphabet)
    g = seeds.generator(seed)
    i = int(torch.randint(len(s), (1,), generator=g))
    others = [c for c in alphabet if c != s[i]]
    return s[:i] + others[int(torch.randint(len(others), (1,), generator=g))] + s[i + 1 :]


def encode_dyck(strings: list[str], k: int = 2) -> Tensor:
    """Token ids ``[n, N]`` (the bracket's index in ``BRACKETS``) of equal-length strings."""
    alphabet, strings = _alphabet(k), _equal_length(strings)
    _brackets(strings, alphabet)
    return torch.tensor([[alphabet.index(c) for c in s] for s in strings])


def _equal_length(strings: object) -> list[str]:
    """A non-empty list of strings of one length."""
    strings = _checks.strings("strings", strings)
    if not strings:
        raise ValueError("strings is empty: give at least one string of brackets")
    lengths = sorted({len(s) for s in strings})
    if len(lengths) > 1:
        raise ValueError(f"strings must all have one length, got lengths {lengths[0]} and {lengths[-1]}")
    return strings


def _brackets(strings: list[str], alphabet: str) -> None:
    bad = next((c for s in strings for c in s if c not in alphabet), None)
    if bad is not None:
        raise ValueError(f"{bad!r} is not a bracket: the alphabet is {alphabet!r}")


def next_close_targets(strings: list[str], k: int = 2, D: int = 4) -> tuple[Tensor, Tensor]:
    """(c ``[n, N]``, s ``[n, N]``): c_i = 0 if the stack is empty after position i, else 1 + the type
    of the last unmatched open bracket, at position s_i (−1 when empty). Strings must be valid and
    of one length."""
    classes, tops = [], []
    for n, s in enumerate(_equal_length(strings)):
        p = parse_dyck(s, k, D)
        if not p.valid:
            raise ValueError(f"strings[{n}] = {s!r} is not in Dyck_{{{k},{D}}}: {p.error}")
        tops.append(p.top)
        classes.append([0 if t < 0 else 1 + BRACKETS.index(s[t]) // 2 for t in p.top])
    return torch.tensor(classes), torch.tensor(tops)
