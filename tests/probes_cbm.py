"""Bad-input probes for lesson 12 (concept bottleneck models, ``xai_tf.cbm``), collected by
``test_bad_inputs.py``: every public helper and the panel under wrong shapes, empty data, NaN, wrong
dtypes, mismatched pairs, lists and strings, float indices, odd seeds, huge sizes, and data of
another task (images into a tabular model). ``VALUES`` holds the inputs with a documented answer
instead of an error (float64 data into a float32 model), run by ``test_cbm.py``."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.cbm import arthritis, intervention, leakage, losses, metrics, models, posthoc, shapes, training
from xai_tf.cbm.data import ConceptData, check_data
from xai_tf.widgets import cbm as cbm_w


@cache
def cbm(mode: str = "sequential"):
    """A tabular task of 40 patients and a bottleneck model trained for two steps (seeded)."""
    data = arthritis.arthritis(40, seed=0)
    return data, training.train(mode, data, options=training.OPTIONS.replace(steps=2))


@cache
def img() -> ConceptData:
    """Eight images of the shapes task (k = 9 concepts, x [8, 3, 16, 16])."""
    return shapes.shapes(8)


def data_with(**change) -> ConceptData:
    """The tabular data with fields replaced (``x``, ``c``, ``y``, ``binary``, ``task``)."""
    d = cbm()[0]
    f = {"x": d.x, "c": d.c, "y": d.y, "binary": d.binary, "task": d.task} | change
    return ConceptData(f["x"], f["c"], f["y"], f["binary"], d.names, d.groups, f["task"])


def two(k: int = 2, n: int = 3) -> tuple:
    """Concept outputs, concepts (binary 0/1) and an all-binary mask for k concepts."""
    return z(n, k), (z(n, k) > 0).float(), torch.ones(k, dtype=torch.bool)


EXEMPT = {"xai_tf.cbm.arthritis.structure": "no arguments"}

HUGE = 10**10
B = torch.ones(2, dtype=torch.bool)
M = lambda: cbm()[1]  # noqa: E731
D = lambda: cbm()[0]  # noqa: E731

RAISES = [
    # the data generators
    ("xai_tf.cbm.arthritis.arthritis", lambda: arthritis.arthritis(0), VE, "n must be an integer ≥ 1, got 0"),
    ("xai_tf.cbm.arthritis.arthritis", lambda: arthritis.arthritis("100"), TE, "n must be an integer"),
    (
        "xai_tf.cbm.arthritis.arthritis",
        lambda: arthritis.arthritis(HUGE),
        VE,
        r"arthritis\(n = 10000000000\) needs",
    ),
    (
        "xai_tf.cbm.arthritis.arthritis",
        lambda: arthritis.arthritis(9, seed=-1),
        VE,
        "seed must be an integer ≥ 0",
    ),
    (
        "xai_tf.cbm.arthritis.arthritis",
        lambda: arthritis.arthritis(9, seed=1.5),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.cbm.arthritis.arthritis",
        lambda: arthritis.arthritis(9, noise=NAN),
        VE,
        "noise must be a finite",
    ),
    (
        "xai_tf.cbm.arthritis.arthritis",
        lambda: arthritis.arthritis(9, binary=1),
        TE,
        "binary must be True or False",
    ),
    (
        "xai_tf.cbm.arthritis.severity_score",
        lambda: arthritis.severity_score(shapes.shapes(4)),
        TE,
        "data must be a ConceptData drawn by arthritis",
    ),
    (
        "xai_tf.cbm.arthritis.severity_score",
        lambda: arthritis.severity_score("x"),
        TE,
        "data must be a ConceptData",
    ),
    (
        "xai_tf.cbm.arthritis.bypass_share",
        lambda: arthritis.bypass_share(D(), -1.0),
        VE,
        "bypass must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.cbm.arthritis.bypass_share",
        lambda: arthritis.bypass_share(D(), NAN),
        VE,
        "bypass must be a finite",
    ),
    (
        "xai_tf.cbm.shapes.shapes",
        lambda: shapes.shapes(5, noise=-0.1),
        VE,
        "noise must be a finite number ≥ 0",
    ),
    ("xai_tf.cbm.shapes.shapes", lambda: shapes.shapes(HUGE), VE, r"shapes\(n = 10000000000\) needs"),
    ("xai_tf.cbm.shapes.shapes", lambda: shapes.shapes(5, seed=None), TE, "seed must be an integer"),
    (
        "xai_tf.cbm.shapes.label_rule",
        lambda: shapes.label_rule(z(3, 5)),
        VE,
        r"c must be \[n, k\] with k = 9",
    ),
    (
        "xai_tf.cbm.shapes.label_rule",
        lambda: shapes.label_rule(torch.ones(3, 9, dtype=torch.long)),
        TE,
        "c must be a floating-point tensor",
    ),
    ("xai_tf.cbm.shapes.label_rule", lambda: shapes.label_rule([[0.0] * 9]), TE, "c must be a torch.Tensor"),
    # the data set
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: data_with(c=torch.full_like(D().c, NAN)),
        VE,
        "c has NaN or ±inf entries",
    ),
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: data_with(c=D().c.long()),
        TE,
        "c must be a floating-point tensor",
    ),
    ("xai_tf.cbm.data.ConceptData", lambda: data_with(y=D().y.tolist()), TE, "y must be a torch.Tensor"),
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: data_with(binary=D().binary.long()),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: data_with(c=D().c + 0.5),
        VE,
        r"binary concepts must be 0 or 1, got 1\.5 in concept 'pain walking'",
    ),
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: data_with(task="binary"),
        VE,
        r"y of a binary task must be 0 or 1, got [2-4]",
    ),
    # losses
    (
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(z(2, 3), z(2, 3), torch.ones(12, dtype=torch.bool)),
        VE,
        r"out must be \[n, k\] with k = 12 concepts",
    ),
    (
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(z(3, 2), z(4, 2), B),
        VE,
        r"out is \(3, 2\) but c is \(4, 2\)",
    ),
    (
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(torch.full((3, 2), NAN), z(3, 2), B),
        VE,
        "out has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(*two()[:2], torch.tensor([1, 0])),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.losses.task_loss",
        lambda: losses.task_loss(z(3), z(4), "binary"),
        VE,
        r"out is \(3,\) but y is \(4,\)",
    ),
    ("xai_tf.cbm.losses.task_loss", lambda: losses.task_loss(z(3), z(3), "multi"), VE, "task must be one of"),
    (
        "xai_tf.cbm.losses.task_loss",
        lambda: losses.task_loss(z(3), torch.tensor([0.0, NAN, 1.0]), "regression"),
        VE,
        "y has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.losses.task_loss",
        lambda: losses.task_loss(z(3), torch.tensor([0.0, 2.0, 1.0]), "binary"),
        VE,
        "y of a binary task must be 0 or 1, got 2",
    ),
    (
        "xai_tf.cbm.losses.task_loss",
        lambda: losses.task_loss(z(0), z(0), "regression"),
        VE,
        r"out must be \[n\] with n ≥ 1",
    ),
    (
        "xai_tf.cbm.losses.joint_loss",
        lambda: losses.joint_loss(z(3), z(3), z(3, 2), z(3, 2), B, -1.0, "binary"),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.cbm.losses.joint_loss",
        lambda: losses.joint_loss(z(3), z(3), z(3, 2), z(3, 2), B, "1", "binary"),
        TE,
        "lam must be a finite number",
    ),
    # models
    ("xai_tf.cbm.models.mlp", lambda: models.mlp(0, 3), VE, "d_in must be an integer ≥ 1, got 0"),
    (
        "xai_tf.cbm.models.mlp",
        lambda: models.mlp(16, 12, hidden=10**9),
        VE,
        r"an MLP 16 → 1000000000 → 12 needs",
    ),
    ("xai_tf.cbm.models.mlp", lambda: models.mlp(16, 12, seed=-1), VE, "seed must be an integer ≥ 0"),
    ("xai_tf.cbm.models.small_cnn", lambda: models.small_cnn(0), VE, "k must be an integer ≥ 1, got 0"),
    (
        "xai_tf.cbm.models.small_cnn",
        lambda: models.small_cnn(3, channels=10**9),
        VE,
        r"a CNN for 1000000000 channels needs",
    ),
    # training
    ("xai_tf.cbm.training.train", lambda: training.train("semi", D()), VE, "mode must be one of"),
    ("xai_tf.cbm.training.train", lambda: training.train("joint", D(), lam=NAN), VE, "lam must be a finite"),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train("sequential", D(), options=training.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1\.\.100000, got 0",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train("sequential", D(), options=training.OPTIONS.replace(steps=10**7)),
        VE,
        r"steps must be an integer in 1\.\.100000",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train("sequential", D(), options=training.OPTIONS.replace(lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train("sequential", D(), options=training.OPTIONS.replace(batch_size=0)),
        VE,
        r"batch_size must be an integer in 1\.\.",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train("sequential", D(), options=training.OPTIONS.replace(seed=1.5)),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train(
            "sequential", D(), h=models.mlp(16, 5), options=training.OPTIONS.replace(steps=1)
        ),
        VE,
        "h must output k = 12 concepts, got 5",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train(
            "sequential", D(), g=models.mlp(5, 1), options=training.OPTIONS.replace(steps=1)
        ),
        VE,
        r"g must read the k = 12 concepts: its first layer takes 5",
    ),
    (
        "xai_tf.cbm.training.train",
        lambda: training.train(
            "sequential", img(), h=models.mlp(16, 9), options=training.OPTIONS.replace(steps=1)
        ),
        VE,
        r"x must be \[n, 16\] for h \(its first layer takes 16 features\), got \(8, 3, 16, 16\)",
    ),
    (  # empty data never reach a trainer: the data set refuses them
        "xai_tf.cbm.data.ConceptData",
        lambda: training.train(
            "sequential", D().subset(slice(0, 0)), options=training.OPTIONS.replace(steps=1)
        ),
        VE,
        r"y must be \[n\] with n ≥ 1, got shape \(0,\)",
    ),
    ("xai_tf.cbm.training.train_all", lambda: training.train_all(D(), []), VE, "lams must be a non-empty"),
    ("xai_tf.cbm.training.train_all", lambda: training.train_all(D(), "0.1"), VE, "lams must be a non-empty"),
    (
        "xai_tf.cbm.training.train_all",
        lambda: training.train_all(D(), [-1.0]),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.cbm.training.train_all",
        lambda: training.train_all(D(), [1.0], options=training.OPTIONS.replace(steps=0)),
        VE,
        "steps must be an integer",
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
        "xai_tf.cbm.training.fit_concepts",
        lambda: training.fit_concepts(
            models.mlp(16, 12), D(), options=training.OPTIONS.replace(batch_size=1.5)
        ),
        TE,
        "batch_size must be an integer",
    ),
    (
        "xai_tf.cbm.training.fit_concepts",
        lambda: training.fit_concepts("h", D()),
        TE,
        r"h must be a torch\.nn\.Module",
    ),
    (
        "xai_tf.cbm.training.fit_g",
        lambda: training.fit_g(models.mlp(12, 1), z(3, 5), D()),
        VE,
        r"b must be \[n, k\] with k = 12",
    ),
    (
        "xai_tf.cbm.training.fit_g",
        lambda: training.fit_g(models.mlp(12, 1), D().c[:-1], D()),
        VE,
        "39 rows of b but 40 examples",
    ),
    (
        "xai_tf.cbm.training.fit_g",
        lambda: training.fit_g(models.mlp(12, 1), torch.full_like(D().c, NAN), D()),
        VE,
        "b has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.training.fit_joint",
        lambda: training.fit_joint(models.mlp(16, 12), models.mlp(12, 1), D(), -1.0),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.cbm.training.fit_joint",
        lambda: training.fit_joint(
            models.mlp(16, 12), models.mlp(12, 1), D(), 1.0, options=training.OPTIONS.replace(steps=-1)
        ),
        VE,
        "steps must be an integer",
    ),
    # metrics
    (
        "xai_tf.cbm.metrics.task_error",
        lambda: metrics.task_error(z(3), z(4), "regression"),
        VE,
        r"out is \(3,\) but y is \(4,\)",
    ),
    (
        "xai_tf.cbm.metrics.task_error",
        lambda: metrics.task_error(torch.tensor([NAN, 1.0]), z(2), "regression"),
        VE,
        "out has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.metrics.task_error",
        lambda: metrics.task_error(z(2), torch.tensor([0.0, 2.0]), "binary"),
        VE,
        "y of a binary task must be 0 or 1",
    ),
    (
        "xai_tf.cbm.metrics.task_error",
        lambda: metrics.task_error([1.0], [1.0], "regression"),
        TE,
        "out must be a torch.Tensor",
    ),
    (
        "xai_tf.cbm.metrics.concept_errors",
        lambda: metrics.concept_errors(z(2, 3), z(2, 3), torch.ones(4, dtype=torch.bool)),
        VE,
        "k = 4",
    ),
    (
        "xai_tf.cbm.metrics.concept_errors",
        lambda: metrics.concept_errors(z(3, 2), z(4, 2), B),
        VE,
        r"out is \(3, 2\) but c is \(4, 2\)",
    ),
    (
        "xai_tf.cbm.metrics.concept_errors",
        lambda: metrics.concept_errors(*two()[:2], torch.tensor([1, 0])),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.metrics.evaluate",
        lambda: metrics.evaluate("model", D()),
        TE,
        "model must be a ConceptBottleneck",
    ),
    ("xai_tf.cbm.metrics.evaluate", lambda: metrics.evaluate(M(), "data"), TE, "data must be a ConceptData"),
    (
        "xai_tf.cbm.metrics.evaluate",
        lambda: metrics.evaluate(M(), img()),
        VE,
        "the model has k = 12 concepts but data has 9",
    ),
    # intervention
    (
        "xai_tf.cbm.intervention.percentiles",
        lambda: intervention.percentiles(cbm("standard")[1], D()),
        VE,
        "a standard model has no concepts to intervene on",
    ),
    (
        "xai_tf.cbm.intervention.percentiles",
        lambda: intervention.percentiles(M(), "train"),
        TE,
        "train must be a ConceptData",
    ),
    (
        "xai_tf.cbm.intervention.class_medians",
        lambda: intervention.class_medians(cbm("standard")[1], D()),
        VE,
        "a standard model has no concepts to intervene on",
    ),
    (
        "xai_tf.cbm.intervention.class_medians",
        lambda: intervention.class_medians(M(), img()),
        VE,
        "train has 9",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), z(2, 12), z(2, 12), [12], z(2, 12)),
        VE,
        r"which\[0\] must be an integer in 0\.\.11, got 12",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), z(2, 12), z(2, 12), [1.5], z(2, 12)),
        TE,
        r"which\[0\] must be an integer in 0\.\.11, got 1\.5",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), z(2, 12), z(2, 12), torch.tensor([0.5]), z(2, 12)),
        TE,
        "which must hold integer positions in 0..11, got a torch.float32 tensor",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), z(2, 12), z(2, 12), "ab", z(2, 12)),
        TE,
        "which must be a list of integer positions",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), z(2, 12), z(3, 12), [0], z(2, 12)),
        VE,
        r"b is \(2, 12\) but c is \(3, 12\)",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(
            M(), z(2, 12), z(2, 12), torch.ones(3, 12, dtype=torch.bool), z(2, 12)
        ),
        VE,
        r"which as a mask must be \[n, k\] = \(2, 12\)",
    ),
    (
        "xai_tf.cbm.intervention.intervene",
        lambda: intervention.intervene(M(), img().x, img().c, [0], z(2, 9)),
        VE,
        r"b must be \[n, k\] with k = 12 concepts .*got shape \(8, 3, 16, 16\)",
    ),
    (
        "xai_tf.cbm.intervention.intervened_error",
        lambda: intervention.intervened_error(M(), D(), D(), [-1]),
        VE,
        r"which\[0\] must be an integer in 0\.\.11, got -1",
    ),
    (
        "xai_tf.cbm.intervention.intervened_error",
        lambda: intervention.intervened_error(M(), D(), D(), [1.5]),
        TE,
        r"which\[0\] must be an integer in 0\.\.11, got 1\.5",
    ),
    (
        "xai_tf.cbm.intervention.intervened_error",
        lambda: intervention.intervened_error(M(), img(), D(), [0]),
        VE,
        "the model has k = 12 concepts but data has 9",
    ),
    (
        "xai_tf.cbm.intervention.uncertainty",
        lambda: intervention.uncertainty(None, D(), D()),
        TE,
        "model must be a ConceptBottleneck",
    ),
    (
        "xai_tf.cbm.intervention.uncertainty",
        lambda: intervention.uncertainty(M(), D(), img()),
        VE,
        "train has 9",
    ),
    (
        "xai_tf.cbm.intervention.group_order",
        lambda: intervention.group_order(M(), D(), D(), "alphabetical"),
        VE,
        r"order must be one of \('random', 'uncertainty'\)",
    ),
    (
        "xai_tf.cbm.intervention.group_order",
        lambda: intervention.group_order(M(), D(), D(), seed=-1),
        VE,
        "seed must be an integer ≥ 0",
    ),
    (
        "xai_tf.cbm.intervention.intervention_curve",
        lambda: intervention.intervention_curve(M(), D(), D(), low_high=z(3, 12)),
        VE,
        r"low_high must be \[2, 12\]",
    ),
    (
        "xai_tf.cbm.intervention.intervention_curve",
        lambda: intervention.intervention_curve(M(), D(), D(), order="x"),
        VE,
        "order must be one of",
    ),
    # leakage
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(z(3, 2), z(3, 2), torch.ones(3, dtype=torch.bool)),
        VE,
        "k = 3",
    ),
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(z(3, 2), z(4, 2), B),
        VE,
        r"b is \(3, 2\) but c is \(4, 2\)",
    ),
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(*two()[:2], torch.tensor([1, 0])),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(*two(), seed=1.5),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.cbm.leakage.leakage",
        lambda: leakage.leakage(M(), D(), D(), options=leakage.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1\.\.100000, got 0",
    ),
    (
        "xai_tf.cbm.leakage.leakage",
        lambda: leakage.leakage(M(), D(), D(), options=leakage.OPTIONS.replace(lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.cbm.leakage.leakage",
        lambda: leakage.leakage(M(), D(), "test"),
        TE,
        "test must be a ConceptData",
    ),
    ("xai_tf.cbm.leakage.leakage", lambda: leakage.leakage(M(), D(), img()), VE, "test has 9"),
    # the post-hoc concept bottleneck
    (
        "xai_tf.cbm.posthoc.features",
        lambda: posthoc.features("m", z(3, 16)),
        TE,
        "model must be a ConceptBottleneck",
    ),
    (
        "xai_tf.cbm.posthoc.features",
        lambda: posthoc.features(
            models.ConceptBottleneck(torch.nn.Linear(16, 2), torch.nn.Linear(2, 1), B, "logit", "s"), z(3, 16)
        ),
        VE,
        "model.h must be an nn.Sequential",
    ),
    ("xai_tf.cbm.posthoc.features", lambda: posthoc.features(M(), z(3, 5)), VE, r"x must be \[n, 16\]"),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4, 2), z(4), "ordinal"),
        VE,
        "task must be one of",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4, 2), z(4), "regression", mu=0),
        VE,
        "mu must be a finite number > 0",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4), z(4), "regression"),
        VE,
        "X must have 2 dimensions",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4, 2), z(3), "regression"),
        VE,
        "rows of X",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4, 2), z(4), "binary"),
        VE,
        "target of a binary task must be 0 or 1",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(z(4, 2), z(4), "regression", offset=z(3)),
        VE,
        "offset",
    ),
    (
        "xai_tf.cbm.posthoc.linear_probe",
        lambda: posthoc.linear_probe(torch.full((4, 2), NAN), z(4), "regression"),
        VE,
        "X has NaN",
    ),
    (
        "xai_tf.cbm.posthoc.elastic_net",
        lambda: posthoc.elastic_net(z(4, 2), z(4), "regression", alpha=1.5),
        VE,
        r"alpha must be a finite number in \[0, 1\]",
    ),
    (
        "xai_tf.cbm.posthoc.elastic_net",
        lambda: posthoc.elastic_net(z(4, 2), z(4), "regression", lam=-1),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.cbm.posthoc.elastic_net",
        lambda: posthoc.elastic_net(z(4, 2), z(4), "regression", max_iter=0),
        VE,
        "max_iter must be an integer ≥ 1",
    ),
    (
        "xai_tf.cbm.posthoc.elastic_net",
        lambda: posthoc.elastic_net(z(4, 2).long(), z(4), "regression"),
        TE,
        "X must be a floating-point tensor",
    ),
    (
        "xai_tf.cbm.posthoc.posthoc_cbm",
        lambda: posthoc.posthoc_cbm("m", D()),
        TE,
        "standard must be a ConceptBottleneck",
    ),
    ("xai_tf.cbm.posthoc.posthoc_cbm", lambda: posthoc.posthoc_cbm(M(), img()), VE, "train has 9"),
    (
        "xai_tf.cbm.posthoc.posthoc_cbm",
        lambda: posthoc.posthoc_cbm(M(), D(), alpha=-0.1),
        VE,
        "alpha must be",
    ),
    (
        "xai_tf.cbm.posthoc.hybrid",
        lambda: posthoc.hybrid(M(), D()),
        TE,
        "pcbm must be a post-hoc ConceptBottleneck",
    ),
    (
        "xai_tf.cbm.posthoc.hybrid",
        lambda: posthoc.hybrid(posthoc.posthoc_cbm(M(), D()), img()),
        VE,
        "train has 9",
    ),
    (
        "xai_tf.cbm.posthoc.hybrid",
        lambda: posthoc.hybrid(posthoc.posthoc_cbm(M(), D()), D(), mu=-1.0),
        VE,
        "mu must be a finite number > 0",
    ),
    # the panel, given what it cannot show
    ("xai_tf.widgets.cbm.concept_panel", lambda: cbm_w.concept_panel({}, D()), TE, "models must map names"),
    (
        "xai_tf.widgets.cbm.concept_panel",
        lambda: cbm_w.concept_panel({"s": M()}, "data"),
        TE,
        "data must be a ConceptData",
    ),
    (
        "xai_tf.widgets.cbm.concept_panel",
        lambda: cbm_w.concept_panel({"s": M()}, img()),
        VE,
        "but data has 9",
    ),
]

#: Inputs with a documented answer rather than an error: (name, call, what the answer must satisfy).
VALUES = [
    (  # the dtype rule: a trained module converts its input once to its parameters' dtype
        "xai_tf.cbm.training.train",
        lambda: torch.equal(
            training.train(
                "sequential", data_with(x=D().x.double()), options=training.OPTIONS.replace(steps=3)
            )(D().x),
            training.train("sequential", D(), options=training.OPTIONS.replace(steps=3))(D().x),
        ),
        True,
    ),
    (
        "xai_tf.cbm.metrics.evaluate",
        lambda: metrics.evaluate(M(), data_with(x=D().x.double())) == metrics.evaluate(M(), D()),
        True,
    ),
    (  # parameter-free math follows the input's dtype: c is converted to out's
        "xai_tf.cbm.losses.concept_loss",
        lambda: losses.concept_loss(z(3, 2).double(), (z(3, 2) > 0).float(), B).dtype,
        torch.float64,
    ),
]

RAISES += [  # moved from test_bad_inputs.py
    (
        "xai_tf.cbm.data.ConceptData",
        lambda: ConceptData(
            z(3, 2), z(3, 2), z(2), torch.ones(2, dtype=torch.bool), ("a", "b"), ((0,), (1,)), "binary"
        ),
        VE,
        "x, c and y must have one row per example",
    ),
]


CHECKERS = {
    "xai_tf.exercises.cbm.check_joint_loss": "returned None: did you forget",
    "xai_tf.exercises.cbm.check_intervene": "is None: did you forget",
    "xai_tf.exercises.cbm.check_concept_loss": "returned None: did you forget",
    "xai_tf.exercises.cbm.check_concept_errors": "returned None: did you forget",
    "xai_tf.exercises.cbm.check_percentiles": "is None: did you forget",
    "xai_tf.exercises.cbm.check_scramble": "is None: did you forget",
}

RAISES += [  # issue 55: the references of lesson 12's exercises
    (
        "xai_tf.cbm.intervention.bottleneck_percentiles",
        lambda: intervention.bottleneck_percentiles(z(0, 3)),
        VE,
        r"b must be \[n, k\] with n ≥ 1 examples, got shape \(0, 3\)",
    ),
    (
        "xai_tf.cbm.intervention.bottleneck_percentiles",
        lambda: intervention.bottleneck_percentiles(z(5)),
        VE,
        r"b must be \[n, k\]",
    ),
    (
        "xai_tf.cbm.intervention.bottleneck_percentiles",
        lambda: intervention.bottleneck_percentiles(torch.full((4, 2), NAN)),
        VE,
        "b has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.intervention.bottleneck_percentiles",
        lambda: intervention.bottleneck_percentiles([[1.0]]),
        TE,
        "b must be a torch.Tensor",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(*two()[:2], [0], B, z(2), z(3)),
        VE,
        r"high must be \[n, k\] with k = 2",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(*two()[:2], [2], B, z(2), z(2)),
        VE,
        r"which\[0\] must be an integer in 0\.\.1",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(*two()[:2], [0.5], B, z(2), z(2)),
        TE,
        r"which\[0\] must be an integer",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(z(3, 2), z(4, 2), [0], B, z(2), z(2)),
        VE,
        r"b is \(3, 2\) but c is \(4, 2\)",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(*two()[:2], [0], torch.tensor([1, 0]), z(2), z(2)),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.intervention.replace_concepts",
        lambda: intervention.replace_concepts(*two()[:2], [0], B, torch.full((2,), NAN), z(2)),
        VE,
        "low has NaN or ±inf",
    ),
]

PANELS = {
    "xai_tf.widgets.cbm.concept_panel": (
        lambda: cbm_w.concept_panel({"sequential": M()}, D()),
        "example",
        10**6,
    ),
}


def never_one() -> ConceptData:
    """The tabular data with its first binary concept 0 for every patient (never equal to 1)."""
    c = D().c.clone()
    c[:, int(D().binary.nonzero()[0])] = 0.0
    return data_with(c=c)


def halves() -> tuple:
    """Concept outputs and 'binary' concepts holding 0.5: not 0/1."""
    b, c, binary = two()
    return b, c.clone().fill_(0.5), binary


RAISES += [  # issue 44 §2: the bad-input classes that still got through, lesson 12's helpers
    # a model of the wrong kind accepted: a standard model has no concepts to leak past
    (
        "xai_tf.cbm.leakage.leakage",
        lambda: leakage.leakage(cbm("standard")[1], D(), D(), options=leakage.OPTIONS.replace(steps=1)),
        VE,
        "a standard model has no concepts in its bottleneck to leak past: pick independent, sequential",
    ),
    # binary concepts whose values are not 0/1 (they would be left unscrambled)
    (
        "xai_tf.cbm.leakage.scramble",
        lambda: leakage.scramble(*halves()),
        VE,
        "c must be 0 or 1 in its binary concepts, got 0.5 in concept 0",
    ),
    # a concept never equal to 1 (its class median would be 0 without a word)
    (
        "xai_tf.cbm.intervention.class_medians",
        lambda: intervention.class_medians(M(), never_one()),
        VE,
        r"train has no example with c_\d+ = 1 \(.+\): that class has no median",
    ),
    # one training example for an uncertainty estimate (a variance of one value is NaN)
    (
        "xai_tf.cbm.intervention.uncertainty",
        lambda: intervention.uncertainty(M(), D(), D().subset(slice(0, 1))),
        VE,
        "train must have at least 2 examples: R²_j divides by the variance of c_j, got 1",
    ),
    # a parameter-free concept predictor h or task predictor g (was a bare StopIteration)
    (
        "xai_tf.cbm.training.train",
        lambda: training.train(
            "sequential", D(), h=torch.nn.ReLU(), options=training.OPTIONS.replace(steps=1)
        ),
        TE,
        "h must be a torch.nn.Module with parameters",
    ),
    (
        "xai_tf.cbm.training.fit_concepts",
        lambda: training.fit_concepts(torch.nn.Sequential(), D(), options=training.OPTIONS.replace(steps=1)),
        TE,
        r"h must be a torch.nn.Module with parameters \(their dtype and device .+\), got Sequential",
    ),
    (
        "xai_tf.cbm.training.fit_g",
        lambda: training.fit_g(
            torch.nn.Identity(), z(40, D().k), D(), options=training.OPTIONS.replace(steps=1)
        ),
        TE,
        "g must be a torch.nn.Module with parameters",
    ),
]

RAISES += [  # check_data is public (the panel reads it; it was cbm._common's)
    (
        "xai_tf.cbm.data.check_data",
        lambda: check_data("data", [1, 2]),
        TE,
        "data must be a ConceptData, got list",
    ),
    (
        "xai_tf.cbm.data.check_data",
        lambda: check_data("test", D(), D().k + 1),
        VE,
        "the model has k = .* concepts but test has .*: data of another task",
    ),
]
