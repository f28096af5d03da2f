"""Lesson 09's claims about trained and sampled results, re-run with the lesson's own helpers and sizes.
Seed s stands for the lesson run under XAI_TF_SEED_OFFSET = s.

Most of the lesson's sentences are about the *shipped* models (scripts/train_toytasks.py: one training
run per histogram model, three seeds per Dyck variant, the α sweep averaged over 8, 4 and 2 training
sets): those claims are deterministic given the shipped weights and recorded metrics, so they are
checked on them. What can be retrained within the 60 s claim budget is retrained over seeds:

- the restricted semantic histogram model (1,500 steps, 8 s a seed on a quiet thread, 20 s under this
  machine's load; conftest runs each claim at two offsets) on ``SEEDS[:1]``, i.e. seeds 0 and 5;
- single training sets of the solvable model at d = 100, α = 2 (0.3 s a set) on ``SEEDS``.

Bounds by DESIGN.md's margin rule over 20 draws on an Intel Xeon (one thread; seeds 0–4 × offsets 0, 5,
10, 15, a script outside the repository running these tests' computations): each lies beyond the worst
draw by at least a quarter of the spread, or is asserted on a mean where single draws come too close.

A Dyck model trains in 15 s (1,500 steps): the three recorded seeds per variant stand for the
retraining, and seed 0 of each is re-evaluated in tests/test_toytasks.py."""

import json

import numpy as np
import pytest
import torch
from claims import SEEDS

from xai_tf.tasks import histogram, solvable, toytasks

HIST_SEEDS = SEEDS[:1]  # see the module docstring
PAPER_SEMANTIC_THETA = solvable.PAPER_OVERLAPS["semantic"][0]


@pytest.fixture(scope="module")
def shipped():
    hist, _, metrics = toytasks.load_toytasks()
    x, y = histogram.histogram_data(5000, seed=999)
    return hist, metrics, x, y


def _same(model, x) -> float:
    with torch.no_grad():
        return histogram.same_token_share(model(x)[1], x)


@pytest.mark.claims
def test_the_shipped_histogram_models_as_the_lesson_describes_them(shipped):
    """Cell 11: all six ≥ 99 %; the restricted semantic map's same-token share about three times the
    uniform one (≥ 2.5×), the restricted positional one's the uniform one; both restricted models get
    most five-equal-token positions wrong; the semantic start stays mostly semantic (< 25 % of W
    outside), the positional start drifts into both blocks (> 50 % outside each) and its map looks
    semantic (same-token share ≥ 2.5× uniform). Cell 13: unfrozen, each restricted W moves by ≤ 5 %
    and keeps ≥ 95 % in its block."""
    hist, metrics, x, y = shipped
    uniform = histogram.same_token_share(torch.full((5000, 10, 10), 0.1), x)
    for name, model in hist.items():
        assert histogram.histogram_accuracy(model, x, y) > 0.99, name
    assert _same(hist["semantic, restricted"], x) >= 2.5 * uniform
    assert _same(hist["positional, restricted"], x) == pytest.approx(uniform, abs=0.01)
    for block in histogram.BLOCKS:
        assert histogram.accuracy_by_count(hist[f"{block}, restricted"], x, y)[5][0] < 0.5, block
        rec = metrics["histogram"][f"{block}, restricted → unrestricted"]
        assert rec["relative change of W"] <= 0.05 and rec[f"outside {block} block"] <= 0.05, block
    assert histogram.off_block_share(hist["semantic start"], "semantic") < 0.25
    for block in histogram.BLOCKS:
        assert histogram.off_block_share(hist["positional start"], block) > 0.5
    assert _same(hist["positional start"], x) >= 2.5 * uniform


@pytest.mark.claims
@pytest.mark.parametrize("seed", HIST_SEEDS)
def test_a_retrained_restricted_semantic_map_favours_equal_tokens_about_threefold(seed):
    """Cell 11's "about three times the uniform one" for a retrained model, not only the shipped one.
    20 draws: 3.10–3.30 × uniform (bounds 2.5 and 3.5 lie beyond by more than the spread / 4, 0.05)."""
    x, _ = histogram.histogram_data(5000, seed=999)
    uniform = histogram.same_token_share(torch.full((5000, 10, 10), 0.1), x)
    model, _ = histogram.train_histogram(
        "semantic", restrict=True, options=histogram.OPTIONS.replace(steps=1500, seed=seed)
    )
    assert 2.5 * uniform <= _same(model, x) <= 3.5 * uniform


@pytest.mark.claims
def test_the_shipped_sweep_crosses_once_near_the_papers_alpha_c():
    """Cell 15: at every d the averaged training-loss gap changes sign once, from positional-lower to
    semantic-lower, at a crossing within one grid step (0.25) of the paper's 1.26 and between 1.0 and
    1.25; the test errors cross earlier. Cell 17: σ²θ within 0.02 of the table, m closer to it as d grows."""
    metrics = json.loads(toytasks.METRICS.read_text())
    alphas = metrics["settings"]["alphas"]
    values = list(solvable.PAPER_PHI.values())
    alpha_c = solvable.crossing(list(solvable.PAPER_PHI), [v[0] for v in values], [v[1] for v in values])
    gaps_m = []
    for d, run in metrics["sweep"].items():
        sem, pos = run["semantic"], run["positional"]
        gap = np.array(sem["train"]) - np.array(pos["train"])
        assert gap[0] > 0 > gap[-1] and int((np.diff(np.sign(gap)) != 0).sum()) == 1, d
        cross = solvable.crossing(alphas, sem["train"], pos["train"])
        assert 1.0 <= cross <= 1.25 and abs(cross - alpha_c) < 0.25, d
        assert solvable.crossing(alphas, sem["test"], pos["test"]) < cross, d
        theta = solvable.replica_theta(sem["theta"][-1])
        assert abs(theta - PAPER_SEMANTIC_THETA) <= 0.02, d
        gaps_m.append(abs(pos["m"][-1] - solvable.PAPER_OVERLAPS["positional"][1]))
    assert gaps_m == sorted(gaps_m, reverse=True)


@pytest.mark.claims
def test_at_alpha_2_the_semantic_minimum_wins_over_single_training_sets():
    """Cells 15–17 for single training sets (d = 100, α = 2, the lesson's settings). 20 draws: the
    semantic minimum had the lower training loss and the lower test error on 20 of 20 sets, but by as
    little as 5.6 × 10⁻⁵ (training loss; −1.07 … −0.06 × 10⁻³) and 6.3 × 10⁻⁴ (test error;
    −3.9 … −0.6 × 10⁻³), closer to 0 than a quarter of the spread, so the sign is asserted on the mean
    over ``SEEDS`` (the four offsets' means: training −0.69 … −0.21 × 10⁻³, test −2.4 … −1.6 × 10⁻³, both
    below 0 by more than a quarter of their spread). σ²θ of each set 0.108–0.205, so within 0.08–0.23
    (was 0.10–0.22, inside the margin), around the table's 0.159."""
    runs = [solvable.alpha_sweep([2.0], d=100, seeds=1, first_seed=seed) for seed in SEEDS]
    gaps = np.array([[r["semantic"][k][0] - r["positional"][k][0] for k in ("train", "test")] for r in runs])
    assert (gaps.mean(0) < 0).all(), gaps
    for r in runs:
        assert 0.08 <= solvable.replica_theta(r["semantic"]["theta"][0]) <= 0.23


@pytest.mark.claims
def test_the_recorded_dyck_runs_as_the_lesson_describes_them():
    """Cell 23: every run ≥ 98 %; at most one of the 30 learned heads (9 runs × 4 heads, less layer 1
    of the three "layer 1 uniform" runs) puts more than half of its attention on the stack top; every
    head of the regularised variant puts less there than uniform causal attention does."""
    metrics = json.loads(toytasks.METRICS.read_text())
    runs = metrics["dyck"]
    assert all(r["test accuracy"] >= 0.98 for variant in runs.values() for r in variant)
    learned = [
        share
        for name, variant in runs.items()
        for r in variant
        for layer, row in enumerate(r["stack share"])
        if not (name == "layer 1 uniform" and layer == 0)
        for share in row
    ]
    assert len(learned) == 30 and sum(s > 0.5 for s in learned) <= 1
    uniform = runs["layer 1 uniform"][0]["stack share"][0][0]
    assert all(s < uniform for r in runs["pushed off the stack"] for s in np.ravel(r["stack share"]))
