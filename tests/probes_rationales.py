"""Bad-input probes for lesson 11 (ERASER, conicity, the diversity and tying penalties, rationalizers),
collected by ``test_bad_inputs.py``. Each class of issue 31 is covered for every public helper and panel
of lesson 11: wrong shapes, empty data, NaN, wrong dtypes, paired inputs of different lengths, lists and
strings where tensors are expected, out-of-range and float indices, odd seeds, huge sizes, and data
encoded with another vocabulary than the model's (cue-task vocabulary: ids 0..37)."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.faithfulness import conicity, regularised
from xai_tf.rationales import eraser, grid, hardkuma, penalty, reinforce
from xai_tf.rationales import model as rat
from xai_tf.rationales.sparsity import Lagrangian
from xai_tf.tasks import cues, recurrent, words
from xai_tf.tasks.words import Example, Vocabulary
from xai_tf.widgets import rationales as rationale_panels

EXEMPT = {
    "xai_tf.rationales.grid.fingerprint": "takes no argument",
    "xai_tf.rationales.grid.recorded": "takes no argument",
    "xai_tf.rationales.grid.training_data": "takes no argument",
    "xai_tf.rationales.grid.test_data": "takes no argument",
    "xai_tf.rationales.grid.covers": "a yes/no question: any sentences and estimator give True or False",
}
GRID = "xai_tf.rationales.grid"
V = len(cues.VOCAB)  # 38


@cache
def classifier() -> recurrent.AttentionClassifier:
    return recurrent.AttentionClassifier(recurrent.RecurrentConfig(V, d_e=32, d_h=16))


@cache
def rationalizer() -> rat.Rationalizer:
    return rat.Rationalizer(V, "reinforce", 0.1, 0.1)


def data(n: int = 4) -> list[Example]:
    return cues.cue_sentences(n, length=(4, 6))


def foreign() -> list[Example]:
    """A sentence of another vocabulary: id 999 does not exist in the cue task's 38 words."""
    return [*data(2), Example([5, 999, 7], 1, [0, 0, 0])]


def relabelled(label: object) -> list[Example]:
    return [*data(2), Example([5, 6, 7], label, [0, 0, 0])]


def probs(ids):
    return torch.tensor([0.4, 0.6])


def train(*args, **kwargs):
    """``train_rationalizer`` on four cue sentences, two steps (the probes only reach its checks)."""
    kwargs = {"options": rat.OPTIONS.replace(steps=2), **kwargs}
    args = args or (data(), V, "reinforce")
    return rat.train_rationalizer(*args, **kwargs)


ONE = torch.ones(3)
NAN3 = torch.tensor([0.1, NAN, 0.3])
ERASER = "xai_tf.rationales.eraser"
RAT = "xai_tf.rationales.model"
RAISES = [
    (GRID + ".key", lambda: grid.key(0.03, 0.01), VE, r"must lie on the shipped grid"),
    (GRID + ".model", lambda: grid.model(0.02, float("nan")), VE, r"must lie on the shipped grid"),
    ("xai_tf.faithfulness.conicity.conicity", lambda: conicity.conicity(z(0, 3)), VE, "H must be vectors"),
    (
        "xai_tf.faithfulness.conicity.recurrent_conicity",
        lambda: conicity.recurrent_conicity(classifier(), []),
        VE,
        "data is empty",
    ),
    (
        "xai_tf.faithfulness.conicity.layer_conicity",
        lambda: conicity.layer_conicity(lm(), "one text"),
        VE,
        "texts must be a non-empty list",
    ),
    (
        "xai_tf.faithfulness.regularised.describe",
        lambda: regularised.describe(classifier(), [], cues.cue_sentences(2)),
        VE,
        "data is empty",
    ),
    (
        "xai_tf.faithfulness.regularised.tying_penalty",
        lambda: regularised.tying_penalty(z(1, 3, 4), z(1, 3, 8), torch.ones(1, 3)),
        VE,
        "h and E must have one shape",
    ),
    (
        "xai_tf.faithfulness.regularised.train_regularised",
        lambda: regularised.train_regularised(cues.cue_sentences(4), V, "tying", -0.1),
        VE,
        r"lam must be a finite number in \[0, inf\)",
    ),
    (
        "xai_tf.faithfulness.regularised.mean_tying_distance",
        lambda: regularised.mean_tying_distance(classifier(), []),
        VE,
        "data is empty",
    ),
    # ---------------------------------------------------------------- ERASER
    (
        f"{ERASER}.top_k",
        lambda: eraser.top_k([0.1, 0.2, 0.3], 4),
        VE,
        r"k must be an integer in 1\.\.3, got 4",
    ),
    (f"{ERASER}.top_k", lambda: eraser.top_k([0.1, 0.2, 0.3], 1.5), TE, r"k must be an integer in 1\.\.3"),
    (f"{ERASER}.top_k", lambda: eraser.top_k(NAN3, 1), VE, "scores has NaN"),
    (f"{ERASER}.top_k", lambda: eraser.top_k("abc", 1), TE, r"scores must be one number per word"),
    (f"{ERASER}.top_k", lambda: eraser.top_k(torch.ones(2, 3), 1), VE, r"scores must be one score per word"),
    (f"{ERASER}.top_k", lambda: eraser.top_k([], 1), VE, r"scores must be one score per word \[T\], T ≥ 1"),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(probs, [2, 3], [0, 1]),
        VE,
        "covers every word",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(probs, [2, 3], [1.7]),
        TE,
        r"rationale\[0\] must be an integer in 0\.\.1, got 1\.7",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(probs, [2, 3], [5]),
        VE,
        r"rationale\[0\] must be an integer in 0\.\.1, got 5",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(probs, [], [0]),
        VE,
        "ids must be the word ids of one sentence, at least 1 word",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(None, [2, 3], [0]),
        TE,
        r"m must be a function from word ids to class probabilities",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(lambda ids: torch.tensor([NAN, 0.5]), [2, 3], [0]),
        VE,
        r"m must return class probabilities \[classes\] in \[0, 1\]",
    ),
    (
        f"{ERASER}.comprehensiveness",
        lambda: eraser.comprehensiveness(lambda ids: torch.ones(1, 2) / 2, [2, 3], [0]),
        VE,
        r"m must return class probabilities \[classes\]",
    ),
    (f"{ERASER}.sufficiency", lambda: eraser.sufficiency(probs, [2, 3], []), VE, "the rationale is empty"),
    (
        f"{ERASER}.sufficiency",
        lambda: eraser.sufficiency(probs, "ab", [0]),
        TE,
        r"ids must be a list of integer word ids, got str",
    ),
    (
        f"{ERASER}.sufficiency",
        lambda: eraser.sufficiency(probs, [1.5, 2], [0]),
        TE,
        r"ids must hold integer word ids",
    ),
    (
        f"{ERASER}.sufficiency",
        lambda: eraser.sufficiency(probs, [2, 3], "0"),
        TE,
        r"rationale must be a list of integer positions in 0\.\.1, got str",
    ),
    (
        f"{ERASER}.aopc",
        lambda: eraser.aopc(probs, [2, 3], torch.ones(2), "both"),
        VE,
        "which must be 'comprehensiveness' or 'sufficiency'",
    ),
    (
        f"{ERASER}.aopc",
        lambda: eraser.aopc(probs, [2], torch.ones(1), "comprehensiveness"),
        VE,
        r"ids has 1 word: comprehensiveness needs at least 2",
    ),
    (
        f"{ERASER}.aopc",
        lambda: eraser.aopc(probs, [2, 3, 4], torch.ones(2), "sufficiency"),
        VE,
        r"scores must give one score per word: 2 scores for 3 words",
    ),
    (f"{ERASER}.aopc", lambda: eraser.aopc(probs, [2, 3, 4], NAN3, "sufficiency"), VE, "scores has NaN"),
    (
        f"{ERASER}.classifier_probabilities",
        lambda: eraser.classifier_probabilities(None),
        TE,
        "model must be an AttentionClassifier",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), data(), methods=[]),
        VE,
        r"methods must be a non-empty list of names from \['attention'",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), data(), methods=["random forest"]),
        VE,
        "methods must be a non-empty list of names from",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), "text"),
        TE,
        "data must be a list of Examples",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(probs, data()),
        TE,
        "model must be an AttentionClassifier",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), [Example([4], 0, [1])]),
        VE,
        "data has no sentence of at least 2 words",
    ),
    (
        f"{ERASER}.eraser_table",
        lambda: eraser.eraser_table(classifier(), data(), seed=1.5),
        TE,
        r"seed must be an integer ≥ 0",
    ),
    (
        f"{ERASER}.explanations",
        lambda: eraser.explanations(classifier(), [2, 3], rationalizers={"r": classifier()}),
        TE,
        r"rationalizers\['r'\] must be a Rationalizer",
    ),
    (
        f"{ERASER}.explanations",
        lambda: eraser.explanations(classifier(), [2, 999]),
        VE,
        r"ids must be token ids in 0\.\.37 \(the model's vocabulary\), got 999",
    ),
    (
        f"{RAT}.check_rationalizers",
        lambda: rat.check_rationalizers([rationalizer()]),
        TE,
        r"rationalizers must be a dict \{name: Rationalizer\}, got list",
    ),
    (
        f"{RAT}.rationale_mask",
        lambda: rat.rationale_mask(rationalizer(), [2.5]),
        TE,
        r"ids must hold integer token ids",
    ),
    # ---------------------------------------------------------------- Ω, HardKuma, REINFORCE, λ
    (
        "xai_tf.rationales.penalty.check_lambdas",
        lambda: penalty.check_lambdas(0.1, -1.0),
        VE,
        r"lam2 must be a finite number in \[0, inf\)",
    ),
    (
        "xai_tf.rationales.penalty.omega",
        lambda: penalty.omega(ONE, -0.5, 0.0),
        VE,
        r"lam1 must be a finite number in \[0, inf\)",
    ),
    (
        "xai_tf.rationales.penalty.omega",
        lambda: penalty.omega([0.0, 1.0], 0.1, 0.1),
        TE,
        "z must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.rationales.penalty.omega",
        lambda: penalty.omega(torch.tensor([0, 1, 1]), 0.1, 0.1),
        TE,
        r"z must be a floating-point tensor",
    ),
    ("xai_tf.rationales.penalty.omega", lambda: penalty.omega(NAN3, 0.1, 0.1), VE, "z has NaN"),
    (
        "xai_tf.rationales.penalty.omega",
        lambda: penalty.omega(ONE, 0.1, 0.1, torch.ones(2)),
        VE,
        r"z is \(3,\) but mask is \(2,\)",
    ),
    (
        "xai_tf.rationales.penalty.omega",
        lambda: penalty.omega(ONE, "0.1", 0.1),
        TE,
        r"lam1 must be a number in \[0, inf\)",
    ),
    (
        "xai_tf.rationales.hardkuma.kuma_cdf",
        lambda: hardkuma.kuma_cdf(ONE, -ONE, ONE),
        VE,
        "a must be finite and > 0",
    ),
    (
        "xai_tf.rationales.hardkuma.kuma_cdf",
        lambda: hardkuma.kuma_cdf([0.5], ONE, ONE),
        TE,
        "k must be a torch.Tensor",
    ),
    ("xai_tf.rationales.hardkuma.kuma_cdf", lambda: hardkuma.kuma_cdf(NAN3, ONE, ONE), VE, "k has NaN"),
    (
        "xai_tf.rationales.hardkuma.kuma_cdf",
        lambda: hardkuma.kuma_cdf(ONE, torch.ones(2), ONE),
        VE,
        r"a is \(2,\) but b is \(3,\)",
    ),
    (
        "xai_tf.rationales.hardkuma.sample",
        lambda: hardkuma.sample(ONE, 0 * ONE),
        VE,
        "b must be finite and > 0",
    ),
    (
        "xai_tf.rationales.hardkuma.sample",
        lambda: hardkuma.sample(torch.ones(3, dtype=torch.long), ONE),
        TE,
        "a must be a floating-point tensor",
    ),
    (
        "xai_tf.rationales.hardkuma.sample",
        lambda: hardkuma.sample(ONE, ONE, generator="0"),
        TE,
        "generator must be a torch.Generator or None",
    ),
    (
        "xai_tf.rationales.hardkuma.prob_zero",
        lambda: hardkuma.prob_zero([1.0], ONE),
        TE,
        "a must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.hardkuma.prob_zero",
        lambda: hardkuma.prob_zero(torch.ones(2), ONE),
        VE,
        r"a is \(2,\) but b is \(3,\)",
    ),
    (
        "xai_tf.rationales.hardkuma.prob_one",
        lambda: hardkuma.prob_one(ONE, ONE * NAN),
        VE,
        "b must be finite and > 0",
    ),
    (
        "xai_tf.rationales.reinforce.log_prob",
        lambda: reinforce.log_prob([0.1], ONE),
        TE,
        "phi must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.reinforce.log_prob",
        lambda: reinforce.log_prob(ONE, torch.ones(2)),
        VE,
        r"phi is \(3,\) but z is \(2,\)",
    ),
    ("xai_tf.rationales.reinforce.log_prob", lambda: reinforce.log_prob(NAN3, ONE), VE, "phi has NaN"),
    (
        "xai_tf.rationales.reinforce.log_prob",
        lambda: reinforce.log_prob(torch.ones(3, dtype=torch.long), ONE),
        TE,
        "phi must be a floating-point tensor",
    ),
    (
        "xai_tf.rationales.reinforce.log_prob",
        lambda: reinforce.log_prob(ONE, [1.0, 0.0, 1.0]),
        TE,
        "z must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.reinforce.estimate",
        lambda: reinforce.estimate(ONE, sum, ONE, NAN),
        VE,
        "baseline must be a finite number",
    ),
    (
        "xai_tf.rationales.reinforce.estimate",
        lambda: reinforce.estimate(ONE, 3.0, ONE),
        TE,
        r"f must be a function of a selection z \[T\]",
    ),
    (
        "xai_tf.rationales.reinforce.estimate",
        lambda: reinforce.estimate(ONE, lambda z: z, ONE),
        VE,
        r"f must return one number for a selection z \[T\], got \(3,\)",
    ),
    (
        "xai_tf.rationales.reinforce.selections",
        lambda: reinforce.selections(0),
        VE,
        r"T must be an integer in 1\.\.16, got 0",
    ),
    (
        "xai_tf.rationales.reinforce.expected_estimate",
        lambda: reinforce.expected_estimate(torch.zeros(20), sum),
        VE,
        r"phi must have 1\.\.16 entries \(2\^T selections are enumerated\), got 20",
    ),
    (
        "xai_tf.rationales.reinforce.expected_estimate",
        lambda: reinforce.expected_estimate(torch.zeros(0), sum),
        VE,
        r"phi must have 1\.\.16 entries",
    ),
    (
        "xai_tf.rationales.reinforce.expected_estimate",
        lambda: reinforce.expected_estimate(torch.zeros(2, 3), sum),
        VE,
        r"phi must have 1 dimensions",
    ),
    (
        "xai_tf.rationales.reinforce.expected_estimate",
        lambda: reinforce.expected_estimate([0.1, 0.2], sum),
        TE,
        "phi must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.reinforce.exact_gradient",
        lambda: reinforce.exact_gradient(torch.zeros(17), reinforce.toy_cost),
        VE,
        r"phi must have 1\.\.16 entries",
    ),
    (
        "xai_tf.rationales.reinforce.exact_gradient",
        lambda: reinforce.exact_gradient(torch.zeros(3), "f"),
        TE,
        r"f must be a function of a selection z \[T\]",
    ),
    (
        "xai_tf.rationales.reinforce.toy_cost",
        lambda: reinforce.toy_cost(torch.ones(4)),
        VE,
        "z must be a selection of 3 tokens, got 4",
    ),
    (
        "xai_tf.rationales.reinforce.toy_cost",
        lambda: reinforce.toy_cost([1, 0, 1]),
        TE,
        "z must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(1.0),
        VE,
        r"selection must be a finite number in \(0, 1\)",
    ),
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(0.2).term(torch.tensor(NAN)),
        VE,
        r"share must be a finite number in \[0, 1\]",
    ),
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(0.2).term(0.3),
        TE,
        "share must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(0.2).term(torch.ones(3) / 2),
        VE,
        r"share must be one number \(a 0-d tensor\), got shape \(3,\)",
    ),
    # ---------------------------------------------------------------- the rationalizer
    (
        f"{RAT}.train_rationalizer",
        lambda: train(data(), 0, "hardkuma"),
        VE,
        r"vocab_size must be an integer ≥ 2",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(data(), 10**9, "hardkuma"),
        VE,
        r"a rationalizer of 1000000000 words needs .* GiB",
    ),
    (f"{RAT}.train_rationalizer", lambda: train(data(), V, "gumbel"), VE, "estimator must be one of"),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(data(), V, "reinforce", selection=0.2),
        VE,
        "selection \\(a target share\\) needs estimator 'hardkuma'",
    ),
    (f"{RAT}.train_rationalizer", lambda: train([], V, "reinforce"), VE, "data is empty"),
    (
        f"{RAT}.train_rationalizer",
        lambda: train("good film", V, "reinforce"),
        TE,
        "data must be a list of Examples",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(steps=-1)),
        VE,
        r"steps must be an integer in 1\.\.100000, got -1",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(steps=10**9)),
        VE,
        r"steps must be an integer in 1\.\.100000",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(batch_size=0)),
        VE,
        r"batch_size must be an integer in 1\.\.1000000",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(seed=1.5)),
        TE,
        r"seed must be an integer ≥ 0, got 1\.5",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options=rat.OPTIONS.replace(seed=-1)),
        VE,
        r"seed must be an integer ≥ 0, got -1",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(options={"steps": 2}),
        TE,
        "options must be a TrainOptions, got dict",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(foreign(), V, "hardkuma"),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(the model's vocabulary\), got 999",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(relabelled(2), V, "reinforce"),
        VE,
        r"data's labels must be an integer in 0\.\.1, got 2",
    ),
    (
        f"{RAT}.train_rationalizer",
        lambda: train(relabelled("pos"), V, "reinforce"),
        TE,
        r"data's labels must be an integer in 0\.\.1, got 'pos'",
    ),
    (f"{RAT}.evaluate", lambda: rat.evaluate(rationalizer(), []), VE, "data is empty"),
    (f"{RAT}.evaluate", lambda: rat.evaluate(None, data()), TE, "model must be a Rationalizer, got NoneType"),
    (
        f"{RAT}.evaluate",
        lambda: rat.evaluate(rationalizer(), foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (f"{RAT}.evaluate", lambda: rat.evaluate(rationalizer(), "text"), TE, "data must be a list of Examples"),
    (
        f"{RAT}.rationale",
        lambda: rat.rationale(rationalizer(), []),
        VE,
        "ids must be the word ids of one sentence",
    ),
    (
        f"{RAT}.rationale",
        lambda: rat.rationale(rationalizer(), [1.5, 2]),
        TE,
        r"ids must hold integer token ids in 0\.\.37",
    ),
    (
        f"{RAT}.rationale",
        lambda: rat.rationale(rationalizer(), [999]),
        VE,
        r"ids must be token ids in 0\.\.37",
    ),
    (
        f"{RAT}.rationale",
        lambda: rat.rationale(rationalizer(), [-1, 2]),
        VE,
        r"ids must be token ids in 0\.\.37",
    ),
    (f"{RAT}.rationale", lambda: rat.rationale(None, [1, 2]), TE, "model must be a Rationalizer"),
    (
        f"{RAT}.gradient_variance",
        lambda: rat.gradient_variance(rationalizer(), data(), samples=1),
        VE,
        r"samples must be an integer in 2\.\.10000, got 1",
    ),
    (
        f"{RAT}.gradient_variance",
        lambda: rat.gradient_variance(rationalizer(), data(), samples=10**9),
        VE,
        r"samples must be an integer in 2\.\.10000",
    ),
    (
        f"{RAT}.gradient_variance",
        lambda: rat.gradient_variance(rationalizer(), data(), seed=-1),
        VE,
        r"seed must be an integer ≥ 0",
    ),
    (
        f"{RAT}.gradient_variance",
        lambda: rat.gradient_variance(rationalizer(), foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        f"{RAT}.gradient_variance",
        lambda: rat.gradient_variance(None, data()),
        TE,
        "model must be a Rationalizer",
    ),
    (
        "xai_tf.tasks.words.check_examples",
        lambda: words.check_examples("data", [Example([], 0, [])], V),
        VE,
        r"data\[0\] has no word",
    ),
    (
        "xai_tf.tasks.words.same_vocabulary",
        lambda: words.same_vocabulary(["a", "b"], V),
        TE,
        "vocab must be a Vocabulary, got list",
    ),
    # ---------------------------------------------------------------- the panels' arguments
    (
        "xai_tf.widgets.rationales.eraser_panel",
        lambda: rationale_panels.eraser_panel(classifier(), {}, Vocabulary(["a", "b"]), data()),
        VE,
        r"vocab has 4 words but the model's vocabulary has 38",
    ),
    (
        "xai_tf.widgets.rationales.eraser_panel",
        lambda: rationale_panels.eraser_panel(classifier(), {"r": classifier()}, cues.VOCAB, data()),
        TE,
        r"rationalizers\['r'\] must be a Rationalizer",
    ),
    (
        "xai_tf.widgets.rationales.eraser_panel",
        lambda: rationale_panels.eraser_panel(None, {}, cues.VOCAB, data()),
        TE,
        "model must be an AttentionClassifier",
    ),
    (
        "xai_tf.widgets.rationales.eraser_panel",
        lambda: rationale_panels.eraser_panel(classifier(), {}, cues.VOCAB, foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.widgets.rationales.rationale_panel",
        lambda: rationale_panels.rationale_panel(foreign(), data(), cues.VOCAB),
        VE,
        r"train's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.widgets.rationales.rationale_panel",
        lambda: rationale_panels.rationale_panel(data(), "text", cues.VOCAB),
        TE,
        "test must be a list of Examples",
    ),
]


RAISES += [  # moved from test_bad_inputs.py
    (
        "xai_tf.rationales.sparsity.Lagrangian",
        lambda: Lagrangian(1.5),
        VE,
        r"selection must be a finite number in \(0, 1\)",
    ),
]


CHECKERS = {
    "xai_tf.exercises.rationales.check_conicity": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_omega": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_comprehensiveness": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_sufficiency": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_aopc": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_reinforce_estimate": (
        r"the estimate for z = \[1, 0, 1\], b = 0.0 is None"
    ),
}


PANELS = {
    "xai_tf.widgets.rationales.eraser_panel": (
        lambda: rationale_panels.eraser_panel(
            classifier(), {}, cues.VOCAB, cues.cue_sentences(3, length=(4, 4))
        ),
        "k",
        5,  # k larger than the sentence (T = 4)
    ),
    "xai_tf.widgets.rationales.rationale_panel": (
        lambda: rationale_panels.rationale_panel(
            cues.cue_sentences(20), cues.cue_sentences(5, seed=1), cues.VOCAB, "gumbel"
        ),
        None,  # an unknown estimator, said in one line
        None,
    ),
}


RAISES += [  # issue 44 §2: the bad-input classes that still got through, lesson 11's helpers
    # another task's ids given to a model trained on one vocabulary
    (
        "xai_tf.faithfulness.conicity.recurrent_conicity",
        lambda: conicity.recurrent_conicity(classifier(), foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37 \(the model's vocabulary\), got 999",
    ),
    (
        "xai_tf.faithfulness.regularised.mean_tying_distance",
        lambda: regularised.mean_tying_distance(classifier(), foreign()),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.faithfulness.regularised.train_regularised",
        lambda: regularised.train_regularised(
            foreign(), V, "tying", 0.1, options=regularised.OPTIONS.replace(steps=1)
        ),
        VE,
        r"data's word ids must be token ids in 0\.\.37",
    ),
    (
        "xai_tf.faithfulness.conicity.recurrent_conicity",
        lambda: conicity.recurrent_conicity(rationalizer(), data()),
        TE,
        "model must be an AttentionClassifier, got Rationalizer",
    ),  # a model of the wrong kind
    # labels outside the model's classes, string labels
    (
        "xai_tf.faithfulness.regularised.train_regularised",
        lambda: regularised.train_regularised(
            relabelled(2), V, "tying", 0.1, options=regularised.OPTIONS.replace(steps=1)
        ),
        VE,
        r"data's labels must be an integer in 0\.\.1, got 2",
    ),
    (
        "xai_tf.faithfulness.regularised.train_regularised",
        lambda: regularised.train_regularised(
            relabelled("positive"), V, "tying", 0.1, options=regularised.OPTIONS.replace(steps=1)
        ),
        TE,
        r"data's labels must be an integer in 0\.\.1, got 'positive'",
    ),
    # lists where tensors are expected (masks); a fully masked row
    (
        "xai_tf.faithfulness.conicity.conicity",
        lambda: conicity.conicity(z(2, 3, 4), [[1, 1, 0], [1, 0, 0]]),
        TE,
        r"mask must be a tensor \[\.\.\., m\] \(1 = a row that counts\), got list",
    ),
    (
        "xai_tf.faithfulness.regularised.tying_penalty",
        lambda: regularised.tying_penalty(z(1, 3, 4), z(1, 3, 4), [[1, 1, 0]]),
        TE,
        r"mask must be a tensor \[n, T\] \(1 = a word, 0 = padding\), got list",
    ),
    (
        "xai_tf.faithfulness.regularised.tying_penalty",
        lambda: regularised.tying_penalty(z(2, 3, 4), z(2, 3, 4), torch.tensor([[1, 1, 0], [0, 0, 0]])),
        VE,
        r"mask must have shape \(2, 3\) and keep a word of each sentence",
    ),
    (
        "xai_tf.faithfulness.conicity.conicity",
        lambda: conicity.conicity(z(2, 3, 4), torch.tensor([[1, 1, 0], [0, 0, 0]])),
        VE,
        "mask keeps no row of some H: conicity needs at least one vector",
    ),
]
