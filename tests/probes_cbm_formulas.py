"""Bad-input probes for lesson 12's formulas of sections 2 and 7 (``xai_tf.cbm.formulas``) and the checkers
of ``xai_tf.exercises.cbm_formulas`` (issue 55), collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.cbm import formulas

EXEMPT: dict = {}

B12 = torch.tensor([j >= 6 for j in range(12)])

RAISES = [
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 12), B12[:9], z(3)),
        VE,
        r"binary must be \[12\], one flag per concept of the arthritis task, got 9",
    ),
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 9), torch.ones(9, dtype=torch.bool), z(3)),
        VE,
        r"binary must be \[12\]",
    ),
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 11), B12, z(3)),
        VE,
        r"c must be \[n, k\] with k = 12 concepts",
    ),
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 12), B12, z(4)),
        VE,
        "3 rows of c but 4 bypass terms",
    ),
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 12), B12, torch.full((3,), NAN)),
        VE,
        "bypass_term has NaN or ±inf",
    ),
    (
        "xai_tf.cbm.formulas.grade",
        lambda: formulas.grade(z(3, 12), B12.long(), z(3)),
        TE,
        "binary must be a bool tensor",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(3), 0.0, z(5, 4), z(5), 0.01, 0.99, "regression"),
        VE,
        r"v must be \[N_c\] with N_c = 4 \(one weight per column of b\), got 3",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), 0.0, z(5, 4), z(5), 0.01, 1.5, "regression"),
        VE,
        r"alpha must be a finite number in \[0, 1\], got 1.5",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), 0.0, z(5, 4), z(5), -1.0, 0.5, "regression"),
        VE,
        "lam must be",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), z(2), z(5, 4), z(5), 0.01, 0.5, "regression"),
        VE,
        r"v0 must be one number \(the head's bias\), got shape \(2,\)",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), "0", z(5, 4), z(5), 0.01, 0.5, "regression"),
        TE,
        "v0 must be a number",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), 0.0, z(5, 4), z(5), 0.01, 0.5, "binary"),
        VE,
        "y of a binary task must be 0 or 1",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), 0.0, z(5, 4), z(6), 0.01, 0.5, "regression"),
        VE,
        "5 rows of b but 6 targets",
    ),
    (
        "xai_tf.cbm.formulas.elastic_net_objective",
        lambda: formulas.elastic_net_objective(z(4), 0.0, z(5, 4), z(5), 0.01, 0.5, "classification"),
        VE,
        "task must be one of",
    ),
]

CHECKERS = {
    "xai_tf.exercises.cbm_formulas.check_grade": "returned None: did you forget",
    "xai_tf.exercises.cbm_formulas.check_label_rule": "returned None: did you forget",
    "xai_tf.exercises.cbm_formulas.check_elastic_net_objective": "returned None: did you forget",
}

PANELS: dict = {}
