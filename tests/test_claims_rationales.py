"""Lesson 11's claims about trained and sampled results, re-run with the lesson's own helpers and sizes
(cue task: 1,000 training and 200 test sentences, ERASER on 30 of them; tweets: ``tweet_split``'s
3,000 / 400, τ on 30 tweets of ≥ 4 words; the lesson's λ's and steps). Seed s stands for the lesson run
under XAI_TF_SEED_OFFSET = s: data, weights, minibatches and draws all take s (test data s + 1).

Spreads quoted below were measured over 20 draws (s = 0…19, Intel Xeon, one thread, a scratch script outside
the repository calling these helpers' trainers with seed s). On draw 14 both cue rationalizers (REINFORCE
at λ₁ = 0.05, HardKuma at 0.02) select no word, so ``rat.evaluate`` raises there (lesson 11's section 5
would stop under XAI_TF_SEED_OFFSET = 14): claims comparing them are over the other 19 draws.
Seeds: one draw of the lesson trains 2 classifiers, 3 cue rationalizers, 5 regularised BiLSTMs and
4 controlled HardKuma rationalizers on the tweets (about 25 s on one thread), and conftest runs every
claim at two offsets; to stay within lesson 11's 60 s claim budget the cue-task claims run on
``SEEDS[:2]`` and the tweet claims (5 + 4 trainings per draw) on ``SEEDS[:1]`` (with the second offset:
seeds 0, 1, 5, 6 and 0, 5), not ``SEEDS``: more seeds would need a smaller computation than the
lesson's, whose sizes are what the prose is about."""

from functools import cache

import pytest
from claims import SEEDS

from xai_tf import seeds
from xai_tf.faithfulness import conicity, importance, regularised
from xai_tf.rationales import eraser
from xai_tf.rationales import model as rat
from xai_tf.tasks import cues, recurrent, tweets
from xai_tf.tasks.words import Vocabulary, examples

pytestmark = pytest.mark.claims
CUE_SEEDS = SEEDS[:2]  # see the module docstring
TWEET_SEEDS = SEEDS[:1]


@cache
def _cues(seed: int, offset: int) -> dict:
    """Section 2 and 5 on the cue task (``offset`` only keys the cache: seeds apply it themselves)."""
    train, test = cues.cue_sentences(1000, seed=seed), cues.cue_sentences(200, seed=seed + 1)
    model = recurrent.train_attention_classifier(
        train, len(cues.VOCAB), "bilstm", options=recurrent.OPTIONS.replace(seed=seed)
    )
    rats = {
        "REINFORCE rationale": rat.train_rationalizer(
            train, len(cues.VOCAB), "reinforce", 0.05, 0.025, options=rat.OPTIONS.replace(seed=seed)
        ),
        "HardKuma rationale": rat.train_rationalizer(
            train, len(cues.VOCAB), "hardkuma", 0.02, 0.01, options=rat.OPTIONS.replace(seed=seed)
        ),
    }
    table = eraser.eraser_table(model, test[:30], rationalizers=rats, seed=seed)
    sparsemax = rat.train_rationalizer(
        train, len(cues.VOCAB), "sparsemax", options=rat.OPTIONS.replace(seed=seed)
    )
    return {
        "train": train,
        "test": test,
        "model": model,
        "rats": rats,
        "table": table,
        "sparsemax": sparsemax,
    }


@cache
def _tweets(seed: int, offset: int) -> dict:
    train_text, test_text = tweets.tweet_split(seed=seed)
    vocab = Vocabulary.build([t for t, _ in train_text], min_count=2)
    return {"vocab": vocab, "train": examples(vocab, train_text), "test": examples(vocab, test_text)}


@cache
def _penalties(seed: int, offset: int) -> dict[str, dict[str, float]]:
    """Sections 3 and 4: the rows of the lesson's table of regularised BiLSTMs."""
    t = _tweets(seed, offset)
    sample = [e for e in t["test"] if len(e.ids) >= 4][:30]
    settings = {
        "none": ("diversity", 0.0, 1),
        "diversity λ = 1": ("diversity", 1.0, 1),
        "tying λ = 0.1": ("tying", 0.1, 1),
        "tying λ = 1": ("tying", 1.0, 1),
        "slide's sign": ("tying", 0.1, -1),
    }
    return {
        name: regularised.describe(
            regularised.train_regularised(
                t["train"],
                len(t["vocab"]),
                penalty,
                lam,
                sign=sign,
                options=regularised.OPTIONS.replace(seed=seed),
            ),
            t["test"],
            sample,
        )
        for name, (penalty, lam, sign) in settings.items()
    }


@pytest.mark.parametrize("seed", CUE_SEEDS)
def test_eraser_on_the_cue_task(seed):
    """Sections 1–2 and the summary, with the importance defaults of issue 44 (lesson 08's settings). Over 20
    draws (s = 0…19, scratch script, one thread): the BiLSTM is perfect on the 200 test sentences (1.000
    each time); LOO ranks first by comprehensiveness − sufficiency on 20 of 20 (comp. 0.41–0.61, suff.
    −0.015–0.000; its lead over the next 0.022–0.352, so by the margin rule the test asserts it within
    0.06 of the best other explanation: 0.022 − 0.082) but is never the most plausible (P@k 0.84–0.98
    while another explanation reaches 1.00); random has a lower P@k (0.13–0.36 against each importance
    method's ≥ 0.70: a gap of 0.46 at the least) and less comprehensiveness (0.05–0.19 against ≥ 0.19: a
    gap of 0.097 at the least, beyond a quarter of the gaps' spread) than each importance method on 20 of
    20. A rationale can fall below random (of 20 draws: in the ranking on 3, in comprehensiveness on 2, in
    P@k on 1 — draw 14), so the rationales are not asserted against it; the prose gives those counts."""
    run = _cues(seed, seeds.offset())
    assert recurrent.accuracy(run["model"], run["test"]) == 1.0
    table = {r.method: r for r in run["table"]}
    score = {r.method: r.comprehensiveness - r.sufficiency for r in run["table"]}
    assert score["LOO"] > max(v for m, v in score.items() if m != "LOO") - 0.06
    assert table["LOO"].plausibility < max(r.plausibility for r in run["table"])
    methods = [table[m] for m in importance.METHODS]
    assert table["random"].comprehensiveness < min(r.comprehensiveness for r in methods)
    assert table["random"].plausibility < min(r.plausibility for r in methods)


@pytest.mark.parametrize("seed", CUE_SEEDS)
def test_the_three_rationalizers(seed):
    """Section 5 (three estimators). Over 20 draws: about a fifth of the test words are cues (0.191–0.217;
    bound 0.23, since 0.22 lay within a quarter of the spread). On 19 of 19 draws sparsemax keeps the most
    words (0.23–0.34 against 0.10–0.27; its lead 0.015–0.185, so by the margin rule the test asserts it
    within 0.03 of the most) at the lowest precision (0.46–0.83 against 0.74–1.00 for REINFORCE and
    HardKuma; the gap 0.041–0.521, asserted within 0.08). REINFORCE's running baseline lowers the variance
    of its gradient estimate on 20 of 20 draws, by 1.14–10.6 times (log 0.13–2.36: bound log 1/1.6,
    beyond 0.13 − 0.56, a quarter of the spread). HardKuma's variance is below REINFORCE's on 15 of 20
    (not claimed)."""
    run = _cues(seed, seeds.offset())
    share = sum(map(sum, (e.cues for e in run["test"]))) / sum(len(e.ids) for e in run["test"])
    assert 0.18 < share < 0.23
    scores = {name: rat.evaluate(r, run["test"]) for name, r in run["rats"].items()}
    sparse = rat.evaluate(run["sparsemax"], run["test"])
    assert sparse.sparsity > max(s.sparsity for s in scores.values()) - 0.03
    assert sparse.precision < min(s.precision for s in scores.values()) + 0.08
    reinforce_model, minibatch = run["rats"]["REINFORCE rationale"], run["train"][:32]
    with_b = rat.gradient_variance(reinforce_model, minibatch, seed=seed)
    b, reinforce_model.baseline = reinforce_model.baseline, 0.0
    try:
        without_b = rat.gradient_variance(reinforce_model, minibatch, seed=seed)
    finally:
        reinforce_model.baseline = b
    assert with_b < 1.6 * without_b


@pytest.mark.parametrize("seed", CUE_SEEDS)
def test_bilstm_states_are_more_conical_than_their_embeddings(seed):
    """Section 3. Over 20 draws, on the cue task: embeddings 0.34–0.36, states 0.56–0.68."""
    run = _cues(seed, seeds.offset())
    embeddings, states = conicity.recurrent_conicity(run["model"], run["test"])
    assert embeddings < 0.4 < 0.5 < states


@pytest.mark.parametrize("seed", TWEET_SEEDS)
def test_the_diversity_penalty_flattens_the_cone(seed):
    """Section 3 (the diversity fix) and the summary. Over 20 draws: the states' conicity is 0.53–0.63
    without the penalty and −0.36 to +0.09 with λ = 1 (below 0 on 17 of 20 draws, so the lesson says
    "about 0 or below"); bound 0.2, beyond +0.09 by a quarter of the spread (0.11; 0.1 was within it)."""
    rows = _penalties(seed, seeds.offset())
    assert rows["none"]["conicity"] > 0.5
    assert rows["diversity λ = 1"]["conicity"] < 0.2


@pytest.mark.parametrize("seed", TWEET_SEEDS)
def test_the_tying_penalty_and_the_slides_sign(seed):
    """Section 4, the errata and the summary. Over 20 draws: (1/T) Σ ‖h_t − e_t‖² is 1.8–2.3 with λ = 0.1
    added, 0.78–1.01 with λ = 1, 37–42 without a penalty and 533–572 with the slide's sign; the slide's
    sign costs accuracy (0.64–0.79 against 0.82–0.89; by 0.070–0.205 per draw). The τ columns, with the
    importance defaults of issue 44 (lesson 08's settings: float64, IG to |delta| < 1e-3 within 256
    nodes), over 20 draws (s = 0…19, scratch script, one thread): tying with λ = 1 raises τ(α, LOO) from
    0.06–0.45 to 0.39–0.58 (by 0.058–0.482) and τ(α, IG) from 0.08–0.34 to 0.43–0.58 (by 0.178–0.442), on
    20 of 20 draws. By the margin rule the bound sits a quarter of the spread beyond the worst draw: rise
    > 0 for IG (0.178 − 0.066 > 0), rise > −0.05 for LOO (0.058 − 0.106); the prose says "on every draw we
    ran (20 of 20)"."""
    rows = _penalties(seed, seeds.offset())
    none, tied, slide = rows["none"], rows["tying λ = 0.1"], rows["slide's sign"]
    assert tied["distance"] < 3 < 30 < none["distance"] < 50 < 100 < slide["distance"]
    assert rows["tying λ = 1"]["distance"] < 1.5
    assert slide["accuracy"] < none["accuracy"]
    for pair, bound in (("τ attention–LOO", -0.05), ("τ attention–IG", 0.0)):
        assert rows["tying λ = 1"][pair] - none[pair] > bound, pair


@pytest.mark.parametrize("seed", TWEET_SEEDS)
def test_controlled_sparsity_reaches_its_target_from_above(seed):
    """Section 5 (controlled sparsity). Over 20 draws, on the tweets (λ₂ = 0.0025): the share of words kept
    is 0.08–0.15 for ξ = 0.1, 0.13–0.23 for ξ = 0.2, 0.22–0.35 for ξ = 0.3 (within 0.085 of ξ; bound 0.11,
    as 0.1 lay within a quarter of the deviations' spread) and 0.30–0.496 for ξ = 0.5 (not reached on 20
    of 20, but too close to assert: bound 0.55); it grows with ξ (steps ≥ 0.018, bound 0). ξ is an upper
    bound: its λ ends 0.00–0.12, the lowest of the four on 20 of 20, by 0.017–0.227 (asserted within 0.04)."""
    t = _tweets(seed, seeds.offset())
    kept, lam = [], []
    for xi in (0.1, 0.2, 0.3, 0.5):
        model = rat.train_rationalizer(
            t["train"],
            len(t["vocab"]),
            "hardkuma",
            0.0,
            0.0025,
            selection=xi,
            options=rat.OPTIONS.replace(seed=seed),
        )
        kept.append(rat.evaluate(model, t["test"]).sparsity)
        lam.append(model.sparsity.lam)
    assert all(abs(k - xi) < 0.11 for k, xi in zip(kept[:3], (0.1, 0.2, 0.3), strict=True)), kept
    assert kept[3] < 0.55, kept
    assert kept == sorted(kept), kept
    assert lam[3] < min(lam[:3]) + 0.04, lam  # ξ = 0.5 unreached: its multiplier ends the lowest
