"""Checker for lesson 08's ε-adversary (section 3, Jain & Wallace 2019): which candidate attentions
α̃ keep the output within ε of the model's, the constraint of

    max_α̃ JSD(α̃, α*)   subject to   |f_α̃(x) − f_α*(x)| < ε.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.exercises._check import Mismatch, checker


def within_epsilon(f_adv: object, f: float | Tensor, epsilon: float) -> Tensor:
    """Jain & Wallace's constraint (lesson 08, section 3): the mask ``[n]``

        |f_α̃ᵢ(x) − f_α*(x)| < ε

    of candidate outputs ``f_adv`` (one number per candidate α̃ᵢ, ``[n]``) against the model's output
    ``f`` under its own α*, strict as in the lesson's formula and ``xai_tf.faithfulness.adversary``."""
    f_adv = _checks.real_vector("f_adv", f_adv)
    if isinstance(f, Tensor):
        if f.numel() != 1:
            raise ValueError(f"f must be one number (the model's output), got shape {tuple(f.shape)}")
        f = float(f)
    f = _checks.finite("f", f)
    epsilon = _checks.real("epsilon", epsilon, 0.0, 1.0, open_lo=True)
    return (f_adv - f).abs() < epsilon


def _mask(got: object, n: int) -> Tensor:
    """``got`` as a bool mask ``[n]`` (bools or 0/1 numbers: a tensor, array or list), else a Mismatch."""
    if got is None:
        raise Mismatch("returned None: did you forget to `return` the mask?")
    try:
        values = torch.as_tensor(np.asarray(got, dtype=float))
    except (TypeError, ValueError):
        raise Mismatch(f"return one True/False per candidate, got {type(got).__name__}") from None
    if values.shape != (n,):
        raise Mismatch(f"shape {tuple(values.shape)}: return one True/False per candidate ({n}), not a count")
    if not ((values == 0) | (values == 1)).all():
        raise Mismatch("return True/False (whether |Δf| < ε), not the distances |Δf|")
    return values == 1


#: (candidate outputs f(α̃ᵢ), the model's f(α*), ε): |Δf| = ε exactly (0.125 is exact in float32)
#: at 0.375/0.625 and 0.125/0.375; a lower output (Δf < −ε); ε/2 ≤ |Δf| < ε (the search's margin).
CASES: list[tuple[list[float], float | Tensor, float]] = [
    ([0.5, 0.505, 0.495, 0.625, 0.375, 0.58, 0.2, 0.9], 0.5, 0.125),
    ([0.33, 0.26, 0.125, 0.375, 0.18, 0.05, 0.25], torch.tensor(0.25, dtype=torch.float64), 0.125),
    ([0.9, 0.993], 0.99, 0.01),
]


@checker("ε-adversary constraint", reference=within_epsilon)
def check_within_epsilon(fn: Callable[[Tensor, float | Tensor, float], object]) -> int:
    """Lesson 08: ``fn(f_adv, f, epsilon)`` → the mask |f_adv − f| < ε, one True/False per candidate."""
    for values, f, epsilon in CASES:
        f_adv = torch.tensor(values, dtype=torch.float64)
        f0 = float(f)
        got = _mask(fn(f_adv.clone(), f, epsilon), len(values))
        want = within_epsilon(f_adv, f0, epsilon)
        if torch.equal(got, want):
            continue
        delta = f_adv - f0
        if torch.equal(got, delta.abs() <= epsilon):
            raise Mismatch("|Δf| = ε exactly passes your test: the constraint is strict, |Δf| < ε")
        if torch.equal(got, delta < epsilon):
            raise Mismatch("without |·| every lower output passes (Δf < −ε): bound |f_α̃ − f_α*|")
        if torch.equal(got, delta.abs() < epsilon / 2):
            raise Mismatch("that is |Δf| < ε/2, the search's safety margin: the constraint is |Δf| < ε")
        if torch.equal(got, ~want):
            raise Mismatch("the mask is inverted: True where the output stays within ε")
        if torch.equal(got, (f_adv - f_adv[0]).abs() < epsilon):
            raise Mismatch("compare each candidate with the model's own output f, not the first candidate")
        raise Mismatch(
            f"for f = {f0:g}, ε = {epsilon:g} and candidates {values}: want {want.tolist()}, "
            f"got {got.tolist()}"
        )
    return len(CASES)
