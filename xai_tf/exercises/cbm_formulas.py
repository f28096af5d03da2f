"""Checkers for lesson 12's formulas of sections 2, 6 and 7: the arthritis task's grade, the shapes' label
rule and the post-hoc bottleneck's elastic-net head objective (the lesson's other checkers are in ``cbm``)."""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.cbm import arthritis, formulas, shapes
from xai_tf.cbm.losses import task_loss
from xai_tf.exercises._check import Mismatch, checker, close, expect_close

_MU = torch.tensor(arthritis.MEANS + (0.0,) * len(arthritis.BINARY), dtype=torch.float64)
_SIGMA = torch.tensor(arthritis.SCALES + (1.0,) * len(arthritis.BINARY), dtype=torch.float64)
_W = torch.tensor(arthritis.WEIGHTS, dtype=torch.float64)
_T = torch.tensor(arthritis.THRESHOLDS, dtype=torch.float64)


def _scores(c: Tensor, binary: Tensor, bypass: Tensor) -> dict[str, Tensor]:
    """The severity score s, and the score of each typical mistake, for the patients (c, bypass)."""
    right = torch.where(binary, 2 * c - 1, (c - _MU) / _SIGMA) @ _W
    return {
        "s": right + bypass,
        "raw": c @ _W + bypass,
        "zero-one": torch.where(binary, c, (c - _MU) / _SIGMA) @ _W + bypass,
        "no sigma": torch.where(binary, 2 * c - 1, c - _MU) @ _W + bypass,
        "no bypass": right,
    }


def _count(s: Tensor) -> Tensor:
    return (s.unsqueeze(-1) > _T).sum(-1).double()


@checker("grade", reference=formulas.grade)
def check_grade(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 12: ``fn(c, binary, bypass_term)`` → the grades y = #{t ∈ THRESHOLDS : s > t}, s = Σ_j w_j c̃_j +
    β(x·u), for the arthritis task's concepts ``c [n, 12]`` (six real-valued, then six binary). Patients whose
    score (or a typical mistake's) lies within 10⁻³ of a threshold are left out, so that rounding cannot flip
    a grade."""
    binary = torch.tensor([j >= len(arthritis.REAL) for j in range(len(arthritis.NAMES))])
    for seed in (0, 1):
        g = torch.Generator().manual_seed(40 + seed)
        z = torch.randn(60, len(binary), generator=g, dtype=torch.float64)
        c = torch.where(binary, (z > 0).double(), _MU + _SIGMA * z)
        bypass = 0.7 * torch.randn(60, generator=g, dtype=torch.float64)
        margin = torch.stack(
            [(s.unsqueeze(-1) - _T).abs().amin(-1) for s in _scores(c, binary, bypass).values()]
        )
        keep = margin.amin(0) > 1e-3
        c, bypass = c[keep], bypass[keep]
        got = fn(c.clone(), binary.clone(), bypass.clone())
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the grades?")
        scores = _scores(c, binary, bypass)
        want = _count(scores["s"])
        hints = {
            "that is the score s itself: the grade counts the thresholds below s, y = #{t : s > t}": scores[
                "s"
            ],
            "you counted the thresholds above s: the grade counts those below it, #{t : s > t}": 4 - want,
            "standardise the real-valued concepts first: c̃_j = (c_j − μ_j)/σ_j (arthritis.MEANS, "
            "arthritis.SCALES), and a binary one is 2c_j − 1": _count(scores["raw"]),
            "a binary concept enters as c̃_j = 2c_j − 1 (−1 absent, +1 present), not as its 0/1": _count(
                scores["zero-one"]
            ),
            "divide by σ_j too: c̃_j = (c_j − μ_j)/σ_j": _count(scores["no sigma"]),
            "the bypass term is missing: s = Σ_j w_j c̃_j + β(x·u)": _count(scores["no bypass"]),
        }
        for hint, value in hints.items():
            if close(got, value) and not close(value, want):
                raise Mismatch(hint)
        expect_close(f"the grades of {len(c)} patients (case {seed})", got, want, atol=1e-9)
    return 2


def _all_images() -> Tensor:
    """The 72 concept vectors an image can have (one colour, one shape, size, horizontal, vertical),
    float64 ``[72, 9]`` in shapes.NAMES' order, in a fixed shuffled order."""
    rows = []
    for colour in range(3):
        for shape in range(3):
            for bits in range(8):
                flags = [float(bits >> i & 1) for i in range(3)]
                rows.append(
                    [float(colour == i) for i in range(3)] + [float(shape == i) for i in range(3)] + flags
                )
    table = torch.tensor(rows, dtype=torch.float64)
    return table[torch.randperm(len(table), generator=torch.Generator().manual_seed(6))]


@checker("label rule", reference=shapes.label_rule)
def check_label_rule(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 12: ``fn(c)`` → y = (circle ∧ ¬blue) ∨ (large ∧ top) for concepts ``c [n, 9]`` in shapes.NAMES'
    order, as 0/1 numbers or booleans ``[n]``; every one of the 72 possible concept vectors is a case."""
    c = _all_images()
    got = fn(c.clone())
    if got is None:
        raise Mismatch("returned None: did you forget to `return` the labels?")
    circle, blue, large, top = (c[:, shapes.NAMES.index(n)] > 0.5 for n in ("circle", "blue", "large", "top"))
    want = ((circle & ~blue) | (large & top)).double()
    if isinstance(got, Tensor) and got.dtype == torch.bool:
        got = got.double()
    hints = {
        "a circle counts only when it is not blue: circle ∧ ¬blue": (circle & blue) | (large & top),
        "the two parts are joined by ∨ (or), not ∧ (and)": circle & ~blue & large & top,
        "(large ∧ top) is missing: a large shape in the top half has y = 1 whatever its shape": circle
        & ~blue,
        "(circle ∧ ¬blue) is missing: a circle that is not blue has y = 1 wherever it is": large & top,
    }
    for hint, value in hints.items():
        if close(got, value.double()) and not close(value.double(), want):
            raise Mismatch(hint)
    expect_close("y for the 72 possible concept vectors", got, want, atol=0)
    return len(c)


def _head_case(seed: int, n: int, k: int, task: str) -> tuple[Tensor, float, Tensor, Tensor]:
    g = torch.Generator().manual_seed(seed)
    v = torch.randn(k, generator=g, dtype=torch.float64)
    v[0] = 0.0  # a weight the ℓ₁ term set to zero
    b = torch.randn(n, k, generator=g, dtype=torch.float64) * 2
    y = (
        (torch.rand(n, generator=g) > 0.5).double()
        if task == "binary"
        else torch.randn(n, generator=g).double()
    )
    return v, 0.3 + seed / 4, b, y


@checker("head objective", reference=formulas.elastic_net_objective)
def check_elastic_net_objective(fn: Callable[..., Tensor]) -> int:
    """Lesson 12: ``fn(v, v0, b, y, lam, alpha, task)`` → the 0-d tensor (1/n) Σ_i ℓ(vᵀb_i + v₀, y_i) +
    λ/(N_c K) (α‖v‖₁ + (1 − α)‖v‖₂²) with K = 1, N_c = b's columns, ℓ the squared error ("regression") or the
    cross-entropy on the logit ("binary")."""
    cases = [
        (0, 9, 4, 0.5, 0.99, "regression"),
        (1, 12, 3, 2.0, 0.2, "binary"),
        (2, 7, 5, 0.0, 0.99, "regression"),
        (3, 10, 4, 1.0, 0.7, "binary"),
    ]
    for seed, n, k, lam, alpha, task in cases:
        v, v0, b, y = _head_case(seed, n, k, task)
        got = fn(v.clone(), v0, b.clone(), y.clone(), lam, alpha, task)
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the objective?")
        if not isinstance(got, Tensor) or got.numel() != 1:
            raise Mismatch(
                f"return one number as a 0-d tensor, got {getattr(got, 'shape', type(got).__name__)}"
            )
        got = got.reshape(())
        want = formulas.elastic_net_objective(v, v0, b, y, lam, alpha, task)
        loss = task_loss(b @ v + v0, y, task)
        l1, l2 = v.abs().sum(), v.square().sum()
        with_bias = torch.cat([v, v.new_tensor([v0])])
        hints = {
            "the penalty is divided by N_c K (N_c concepts, b's columns; K = 1): λ/(N_c K)": loss
            + lam * (alpha * l1 + (1 - alpha) * l2),
            "the ℓ₂ term is the squared norm ‖v‖₂² = Σ_j v_j², not ‖v‖₂": loss
            + lam / k * (alpha * l1 + (1 - alpha) * l2.sqrt()),
            "α weighs the ℓ₁ term and 1 − α the ℓ₂ term, not the other way round": loss
            + lam / k * ((1 - alpha) * l1 + alpha * l2),
            "the bias v₀ is not penalised: the norms run over v only": loss
            + lam / k * (alpha * with_bias.abs().sum() + (1 - alpha) * with_bias.square().sum()),
            "average the loss over the n examples, do not sum it": n * loss
            + lam / k * (alpha * l1 + (1 - alpha) * l2),
            "a binary task's ℓ is the cross-entropy on the logit vᵀb + v₀ (−log of the probability of the "
            "true class), not a squared error": task_loss(b @ v + v0, y, "regression")
            + lam / k * (alpha * l1 + (1 - alpha) * l2),
            "the penalty λ/(N_c K)(α‖v‖₁ + (1 − α)‖v‖₂²) is missing": loss,
        }
        for hint, value in hints.items():
            if close(got, value) and not close(value, want):
                raise Mismatch(f"(λ = {lam}, α = {alpha}, task {task}) {hint}")
        expect_close(f"the objective (λ = {lam}, α = {alpha}, task {task})", got, want, atol=1e-9)
    return len(cases)
