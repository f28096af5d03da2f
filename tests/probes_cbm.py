"""Bad-input probes for lesson 12 (concept bottleneck models, ``xai_tf.cbm``), collected by
``test_bad_inputs.py``."""

from functools import cache

import torch
from probe_kit import TE, VE, z

from xai_tf.cbm import arthritis, intervention, leakage, losses, metrics, models, shapes, training
from xai_tf.widgets import cbm as cbm_w


@cache
def cbm(mode: str = "sequential"):
    """A tabular task of 40 patients and a bottleneck model trained for two steps (seeded)."""
    data = arthritis.arthritis(40, seed=0)
    return data, training.train(mode, data, steps=2)


EXEMPT = {"xai_tf.cbm.arthritis.structure": "no arguments"}

RAISES = [
    ("xai_tf.cbm.arthritis.arthritis", lambda: arthritis.arthritis(0), VE, "n must be an integer ≥ 1, got 0"),
    (
        "xai_tf.cbm.arthritis.severity_score",
        lambda: arthritis.severity_score(shapes.shapes(4)),
        TE,
        "data must be a ConceptData drawn by arthritis",
    ),
    (
        "xai_tf.cbm.arthritis.bypass_share",
        lambda: arthritis.bypass_share(cbm()[0], -1.0),
        VE,
        "bypass must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.cbm.shapes.shapes",
        lambda: shapes.shapes(5, noise=-0.1),
        VE,
        "noise must be a finite number ≥ 0",
    ),
    (
        "xai_tf.cbm.shapes.label_rule",
        lambda: shapes.label_rule(z(3, 5)),
        VE,
        r"c must be \[n, k\] with k = 9",
    ),
    (
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(z(2, 3), z(2, 3), torch.ones(12, dtype=torch.bool)),
        VE,
        r"out must be \[n, k\] with k = 12 concepts",
    ),
    (
        "xai_tf.cbm.losses.task_loss",
        lambda: losses.task_loss(z(3), z(4), "binary"),
        VE,
        "must have the same shape",
    ),
    (
        "xai_tf.cbm.losses.joint_loss",
        lambda: losses.joint_loss(
            z(3), z(3), z(3, 2), z(3, 2), torch.ones(2, dtype=torch.bool), -1.0, "binary"
        ),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    ("xai_tf.cbm.models.mlp", lambda: models.mlp(0, 3), VE, "d_in must be an integer ≥ 1, got 0"),
    ("xai_tf.cbm.models.small_cnn", lambda: models.small_cnn(0), VE, "k must be an integer ≥ 1, got 0"),
    ("xai_tf.cbm.training.train", lambda: training.train("semi", cbm()[0]), VE, "mode must be one of"),
    (
        "xai_tf.cbm.training.train_all",
        lambda: training.train_all(cbm()[0], []),
        VE,
        "lams must be a non-empty",
    ),
    ("xai_tf.cbm.training.default_h", lambda: training.default_h(z(3, 2)), TE, "data must be a ConceptData"),
    ("xai_tf.cbm.training.default_g", lambda: training.default_g("data"), TE, "data must be a ConceptData"),
    (
        "xai_tf.cbm.training.fit_concepts",
        lambda: training.fit_concepts(models.mlp(16, 12), z(3, 2)),
        TE,
        "data must be a ConceptData",
    ),
    (
        "xai_tf.cbm.training.fit_g",
        lambda: training.fit_g(models.mlp(12, 1), z(3, 5), cbm()[0]),
        VE,
        r"b must be \[n, k\] with k = 12",
    ),
    (
        "xai_tf.cbm.training.fit_joint",
        lambda: training.fit_joint(models.mlp(16, 12), models.mlp(12, 1), cbm()[0], -1.0),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.cbm.metrics.task_error",
        lambda: metrics.task_error(z(3), z(4), "regression"),
        VE,
        r"must both be \[n\]",
    ),
    (
        "xai_tf.cbm.metrics.concept_errors",
        lambda: metrics.concept_errors(z(2, 3), z(2, 3), torch.ones(4, dtype=torch.bool)),
        VE,
        "k = 4",
    ),
    (
        "xai_tf.cbm.metrics.evaluate",
        lambda: metrics.evaluate("model", cbm()[0]),
        TE,
        "model must be a ConceptBottleneck",
    ),
    (
        "xai_tf.cbm.intervention.percentiles",
        lambda: intervention.percentiles(cbm("standard")[1], cbm()[0]),
        VE,
        "a standard model has no concepts to intervene on",
    ),
    (
        "xai_tf.cbm.intervention.class_medians",
        lambda: intervention.class_medians(cbm("standard")[1], cbm()[0]),
        VE,
        "a standard model has no concepts to intervene on",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(cbm()[1], z(2, 12), z(2, 12), [12], z(2, 12)),
        VE,
        r"which must hold concept indices in 0\.\.11, got \[12\]",
    ),
    (
        "xai_tf.cbm.intervention.intervened_error",
        lambda: intervention.intervened_error(cbm()[1], cbm()[0], cbm()[0], [-1]),
        VE,
        r"concept indices in 0\.\.11, got \[-1\]",
    ),
    (
        "xai_tf.cbm.intervention.uncertainty",
        lambda: intervention.uncertainty(None, cbm()[0], cbm()[0]),
        TE,
        "model must be a ConceptBottleneck",
    ),
    (
        "xai_tf.cbm.intervention.group_order",
        lambda: intervention.group_order(cbm()[1], cbm()[0], cbm()[0], "alphabetical"),
        VE,
        r"order must be one of \('random', 'uncertainty'\)",
    ),
    (
        "xai_tf.cbm.intervention.intervention_curve",
        lambda: intervention.intervention_curve(cbm()[1], cbm()[0], cbm()[0], low_high=z(3, 12)),
        VE,
        r"low_high must be \[2, 12\]",
    ),
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(z(3, 2), z(3, 2), torch.ones(3, dtype=torch.bool)),
        VE,
        "k = 3",
    ),
    (
        "xai_tf.cbm.leakage.leakage",
        lambda: leakage.leakage(cbm()[1], cbm()[0], cbm()[0], steps=0),
        VE,
        "steps must be an integer ≥ 1, got 0",
    ),
]

CHECKERS = {
    "xai_tf.exercises.cbm.check_joint_loss": "returned None: did you forget",
    "xai_tf.exercises.cbm.check_intervene": "is None: did you forget",
}

PANELS = {
    "xai_tf.widgets.cbm.concept_panel": (
        lambda: cbm_w.concept_panel({"sequential": cbm()[1]}, cbm()[0]),
        "example",
        10**6,
    ),
}
