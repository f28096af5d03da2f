"""Checkers for lesson 19 (probing). Here: the labels and baselines of sections 1–4 — a line's kind, the
majority baseline, the Dyck depth, a control task (Hewitt & Liang 2019), the online code's timestamps
and its length (Voita & Titov 2020); ``probing_heads`` has sections 5–7's.

For the code length the student writes ``fn(p_true, n_first, n_classes)``: the probabilities
p_{θ_i}(y_n | h_n) that the probes gave the true label of every example after the first block
(``p_true [N − t_1]``), the size t_1 of the first block (sent with the uniform code) and K, and returns
the code length in bits,

    L_online = t_1 log₂ K − Σ_n log₂ p_{θ_i}(y_n | h_n).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, expect_close
from xai_tf.probing import control, data, dyck_depth, mdl, probes
from xai_tf.probing.mdl import codelength
from xai_tf.tasks.dyck import parse_dyck


def _case(seed: int, dtype: torch.dtype, n: int) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return (0.05 + 0.95 * torch.rand(n, generator=g, dtype=torch.float64)).to(dtype)


def _as_tensor(got: Tensor | np.ndarray | numbers.Real) -> Tensor:
    """The answer as a 0-d tensor in its own precision (a Python number as float64, numpy's as numpy's)."""
    answer = got.detach() if isinstance(got, Tensor) else torch.from_numpy(np.asarray(got))
    return answer.reshape(()) if answer.is_floating_point() else answer.reshape(()).double()


@checker("online code length", reference=codelength)
def check_codelength(fn: Callable[[Tensor, int, int], object]) -> int:
    """Lesson 19: ``fn(p_true, n_first, n_classes)`` → L_online in bits (a number or a 0-d tensor)."""
    n = 0
    for seed, dtype, n_first, K in (
        (0, torch.float64, 2, 3),
        (1, torch.float64, 5, 8),
        (2, torch.float32, 1, 2),
    ):
        p = _case(seed, dtype, 20)
        got = fn(p.clone(), n_first, K)
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return`?")
        want = codelength(p.double(), n_first, K)
        if isinstance(got, Tensor | np.ndarray) and math.prod(got.shape) != 1:
            raise Mismatch(f"return one number (the total in bits), got a tensor of shape {tuple(got.shape)}")
        if not isinstance(got, Tensor | np.ndarray | numbers.Real):
            raise Mismatch(f"return a number or a 0-d tensor, got {type(got).__name__}")
        answer = _as_tensor(got)
        value = float(answer)
        nats = n_first * math.log(K) - float(torch.log(p.double()).sum())
        if abs(value - nats) < 1e-3 * abs(nats) and abs(value - want) > 1e-3:
            raise Mismatch(f"got {value:.4g}, the length in nats: use log₂ for bits (want {want:.4g})")
        if abs(value - (want - n_first * math.log2(K))) < 1e-3:
            raise Mismatch(
                "the first block is missing: it costs t_1 · log₂ K bits, sent with the uniform code"
            )
        log2_p = float(torch.log2(p.double()).sum())
        if min(abs(value - (n_first * math.log2(K) + log2_p)), abs(value + want)) < 1e-3:
            raise Mismatch("the sign of the log-probabilities: code length is −Σ log₂ p, a positive number")
        # A float answer may have been summed in float32 (a Python number keeps no trace of that): 1e-7 of
        # the total off, measured; 1e-6 of it is allowed, and a slip of 1e-3 bits (4e-5 here) is not.
        atol = 1e-6 * abs(want)
        expect_close("code length", answer, torch.tensor(want, dtype=torch.float64), atol=atol)
        n += 1
    return n


LINES = (
    ("MACBETH.", "heading"),
    ("LADY MACBETH.", "heading"),
    ("    [Exit.]", "direction"),
    ("[Enter Lady Macbeth, reading a letter.]", "direction"),
    ("So foul and fair a day I have not seen.", "speech"),
    ("  Thou art too like the spirit of Banquo. Down!", "speech"),
    ("", None),
    ("   ", None),
)


@checker("line kind", reference=data.line_kind)
def check_line_kind(fn: Callable[[str], object]) -> int:
    """Lesson 19: ``fn(line)`` → "heading", "direction", "speech", or None for a blank line."""
    for line, want in LINES:
        got = fn(line)
        if got == want:
            continue
        if got is None:
            raise Mismatch(f"returned None for {line!r}: did you forget to `return` the kind?")
        if want is None:
            raise Mismatch(f"got {got!r} for the blank line {line!r}: a blank line has no kind, return None")
        if line != line.strip():
            raise Mismatch(
                f"got {got!r} for {line!r}: strip the line first (verse and directions are indented)"
            )
        if got == "heading":
            raise Mismatch(f"{line!r} is no heading: a heading is a name in capitals ending with a full stop")
        raise Mismatch(f"got {got!r} for {line!r}, expected {want!r}")
    return len(LINES)


def _number(got: object, what: str) -> float:
    """A number or one-element tensor/array as a float, else a Mismatch saying what came back."""
    if got is None:
        raise Mismatch("returned None: did you forget to `return`?")
    if isinstance(got, Tensor | np.ndarray) and math.prod(got.shape) != 1:
        raise Mismatch(f"return one number ({what}), got a tensor of shape {tuple(got.shape)}")
    if not isinstance(got, Tensor | np.ndarray | numbers.Real):
        raise Mismatch(f"return a number or a 0-d tensor, got {type(got).__name__}")
    return float(_as_tensor(got))


@checker("majority baseline", reference=probes.majority_baseline)
def check_majority_baseline(fn: Callable[[Tensor, Tensor], object]) -> int:
    """Lesson 19: ``fn(y_train, y_test)`` → the test accuracy of always answering the commonest training
    label."""
    cases = (([0, 0, 0, 1, 1, 2], [1, 1, 1, 0, 2]), ([2, 2, 1, 2, 0, 1, 2], [1, 2, 2, 0, 1, 1, 1, 2, 1, 1]))
    for train, test in cases:
        y_train, y_test = torch.tensor(train), torch.tensor(test)
        value = _number(fn(y_train.clone(), y_test.clone()), "an accuracy")
        want = probes.majority_baseline(y_train, y_test)
        test_mode, train_mode = y_test.mode().values, y_train.mode().values
        if abs(value - float((y_test == test_mode).double().mean())) < 1e-6:
            raise Mismatch(
                "that is the commonest *test* label's share: the baseline takes its label from the training"
                " labels"
            )
        if abs(value - float((y_train == train_mode).double().mean())) < 1e-6:
            raise Mismatch("that is the accuracy on the training labels: score the majority label on y_test")
        if abs(value - float((y_test == train_mode).sum())) < 1e-6:
            raise Mismatch(f"got {value:g}, a count: return the share of test labels (an accuracy in [0, 1])")
        expect_close(
            "accuracy", torch.tensor(value, dtype=torch.float64), torch.tensor(want, dtype=torch.float64)
        )
    return len(cases)


DYCK = ["()[(()()[])]", "([()])[()]()", "[][([()]())]"]


def _depth_round_only(strings: list[str]) -> Tensor:
    return torch.tensor(
        [[s[: i + 1].count("(") - s[: i + 1].count(")") for i in range(len(s))] for s in strings]
    )


@checker("Dyck depth", reference=dyck_depth.depth_labels)
def check_depth_labels(fn: Callable[[list[str]], object]) -> int:
    """Lesson 19: ``fn(strings)`` → depth_i = #open − #closed among x_1..x_i, every position, flattened."""
    want = torch.tensor([parse_dyck(s, 2, 4).depth for s in DYCK])
    got = fn(list(DYCK))
    if isinstance(got, list):
        got = torch.tensor(got)
    if isinstance(got, Tensor) and got.shape == want.shape:
        raise Mismatch(
            f"flatten: one depth per position of every string, shape [{want.numel()}], strings in order"
        )
    if isinstance(got, Tensor) and got.shape == (want.numel(),):
        if torch.equal(got.long(), _depth_round_only(DYCK).flatten()):
            raise Mismatch("both kinds of bracket count: ( and [ open, ) and ] close")
        if torch.equal(
            got.long(), (want - torch.tensor([[1 if c in "([" else -1 for c in s] for s in DYCK])).flatten()
        ):
            raise Mismatch(
                "that is the depth before each bracket: depth_i counts x_1 … x_i, the bracket at i included"
            )
    expect_close("depth", got.double() if isinstance(got, Tensor) else got, want.flatten().double())
    return 1


def _skewed_labels() -> tuple[Tensor, Tensor]:
    """2000 tokens of 400 types; task labels 0, 1, 2 at 70, 20, 10 %, drawn per token (a type's mix)."""
    g = torch.Generator().manual_seed(19)
    types = torch.randint(0, 400, (2000,), generator=g)
    labels = torch.multinomial(torch.tensor([0.7, 0.2, 0.1]), 2000, replacement=True, generator=g)
    return types, labels


@checker("control task", reference=control.control_labels)
def check_control_labels(fn: Callable[[Tensor, Tensor, int], object]) -> int:
    """Lesson 19: ``fn(types, labels, seed)`` → c(v_i) for every token: one label per type, drawn from the
    labels' frequencies, the same for the same seed. Random, so its properties are checked."""
    types, labels = _skewed_labels()
    got = fn(types.clone(), labels.clone(), 0)
    if got is None:
        raise Mismatch("returned None: did you forget to `return` the control labels?")
    if not isinstance(got, Tensor) or got.shape != labels.shape:
        raise Mismatch(
            f"return a tensor of {labels.numel()} labels, one per token, got {getattr(got, 'shape', got)}"
        )
    if torch.equal(got.long(), labels):
        raise Mismatch("these are the task's own labels: a control task draws a new random label per type")
    values, inverse = types.unique(return_inverse=True)
    for v in range(values.numel()):
        seen = got[inverse == v].unique()
        if seen.numel() > 1:
            raise Mismatch(
                f"type {int(values[v])} got labels {seen.tolist()}: draw one label per type and give it to"
                " every occurrence"
            )
    if not bool(((got >= 0) & (got < 3)).all()):
        raise Mismatch("a control label lies outside the task's labels 0 … K − 1")
    per_type = torch.zeros(values.numel(), dtype=torch.long).scatter_(0, inverse, got.long())
    share = float((per_type == 0).double().mean())
    if abs(share - 0.7) > 0.12:  # 400 types: one standard deviation is 0.023
        raise Mismatch(
            f"label 0 went to {share:.0%} of the types but is 70 % of the task's labels: draw c(v) from the"
            " labels' frequencies, not uniformly"
        )
    again, other = fn(types.clone(), labels.clone(), 0), fn(types.clone(), labels.clone(), 1)
    if not (isinstance(again, Tensor) and torch.equal(again, got)):
        raise Mismatch("the same seed gave other labels: draw with torch.Generator().manual_seed(seed)")
    if isinstance(other, Tensor) and torch.equal(other, got):
        raise Mismatch("seeds 0 and 1 gave the same labels: draw with a generator seeded by `seed`")
    return 3


@checker("MDL timestamps", reference=mdl.timestamps)
def check_timestamps(fn: Callable[[int], object]) -> int:
    """Lesson 19: ``fn(N)`` → t_1 < … < t_S = N, ⌈f·N⌉ (at least 1) for the paper's shares f."""
    sizes = (37, 250, 1000)
    for N in sizes:
        answer = fn(N)
        if answer is None:
            raise Mismatch("returned None: did you forget to `return` the timestamps?")
        values = answer.tolist() if isinstance(answer, Tensor | np.ndarray) else answer
        if not isinstance(values, list | tuple):
            raise Mismatch(f"return a list of ints, got {type(answer).__name__}")
        got = [int(t) for t in values]
        want = mdl.timestamps(N)
        if got == want:
            continue
        if any(t < 1 for t in got):
            raise Mismatch(f"N = {N}: a timestamp is {min(got)}; each block holds examples, t_i ≥ 1")
        if got == sorted({max(1, math.floor(f * N)) for f in mdl.FRACTIONS} | {N}):
            raise Mismatch(f"N = {N}: round up, t = ⌈f·N⌉ (math.ceil), not down")
        if len(set(got)) < len(got):
            raise Mismatch(f"N = {N}: {got} repeats a timestamp; they must rise strictly (drop duplicates)")
        if not got or got[-1] != N:
            raise Mismatch(f"N = {N}: the last timestamp is N, the last example")
        raise Mismatch(f"N = {N}: got {got}, expected {want}")
    return len(sizes)
