"""Lesson 11's helpers against independent references: conicity against numpy's cosines and its
closed cases, ERASER's scores against a hand-worked example, Ω by hand, REINFORCE's expectation
against autograd of the exact expectation (all 2^3 selections), HardKuma's point masses against
samples drawn through numpy's Beta (Kuma(a, b) = Beta(1, b)^{1/a}), and small trainings."""

import numpy as np
import pytest
import torch

from xai_tf import seeds
from xai_tf.faithfulness import conicity as con
from xai_tf.faithfulness import regularised
from xai_tf.rationales import eraser, hardkuma, reinforce
from xai_tf.rationales import model as rat
from xai_tf.rationales.penalty import omega
from xai_tf.tasks import cues, recurrent
from xai_tf.tasks.words import Example

# ---------------------------------------------------------------- conicity


def test_conicity_of_identical_vectors_is_one():
    H = torch.tensor([[1.0, 2.0, -3.0]]).repeat(5, 1)
    assert con.conicity(H).item() == pytest.approx(1.0, abs=1e-6)


def test_conicity_zero_mean_is_zero():
    eye = torch.eye(4, dtype=torch.float64)
    assert con.conicity(torch.cat([eye, -eye])).item() == 0.0  # ± an orthonormal set: ā = 0
    assert con.conicity(eye).item() == pytest.approx(0.5, abs=1e-12)  # cos(e_i, 1/4·1) = 1/2


def test_conicity_matches_numpy_and_mask_drops_rows():
    rng = np.random.default_rng(0)
    H = rng.normal(size=(3, 7, 5)) + 0.5
    mean = H.mean(1, keepdims=True)
    want = ((H * mean).sum(-1) / np.linalg.norm(H, axis=-1) / np.linalg.norm(mean, axis=-1)).mean(-1)
    assert np.allclose(con.conicity(torch.tensor(H)).numpy(), want, atol=1e-12)
    mask = torch.ones(3, 7)
    mask[:, 4:] = 0
    padded = torch.tensor(H).clone()
    padded[:, 4:] = 99.0
    assert torch.allclose(con.conicity(padded, mask), con.conicity(torch.tensor(H)[:, :4]))


def test_conicity_refuses_empty_and_nan():
    with pytest.raises(ValueError, match="H must be"):
        con.conicity(torch.zeros(0, 3))
    with pytest.raises(ValueError, match="finite"):
        con.conicity(torch.tensor([[float("nan"), 1.0]]))


# ---------------------------------------------------------------- ERASER


def toy_model(ids):
    """p(positive) = 0.5 + 0.1·(#2 − #3) for word ids 1..3: a model we can work out by hand."""
    p = 0.5 + 0.1 * (ids.count(2) - ids.count(3))
    return torch.tensor([1 - p, p])


def test_comprehensiveness_and_sufficiency_by_hand():
    ids = [2, 2, 1, 3]  # p = 0.6, predicted positive
    assert eraser.comprehensiveness(toy_model, ids, [0]) == pytest.approx(0.6 - 0.5)
    assert eraser.comprehensiveness(toy_model, ids, [0, 1]) == pytest.approx(0.6 - 0.4)
    assert eraser.sufficiency(toy_model, ids, [0, 1]) == pytest.approx(0.6 - 0.7)
    assert eraser.sufficiency(toy_model, ids, [2]) == pytest.approx(0.6 - 0.5)
    scores = torch.tensor([0.9, 0.8, 0.1, 0.2])  # T = 4: bins give k = 1, 1, 1, 1, 2
    want = (4 * (0.6 - 0.5) + (0.6 - 0.4)) / 5
    assert eraser.aopc(toy_model, ids, scores, "comprehensiveness") == pytest.approx(want)


def test_eraser_bad_inputs():
    with pytest.raises(ValueError, match="rationale is empty"):
        eraser.sufficiency(toy_model, [2, 1], [])
    with pytest.raises(ValueError, match=r"k must be an integer in 1..3"):
        eraser.top_k([0.1, 0.2, 0.3], 4)
    with pytest.raises(ValueError, match="covers every word"):
        eraser.comprehensiveness(toy_model, [2, 1], [0, 1])
    with pytest.raises(ValueError, match="which must be"):
        eraser.aopc(toy_model, [2, 1], torch.ones(2), "both")


def test_eraser_table_ranks_attention_above_random_on_cues():
    train, test = cues.cue_sentences(400, seed=0), cues.cue_sentences(20, seed=1)
    model = recurrent.train_attention_classifier(
        train, len(cues.VOCAB), "none", options=recurrent.OPTIONS.replace(steps=80, seed=0)
    )
    rows = eraser.eraser_table(model, test, methods=["attention"])
    assert [r.method for r in rows] == ["attention", eraser.RANDOM]
    assert rows[0].plausibility > 0.9 > 0.5 > rows[1].plausibility


def test_eraser_table_is_the_mean_of_each_sentences_aopc():
    """A row = the means over sentences of ≥ 2 words of AOPC and P@k, the scores from the verb
    (``IMPORTANCES.explain``); P@k NaN where no sentence has a cue."""
    from xai_tf.faithfulness.importance import IMPORTANCES
    from xai_tf.faithfulness.plausibility import precision_at_k

    with seeds.seeded(0):
        model = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB), d_e=8, d_h=4))
    data = [*cues.cue_sentences(4, seed=3), Example([5], 1, [1])]  # the one-word sentence is skipped
    (row, _) = sorted(eraser.eraser_table(model, data, methods=["gradient"]), key=lambda r: r.method)
    m = eraser.classifier_probabilities(model)
    scores = [IMPORTANCES.explain("gradient", model, e.ids).scores for e in data[:4]]
    for which, got in (("comprehensiveness", row.comprehensiveness), ("sufficiency", row.sufficiency)):
        want = np.mean([eraser.aopc(m, e.ids, s, which) for e, s in zip(data, scores, strict=False)])
        assert got == pytest.approx(want, abs=1e-12)
    want = np.mean([precision_at_k(s, e.cues) for e, s in zip(data, scores, strict=False)])
    assert row.plausibility == pytest.approx(want, abs=1e-12)
    no_cues = [e._replace(cues=[0] * len(e.ids)) for e in data]
    assert all(np.isnan(r.plausibility) for r in eraser.eraser_table(model, no_cues, methods=["LOO"]))


# ---------------------------------------------------------------- Ω, REINFORCE, HardKuma


def test_omega_by_hand():
    z = torch.tensor([0.0, 1.0, 1.0, 0.0, 1.0])  # 3 words, 3 jumps
    assert omega(z, 0.5, 2.0).item() == pytest.approx(0.5 * 3 + 2.0 * 3)
    mask = torch.tensor([1, 1, 1, 1, 0])  # the last word is padding: 2 words, 2 jumps
    assert omega(z, 0.5, 2.0, mask).item() == pytest.approx(0.5 * 2 + 2.0 * 2)
    with pytest.raises(ValueError, match=r"lam1 must be a finite number in \[0, inf\)"):
        omega(z, -0.1, 0.0)


def test_exact_gradient_of_the_toy_cost_in_closed_form():
    """E[f] = 1.5 p₀ − 0.7 p₁ + 2.2 p₂ + 3 p₀ p₂ (independent Bernoullis), dp_i/dφ_i = p_i(1 − p_i)."""
    phi = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    p = torch.sigmoid(phi)
    d = p * (1 - p)
    want = torch.stack([(1.5 + 3 * p[2]) * d[0], -0.7 * d[1], (2.2 + 3 * p[0]) * d[2]])
    assert torch.allclose(reinforce.exact_gradient(phi, reinforce.toy_cost), want, atol=1e-14, rtol=0)
    assert reinforce.toy_cost(torch.tensor([1.0, 1.0, 1.0])).item() == pytest.approx(1.5 - 0.7 + 2.2 + 3.0)
    assert torch.allclose(reinforce.expected_estimate(phi, reinforce.toy_cost, 2.0), want, atol=1e-12, rtol=0)


@pytest.mark.parametrize("baseline", [0.0, 1.7])
def test_reinforce_is_unbiased_on_three_tokens(baseline):
    phi = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    weights = torch.tensor([1.5, -0.7, 2.2], dtype=torch.float64)

    def f(z):
        return (weights * z).sum() + 3.0 * z[0] * z[2]

    exact_phi = phi.clone().requires_grad_(True)
    p = torch.sigmoid(exact_phi)
    expectation = sum(
        torch.prod(torch.where(z > 0, p, 1 - p)) * f(z) for z in reinforce.selections(3).double()
    )
    (want,) = torch.autograd.grad(expectation, exact_phi)
    got = reinforce.expected_estimate(phi, f, baseline)
    assert torch.allclose(got, want, atol=1e-12)


def test_hardkuma_point_masses_match_numpy_beta_samples():
    a, b = torch.tensor([0.5, 1.0, 2.0, 0.3]), torch.tensor([0.7, 1.0, 0.5, 3.0])
    rng, n = np.random.default_rng(0), 200_000
    k = rng.beta(1.0, b.numpy()[:, None], size=(4, n)) ** (1 / a.numpy()[:, None])
    z = np.clip(hardkuma.LOW + (hardkuma.HIGH - hardkuma.LOW) * k, 0, 1)
    se = 4 * np.sqrt(0.25 / n)
    assert np.allclose(hardkuma.prob_zero(a, b).numpy(), (z == 0).mean(1), atol=se)
    assert np.allclose(hardkuma.prob_one(a, b).numpy(), (z == 1).mean(1), atol=se)
    ours = hardkuma.sample(a[:, None].expand(4, n), b[:, None].expand(4, n), torch.Generator().manual_seed(0))
    assert ((ours >= 0) & (ours <= 1)).all()
    assert np.allclose((ours == 0).float().mean(1).numpy(), (z == 0).mean(1), atol=2 * se)
    assert np.allclose((ours == 1).float().mean(1).numpy(), (z == 1).mean(1), atol=2 * se)


def test_hardkuma_refuses_nonpositive_shapes():
    with pytest.raises(ValueError, match="a must be finite and > 0"):
        hardkuma.sample(torch.tensor([0.0]), torch.tensor([1.0]))


# ---------------------------------------------------------------- training


@pytest.mark.parametrize(("estimator", "lam1"), [("reinforce", 0.05), ("hardkuma", 0.02)])
def test_rationalizer_selects_planted_cues(estimator, lam1):
    """What it keeps are cues. Over XAI_TF_SEED_OFFSET = 0…7: precision 0.98–1.00 (REINFORCE) and
    0.81–1.00 (HardKuma), words kept 0.01–0.22; recall is a property of the draw (0.06–0.98), so it
    is not asserted here."""
    train, test = cues.cue_sentences(600, seed=0), cues.cue_sentences(100, seed=1)
    model = rat.train_rationalizer(
        train, len(cues.VOCAB), estimator, lam1, lam1 / 2, options=rat.OPTIONS.replace(steps=200)
    )
    scores = rat.evaluate(model, test)
    assert scores.precision > 0.8 and scores.sparsity < 0.25  # cues: ≈ 20 % of words
    no_cues = [e._replace(cues=[0] * len(e.ids)) for e in test]
    unknown = rat.evaluate(model, no_cues)
    assert np.isnan(unknown.precision) and np.isnan(unknown.recall) and unknown.sparsity == scores.sparsity


def test_rationalizer_bad_inputs():
    with pytest.raises(ValueError, match="estimator must be one of"):
        rat.Rationalizer(10, "gumbel", 0.1, 0.1)
    with pytest.raises(ValueError, match="lam2 must be"):
        rat.Rationalizer(10, "hardkuma", 0.1, -1.0)
    with pytest.raises(ValueError, match=r"d must be an integer in 1\.\.1024, got 0"):
        rat.Rationalizer(10, "hardkuma", 0.1, 0.1, d=0)
    with pytest.raises(ValueError, match=r"a rationalizer of 1000000000 words needs .* GiB"):
        rat.Rationalizer(10**9, "hardkuma", 0.1, 0.1)  # refused before allocating


def test_tying_penalty_by_hand_leaves_out_padding():
    rng = np.random.default_rng(1)
    h, E = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    lengths = [3, 2]
    want = [sum(np.sum((h[n, t] - E[n, t]) ** 2) for t in range(T)) / T for n, T in enumerate(lengths)]
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]]).bool()
    got = regularised.tying_penalty(torch.tensor(h), torch.tensor(E), mask)
    assert np.allclose(got.numpy(), want, atol=1e-12)
    with pytest.raises(ValueError, match="one shape"):
        regularised.tying_penalty(torch.tensor(h), torch.tensor(E)[..., :2], mask)


def test_diversity_lowers_conicity_and_tying_closes_h_to_e():
    train = cues.cue_sentences(300, seed=0)
    plain = regularised.train_regularised(
        train, len(cues.VOCAB), "diversity", 0.0, options=regularised.OPTIONS.replace(steps=40)
    )
    diverse = regularised.train_regularised(
        train, len(cues.VOCAB), "diversity", 1.0, options=regularised.OPTIONS.replace(steps=40)
    )
    tied = regularised.train_regularised(
        train, len(cues.VOCAB), "tying", 1.0, options=regularised.OPTIONS.replace(steps=40)
    )
    untied = regularised.train_regularised(
        train, len(cues.VOCAB), "tying", 1.0, sign=-1, options=regularised.OPTIONS.replace(steps=40)
    )
    assert con.recurrent_conicity(diverse, train)[1] < con.recurrent_conicity(plain, train)[1]
    d = [regularised.mean_tying_distance(m, train) for m in (tied, plain, untied)]
    assert d[0] < d[1] < d[2]


# ---------------------------------------------------------------- exercises


def _numpy_conicity(H):
    H = H.numpy()
    mean = H.mean(0)
    if not mean.any():
        return 0.0
    return float((H @ mean / np.linalg.norm(H, axis=1) / np.linalg.norm(mean)).mean())


def test_exercise_checkers_pass_right_answers_and_name_mistakes(capsys):
    from xai_tf.exercises.rationales import check_conicity, check_omega

    assert check_conicity(_numpy_conicity)
    assert not check_conicity(
        lambda H: float((H @ H.mean(0)).mean() / H.norm(dim=-1).mean() / H.mean(0).norm())
    )
    assert "its own ‖h_i‖" in capsys.readouterr().out

    def no_degenerate_case(H):
        mean = H.mean(0)
        return (H @ mean / (H.norm(dim=-1) * mean.norm())).mean()

    assert not check_conicity(no_degenerate_case)
    assert "return 0" in capsys.readouterr().out
    assert check_omega(
        lambda z, l1, l2: float(l1 * np.abs(z.numpy()).sum() + l2 * np.abs(np.diff(z.numpy())).sum())
    )
    assert not check_omega(lambda z, l1, l2: l1 * z.abs().sum() + l2 * (z - z.roll(1)).abs().sum())
    assert "last word back to the first" in capsys.readouterr().out


# ---------------------------------------------------------------- controlled sparsity


def test_lagrangian_follows_its_moving_average_by_hand():
    """c̄_k = α c̄_{k−1} + (1 − α) C_k, λ_k = λ_{k−1} e^{η c̄_k}; the term's value is λ_k c̄_k and its
    gradient in the share is λ_k (float64 hand loop)."""
    from xai_tf.rationales.sparsity import Lagrangian

    lag, moving, lam = Lagrangian(0.2, lr=0.5, alpha=0.8, lam=0.1), 0.0, 0.1
    for share in (0.6, 0.5, 0.1, 0.05, 0.3):
        x = torch.tensor(share, dtype=torch.float64, requires_grad=True)
        term = lag.term(x)
        moving = 0.8 * moving + 0.2 * (share - 0.2)
        lam *= np.exp(0.5 * moving)
        assert lag.lam == pytest.approx(lam, rel=1e-12)
        assert term.item() == pytest.approx(lam * moving, rel=1e-12)
        (grad,) = torch.autograd.grad(term, x)
        assert grad.item() == pytest.approx(lam, rel=1e-12)
    assert [c for c, _ in lag.history] == pytest.approx([0.4, 0.3, -0.1, -0.15, 0.1])
    frozen = lag.lam
    assert lag.term(torch.tensor(0.9), update=False).item() == pytest.approx(frozen * 0.7)
    assert lag.lam == frozen  # update=False leaves λ where it was


def test_lagrangian_keeps_lambda_in_its_clamp_and_refuses_bad_targets():
    from xai_tf.rationales import sparsity

    lag = sparsity.Lagrangian(0.5, lr=100.0)
    for _ in range(5):
        lag.term(torch.tensor(1.0))
    assert lag.lam == sparsity.LAMBDA_MAX
    for _ in range(200):
        lag.term(torch.tensor(0.0))
    assert lag.lam == sparsity.LAMBDA_MIN  # below target: λ falls to its floor, ξ is an upper bound
    with pytest.raises(ValueError, match=r"selection must be a finite number in \(0, 1\)"):
        sparsity.Lagrangian(1.0)
    with pytest.raises(ValueError, match=r"alpha must be a finite number in \[0, 1\)"):
        sparsity.Lagrangian(0.3, alpha=1.0)


def test_controlled_hardkuma_records_every_step_and_gradient_variance_leaves_lambda_alone():
    train = cues.cue_sentences(200, seed=0)
    model = rat.train_rationalizer(
        train, len(cues.VOCAB), "hardkuma", 0.0, 0.01, selection=0.2, options=rat.OPTIONS.replace(steps=30)
    )
    assert len(model.sparsity.history) == 30
    lam = model.sparsity.lam
    rat.gradient_variance(model, train[:8], samples=3)
    assert model.sparsity.lam == lam and len(model.sparsity.history) == 30
    assert (
        rat.train_rationalizer(
            train, len(cues.VOCAB), "hardkuma", options=rat.OPTIONS.replace(steps=2)
        ).sparsity
        is None
    )


# ---------------------------------------------------------------- the lesson's explainers and rows


def test_explanations_are_the_verbs_scores_a_seeded_floor_and_the_rationales():
    from xai_tf.faithfulness.importance import IMPORTANCES, METHODS

    train = cues.cue_sentences(100, seed=0)
    model = recurrent.train_attention_classifier(
        train, len(cues.VOCAB), "bilstm", options=recurrent.OPTIONS.replace(steps=5)
    )
    r = rat.train_rationalizer(
        train, len(cues.VOCAB), "reinforce", 0.0, 0.0, options=rat.OPTIONS.replace(steps=5)
    )
    ids, g = train[0].ids, seeds.generator(3)
    got = eraser.explanations(model, ids, METHODS, {"R": r}, seeds.generator(3))
    assert list(got) == [*METHODS, eraser.RANDOM, "R"]
    for m in METHODS:
        assert torch.equal(got[m], IMPORTANCES.explain(m, model, ids).scores)
    assert torch.equal(got[eraser.RANDOM], torch.rand(len(ids), generator=g))
    chosen = set(rat.rationale(r, ids))
    assert got["R"].tolist() == [float(t in chosen) for t in range(len(ids))]
    assert list(eraser.explanations(model, ids, ["IG"])) == ["IG"]  # no generator: no floor


def test_describe_is_the_lessons_row():
    from xai_tf.faithfulness import correlation

    data = cues.cue_sentences(60, seed=0)
    model = regularised.train_regularised(
        data, len(cues.VOCAB), "tying", 0.5, options=regularised.OPTIONS.replace(steps=5)
    )
    row = regularised.describe(model, data, data[:6])
    study = correlation.correlation_study(model, data[:6], regularised.PAIRS)
    assert row == {
        "accuracy": recurrent.accuracy(model, data),
        "conicity": con.recurrent_conicity(model, data)[1],
        "distance": regularised.mean_tying_distance(model, data),
        "τ attention–LOO": study.summary(("attention", "LOO"))[0],
        "τ attention–IG": study.summary(("attention", "IG"))[0],
    }


# ---------------------------------------------------------------- bad input: the documented values


def test_documented_values_for_odd_but_valid_input():
    from xai_tf.rationales import sparsity

    assert omega(torch.ones(3, dtype=torch.half), 0.5, 1.0).dtype == torch.float32  # half: in float32
    assert eraser.top_k(torch.tensor([3, 1, 2]), 1) == [0]  # integer scores rank as numbers
    assert eraser.top_k([0.0, float("inf"), float("-inf")], 2) == [0, 1]  # ±inf rank first and last
    lag = sparsity.Lagrangian(0.2, lr=1e6)  # a step far past the clamp: λ lands on it, no overflow
    lag.term(torch.tensor(0.9))
    assert lag.lam == sparsity.LAMBDA_MAX and lag.history == [(pytest.approx(0.7), sparsity.LAMBDA_MAX)]


def test_a_batch_larger_than_the_data_is_the_full_batch():
    """``minibatches``: batch_size ≥ n gives every example, in order, each step (not n draws with
    replacement): the same weights as Adam on the whole set, the HardKuma noise drawn as in training."""
    from xai_tf._threads import one_thread
    from xai_tf.training import TrainOptions, fit

    data = cues.cue_sentences(12, seed=0)
    big = rat.train_rationalizer(
        data, len(cues.VOCAB), "hardkuma", options=rat.OPTIONS.replace(steps=3, batch_size=10**5)
    )
    with seeds.seeded(0):
        ref = rat.Rationalizer(len(cues.VOCAB), "hardkuma", 0.02, 0.01)
    noise, everything = seeds.generator(1), recurrent.batch(data)
    with one_thread():
        fit(ref.parameters(), lambda k: rat._objective(ref, everything, noise), TrainOptions(3, 0.01))
    assert all(torch.equal(a, b) for a, b in zip(big.parameters(), ref.parameters(), strict=True))


# ---------------------------------------------------------------- gradient variance by hand


def test_gradient_variance_of_one_word_by_hand():
    """One sentence of one word, REINFORCE with baseline b. The generator's gradient estimate is
    ĝ = s(z) ∇_θ φ with s(z) = (c_z − b)(z − σ(φ)), c_z = −log softmax(W_c z e′ + b_c)_y + λ₁ z (no
    span can break in one word), so Σ_p Var[ĝ_p] = Var[s] ‖∇_θ φ‖², Var over the draws with S − 1 in
    the denominator; c_z, s and the sample variance computed here in float64."""
    with seeds.seeded(0):
        model = rat.Rationalizer(5, "reinforce", 0.3, 0.2, d=4)
    data, ids = [Example([3], 1, [0])], torch.tensor([[3]])
    with torch.no_grad():
        model.gen_out.bias[0] -= model.generator(ids)[0, 0, 0]  # φ = 0: both selections drawn
    model.baseline, S = 0.4, 32
    phi = model.generator(ids)[0, 0, 0]
    generator_params = [*model.gen_embed.parameters(), *model.conv.parameters(), *model.gen_out.parameters()]
    u2 = sum(float((g.double() ** 2).sum()) for g in torch.autograd.grad(phi, generator_params))
    p = float(torch.sigmoid(phi.detach()))
    e = model.pred_embed.weight[3].double().detach()
    W, bias = model.head.weight.double().detach(), model.head.bias.double().detach()
    cost = {z: float(-torch.log_softmax(W @ (z * e) + bias, -1)[1]) + 0.3 * z for z in (0, 1)}
    g = seeds.generator(7)
    zs = [int(torch.bernoulli(torch.sigmoid(phi.detach()).reshape(1, 1), generator=g)) for _ in range(S)]
    assert 0 < sum(zs) < S
    s = np.array([(cost[z] - 0.4) * (z - p) for z in zs])
    want = s.var(ddof=1) * u2
    assert rat.gradient_variance(model, data, samples=S, seed=7) == pytest.approx(want, rel=1e-4)
    assert model.baseline == 0.4  # measuring does not move b


def test_gradient_variance_of_sparsemax_is_zero():
    """Sparsemax draws nothing: every 'sample' is the same gradient."""
    with seeds.seeded(0):
        model = rat.Rationalizer(len(cues.VOCAB), "sparsemax", 0.1, 0.1)
    assert rat.gradient_variance(model, cues.cue_sentences(6), samples=3) == 0.0


# ---------------------------------------------------------------- the panels, on what they show


def _shown(view: str) -> list[str]:
    """The words a panel's sentence shows, in order (bracketed ones keep their brackets)."""
    import html
    import re

    return [html.unescape(w).strip() for w in re.findall(r"white-space:pre'>([^<]*)</span>", view)]


def test_eraser_panel_shows_the_top_k_words_and_their_scores():
    from xai_tf.widgets.rationales import eraser_panel

    with seeds.seeded(0):
        model = recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB), d_e=8, d_h=4))
        r = rat.Rationalizer(len(cues.VOCAB), "reinforce", 0.1, 0.1)
    data = cues.cue_sentences(3, seed=2, length=(6, 6))
    ids = data[1].ids
    with torch.no_grad():
        phi = r.generator(torch.tensor([ids]))[0, :, 0]
        r.gen_out.bias[0] -= float(phi.median()) + 1e-4  # φ > 0 on half the words: the selection
    panel = eraser_panel(model, {"R": r}, cues.VOCAB, data)
    panel["sentence"].value, panel["k"].value, panel["method"].value = 1, 2, "attention"
    with torch.no_grad():
        E = model.embed(torch.tensor([ids]))
        alpha = model.attention(model.states(E))[0].numpy()
        f = lambda words: model(words).softmax(-1)[0].double().detach()  # noqa: E731
    chosen = sorted(np.argsort(-alpha, kind="stable")[:2].tolist())
    words = cues.VOCAB.decode(ids)
    assert _shown(panel.view.value) == [f"[{w}]" if t in chosen else w for t, w in enumerate(words)]
    p = f(ids)
    j = int(p.argmax())
    comp = float(p[j] - f([i for t, i in enumerate(ids) if t not in chosen])[j])
    suff = float(p[j] - f([i for t, i in enumerate(ids) if t in chosen])[j])
    assert f"2 of 6 words; P(predicted) = {float(p.max()):.3f}" in panel.view.value
    assert f"comprehensiveness {comp:+.3f}, sufficiency {suff:+.3f}" in panel.view.value
    panel["method"].value = "R"  # the rationalizer's own words: φ_t > 0, k unused
    with torch.no_grad():
        selected = (r.generator(torch.tensor([ids]))[0, :, 0] > 0).nonzero()[:, 0].tolist()
    assert len(selected) == 3
    assert _shown(panel.view.value) == [f"[{w}]" if t in selected else w for t, w in enumerate(words)]
    assert "R: 3 of 6 words" in panel.view.value


def test_rationale_panel_shows_the_trained_rationalizers_scores_and_selections():
    from xai_tf.widgets.rationales import SHOWN, rationale_panel

    train, test = cues.cue_sentences(40, seed=0), cues.cue_sentences(6, seed=1)
    panel = rationale_panel(train, test, cues.VOCAB)
    panel["lam1"].value = 0.05
    model = rat.train_rationalizer(
        train, len(cues.VOCAB), "hardkuma", 0.05, 0.01, options=rat.OPTIONS.replace(steps=300)
    )
    s = rat.evaluate(model, test)
    head = (
        f"accuracy {s.accuracy:.2f}, precision {s.precision:.2f}, recall {s.recall:.2f}, "
        f"words kept {s.sparsity:.0%}"
    )
    assert head in panel.view.value
    shown = _shown(panel.view.value)
    want = []
    for e in test[:SHOWN]:
        chosen = set(rat.rationale(model, e.ids))
        want += [f"[{w}]" if t in chosen else w for t, w in enumerate(cues.VOCAB.decode(e.ids))]
    assert shown == want
    shades = __import__("re").findall(r"title='([^']*)'", panel.view.value)
    assert shades == [f"{float(c):+.4f}" for e in test[:SHOWN] for c in e.cues]  # the planted cues


@pytest.mark.numerics
def test_the_shipped_grid_is_current_and_rescores_its_record():
    """``rationales.grid``: trained by the code as it is now (fingerprint), one model per (λ₁, λ₂) of the
    panel, and each scores its recorded accuracy, precision, recall and sparsity on the test sentences
    (an empty selection raises as recorded)."""
    from xai_tf.rationales import grid

    record = grid.recorded()
    assert record["fingerprint"] == grid.fingerprint(), (
        "stale: OMP_NUM_THREADS=1 python scripts/train_rationale_grid.py"
    )
    assert len(record["scores"]) == len(grid.LAM1) * len(grid.LAM2)
    test = grid.test_data()
    for lam1 in grid.LAM1:
        for lam2 in grid.LAM2:
            want = record["scores"][grid.key(lam1, lam2)]
            m = grid.model(lam1, lam2)
            assert (m.lam1, m.lam2) == (lam1, lam2)
            if "error" in want:
                with pytest.raises(ValueError, match="every rationale is empty"):
                    rat.evaluate(m, test)
                continue
            got = rat.evaluate(m, test)
            for name, value in want.items():
                assert getattr(got, name) == pytest.approx(value, abs=1e-6, nan_ok=True), (lam1, lam2, name)
    with pytest.raises(ValueError, match="shipped grid"):
        grid.key(0.03, 0.01)


def test_the_lambda_panel_loads_the_shipped_rationalizers_on_the_lessons_data(monkeypatch):
    """On lesson 11's cue sentences a change of λ loads a model (nothing is trained) and shows its scores;
    on other sentences it trains (the test above this one)."""
    from xai_tf.rationales import grid
    from xai_tf.widgets.rationales import rationale_panel

    def no_training(*args, **kwargs):
        raise AssertionError("the panel trained a rationalizer")

    monkeypatch.setattr(rat, "train_rationalizer", no_training)
    panel = rationale_panel(grid.training_data(), grid.test_data(), cues.VOCAB)
    assert not panel._slow and panel.message.value == ""
    for lam1, lam2 in ((0.05, 0.025), (0.0, 0.0)):
        panel["lam1"].value, panel["lam2"].value = lam1, lam2
        s = grid.recorded()["scores"][grid.key(lam1, lam2)]
        assert f"precision {s['precision']:.2f}, recall {s['recall']:.2f}" in panel.view.value
