"""Checkers for lesson 12: the joint loss of a concept bottleneck model, and an intervention."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.cbm import losses
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


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


@checker("joint loss")
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


@checker("intervention")
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
