"""Lesson 12's claims about its trained concept bottleneck models, re-run with the lesson's own
computation (``training.train_all``, ``metrics.evaluate``, ``intervention``, ``leakage``) for a seed s:
patients ``arthritis(2000, seed=2s)`` to train and ``arthritis(2000, seed=2s + 1)`` to test, shapes
``shapes(2000, seed=2s)`` / ``shapes(1000, seed=2s + 1)``, models trained with ``seed=s`` (s = 0 is the
lesson's run).

Fewer seeds than ``SEEDS``, because each draw is long: one tabular draw trains ten MLP models and
eight leakage probes (about 10 s on one quiet thread), one image draw five small CNNs (about 12 s),
and conftest runs every claim twice (offset 0 and 5). So the tabular claims run over ``SEEDS[:2]`` and
the image claims over ``SEEDS[:1]`` per offset, 4 and 2 draws in all, which keeps the file under 60 s.
The bounds come from a scratch run over eighteen tabular draws (s = 0..7 at offset 0, s = 0..3 at
offset 5, s = 0..2 at offsets 3 and 7; an offset also moves the task's structure,
``arthritis.STRUCTURE_SEED``) and eleven image draws (s = 0..7 at offset 0, 0..1 at offset 5, 0 at
offset 3); each test's docstring gives the spread measured there, and each bound encloses it.

The tabular bounds were re-derived by DESIGN.md's margin rule over 20 more draws on an Intel Xeon (one
thread; s = 0..4 × offsets 0, 5, 10, 15, a script outside the repository running these tests'
computations) combined with the eighteen above ("38 draws": the ranges' union; offsets 10 and 15 broke
eleven old bounds): every per-draw bound lies beyond the worst draw by at least a quarter of the
spread; where a sign is close to 0 on some draws it is asserted on the mean over ``TABULAR_SEEDS`` or
left to a count in the prose. The image bounds likewise: 20 Xeon draws joined with the eleven above
("31 draws").
"""

import os
from functools import cache

import pytest
import torch
from claims import SEEDS

from xai_tf.cbm import arthritis, intervention, leakage, metrics, models, shapes, training

pytestmark = pytest.mark.claims

LAMS = [0.001, 0.01, 0.1, 1, 10, 100]
JOINT = [f"joint λ={lam:g}" for lam in LAMS]
SHOWN = ["independent", "sequential", "joint λ=1", "joint λ=0.01"]
TABULAR_SEEDS = SEEDS[:2]
IMAGE_SEEDS = SEEDS[:1]
KINDS = {"none": [], "real": range(6), "binary": range(6, 12), "all": range(12)}


@cache
def _tabular(seed: int, offset: str) -> dict:
    """The lesson's sections 3–5 and its errata for one draw (``offset`` keys the cache only)."""
    train, test = arthritis.arthritis(2000, seed=2 * seed), arthritis.arthritis(2000, seed=2 * seed + 1)
    trained = training.train_all(train, LAMS, options=training.OPTIONS.replace(steps=400, seed=seed))
    standard = trained["standard"]
    trained["transplanted"] = training.train(
        "sequential",
        train,
        h=standard.h,
        g=standard.g,
        options=training.OPTIONS.replace(steps=400, seed=seed),
    )
    scores = {name: metrics.evaluate(m, test) for name, m in trained.items()}
    return {"train": train, "test": test, "trained": trained, "scores": scores}


@cache
def _images(seed: int, offset: str) -> dict:
    """The lesson's section 6 for one draw."""
    train, test = shapes.shapes(2000, seed=2 * seed), shapes.shapes(1000, seed=2 * seed + 1)
    trained = training.train_all(
        train, [0.01, 1], options=training.OPTIONS.replace(steps=400, batch_size=128, seed=seed)
    )
    return {"train": train, "test": test, "trained": trained}


def _draw(kind, seed):
    return kind(seed, os.environ.get("XAI_TF_SEED_OFFSET", ""))


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_concepts_right_bottlenecks_lose_to_standard_and_joint_at_lambda_1_beats_it(seed):
    """Section 3 (38 draws): worst binary concept error of the concept models 9.5–12.1 %; independent
    and sequential above standard by 0.100–0.210 and 0.082–0.222 RMSE (bounds 0.07, 0.04; were 0.1,
    broken by offset 10); the best joint λ is 1 on 33 of 38 draws (0.1 on three, 0.001 on two: not
    asserted); joint λ = 1 (20 Xeon draws) −0.070..+0.023 RMSE from standard (< 0.05) with binary
    concepts −0.3..+1.2 points from sequential's (< 2); λ = 0.001 has 45.2–53.3 % wrong binary concepts
    and task RMSE −0.027..+0.042 from standard's (|·| < 0.06, was 0.05), λ = 100 −0.021..+0.030 from
    sequential's (|·| < 0.045, was 0.03)."""
    s = _draw(_tabular, seed)["scores"]
    task = {name: v["task error"] for name, v in s.items()}
    wrong = {name: v["binary concept error"] for name, v in s.items()}
    assert (
        max(wrong[n] for n in ["independent", "sequential", "joint λ=1", "joint λ=10", "joint λ=100"]) < 0.15
    )
    assert task["independent"] - task["standard"] > 0.07
    assert task["sequential"] - task["standard"] > 0.04
    assert task["joint λ=1"] < task["standard"] + 0.05  # "close to or better than"
    assert wrong["joint λ=1"] - wrong["sequential"] < 0.02
    assert wrong["joint λ=0.001"] > 0.4
    assert abs(task["joint λ=0.001"] - task["standard"]) < 0.06
    assert abs(task["joint λ=100"] - task["sequential"]) < 0.045


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_a_transplanted_concept_layer_learns_the_concepts_and_loses_the_bypass(seed):
    """Section 3's transplant (28 draws: 8 earlier, 20 on the Xeon): sequential training from the
    standard model's weights gives binary concept error within −0.72..+0.33 points and real concept RMSE
    within −0.004..+0.012 of the sequential model trained from random weights, and task RMSE
    −0.019..+0.051 from it (bound −0.04, was −0.03) and 0.12–0.24 above the standard model's (bound 0.08,
    was 0.1)."""
    s = _draw(_tabular, seed)["scores"]
    tr, seq = s["transplanted"], s["sequential"]
    assert abs(tr["binary concept error"] - seq["binary concept error"]) < 0.01
    assert abs(tr["real concept RMSE"] - seq["real concept RMSE"]) < 0.02
    assert -0.04 < tr["task error"] - seq["task error"] < 0.07
    assert tr["task error"] - s["standard"]["task error"] > 0.08


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_independent_equals_sequential_only_for_noiseless_real_linear_concepts(seed):
    """Section 3's check (one seed per offset: six trainings of 800 steps per seed; 38 draws, max
    |independent − sequential| on the training set): noiseless real-valued 0.0000–0.0078 grades,
    noise ν = 0.3 0.062–0.218, binary 0.77–1.35."""
    gaps = []
    for noise, binary in ((0.0, False), (0.3, False), (0.0, True)):
        data = arthritis.arthritis(600, seed=4 + seed, noise=noise, curvature=0.0, binary=binary)
        linear = {"h": models.mlp(16, 12, hidden=0, seed=seed), "g": models.mlp(12, 1, hidden=0, seed=seed)}
        ind, seq = (
            training.train(
                mode, data, **linear, options=training.OPTIONS.replace(steps=800, lr=0.05, seed=seed)
            )
            for mode in ("independent", "sequential")
        )
        with torch.no_grad():
            gaps.append((ind(data.x) - seq(data.x)).abs().max().item())
    assert gaps[0] < 0.01 < 0.05 < gaps[1]
    assert gaps[2] > 0.5


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_intervention_stories(seed):
    """Section 4 (38 draws): independent — all < real only < none, binary only < none, the random curve
    falls at every step, the uncertainty curve lies at or below it (38 of 38 each) and rises by at most
    0.0015 in a step; sequential — real only changes it by −0.068..+0.016 (helps on 19 of the 20 Xeon
    draws; bounds −0.09, 0.04, were −0.08, −0.02), binary only at the percentiles by −0.018..+0.747
    (bounds −0.25, 0.95, were −0.03, 0.4), at the class medians by −0.069..+0.272, 0.020–0.474 less than
    at the percentiles (per draw > −0.1; the mean over ``TABULAR_SEEDS`` in the test after
    the errata); percentiles
    8.07–16.2 in magnitude (bounds 6.5, 18.5, were 7.5, 14.5); both joint models worse with all twelve
    (by 0.69 or more, 20 Xeon draws; bound 0.45, was 0.5)."""
    d = _draw(_tabular, seed)
    train, test, trained = d["train"], d["test"], d["trained"]
    err = {
        n: {k: intervention.intervened_error(trained[n], test, train, list(w)) for k, w in KINDS.items()}
        for n in SHOWN
    }
    ind, seq = err["independent"], err["sequential"]
    assert ind["all"] < ind["real"] < ind["none"] and ind["binary"] < ind["none"]
    r, u = (
        intervention.intervention_curve(trained["independent"], test, train, o, seed)
        for o in intervention.ORDERS
    )
    assert all(b < a for a, b in zip(r, r[1:], strict=False))
    assert all(ui <= ri + 1e-6 for ui, ri in zip(u, r, strict=True)) and u[3] < r[3]
    assert all(b - a < 0.003 for a, b in zip(u, u[1:], strict=False))
    assert -0.09 < seq["real"] - seq["none"] < 0.04
    assert -0.25 < seq["binary"] - seq["none"] < 0.95
    med = intervention.class_medians(trained["sequential"], train)
    seq_median = intervention.intervened_error(trained["sequential"], test, train, range(6, 12), low_high=med)
    assert seq_median < seq["binary"] + 0.1
    q = intervention.percentiles(trained["sequential"], train)[:, 6:].abs()
    assert 6.5 < q.min() and q.max() < 18.5
    assert all(err[n]["all"] - err[n]["none"] > 0.45 for n in ("joint λ=1", "joint λ=0.01"))


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_leakage_largest_at_small_lambda_and_near_zero_for_sequential(seed):
    """Section 5 (38 draws): joint λ = 0.001 leaks 0.391–0.519, the most of all models (38 of 38);
    sequential and λ = 100 stay within −0.019..+0.079 (bounds −0.045, 0.105, were −0.03, 0.08); the
    smallest value of any model −0.030..+0.028 (20 Xeon draws; bound −0.045, was −0.04)."""
    d = _draw(_tabular, seed)
    names = ["independent", "sequential", *JOINT]
    leaks = {
        n: leakage.leakage(
            d["trained"][n], d["train"], d["test"], options=leakage.OPTIONS.replace(steps=300, seed=seed)
        )["leakage"]
        for n in names
    }
    assert max(leaks, key=leaks.get) == "joint λ=0.001"
    assert leaks["joint λ=0.001"] > 0.35
    assert all(-0.045 < leaks[n] < 0.105 for n in ("sequential", "joint λ=100"))
    assert min(leaks.values()) > -0.045


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_errata_percentiles_versus_zero_one(seed):
    """Errata (38 draws, change of RMSE with all twelve intervened): sequential −0.071..+0.746 at the
    percentiles (bounds −0.28, 0.95, were −0.08, 0.35), +0.076..+0.499 at 0/1 (bounds −0.03, 0.61, were
    0.05, 0.35; that 0/1 hurts is asserted on the mean over ``TABULAR_SEEDS`` in the test after
    the errata); joint
    λ = 1: none < 0/1 < percentiles on 37 of 38 draws (0/1 above the percentiles once, offset 15), so
    only "both worse than none" is asserted (20 Xeon draws: by 0.48 or more at 0/1, 1.12 at the
    percentiles)."""
    d = _draw(_tabular, seed)
    train, test, trained = d["train"], d["test"], d["trained"]
    zero_one = torch.stack([torch.zeros(train.k), torch.ones(train.k)])
    errata = {
        n: [
            intervention.intervened_error(trained[n], test, train, []),
            intervention.intervened_error(trained[n], test, train, range(train.k), low_high=zero_one),
            intervention.intervened_error(trained[n], test, train, range(train.k)),
        ]
        for n in ("sequential", "joint λ=1")
    }
    none, zo, pct = errata["sequential"]
    assert -0.28 < pct - none < 0.95
    assert -0.03 < zo - none < 0.61
    none, zo, pct = errata["joint λ=1"]
    assert none < zo and none < pct


def test_on_the_mean_over_seeds_medians_beat_the_percentiles_and_zero_one_hurts():
    """Section 4 and the errata, for the sequential model, on the mean over ``TABULAR_SEEDS`` (the draws
    these tests already trained): the class medians do better than the percentiles (20 Xeon draws, means
    over seed pairs 0.087–0.390, bound 0 ≤ 0.087 − 0.303 / 4) and 0/1 as logits hurts (means 0.095–0.397,
    bound 0); on single draws both came within a quarter of their spread of 0 (docstrings above)."""
    by_median, zero_one_hurt = [], []
    for seed in TABULAR_SEEDS:
        d = _draw(_tabular, seed)
        train, test, model = d["train"], d["test"], d["trained"]["sequential"]
        med = intervention.class_medians(model, train)
        pct = intervention.intervened_error(model, test, train, range(6, 12))
        by_median.append(pct - intervention.intervened_error(model, test, train, range(6, 12), low_high=med))
        zero_one = torch.stack([torch.zeros(train.k), torch.ones(train.k)])
        zo = intervention.intervened_error(model, test, train, range(train.k), low_high=zero_one)
        zero_one_hurt.append(zo - intervention.intervened_error(model, test, train, []))
    assert sum(by_median) > 0 and sum(zero_one_hurt) > 0, (by_median, zero_one_hurt)


@pytest.mark.parametrize("seed", IMAGE_SEEDS)
def test_images_intervention_and_leakage(seed):
    """Section 6 (31 draws): worst concept model − standard −0.1..+9.1 points, standard 4.6–15.1 %
    (bounds 1.5 and 20 %, was 3 %; no ordering claimed); one group, most uncertain first, leaves the
    independent model 0.0–0.5 % error (< 1 %); joint λ = 1 gets worse again after the first group on
    31 of 31 draws, the sequential model on 30 of 31 (not after the first group at s = 2, offset 0: it
    falls to the third, then rises), so only joint λ = 1's is asserted; joint λ = 0.01 leaks the most
    (31 of 31; 0.115–0.260, the others at most 0.075)."""
    d = _draw(_images, seed)
    train, test, trained = d["train"], d["test"], d["trained"]
    task = {n: metrics.evaluate(m, test)["task error"] for n, m in trained.items()}
    assert 0.015 < task["standard"] < 0.2
    assert max(task[n] for n in ("independent", "sequential", "joint λ=1")) - task["standard"] < 0.12
    u = {n: intervention.intervention_curve(trained[n], test, train, "uncertainty", seed) for n in SHOWN}
    assert u["independent"][1] < 0.01
    assert max(u["joint λ=1"][2:]) > u["joint λ=1"][1]
    names = ["sequential", "joint λ=0.01", "joint λ=1"]
    leaks = {
        n: leakage.leakage(trained[n], train, test, options=leakage.OPTIONS.replace(steps=200, seed=seed))[
            "leakage"
        ]
        for n in names
    }
    assert max(leaks, key=leaks.get) == "joint λ=0.01"
