"""Claim tests for lesson 08 (is attention explanation?): every sentence the lesson states about a trained
or sampled result, re-run through the same helpers with the lesson's sizes, over seeds.

Seed s reproduces the lesson under ``XAI_TF_SEED_OFFSET=s``: cue data seeds s and s + 1, the tweet split
seed s, models seed s (the second model and the adversaries s + 1). The spreads quoted in the lesson were
measured by running the same computations: over 8 seeds (0–7) on one CPU, 13 more for W&P on an AMD EPYC
and 20 on an Intel Xeon. These tests run fewer, because one seed of the lesson's recurrent part costs
45–60 s on one thread: the agreement, erasure and permutation claims over ``SEEDS[:2]`` (they share one
set of four models per seed; the τ of the pairs without IG, the only ones claimed, are the lesson's: each
pair's importances are computed on their own), the Wiegreffe & Pinter and deception claims over
``SEEDS[:1]`` (each trains 5–7 more models). Effects that come close to 0 or reverse on some draws (W&P's
ΔTVD, the no-recurrence model's higher τ) are asserted on the mean over ``SEEDS[:2]``.

The Intel Xeon's draws (one thread; a script running these tests' computations over seeds 0–4 × offsets
0, 5, 10, 15: a draw is set by s + offset, so these are the effective seeds 0–19) are recorded in each
test's docstring, beside the earlier CPUs'; every bound lies beyond the worst draw of all CPUs by at
least a quarter of the observed spread (DESIGN.md, the margin rule).
"""

from __future__ import annotations

import os
from functools import cache

import numpy as np
import pytest
from claims import SEEDS

from xai_tf.faithfulness import baselines, correlation, deceive, diagnostic, erasure, importance, permutation
from xai_tf.tasks import cues, recurrent, tweets
from xai_tf.tasks.words import Vocabulary, examples

pytestmark = pytest.mark.claims


def lesson(seed: int) -> dict:
    """The lesson's data and its four models for one seed, under the current seed offset."""
    return _lesson(seed, os.environ.get("XAI_TF_SEED_OFFSET", "0"))


@cache
def _lesson(seed: int, offset: str) -> dict:
    """``offset`` keys the cache only (the seeds apply it themselves): a test at another offset must not
    reuse models trained at the first one."""
    cue_train, cue_test = cues.cue_sentences(1000, seed=seed), cues.cue_sentences(200, seed=seed + 1)
    train_text, test_text = tweets.tweet_split(seed=seed)
    vocab = Vocabulary.build([t for t, _ in train_text], min_count=2)
    tasks = {
        "cues": (cue_train, cue_test, len(cues.VOCAB)),
        "tweets": (examples(vocab, train_text), examples(vocab, test_text), len(vocab)),
    }
    models = {
        (task, encoder): recurrent.train_attention_classifier(
            train, size, encoder, options=recurrent.OPTIONS.replace(seed=seed)
        )
        for task, (train, _, size) in tasks.items()
        for encoder in recurrent.ENCODERS
    }
    return {"tasks": tasks, "models": models}


PAIRS = [("attention", "gradient"), ("attention", "LOO"), ("gradient", "LOO")]  # IG is not claimed


def agreement(seed: int) -> dict:
    """Mean τ of each pair of ``PAIRS`` for each of the seed's four models, ``{(task, encoder): {pair:
    τ}}`` (cached per seed and offset: two tests read them)."""
    return _agreement(seed, os.environ.get("XAI_TF_SEED_OFFSET", "0"))


@cache
def _agreement(seed: int, offset: str) -> dict:
    """``offset`` keys the cache only, as in ``_lesson``."""
    run = lesson(seed)
    tau = {}
    for key, model in run["models"].items():
        study = correlation.correlation_study(model, run["tasks"][key[0]][1][:60], PAIRS, importance.PAPER)
        tau[key] = {pair: study.summary(pair)[0] for pair in PAIRS}
    return tau


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_agreement_with_and_without_recurrence(seed):
    """Section 2: the cue BiLSTM's τ(attention, ·) within 0.175 of its yardstick τ(gradient, LOO),
    which lies in 0.31–0.55; on the tweets τ(attention, gradient) at most the yardstick + 0.06 and the
    yardstick in 0.04–0.57.

    Draws, 8 seeds on an earlier CPU: yardstick 0.35–0.51, |τ − yardstick| ≤ 0.13, tweets yardstick
    0.13–0.37, τ(attention, gradient) − yardstick ≤ +0.01. 20 on an Intel Xeon (effective seeds 0–19),
    where the yardsticks' ranges and the 0.13 failed: cue yardstick 0.354–0.510, |τ − yardstick|
    ≤ 0.138 (seed 19), tweet yardstick 0.137–0.481 (0.481 at seed 13), τ(attention, gradient) −
    yardstick −0.180…+0.002. Bounds beyond the worst of all 28 by a quarter of the spread."""
    tau = agreement(seed)
    yard = {key: t["gradient", "LOO"] for key, t in tau.items()}
    assert 0.31 <= yard["cues", "bilstm"] <= 0.55
    for pair in PAIRS[:2]:
        assert abs(tau["cues", "bilstm"][pair] - yard["cues", "bilstm"]) <= 0.175
    assert 0.04 <= yard["tweets", "bilstm"] <= 0.57
    assert tau["tweets", "bilstm"]["attention", "gradient"] <= yard["tweets", "bilstm"] + 0.06


def test_agreement_more_without_recurrence():
    """Section 2: without recurrence τ(attention, LOO) is higher on both tasks and τ(attention, gradient)
    on the tweets — asserted on the mean over ``SEEDS[:2]`` of each difference (none − BiLSTM), since a
    single draw can come close to 0 or reverse. Draws on an Intel Xeon (effective seeds 0–19): cues LOO
    +0.084…, tweets LOO +0.004…, positive on 20 of 20; tweets gradient −0.037… (positive on 19 of 20); the
    mean over two consecutive seeds ≥ 0.154, 0.123, 0.226 (quarter spreads 0.086, 0.046, 0.058); the 8
    earlier seeds: positive on each. Bound 0."""
    taus = [agreement(seed) for seed in SEEDS[:2]]
    for task, pair in (("cues", PAIRS[1]), ("tweets", PAIRS[1]), ("tweets", PAIRS[0])):
        assert np.mean([t[task, "none"][pair] - t[task, "bilstm"][pair] for t in taus]) > 0


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_erasure_and_permutation(seed):
    """Sections 3–4: zeroing the top weight flips at most 0.32 of the decisions, a random one at most
    0.065; the gradient order needs the smallest mean fraction removed, attention the next, random the
    largest; the median output change under permuted weights is small (median over tweets ≤ 0.075
    BiLSTM, ≤ 0.19 no recurrence).

    Draws, 8 seeds on an earlier CPU: top 0.03–0.17, random 0–0.04, permutation ≤ 0.06 / ≤ 0.12. 20 on an
    Intel Xeon (effective seeds 0–19), BiLSTM / no recurrence: top 0.02–0.15 / 0.06–0.26, random
    0–0.03 / 0–0.05, permutation 0.002–0.055 / 0.025–0.157; mean fraction attention − gradient
    ≥ 0.106 / 0.113, random − attention ≥ 0.039 / 0.152 (bound 0). The earlier lower bound on the top
    flip (≥ 0.03) failed at seeds 14 and 15 (0.02); by the margin rule it would lie below 0, so it is
    gone, and the top weight flipping more than a random one (0.01–0.14 more on all 20 draws) is
    stated in the lesson as a count, not asserted."""
    run = lesson(seed)
    test = run["tasks"]["tweets"][1]
    for encoder, bound in (("bilstm", 0.075), ("none", 0.19)):
        model = run["models"]["tweets", encoder]
        study = erasure.erasure_study(model, test[:100])
        assert study.flip_top <= 0.32 and study.flip_random <= 0.065
        mean = {by: study.fraction[by].mean() for by in erasure.ORDERS}
        assert mean["∂s/∂α"] < mean["attention"] < mean["random"]
        moved, _ = permutation.permutation_study(model, test[:100])
        assert np.median(moved) <= bound


def consistent(seed: int) -> list[tuple[float, float, float]]:
    """W&P's model-consistent adversaries of the seed's tweet BiLSTM at λ = 0 and 0.1, as the lesson
    trains them: ``[(λ, mean TVD, mean JSD)]`` (cached per seed and offset: two tests read them)."""
    return _consistent(seed, os.environ.get("XAI_TF_SEED_OFFSET", "0"))


@cache
def _consistent(seed: int, offset: str) -> list[tuple[float, float, float]]:
    """``offset`` keys the cache only, as in ``_lesson``."""
    run = lesson(seed)
    train, test, _ = run["tasks"]["tweets"]
    base = run["models"]["tweets", "bilstm"]
    return baselines.consistent_adversaries(
        base, train, test, lams=(0.0, 0.1), options=baselines.ADVERSARY.replace(steps=100, seed=seed + 1)
    )


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_wiegreffe_pinter(seed):
    """Section 6: uniform attention within 0.05 of additive on the tweets; the consistent adversary at
    λ = 0.1 (KL(α_adv ‖ α)) reaches a JSD at least 0.33 above the seeds' median JSD, and its TVD minus
    λ = 0's lies in −0.06…+0.18 (its sign: ``test_wiegreffe_pinter_pays``); in the per-word MLP the
    BiLSTM's frozen α within 0.05 of the MLP's own and of uniform, the adversary's at least 0.08 below
    all three.

    Draws. 21 on two earlier CPUs (13 on an AMD EPYC, seeds 0–8 and 11–14; 8 on another, seeds 0–7):
    |uniform − additive| ≤ 0.040, ΔTVD +0.04…+0.14, JSD 0.54–0.64 against the seeds' 0.02–0.13,
    |frozen − MLP's own| ≤ 0.039, |frozen − uniform| ≤ 0.034, adversary 0.155–0.315 below (0.53–0.69).
    20 on an Intel Xeon (effective seeds 0–19), where the earlier bounds failed: ΔTVD ≥ +0.04 at seeds 5, 8,
    12, 18 (−0.017, 0.037, 0.034, 0.030), JSD > 3 × the seeds' at seed 10 (0.594 against 0.200), adversary ≥
    0.15 below at seeds 0 and 2 (0.150, 0.137). There: |uniform − additive| ≤ 0.040; ΔTVD −0.017…+0.133,
    positive on 19 of 20; JSD 0.538–0.628, seeds' median 0.024–0.202, JSD − seeds' 0.393–0.559; |frozen −
    MLP's own| ≤ 0.038, |frozen − uniform| ≤ 0.032 (frozen above uniform on 6, below on 12); adversary
    0.137–0.340 below (0.49–0.70 against 0.80–0.90). Bounds: 0.05 (worst 0.040, spread 0.040); JSD − seeds' ≥
    0.33 (worst 0.393, spread ≈ 0.21 with the EPYC's 0.54 − 0.13 … 0.62 − 0.02); ΔTVD −0.06…+0.18 (worst
    −0.017 and +0.14, spread 0.157); 0.05 (worst 0.039); adversary 0.08 below (worst 0.137, spread 0.203)."""
    run = lesson(seed)
    train, test, size = run["tasks"]["tweets"]
    base = run["models"]["tweets", "bilstm"]
    uniform = recurrent.train_attention_classifier(
        train, size, "bilstm", attention="uniform", options=recurrent.OPTIONS.replace(seed=seed)
    )
    assert abs(recurrent.accuracy(uniform, test) - recurrent.accuracy(base, test)) <= 0.05
    other = recurrent.train_attention_classifier(
        train, size, "bilstm", options=recurrent.OPTIONS.replace(seed=seed + 1)
    )
    seed_jsd = np.median(baselines.seed_jsd([base, other], test))
    (_, tvd0, _), (_, tvd1, jsd1) = consistent(seed)
    assert -0.06 <= tvd1 - tvd0 <= 0.18 and jsd1 >= seed_jsd + 0.33
    adversary = baselines.consistent_adversary(
        base, train, 0.1, options=baselines.ADVERSARY.replace(steps=100, seed=seed + 1)
    )
    mlp = diagnostic.mlp_diagnostic(
        base, adversary, train, test, options=diagnostic.OPTIONS.replace(seed=seed)
    )
    assert abs(mlp["base"] - mlp["trained MLP"]) <= 0.05 and abs(mlp["base"] - mlp["uniform"]) <= 0.05
    assert mlp["adversary"] <= min(mlp["base"], mlp["trained MLP"], mlp["uniform"]) - 0.08


def test_wiegreffe_pinter_pays():
    """Section 6: attending differently costs the adversary TVD on most draws — the mean over
    ``SEEDS[:2]`` of TVD(λ = 0.1) − TVD(λ = 0) is positive. One draw can reverse (−0.017 at seed 5 on
    an Intel Xeon; positive on 40 of 41 draws over three CPUs), so a single seed's sign is not asserted.
    Mean over two consecutive seeds on the Xeon (19 pairs of effective seeds 0–19): 0.041–0.123, over
    any two of the 20 draws ≥ 0.009; bound 0 (beyond the worst consecutive pair by 0.041, a quarter of
    the spread being 0.021)."""
    changes = [tvd1 - tvd0 for (_, tvd0, _), (_, tvd1, _) in map(consistent, SEEDS[:2])]
    assert np.mean(changes) > 0


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_deception(seed):
    """Section 5 and the errata: the BiLSTM keeps accuracy ≥ 0.93 with αᵀm ≤ 0.13 at λ = 0.1 and 1 while
    LOO keeps ≥ 0.84 of its mass on the cues; without recurrence λ = 0.1 keeps accuracy ≥ 0.95 with αᵀm
    at most 0.28 of λ = 0's and longer cue states (norm ratio up), λ = 1 falls to accuracy ≤ 0.8.

    Draws on an Intel Xeon (effective seeds 0–19), where the earlier bounds (0.95, 0.05, 0.9, a quarter)
    failed at seeds 8 (accuracy 0.94999999 in float32, LOO 0.875), 11, 14, 15 (αᵀm up to 0.103), and
    the quarter had too little margin (0.245 at worst): BiLSTM at λ = 0.1 and 1 accuracy 0.950–1,
    αᵀm 0–0.103, LOO on the cues 0.875–0.988; no recurrence at λ = 0.1 accuracy 1.000, αᵀm 0.144–0.245
    of λ = 0's, norm ratio up by 2.9–9.9; at λ = 1 accuracy 0.325–0.700. Bounds beyond the worst by a
    quarter of the spread."""
    run = lesson(seed)
    cue_train, cue_test, size = run["tasks"]["cues"]
    tables = {
        encoder: deceive.deceive_table(
            cue_train,
            cue_test[:40],
            size,
            (0.0, 0.1, 1.0),
            encoder,
            options=importance.PAPER,
            training=deceive.OPTIONS.replace(seed=seed),
        )
        for encoder in recurrent.ENCODERS
    }
    for row in tables["bilstm"][1:]:
        assert row.accuracy >= 0.93 and row.attention_on_m <= 0.13 and row.loo_on_m >= 0.84
    plain, mild, strong = tables["none"]
    assert mild.accuracy >= 0.95 and mild.attention_on_m <= 0.28 * plain.attention_on_m
    assert strong.accuracy <= 0.8
    lied = recurrent.train_attention_classifier(
        cue_train, size, "none", loss=deceive.deceive_loss(0.1), options=recurrent.OPTIONS.replace(seed=seed)
    )
    ratios = [np.divide(*deceive.state_norms(m, cue_test)) for m in (run["models"]["cues", "none"], lied)]
    assert ratios[1] > ratios[0]
