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
    trained = training.train_all(train, LAMS, steps=400, seed=seed)
    standard = trained["standard"]
    trained["transplanted"] = training.train(
        "sequential", train, h=standard.h, g=standard.g, steps=400, seed=seed
    )
    scores = {name: metrics.evaluate(m, test) for name, m in trained.items()}
    return {"train": train, "test": test, "trained": trained, "scores": scores}


@cache
def _images(seed: int, offset: str) -> dict:
    """The lesson's section 6 for one draw."""
    train, test = shapes.shapes(2000, seed=2 * seed), shapes.shapes(1000, seed=2 * seed + 1)
    trained = training.train_all(train, [0.01, 1], steps=400, batch_size=128, seed=seed)
    return {"train": train, "test": test, "trained": trained}


def _draw(kind, seed):
    return kind(seed, os.environ.get("XAI_TF_SEED_OFFSET", ""))


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_concepts_right_bottlenecks_lose_to_standard_and_joint_at_lambda_1_beats_it(seed):
    """Section 3 (18 draws): worst binary concept error of the concept models 10.4–12.1 %; independent
    and sequential above standard by 0.10–0.19 and 0.12–0.22 RMSE; the best joint λ is 1 (0.1 on two
    draws) and is 0.0001–0.091 below standard, with binary concepts −0.5..+4.4 points from sequential's;
    λ = 0.001 has 45.4–53.3 % wrong binary concepts and task RMSE −0.022..+0.042 from standard's,
    λ = 100 within ±0.021 of sequential's."""
    s = _draw(_tabular, seed)["scores"]
    task = {name: v["task error"] for name, v in s.items()}
    wrong = {name: v["binary concept error"] for name, v in s.items()}
    assert (
        max(wrong[n] for n in ["independent", "sequential", "joint λ=1", "joint λ=10", "joint λ=100"]) < 0.15
    )
    assert task["independent"] - task["standard"] > 0.1
    assert task["sequential"] - task["standard"] > 0.1
    best = min(JOINT, key=task.get)
    assert best in ("joint λ=0.1", "joint λ=1")
    assert task[best] < task["standard"] + 0.01  # "matches or beats"
    assert wrong[best] - wrong["sequential"] < 0.06
    assert wrong["joint λ=0.001"] > 0.4
    assert abs(task["joint λ=0.001"] - task["standard"]) < 0.05
    assert abs(task["joint λ=100"] - task["sequential"]) < 0.03


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_a_transplanted_concept_layer_learns_the_concepts_and_loses_the_bypass(seed):
    """Section 3's transplant (8 draws): sequential training from the standard model's weights gives
    binary concept error within −0.7..+0.2 points and real concept RMSE within −0.004..+0.012 of the
    sequential model trained from random weights, and task RMSE −0.012..+0.051 from it (0.19–0.24
    above the standard model's)."""
    s = _draw(_tabular, seed)["scores"]
    tr, seq = s["transplanted"], s["sequential"]
    assert abs(tr["binary concept error"] - seq["binary concept error"]) < 0.01
    assert abs(tr["real concept RMSE"] - seq["real concept RMSE"]) < 0.02
    assert -0.03 < tr["task error"] - seq["task error"] < 0.07
    assert tr["task error"] - s["standard"]["task error"] > 0.1


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_independent_equals_sequential_only_for_noiseless_real_linear_concepts(seed):
    """Section 3's check (one seed per offset: six trainings of 800 steps per seed; 18 draws, max
    |independent − sequential| on the training set): noiseless real-valued 0.0000–0.0078 grades,
    noise ν = 0.3 0.062–0.218, binary 0.88–1.35."""
    gaps = []
    for noise, binary in ((0.0, False), (0.3, False), (0.0, True)):
        data = arthritis.arthritis(600, seed=4 + seed, noise=noise, curvature=0.0, binary=binary)
        linear = {"h": models.mlp(16, 12, hidden=0, seed=seed), "g": models.mlp(12, 1, hidden=0, seed=seed)}
        ind, seq = (
            training.train(mode, data, steps=800, lr=0.05, seed=seed, **linear)
            for mode in ("independent", "sequential")
        )
        with torch.no_grad():
            gaps.append((ind(data.x) - seq(data.x)).abs().max().item())
    assert gaps[0] < 0.01 < 0.05 < gaps[1]
    assert gaps[2] > 0.5


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_intervention_stories(seed):
    """Section 4 (18 draws): independent — all < real only < none, binary only < none, the random curve
    falls at every step, the uncertainty curve lies at or below it and rises by at most 0.0015 in a
    step; sequential — real only helps by 0.030–0.068, binary only at the percentiles changes it by
    −0.018..+0.352, at the class medians by −0.069..+0.092, 0.020–0.261 less than at the percentiles;
    percentiles 8.1–13.9 in magnitude; both joint models worse with all twelve (by 0.70 or more)."""
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
    assert -0.08 < seq["real"] - seq["none"] < -0.02
    assert -0.03 < seq["binary"] - seq["none"] < 0.4
    med = intervention.class_medians(trained["sequential"], train)
    seq_median = intervention.intervened_error(trained["sequential"], test, train, range(6, 12), low_high=med)
    assert seq_median < seq["binary"]
    q = intervention.percentiles(trained["sequential"], train)[:, 6:].abs()
    assert 7.5 < q.min() and q.max() < 14.5
    assert all(err[n]["all"] - err[n]["none"] > 0.5 for n in ("joint λ=1", "joint λ=0.01"))


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_leakage_largest_at_small_lambda_and_near_zero_for_sequential(seed):
    """Section 5 (18 draws): joint λ = 0.001 leaks 0.424–0.519, the most of all models; sequential and
    λ = 100 stay within −0.014..+0.065; the smallest value of any model −0.030 (independent)."""
    d = _draw(_tabular, seed)
    names = ["independent", "sequential", *JOINT]
    leaks = {
        n: leakage.leakage(d["trained"][n], d["train"], d["test"], steps=300, seed=seed)["leakage"]
        for n in names
    }
    assert max(leaks, key=leaks.get) == "joint λ=0.001"
    assert leaks["joint λ=0.001"] > 0.35
    assert all(-0.03 < leaks[n] < 0.08 for n in ("sequential", "joint λ=100"))
    assert min(leaks.values()) > -0.04


@pytest.mark.parametrize("seed", TABULAR_SEEDS)
def test_errata_percentiles_versus_zero_one(seed):
    """Errata (18 draws, change of RMSE with all twelve intervened): sequential −0.071..+0.311 at the
    percentiles, +0.076..+0.296 at 0/1; joint λ = 1: none < 0/1 < percentiles on every draw."""
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
    assert -0.08 < pct - none < 0.35
    assert 0.05 < zo - none < 0.35
    none, zo, pct = errata["joint λ=1"]
    assert none < zo < pct


@pytest.mark.parametrize("seed", IMAGE_SEEDS)
def test_images_intervention_and_leakage(seed):
    """Section 6 (11 draws): worst concept model − standard −0.1..+9.1 points, standard 5.9–15.1 %
    (no ordering claimed); one group, most uncertain first, leaves the independent model 0.0–0.2 %
    error; sequential and joint λ = 1 get worse again after the first group; joint λ = 0.01 leaks the
    most (0.123–0.247, the others at most 0.075)."""
    d = _draw(_images, seed)
    train, test, trained = d["train"], d["test"], d["trained"]
    task = {n: metrics.evaluate(m, test)["task error"] for n, m in trained.items()}
    assert 0.03 < task["standard"] < 0.2
    assert max(task[n] for n in ("independent", "sequential", "joint λ=1")) - task["standard"] < 0.12
    u = {n: intervention.intervention_curve(trained[n], test, train, "uncertainty", seed) for n in SHOWN}
    assert u["independent"][1] < 0.01
    assert all(max(u[n][2:]) > u[n][1] for n in ("sequential", "joint λ=1"))
    names = ["sequential", "joint λ=0.01", "joint λ=1"]
    leaks = {n: leakage.leakage(trained[n], train, test, steps=200, seed=seed)["leakage"] for n in names}
    assert max(leaks, key=leaks.get) == "joint λ=0.01"
