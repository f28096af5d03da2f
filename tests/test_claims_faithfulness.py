"""Claim tests for lesson 08 (is attention explanation?): every sentence the lesson states about a trained
or sampled result, re-run through the same helpers with the lesson's sizes, over seeds.

Seed s reproduces the lesson under ``XAI_TF_SEED_OFFSET=s``: cue data seeds s and s + 1, the tweet split
seed s, models seed s (the second model and the adversaries s + 1). The spreads quoted in the lesson were
measured over 8 seeds (0–7) by running the same computations; these tests run fewer, because one seed of
the lesson's recurrent part costs 45–60 s on one thread and all claim tests of a lesson share 60 s: the
agreement, erasure and permutation claims over ``SEEDS[:2]`` (they share one set of four models per seed;
the τ of the pairs without IG, the only ones claimed, are the lesson's: each pair's importances are
computed on their own), the Wiegreffe & Pinter and deception claims over ``SEEDS[:1]`` (each trains 5–7
more models).
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
        (task, encoder): recurrent.train_attention_classifier(train, size, encoder, seed=seed)
        for task, (train, _, size) in tasks.items()
        for encoder in recurrent.ENCODERS
    }
    return {"tasks": tasks, "models": models}


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_agreement_with_and_without_recurrence(seed):
    """Section 2: the cue BiLSTM's τ(attention, ·) within 0.13 of its yardstick (0.35–0.51); on the
    tweets τ(attention, gradient) at most the yardstick (+0.01) and the yardstick 0.13–0.37; without
    recurrence τ(attention, LOO) higher on both tasks and τ(attention, gradient) higher on the tweets."""
    run = lesson(seed)
    pairs = [("attention", "gradient"), ("attention", "LOO"), ("gradient", "LOO")]  # IG is not claimed
    tau = {}
    for key, model in run["models"].items():
        study = correlation.correlation_study(model, run["tasks"][key[0]][1][:60], pairs, importance.PAPER)
        tau[key] = {pair: study.summary(pair)[0] for pair in pairs}
    yard = {key: t["gradient", "LOO"] for key, t in tau.items()}
    assert 0.35 <= yard["cues", "bilstm"] <= 0.51
    for pair in pairs[:2]:
        assert abs(tau["cues", "bilstm"][pair] - yard["cues", "bilstm"]) <= 0.13
    assert 0.13 <= yard["tweets", "bilstm"] <= 0.37
    assert tau["tweets", "bilstm"]["attention", "gradient"] <= yard["tweets", "bilstm"] + 0.01
    for task in ("cues", "tweets"):
        assert tau[task, "none"]["attention", "LOO"] > tau[task, "bilstm"]["attention", "LOO"]
    assert tau["tweets", "none"]["attention", "gradient"] > tau["tweets", "bilstm"]["attention", "gradient"]


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_erasure_and_permutation(seed):
    """Sections 3–4: the top weight flips 3–17 % of decisions, a random one 0–4 %; the gradient order
    needs the smallest mean fraction removed, attention the next, random the largest; the median output
    change under permuted weights is small (median over tweets ≤ 0.06 BiLSTM, ≤ 0.12 no recurrence)."""
    run = lesson(seed)
    test = run["tasks"]["tweets"][1]
    for encoder, bound in (("bilstm", 0.06), ("none", 0.12)):
        model = run["models"]["tweets", encoder]
        study = erasure.erasure_study(model, test[:100])
        assert 0.03 <= study.flip_top <= 0.17 and study.flip_random <= 0.04
        mean = {by: study.fraction[by].mean() for by in erasure.ORDERS}
        assert mean["gradient"] < mean["attention"] < mean["random"]
        moved, _ = permutation.permutation_study(model, test[:100])
        assert np.median(moved) <= bound


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_wiegreffe_pinter(seed):
    """Section 6: uniform attention within 0.05 of additive on the tweets; the consistent adversary at
    λ = 0.1 (KL(α_adv ‖ α)) pays +0.04 to +0.14 TVD against λ = 0 with a JSD several times the seeds';
    in the per-word MLP the BiLSTM's frozen α within 0.05 of the MLP's own and of uniform, the
    adversary's at least 0.15 worse than all three. Measured on an AMD EPYC over seeds 0-8 and 11-14:
    |uniform − additive| ≤ 0.040, ΔTVD 0.040-0.129, JSD 0.54-0.62 against the seeds' 0.02-0.13,
    |frozen − MLP's own| ≤ 0.039, |frozen − uniform| ≤ 0.034, adversary 0.155-0.315 below (0.54-0.69);
    the earlier bounds (0.03, +0.05, at least as well −0.01, 0.19), from seeds 0-7 on another CPU,
    failed here for seeds 0, 2, 3, 4, 8, 11 and 13."""
    run = lesson(seed)
    train, test, size = run["tasks"]["tweets"]
    base = run["models"]["tweets", "bilstm"]
    uniform = recurrent.train_attention_classifier(train, size, "bilstm", attention="uniform", seed=seed)
    assert abs(recurrent.accuracy(uniform, test) - recurrent.accuracy(base, test)) <= 0.05
    other = recurrent.train_attention_classifier(train, size, "bilstm", seed=seed + 1)
    seed_jsd = np.median(baselines.seed_jsd([base, other], test))
    (_, tvd0, _), (_, tvd1, jsd1) = baselines.consistent_adversaries(
        base, train, test, lams=(0.0, 0.1), steps=100, seed=seed + 1
    )
    assert 0.04 <= tvd1 - tvd0 <= 0.14 and jsd1 > 3 * seed_jsd
    adversary = baselines.consistent_adversary(base, train, 0.1, steps=100, seed=seed + 1)
    mlp = diagnostic.mlp_diagnostic(base, adversary, train, test, seed=seed)
    assert abs(mlp["base"] - mlp["trained MLP"]) <= 0.05 and abs(mlp["base"] - mlp["uniform"]) <= 0.05
    assert mlp["adversary"] <= min(mlp["base"], mlp["trained MLP"], mlp["uniform"]) - 0.15


@pytest.mark.parametrize("seed", SEEDS[:1])
def test_deception(seed):
    """Section 5 and the errata: the BiLSTM keeps accuracy ≥ 0.95 with αᵀm ≤ 0.05 at λ = 0.1 and 1 while
    LOO keeps ≥ 0.9 of its mass on the cues; without recurrence λ = 0.1 keeps accuracy with αᵀm at a
    quarter of λ = 0's or less and longer cue states (norm ratio up), λ = 1 falls to accuracy ≤ 0.75."""
    run = lesson(seed)
    cue_train, cue_test, size = run["tasks"]["cues"]
    tables = {
        encoder: deceive.deceive_table(
            cue_train, cue_test[:40], size, (0.0, 0.1, 1.0), encoder, seed=seed, options=importance.PAPER
        )
        for encoder in recurrent.ENCODERS
    }
    for row in tables["bilstm"][1:]:
        assert row.accuracy >= 0.95 and row.attention_on_m <= 0.05 and row.loo_on_m >= 0.9
    plain, mild, strong = tables["none"]
    assert mild.accuracy >= 0.95 and mild.attention_on_m <= plain.attention_on_m / 4
    assert strong.accuracy <= 0.75
    lied = recurrent.train_attention_classifier(
        cue_train, size, "none", loss=deceive.deceive_loss(0.1), seed=seed
    )
    ratios = [np.divide(*deceive.state_norms(m, cue_test)) for m in (run["models"]["cues", "none"], lied)]
    assert ratios[1] > ratios[0]
