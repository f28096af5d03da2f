"""Lesson 10's claims about trained and sampled results, re-run with the lesson's own helpers and sizes
(the toy model: n = 20 features in m = 5 dimensions, batch 512, 1,500 steps; its SAE: F = 40, λ = 0.3;
steering: "ROMEO.\\n", 30 tokens at τ = 0.8, the ' thou' feature clamped to 5× its max). Seed s stands
for the lesson run under XAI_TF_SEED_OFFSET = s: the helpers' default seeds shifted by s.

Spreads quoted in the lesson and the bounds were measured over 20 draws on an Intel Xeon (one thread; seeds
0–4 × offsets 0, 5, 10, 15, i.e. effective seeds 0–19, a script outside the repository running these
tests' computations); every bound lies beyond the worst draw by at least a quarter of the spread
(DESIGN.md's margin rule), or is a count. conftest runs every claim at two offsets, and to stay
within the 60 s claim budget (on this shared machine the file took 115 s with every claim on
``SEEDS``): one draw of section 1's sparsity sweep trains six toy models (4 s on a quiet thread), so
its claim runs on ``SEEDS[:1]`` (seeds 0 and 5); one draw of the toy SAE trains a toy model and an
SAE (1.5 s), so it runs on ``SEEDS[:3]`` (seeds 0–2 and 5–7); steering (0.5 s a draw) runs on ``SEEDS``.

Claims about the shipped SAE and the bundled model (features, purities, analogies, CE baselines, the
exact clamp) do not depend on a seed: they are deterministic given the shipped weights, so they are
tested once, without the claims marker."""

import pytest
import torch
from claims import SEEDS

from xai_tf.sae import activations, browse, decompose, metrics, steer, superposition
from xai_tf.sae.model import SHIPPED, load

SPARSITIES = [0.0, 0.5, 0.8, 0.9, 0.95, 0.99]
SWEEP_SEEDS = SEEDS[:1]  # see the module docstring
TOY_SAE_SEEDS = SEEDS[:3]


@pytest.fixture(scope="module")
def shipped(bundled):
    """(sae, held-out ids, their scaled activations H, the ' thou' feature) as the lesson loads them."""
    sae, extra = load(SHIPPED)
    ids = extra["heldout_ids"].long()
    H = activations.collect(bundled, ids, sae.config.layer, sae.config.hook).float() * sae.config.scale
    thou = browse.features_for_token(bundled, sae, H, ids, " thou", k=2)
    return sae, ids, H, thou


# ---------------------------------------------------------------- trained and sampled: over seeds


@pytest.mark.claims
@pytest.mark.parametrize("seed", SWEEP_SEEDS)
def test_dense_features_keep_the_m_most_important_and_sparser_ones_pack_in_more(seed):
    """20 draws: at S = 0 exactly features 0–4 (20 of 20); counts strictly increasing in S (20 of 20);
    18–20 represented at S = 0.99, so ≥ 17 (was ≥ 18, the worst draw itself)."""
    toys = {
        S: superposition.train_toy(20, 5, S, options=superposition.TOY.replace(batch_size=512, seed=seed))
        for S in SPARSITIES
    }
    counts = [superposition.represented(W) for W, _ in toys.values()]
    assert superposition.represented_features(toys[0.0][0]) == [0, 1, 2, 3, 4]
    assert all(a < b for a, b in zip(counts, counts[1:], strict=False)), counts
    assert 17 <= counts[-1] <= 20


@pytest.mark.claims
@pytest.mark.parametrize("seed", TOY_SAE_SEEDS)
def test_an_sae_recovers_most_of_the_sparsest_toy_models_features(seed):
    """20 draws: 80–100 % of the represented features at cosine ≥ 0.9 (16 of 20 at worst), so ≥ 75 %
    (was ≥ 80 %, the worst draw itself); median cosine 0.9893–0.9996, so ≥ 0.985 (was ≥ 0.99, broken by
    one draw: effective seed 14)."""
    W = superposition.train_toy(20, 5, 0.99, options=superposition.TOY.replace(batch_size=512, seed=seed))[0]
    kept = W[:, superposition.represented_features(W)]
    toy_sae = superposition.train_toy_sae(W, 0.99, F=40, lam=0.3)
    rec = superposition.recovery(kept, toy_sae.W_dec.detach())
    assert float((rec >= 0.9).float().mean()) >= 0.75 and float(rec.median()) >= 0.985


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
def test_clamping_the_thou_feature_fills_the_text_with_what_it_boosts(bundled, shipped, seed):
    """20 sampling seeds: 63–93 % of the clamped continuation's 30 tokens are among the feature's 20 most
    boosted tokens, so ≥ 55 % (was 70–93 %, broken by effective seed 12); of the clean one's none on 18 of
    20 draws and one token (3.3 %) on the other two (effective seeds 12, 13), so ≤ 5 % (was 0)."""
    sae, ids, H, thou = shipped
    j = thou[0][0]
    max_code = float(browse.max_codes(sae, H)[j])
    boosted = [t for t, _ in browse.logit_effects(bundled, sae, j, 20)[0]]
    shares = [
        steer.token_share(
            bundled, steer.generate_clamped(bundled, sae, "ROMEO.\n", j, f, max_code, seed=seed), boosted
        )
        for f in (None, 5.0)
    ]
    assert shares[0] <= 0.05 and shares[1] >= 0.55, shares


# ---------------------------------------------------------------- deterministic given the shipped weights


def test_the_thou_feature_and_its_neighbour(bundled, shipped):
    sae, ids, H, thou = shipped
    (j, _), (j2, _) = thou
    peaks = [[c.tokens[c.peak] for c in browse.top_contexts(bundled, sae, H, ids, i, 6)] for i in (j, j2)]
    assert peaks[0] == [" thou"] * 6
    assert sorted(peaks[1]) == sorted([" they"] * 4 + [" you", " I"])
    f = browse.feature_values(sae, H, j).flatten()
    strings = bundled.token_strings(ids.flatten().tolist())

    def on(token):
        return f[torch.tensor([s == token for s in strings])]

    assert on(" thou").mean() > 7 and on("Thou").mean() > 7 and (on(" thou") > 0).all()
    assert 0.5 < on(" thee").mean() < 2 and (on(" thee") > 0).all()
    up, _ = browse.logit_effects(bundled, sae, j, 5)
    assert {t for t, _ in up} == {" wilt", " canst", " shalt", " hast", " didst"}


def test_speaker_headings_and_lord_have_features_peaking_on_them(bundled, shipped):
    sae, ids, H, _ = shipped
    for token, peak in (("ANTONIO", "ANTONIO"), (" lord", " lord")):
        j = browse.features_for_token(bundled, sae, H, ids, token, k=1)[0][0]
        assert [c.tokens[c.peak] for c in browse.top_contexts(bundled, sae, H, ids, j, 4)] == [peak] * 4


def test_a_third_of_the_live_features_are_pure_and_nearly_half_are_not(bundled, shipped):
    """The shipped SAE: 938 live features, 36 % pure, 47 % at purity ≤ 0.5 (941, 36 %, 47 % before the
    retrain on another CPU in 9809299)."""
    sae, ids, H, _ = shipped
    pure = browse.purities(bundled, sae, H, ids)
    pure = pure[~pure.isnan()]
    assert 0.3 <= float((pure == 1).float().mean()) <= 0.4
    assert 0.4 <= float((pure <= 0.5).float().mean()) < 0.5


def test_analogy_ranks(bundled):
    """Deterministic given the bundled embeddings: pronouns and kinship at rank 1–2, not the rest."""
    quads = [
        (" he", " his", " she", " her"),
        (" brother", " father", " sister", " mother"),
        (" father", " son", " mother", " daughter"),
        (" man", " king", " woman", " queen"),
        (" husband", " wife", " lord", " lady"),
    ]
    assert [superposition.analogy(bundled, *q)[0] for q in quads] == [1, 1, 2, 18, 34]


def test_the_prompt_never_lights_the_thou_feature_and_both_baselines_wreck_the_model(bundled, shipped):
    sae, ids, H, thou = shipped
    cfg, j = sae.config, thou[0][0]
    x = torch.tensor([bundled.encode("ROMEO.\n")])
    h = activations.collect(bundled, x, cfg.layer, cfg.hook).float() * cfg.scale
    assert float(browse.feature_values(sae, h, j).max()) == 0
    ce = {
        b: metrics.ce_loss_recovered(bundled, sae, ids[:16], cfg.layer, cfg.hook, b) for b in ("zero", "mean")
    }
    assert min(ce["zero"]["zero"], ce["mean"]["zero"]) > ce["zero"]["clean"] + 3  # "far higher loss"
    assert abs(ce["zero"]["recovered"] - ce["mean"]["recovered"]) > 0.05  # "scores differently"


def test_one_line_is_explained_by_a_few_features_mostly_its_own_tokens(bundled, shipped):
    """Section 7's line: 15–30 active features per token; on 12 of 15 tokens the largest is a feature
    whose top 8 contexts all peak on that same token, among them ' thou' and ' lord' by the features of
    section 6; ' dost' led by a feature whose top 8 contexts peak on ' wilt', ' shalt', ' dost', ' canst'."""
    sae, ids, H, thou = shipped
    parts = decompose.decompose(bundled, sae, "KING.\nWhat dost thou know of this, my good lord?\n")
    sizes = [len(a) for a in parts.active]
    assert (min(sizes), max(sizes), len(sizes)) == (15, 30, 15)
    own = 0
    for token, a in zip(parts.tokens, parts.active, strict=True):
        peaks = {c.tokens[c.peak] for c in browse.top_contexts(bundled, sae, H, ids, a[0][0], 8)}
        own += peaks == {token}
    assert own == 12
    lead = dict(zip(parts.tokens, (a[0][0] for a in parts.active), strict=False))
    assert lead[" thou"] == thou[0][0]
    assert lead[" lord"] == browse.features_for_token(bundled, sae, H, ids, " lord", k=1)[0][0]
    dost = browse.top_contexts(bundled, sae, H, ids, lead[" dost"], 8)
    assert {c.tokens[c.peak] for c in dost} == {" wilt", " shalt", " dost", " canst"}
