"""Checkers for lesson 11: ERASER's comprehensiveness, sufficiency and AOPC, conicity of a set of vectors,
Lei et al.'s rationale penalty Ω(z), and one REINFORCE estimate."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.faithfulness.conicity import conicity
from xai_tf.rationales import eraser, reinforce
from xai_tf.rationales.penalty import omega


def _expect(what: str, got: Tensor, want: Tensor) -> None:
    expect_close(what, got, want.double(), atol=1e-6)


def _value(name: str, got: object) -> Tensor:
    if got is None:
        raise Mismatch(f"returned None: did you forget to `return` {name}?")
    if isinstance(got, int | float):
        return torch.tensor(float(got), dtype=torch.float64)
    if not isinstance(got, Tensor) or got.numel() != 1:
        raise Mismatch(f"{name} should be one number (a float or a 0-d tensor), got {type(got).__name__}")
    return got.reshape(())


@checker("conicity", reference=conicity)
def check_conicity(fn: Callable[[Tensor], object]) -> int:
    """Lesson 11: ``fn(H [m, d])`` → conicity(H) = (1/m) Σ_i cos(h_i, mean(H)), 0 when mean(H) = 0."""
    g = torch.Generator().manual_seed(11)
    eye = torch.eye(3, dtype=torch.float64)
    cases = [
        ("identical vectors", torch.tensor([[2.0, -1.0, 0.5]], dtype=torch.float64).repeat(4, 1)),
        ("an orthonormal set", eye),
        ("random vectors", torch.randn(6, 5, generator=g, dtype=torch.float64) + 0.3),
        (
            "vectors of different lengths",
            torch.randn(5, 4, generator=g, dtype=torch.float64) * torch.arange(1.0, 6.0)[:, None],
        ),
    ]
    for what, H in cases:
        got = _value("the conicity", fn(H.clone()))
        want = conicity(H)
        mistake = (H @ H.mean(0)).mean() / H.norm(dim=-1).mean() / H.mean(0).norm()
        if close(got, mistake) and not close(mistake, want):
            raise Mismatch("divide each cosine by its own ‖h_i‖ before averaging, not by the mean norm")
        _expect(f"the conicity of {what}", got, want)
    got = _value("the conicity", fn(torch.cat([eye, -eye])))
    if torch.isnan(got):
        raise Mismatch(
            "± an orthonormal set has mean 0, and cos(h, 0) = 0/0 is NaN: return 0 (no common direction)"
        )
    _expect("the conicity of ± an orthonormal set (mean 0)", got, torch.tensor(0.0))
    return len(cases) + 1


@checker("rationale penalty Ω", reference=omega)
def check_omega(fn: Callable[[Tensor, float, float], object]) -> int:
    """Lesson 11: ``fn(z [T], lam1, lam2)`` → Ω(z) = λ₁ Σ_i |z_i| + λ₂ Σ_i |z_i − z_{i+1}|."""
    cases = [
        (torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0]), 0.5, 2.0),
        (torch.tensor([1.0, 1.0, 1.0]), 1.0, 5.0),
        (torch.tensor([0.2, 0.9, 0.0, 0.4]), 0.3, 0.7),
        (torch.tensor([1.0]), 1.0, 1.0),
    ]
    for z, lam1, lam2 in cases:
        got = _value("Ω(z)", fn(z.clone(), lam1, lam2))
        wrap = lam2 * (z[-1] - z[0]).abs()
        want = omega(z, lam1, lam2).double()
        if len(z) > 2 and wrap > 0 and close(got, want + wrap):
            raise Mismatch(
                "Ω counts a jump from the last word back to the first: pairs are (i, i + 1), i < T"
            )
        _expect(f"Ω({z.tolist()}, λ₁={lam1}, λ₂={lam2})", got, want)
    return len(cases)


#: The toy model the ERASER checkers ask, three classes: word w at position t adds WORDS[w] · (1 + t/4) to
#: the logit difference of classes 0 and 1 (class 2's logit is fixed), so deleting words moves the
#: decision and their order matters.
WORDS = (0.0, 1.2, -0.8, 0.5, -1.5, 2.0, -0.3, 0.9)


def _toy_m(ids: list[int]) -> Tensor:
    logit = sum(WORDS[w] * (1 + t / 4) for t, w in enumerate(ids))
    return torch.tensor([logit / 2, -logit / 2, 0.2], dtype=torch.float64).softmax(-1)


#: (sentence, rationale): keeping the second's rationale alone flips the predicted class (and it lists
#: its positions out of order); deleting the third's flips it.
ERASER_CASES = (
    ([1, 3, 2, 5, 6], [3]),
    ([5, 4, 4, 7, 2, 6], [4, 0]),
    ([2, 1, 6, 3], [1, 2]),
)


def _erased(ids: list[int], rationale: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """The words of r in sentence order, those of r in the order given, and the rest."""
    kept = [w for t, w in enumerate(ids) if t in rationale]
    return kept, [ids[t] for t in rationale], [w for t, w in enumerate(ids) if t not in rationale]


def _erasure_checker(which: str) -> Callable[[Callable[..., object]], int]:
    """The cases and diagnoses shared by comprehensiveness and sufficiency (``which``)."""

    def run(fn: Callable[..., object]) -> int:
        for ids, rationale in ERASER_CASES:
            got = _value(which, fn(_toy_m, list(ids), list(rationale)))
            kept, unordered, rest = _erased(ids, rationale)
            p = _toy_m(ids)
            j = int(p.argmax())
            left = _toy_m(rest if which == "comprehensiveness" else kept)
            other = _toy_m(kept if which == "comprehensiveness" else rest)
            want = p[j] - left[j]
            other_name = "sufficiency (r kept alone)" if which == "comprehensiveness" else "comprehensiveness"
            if close(got, -want) and not close(want, -want):
                raise Mismatch(f"the sign is reversed: {which} is m(x)_j minus the erased sentence's m(·)_j")
            if close(got, p[j] - other[j]) and not close(want, p[j] - other[j]):
                raise Mismatch(
                    f"that is {other_name}: {which} "
                    + ("deletes r's words" if which == "comprehensiveness" else "keeps only r's words")
                )
            j_left = int(left.argmax())
            if j_left != j and close(got, p[j_left] - left[j_left]):
                raise Mismatch(
                    "j is the class predicted on the full sentence x, fixed before any word is erased"
                )
            if which == "sufficiency" and unordered != kept and close(got, p[j] - _toy_m(unordered)[j]):
                raise Mismatch(
                    "keep r's words in their sentence order (the rationale's positions may come unsorted)"
                )
            _expect(f"the {which} of r = {rationale} in {ids}", got, want)
        return len(ERASER_CASES)

    run.__doc__ = (
        f"Lesson 11: ``fn(m, ids, rationale)`` → the {which} of r (see ``xai_tf.rationales.eraser``)."
    )
    return run


check_comprehensiveness = checker("comprehensiveness", reference=eraser.comprehensiveness)(
    _erasure_checker("comprehensiveness")
)
check_sufficiency = checker("sufficiency", reference=eraser.sufficiency)(_erasure_checker("sufficiency"))


def _aopc(ids: list[int], scores: Tensor, which: str, ks: list[int], empty: float = 0.0) -> Tensor:
    """The mean over ``ks`` of the score of the top-k words (k = 0: ``empty``), as a float64 0-d tensor."""
    p = _toy_m(ids)
    j = int(p.argmax())
    values = []
    for k in ks:
        if k == 0:
            values.append(empty)
            continue
        top = scores.argsort(descending=True, stable=True)[:k].tolist()
        kept, _, rest = _erased(ids, top)
        values.append(float(p[j] - _toy_m(rest if which == "comprehensiveness" else kept)[j]))
    return torch.tensor(sum(values) / len(values), dtype=torch.float64)


@checker("AOPC", reference=eraser.aopc)
def check_aopc(fn: Callable[..., object]) -> int:
    """Lesson 11: ``fn(m, ids, scores, which)`` → AOPC of "comprehensiveness" or "sufficiency" over ERASER's
    bins, k = max(1, round(b · T)), k ≤ T − 1 for comprehensiveness."""
    g = torch.Generator().manual_seed(11)
    sentences = ([5, 1, 3, 6, 2, 7, 4, 1, 3, 5, 2], [2, 6, 1, 7, 3, 5, 4, 1])
    cases = [(ids, which) for ids in sentences for which in ("comprehensiveness", "sufficiency")]
    for ids, which in cases:
        scores = torch.rand(len(ids), generator=g, dtype=torch.float64)
        got = _value("AOPC", fn(_toy_m, list(ids), scores.clone(), which))
        T = len(ids)
        cap = T - 1 if which == "comprehensiveness" else T
        ks = [min(max(1, round(b * T)), cap) for b in eraser.BINS]
        want = _aopc(ids, scores, which, ks)
        lowest = _aopc(ids, -scores, which, ks)
        if close(got, lowest) and not close(want, lowest):
            raise Mismatch("r_k is the k words with the *highest* scores: sort them in descending order")
        if close(got, want * len(ks) / (len(ks) + 1)):
            raise Mismatch(
                f"average over the {len(ks)} bins: there is no k = 0 term (divide by |B| = {len(ks)})"
            )
        unfloored = [min(round(b * T), cap) for b in eraser.BINS]
        p = _toy_m(ids)
        empty = float(p.max() - _toy_m([])[p.argmax()]) if which == "sufficiency" else 0.0
        if close(got, _aopc(ids, scores, which, unfloored, empty)):
            raise Mismatch("round(b · T) is 0 for the smallest bins: take k = max(1, round(b · T))")
        counts = [min(int(b * 100), cap) for b in eraser.BINS]
        if close(got, _aopc(ids, scores, which, counts)):
            raise Mismatch("the bins are shares of the sentence (1, 5, 10, 20, 50 %), not numbers of words")
        _expect(f"the AOPC of {which} for {ids}", got, want)
    return len(cases)


@checker("REINFORCE estimate", reference=reinforce.estimate)
def check_reinforce_estimate(fn: Callable[..., Tensor]) -> int:
    """Lesson 11: ``fn(phi, f, z, baseline)`` → (f(z) − b) ∇_φ log P(z) = (f(z) − b)(z − σ(φ)), shape of φ."""
    phi = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    cases = [
        (torch.tensor(z, dtype=torch.float64), b)
        for z in ([1, 0, 1], [0, 1, 0], [1, 1, 0])
        for b in (0.0, 2.0)
    ]
    for z, b in cases:
        got = fn(phi.clone(), reinforce.toy_cost, z.clone(), b)
        f, p = reinforce.toy_cost(z), torch.sigmoid(phi)
        want = (f - b) * (z - p)
        if isinstance(got, Tensor) and got.shape == phi.shape and not close(got, want):
            log_p = (z * p.log() + (1 - z) * (1 - p).log()).sum()
            wrong = {
                "∇_φ log P(z) = z − σ(φ): yours has the opposite sign": (f - b) * (p - z),
                "subtract the baseline: (f(z) − b) ∇_φ log P(z)": f * (z - p),
                "∇_φ log P(z) = z − σ(φ) uses the probability σ(φ), not the logit φ": (f - b) * (z - phi),
                "that is (f(z) − b) ∇P(z): REINFORCE weighs ∇ log P(z) = ∇P(z) / P(z)": (f - b)
                * log_p.exp()
                * (z - p),
                "multiply by the gradient of log P(z), not by log P(z) itself": ((f - b) * log_p).expand(3),
            }
            for why, value in wrong.items():
                if close(got, value):
                    raise Mismatch(why)
        expect_close(f"the estimate for z = {z.int().tolist()}, b = {b}", got, want, atol=1e-8)
    return len(cases)
