"""Checker for lesson 13's critique (section 6): how far a learned dictionary is from orthogonal, ‖DᵀD − I‖₂
(the lesson's other checkers are in ``crate``)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.crate import critique
from xai_tf.exercises._check import Mismatch, checker, close, expect_close


def _dictionary(singular_values: tuple[float, ...], seed: int) -> Tensor:
    """A square D = Q₁ diag(s) Q₂ᵀ with the given singular values (float64)."""
    g = torch.Generator().manual_seed(seed)
    d = len(singular_values)
    q1, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    q2, _ = torch.linalg.qr(torch.randn(d, d, generator=g, dtype=torch.float64))
    return q1 @ torch.diag(torch.tensor(singular_values, dtype=torch.float64)) @ q2.T


def _number(value: object) -> object:
    """A Python float (``.item()`` of the answer) as a 0-d float32 tensor, judged at float32's precision."""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return torch.tensor(float(value), dtype=torch.float32)
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.reshape(())
    return value


@checker("dictionary gap", reference=critique.dictionary_gap)
def check_dictionary_gap(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 13: ``fn(D)`` → ‖DᵀD − I‖₂ (the spectral norm: max_i |s_i² − 1| over D's singular values) for a
    square dictionary ``D [d, d]``, as a 0-d tensor (or a number)."""
    cases = [
        (1.3, 1.0, 0.4),
        (1.5, 1.1, 0.9, 0.8, 0.95),
        (1.0, 1.0, 1.0, 1.0),
        (0.7, 1.2, 1.05, 0.98, 1.1, 0.5),
    ]
    for i, s in enumerate(cases):
        D = _dictionary(s, 70 + i)
        answer = fn(D.clone())
        if answer is None:
            raise Mismatch("returned None: did you forget to `return` the gap?")
        got = _number(answer)
        want = critique.dictionary_gap(D)
        gram = D.T @ D
        eye = torch.eye(len(s), dtype=D.dtype)
        hints = {
            "that is the Frobenius norm (the default of torch.linalg.norm and torch.norm for a matrix): "
            "‖·‖₂ is the spectral norm, the largest singular value (ord=2)": torch.linalg.matrix_norm(
                gram - eye
            ),
            "subtract the identity: the gap is ‖DᵀD − I‖₂, which is 0 for an orthogonal D": (
                torch.linalg.matrix_norm(gram, ord=2)
            ),
            "that is the largest eigenvalue of DᵀD − I: the norm takes the largest in absolute value, and a "
            "singular value of D below 1 counts too (|s_i² − 1|)": torch.linalg.eigvalsh(gram - eye)[-1],
            "orthogonal means DᵀD = I, not D = I: measure ‖DᵀD − I‖₂": torch.linalg.matrix_norm(
                D - eye, ord=2
            ),
            "that is the largest entry of |DᵀD − I|: the spectral norm is the largest singular value of the "
            "whole matrix": (gram - eye).abs().max(),
        }
        for hint, value in hints.items():
            if close(got, value) and not close(value, want):
                raise Mismatch(f"for D with singular values {s}: {hint}")
        expect_close(f"‖DᵀD − I‖₂ for D with singular values {s}", got, want, atol=1e-5)
    return len(cases)
