"""Bad-input probes for lesson 11 (ERASER, conicity, the diversity and tying penalties, rationalizers),
collected by ``test_bad_inputs.py``."""

from functools import cache

import torch
from probe_kit import TE, VE, lm, z

from xai_tf.faithfulness import conicity, eraser, regularised
from xai_tf.rationales import hardkuma, penalty, reinforce
from xai_tf.rationales import model as rat
from xai_tf.tasks import cues, recurrent
from xai_tf.widgets import rationales as rationale_panels

EXEMPT = {}


@cache
def classifier() -> recurrent.AttentionClassifier:
    return recurrent.AttentionClassifier(recurrent.RecurrentConfig(len(cues.VOCAB), d_e=32, d_h=16))


@cache
def rationalizer() -> rat.Rationalizer:
    return rat.Rationalizer(len(cues.VOCAB), "reinforce", 0.1, 0.1)


def probs(ids):
    return torch.tensor([0.4, 0.6])


ONE = torch.ones(3)
RAISES = [
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
        "xai_tf.faithfulness.eraser.top_k",
        lambda: eraser.top_k([0.1, 0.2, 0.3], 4),
        VE,
        r"k must be an integer in 1..3, got 4",
    ),
    (
        "xai_tf.faithfulness.eraser.comprehensiveness",
        lambda: eraser.comprehensiveness(probs, [2, 3], [0, 1]),
        VE,
        "covers every word",
    ),
    (
        "xai_tf.faithfulness.eraser.sufficiency",
        lambda: eraser.sufficiency(probs, [2, 3], []),
        VE,
        "the rationale is empty",
    ),
    (
        "xai_tf.faithfulness.eraser.aopc",
        lambda: eraser.aopc(probs, [2, 3], torch.ones(2), "both"),
        VE,
        "which must be 'comprehensiveness' or 'sufficiency'",
    ),
    (
        "xai_tf.faithfulness.eraser.classifier_probabilities",
        lambda: eraser.classifier_probabilities(None),
        TE,
        "model must be an AttentionClassifier",
    ),
    (
        "xai_tf.faithfulness.eraser.eraser_table",
        lambda: eraser.eraser_table(probs, {}, cues.cue_sentences(2)),
        VE,
        "explainers is empty",
    ),
    (
        "xai_tf.faithfulness.eraser.explainers",
        lambda: eraser.explainers(classifier(), {"r": classifier()}),
        TE,
        r"rationalizers\['r'\] must be a Rationalizer",
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
        lambda: regularised.train_regularised(cues.cue_sentences(4), len(cues.VOCAB), "tying", -0.1),
        VE,
        r"lam must be a finite number in \[0, inf\)",
    ),
    (
        "xai_tf.faithfulness.regularised.mean_tying_distance",
        lambda: regularised.mean_tying_distance(classifier(), []),
        VE,
        "data is empty",
    ),
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
        "xai_tf.rationales.hardkuma.kuma_cdf",
        lambda: hardkuma.kuma_cdf(ONE, -ONE, ONE),
        VE,
        "a must be finite and > 0",
    ),
    (
        "xai_tf.rationales.hardkuma.sample",
        lambda: hardkuma.sample(ONE, 0 * ONE),
        VE,
        "b must be finite and > 0",
    ),
    (
        "xai_tf.rationales.hardkuma.prob_zero",
        lambda: hardkuma.prob_zero([1.0], ONE),
        TE,
        "a must be a torch.Tensor",
    ),
    (
        "xai_tf.rationales.hardkuma.prob_one",
        lambda: hardkuma.prob_one(ONE, ONE * float("nan")),
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
        "xai_tf.rationales.reinforce.estimate",
        lambda: reinforce.estimate(ONE, sum, ONE, float("nan")),
        VE,
        "baseline must be a finite number",
    ),
    (
        "xai_tf.rationales.reinforce.selections",
        lambda: reinforce.selections(0),
        VE,
        r"T must be an integer in 1..16, got 0",
    ),
    (
        "xai_tf.rationales.reinforce.expected_estimate",
        lambda: reinforce.expected_estimate(torch.zeros(20), sum),
        VE,
        r"T must be an integer in 1..16, got 20",
    ),
    (
        "xai_tf.rationales.model.train_rationalizer",
        lambda: rat.train_rationalizer(cues.cue_sentences(4), len(cues.VOCAB), "gumbel"),
        VE,
        "estimator must be one of",
    ),
    (
        "xai_tf.rationales.model.train_rationalizer",
        lambda: rat.train_rationalizer(cues.cue_sentences(4), len(cues.VOCAB), "reinforce", selection=0.2),
        VE,
        "selection \\(a target share\\) needs estimator 'hardkuma'",
    ),
    ("xai_tf.rationales.model.evaluate", lambda: rat.evaluate(rationalizer(), []), VE, "data is empty"),
    (
        "xai_tf.rationales.model.rationale",
        lambda: rat.rationale(rationalizer(), []),
        VE,
        "ids must be the word ids of one sentence",
    ),
    (
        "xai_tf.rationales.model.gradient_variance",
        lambda: rat.gradient_variance(rationalizer(), cues.cue_sentences(4), samples=1),
        VE,
        r"samples must be an integer ≥ 2, got 1",
    ),
]


CHECKERS = {
    "xai_tf.exercises.rationales.check_conicity": "returned None: did you forget",
    "xai_tf.exercises.rationales.check_omega": "returned None: did you forget",
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
