"""Checkers for lesson 12: the concept loss and the joint loss of a concept bottleneck model, its
concept errors, the logit percentiles and the replacement of an intervention, and the scrambling
that measures leakage."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.cbm import intervention, leakage, losses, metrics
from xai_tf.exercises._check import Mismatch, checker, close, expect_close, expect_fine_dtype


def _case(seed: int, task: str) -> tuple[Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    n, k = 7, 4
    out = torch.randn(n, generator=g, dtype=torch.float64) * 2
    y = (
        (torch.rand(n, generator=g) > 0.5).double()
        if task == "binary"
        else torch.randn(n, generator=g).double()
    )
    concept_out = torch.randn(n, k, generator=g, dtype=torch.float64) * 2
    binary = torch.tensor([True, False, True, False])
    c = torch.where(
        binary, (torch.rand(n, k, generator=g) > 0.5).double(), torch.randn(n, k, generator=g).double()
    )
    return out, y, concept_out, c, binary


@checker("concept loss", reference=losses.concept_loss)
def check_concept_loss(fn: Callable[..., Tensor]) -> int:
    """Lesson 12: ``fn(concept_out, c, binary)`` → the scalar L_c = (1/n) Σ_i Σ_j ℓ_j(h_j(x_i), c_ij)
    (binary concepts: cross-entropy on the logit; real ones: squared error)."""
    for seed in range(3):
        _, _, concept_out, c, binary = _case(seed, "binary")
        got = fn(concept_out.clone(), c.clone(), binary)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the loss?")
        if not isinstance(got, Tensor) or got.numel() != 1:
            raise Mismatch(
                f"return one number as a 0-d tensor, got {getattr(got, 'shape', type(got).__name__)}"
            )
        got = got.reshape(())
        want = losses.concept_loss(concept_out, c, binary)
        per_entry = losses.concept_loss(concept_out, c, binary) * len(c)  # Σ_i Σ_j
        hints = {
            "the ℓ_j are averaged over the concepts: L_c sums them, Σ_j ℓ_j, and averages over the "
            "examples only": want / binary.numel(),
            "average over the n examples, do not sum": per_entry,
            "a binary concept's ℓ_j is −log of the probability of its true value (cross-entropy on the "
            "logit), not a squared error": losses.concept_loss(concept_out, c, torch.zeros_like(binary)),
            "concept_out holds logits: cross-entropy on the logit has σ inside it, do not apply σ first": (
                losses.concept_loss(torch.where(binary, concept_out.sigmoid(), concept_out), c, binary)
            ),
            "a real-valued concept's ℓ_j is the squared error (v − c)², not a cross-entropy": (
                losses.concept_loss(concept_out, c, torch.ones_like(binary))
            ),
        }
        for hint, value in hints.items():
            if close(got, value) and not close(value, want):
                raise Mismatch(hint)
        expect_close(f"L_c (case {seed})", got, want, atol=1e-8)
    return 3


@checker("joint loss", reference=losses.joint_loss)
def check_joint_loss(fn: Callable[..., Tensor]) -> int:
    """Lesson 12: ``fn(out, y, concept_out, c, binary, lam, task)`` → the scalar
    ℓ(f, y) + λ Σ_j ℓ_j(h_j, c_j), averaged over examples (binary concepts: −log of the probability of
    the true value from the logit; real ones: squared error; task "binary" or "regression")."""
    cases = [(0, 0.5, "binary"), (1, 2.0, "regression"), (2, 0.0, "binary"), (3, 10.0, "regression")]
    for seed, lam, task in cases:
        out, y, concept_out, c, binary = _case(seed, task)
        got = fn(out, y, concept_out, c, binary, lam, task)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the loss?")
        if not isinstance(got, Tensor) or got.numel() != 1:
            raise Mismatch(
                f"return one number as a 0-d tensor, got {getattr(got, 'shape', type(got).__name__)}"
            )
        want = losses.joint_loss(out, y, concept_out, c, binary, lam, task)
        task_term = losses.task_loss(out, y, task)
        concepts = losses.concept_loss(concept_out, c, binary)
        all_squared = losses.concept_loss(concept_out, c, torch.zeros_like(binary))
        hints = {
            "the concept losses are averaged over concepts: the formula sums them, Σ_j ℓ_j": task_term
            + lam * concepts / binary.numel(),
            "λ is missing: the concept term is λ Σ_j ℓ_j": task_term + concepts,
            "a binary concept's ℓ_j is −log of the probability of its true value (cross-entropy on the "
            "logit), not a squared error": task_term + lam * all_squared,
            "the task loss of a binary task is −log of the probability of the true class (cross-entropy "
            "on the logit f), not a squared error": losses.task_loss(out, y, "regression") + lam * concepts,
            "average over the n examples, do not sum": len(y) * want,
            "concept_out holds logits: cross-entropy on the logit has σ inside it, do not apply σ "
            "first": task_term + lam * losses.concept_loss(concept_out.sigmoid(), c, binary),
        }
        for hint, value in hints.items():
            if lam > 0 and close(got.reshape(()), value) and not close(value, want):
                raise Mismatch(hint)
        expect_close(f"the loss (λ = {lam}, task {task})", got.reshape(()), want, atol=1e-8)
    return len(cases)


@checker("intervention", reference=intervention.replace_concepts)
def check_intervene(fn: Callable[..., Tensor]) -> int:
    """Lesson 12: ``fn(b, c, which, binary, low, high)`` → b′ for a g that reads logits: each concept j
    in ``which`` becomes c_j if real-valued, ``high[j]`` if binary and c_j = 1, ``low[j]`` if binary
    and c_j = 0; the other concepts keep b_j, and b itself is not changed."""
    cases = [[0], [1, 2], [0, 1, 2, 3], []]
    g = torch.Generator().manual_seed(12)
    for which in cases:
        _, _, b, c, binary = _case(len(which), "binary")
        low, high = -torch.rand(4, generator=g).double() * 5, torch.rand(4, generator=g).double() * 5
        before = b.clone()
        got = fn(b, c, which, binary, low, high)
        if not torch.equal(b, before):
            raise Mismatch(
                "your function changed b in place: clone it first (b.clone()), the caller still needs it"
            )
        want = b.clone()
        for j in which:
            want[:, j] = torch.where(c[:, j] > 0.5, high[j], low[j]) if binary[j] else c[:, j]
        if isinstance(got, Tensor) and got.shape == b.shape and which:
            on_off = [i for i in which if binary[i]]
            real = [i for i in which if not binary[i]]
            if close(got, b, atol=0):
                raise Mismatch(f"b came back unchanged: the concepts in which = {which} must be replaced")
            if on_off and close(got[:, on_off], c[:, on_off], atol=0):
                raise Mismatch(
                    "a binary concept got 0/1, but g reads logits: use the 5th/95th percentile (low/high)"
                )
            if on_off and close(
                got[:, on_off], torch.where(c[:, on_off] > 0.5, low[on_off], high[on_off]), atol=0
            ):
                raise Mismatch("low and high are swapped: c_j = 1 gets high[j] (95th), c_j = 0 gets low[j]")
            if real and close(got[:, real], b[:, real], atol=0):
                raise Mismatch("a real-valued concept in `which` kept b_j: it becomes the true value c_j")
        expect_close(f"b′ (which = {which})", got, want, atol=1e-12)
    return len(cases)


def _number(name: str, value: object) -> Tensor:
    """A one-element tensor as a 0-d tensor; a Python number as a 0-d float32 tensor, judged at float32's
    precision (``.item()`` of a float32 result is a float too); anything else is a ``Mismatch``."""
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.reshape(())
    if isinstance(value, float | int) and not isinstance(value, bool):
        return torch.tensor(float(value), dtype=torch.float32)
    raise Mismatch(f"{name} should be a number (a float or a 0-d tensor), got {type(value).__name__}")


def _share_wrong(predicted: Tensor, c: Tensor) -> Tensor:
    """The share of entries where the 0/1 prediction differs from c, in float64 (exact counts)."""
    return (predicted.double() != c).double().mean()


def _rmse(out: Tensor, c: Tensor) -> Tensor:
    return (out - c).square().mean().sqrt()


@checker("concept errors", reference=metrics.concept_errors)
def check_concept_errors(fn: Callable[..., dict]) -> int:
    """Lesson 12: ``fn(concept_out, c, binary)`` → {"binary concept error": the share of wrong
    1[h_j(x_i) > 0] over examples and binary concepts, "real concept RMSE": the RMSE over examples and
    real-valued concepts}; floats or 0-d tensors."""
    g = torch.Generator().manual_seed(7)
    binary, keys = (
        torch.tensor([True, False, True, True, False]),
        ("binary concept error", "real concept RMSE"),
    )
    for n in (8, 13):
        out = torch.rand(n, 5, generator=g, dtype=torch.float64) * 2 - 0.5  # logits in (−½, 1½)
        c = torch.where(
            binary, (torch.rand(n, 5, generator=g) > 0.5).double(), torch.randn(n, 5, generator=g).double()
        )
        got = fn(out.clone(), c.clone(), binary)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the dict of the two errors?")
        if not isinstance(got, dict) or set(got) != set(keys):
            raise Mismatch(f"return a dict with the keys {keys}, got {got!r:.80}")
        share, rmse = (_number(repr(k), got[k]) for k in keys)
        b, r = binary, ~binary
        want = {"share": _share_wrong(out[:, b] > 0, c[:, b]), "rmse": _rmse(out[:, r], c[:, r])}
        hints = {
            "concept_out holds logits: a binary concept is predicted present where its logit is > 0 "
            "(σ > ½), not > 0.5": ("share", share, _share_wrong(out[:, b] > 0.5, c[:, b])),
            "the share of wrong concepts counts the binary concepts only (c_j is 0/1 there alone)": (
                "share",
                share,
                _share_wrong(out > 0, c),
            ),
            "take the square root of the mean squared error: the RMSE": ("rmse", rmse, want["rmse"] ** 2),
            "the RMSE runs over the real-valued concepts only": ("rmse", rmse, _rmse(out, c)),
        }
        for hint, (key, value, mistake) in hints.items():
            if close(value, mistake) and not close(mistake, want[key]):
                raise Mismatch(hint)
        for k, value, key in zip(keys, (share, rmse), ("share", "rmse"), strict=True):
            expect_close(f"{k!r} (n = {n})", value, want[key], atol=1e-9)
    return 2


@checker("percentiles", reference=intervention.bottleneck_percentiles)
def check_percentiles(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 12: ``fn(b)`` → ``[2, k]``: the 5th and 95th percentile of each column of ``b [n, k]``. With
    n = 21 and n = 41 rows both percentiles fall on an order statistic, so every interpolation rule
    (linear, lower, higher, nearest) gives the same answer."""
    g = torch.Generator().manual_seed(5)
    for n, k in ((21, 4), (41, 3)):
        b = torch.randn(n, k, generator=g, dtype=torch.float64) * 3
        got = fn(b.clone())
        want = intervention.bottleneck_percentiles(b)
        if isinstance(got, Tensor) and got.dim() == 2:
            if got.shape == (2, n):
                raise Mismatch("the percentiles are per concept, over the examples: take them along dim=0")
            if got.shape == (k, 2) and close(got.T, want):
                raise Mismatch("return [2, k] (row 0: the 5th percentiles, row 1: the 95th), got [k, 2]")
            if got.shape == want.shape:
                if close(got, torch.stack([b.amin(0), b.amax(0)])):
                    raise Mismatch(
                        "that is the minimum and maximum: the 5th and 95th percentiles leave "
                        "out the extreme 5 % at each end"
                    )
                if close(got, want.flip(0)):
                    raise Mismatch(
                        "the rows are swapped: row 0 holds the 5th percentile (low), row 1 the 95th"
                    )
        expect_close(f"the percentiles of b {tuple(b.shape)}", got, want, atol=1e-9)
    return 2


def _same_values(got: Tensor, want: Tensor) -> bool:
    """Whether ``got`` holds the values of ``want`` in some order (within the tolerance of got's dtype)."""
    return close(got.sort().values, want.sort().values.to(got.dtype))


@checker("scramble", reference=leakage.scramble)
def check_scramble(fn: Callable[..., Tensor]) -> int:
    """Lesson 12: ``fn(b, c, binary, seed)`` → b̃: each binary concept's outputs permuted among the
    examples with the same true value, each real-valued one's residuals b_j − c_j permuted among all
    examples and added back to c_j. Any random permutations pass: the checker checks what is kept, not
    the draw."""
    for seed in (0, 1):
        binary, n = torch.tensor([True, False, True, False]), 40
        g = torch.Generator().manual_seed(30 + seed)
        b = torch.randn(n, 4, generator=g, dtype=torch.float64) * 2
        c = torch.where(
            binary, (torch.rand(n, 4, generator=g) > 0.5).double(), torch.randn(n, 4, generator=g).double()
        )
        before = b.clone()
        got = fn(b, c, binary, seed)
        if not torch.equal(b, before):
            raise Mismatch(
                "your function changed b in place: clone it first (b.clone()), the caller still needs it"
            )
        if got is None:
            raise Mismatch("b̃ is None: did you forget to `return` it?")
        if not isinstance(got, Tensor) or got.shape != b.shape:
            raise Mismatch(
                f"return b̃ as a tensor of b's shape {tuple(b.shape)}, got "
                f"{getattr(got, 'shape', type(got).__name__)}"
            )
        expect_fine_dtype("b̃", got)
        if close(got, b):
            raise Mismatch("b̃ came back equal to b: permute each concept's column (torch.randperm)")
        for j in range(4):
            column = f"concept {j} ({'binary' if binary[j] else 'real-valued'})"
            if close(got[:, j], b[:, j]):
                raise Mismatch(f"{column} came back unchanged: scramble every concept's column")
            if binary[j]:
                for value in (0.0, 1.0):
                    rows = c[:, j] == value
                    if not _same_values(got[rows, j], b[rows, j]):
                        if _same_values(got[:, j], b[:, j]):
                            raise Mismatch(
                                f"{column}: its outputs were permuted among all examples; permute them "
                                "only among the examples with the same true value c_j, so that b̃_j "
                                "still says what b_j says about c_j"
                            )
                        raise Mismatch(
                            f"{column}: the outputs of the examples with c_j = {value:g} are not a "
                            "permutation of their b_j"
                        )
            else:
                residual = got[:, j] - c[:, j].to(got.dtype)
                if not _same_values(residual, b[:, j] - c[:, j]):
                    if _same_values(got[:, j], b[:, j]):
                        raise Mismatch(
                            f"{column}: b_j itself was permuted; permute the residuals b_j − c_j and "
                            "add them to each example's own c_j, so that b̃_j stays near c_j"
                        )
                    raise Mismatch(f"{column}: b̃_j − c_j is not a permutation of the residuals b_j − c_j")
    return 2
