"""Checker for lesson 07's norm-based reading of attention (Kobayashi et al., 2020): ‖α_ij f(x_j)‖
with f(x) = (x W^V + b^V) W^O, for every head of one layer."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.explain.norm_based import weighted_norms


def _cases() -> list[tuple[Tensor, Tensor, Tensor]]:
    """(α [H, T, T], v [H, T, d_h], W_O [H, d_h, d]) with d ≠ d_h, rows of α summing to 1."""
    gen = torch.Generator().manual_seed(7)
    cases = []
    for H, T, d_h, d in [(1, 3, 2, 5), (3, 5, 4, 8), (2, 6, 3, 6)]:
        attn = torch.randn(H, T, T, generator=gen).mul(2).softmax(-1)
        v = torch.randn(H, T, d_h, generator=gen)
        W_O = torch.randn(H, d_h, d, generator=gen)
        cases.append((attn, v, W_O))
    return cases


@checker("norm-based attention", reference=weighted_norms)
def check_weighted_norms(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 07: ``fn(attn [H, T, T], v [H, T, d_h], W_O [H, d_h, d])`` → ‖α_ij f(x_j)‖ [H, T, T] with
    f(x_j) = v_j W^O_h (v_j = x_j W^V + b^V, the head's value); attn, v and W_O themselves not changed."""
    cases = _cases()
    for attn, v, W_O in cases:
        given = {"attn": attn.clone(), "v": v.clone(), "W_O": W_O.clone()}
        got = fn(*given.values())
        for name, before in zip(given, (attn, v, W_O), strict=True):
            if not torch.equal(given[name], before):
                raise Mismatch(
                    f"your function changed {name} in place: clone it first ({name}.clone()), "
                    "the lesson still needs it"
                )
        a, f = attn.double(), (v.double() @ W_O.double()).norm(dim=-1)  # ‖f(x_j)‖ [H, T]
        want = a * f[:, None, :]
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want):
            if close(got, f[:, None, :].expand_as(want)):
                raise Mismatch("that is ‖f(x_j)‖ alone: weight it by α_ij (‖α_ij f(x_j)‖ = α_ij ‖f(x_j)‖)")
            if close(got, a * v.double().norm(dim=-1)[:, None, :]):
                raise Mismatch(
                    "that is α_ij ‖v_j‖: map the value through the head's W_O first, f(x_j) = v_j W^O_h"
                )
            if close(got, a * f[:, None, :] ** 2) or close(got, (a * f[:, None, :]) ** 2):
                raise Mismatch("the norm is squared: take ‖α_ij f(x_j)‖ itself (torch.linalg.norm, no **2)")
            if close(got, a * f[:, :, None]):
                raise Mismatch(
                    "weighted by the query's ‖f(x_i)‖: token j's contribution carries j's vector, "
                    "α_ij ‖f(x_j)‖ (columns)"
                )
        expect_close("‖α f(x)‖", got, want)
    return len(cases)
