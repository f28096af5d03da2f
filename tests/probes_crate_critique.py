"""Bad-input probes for lesson 13's section 6 (``xai_tf.crate.critique``) and its checker
(``xai_tf.exercises.crate_critique``, issue 55), collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.crate import critique

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.crate.critique.dictionary_gap",
        lambda: critique.dictionary_gap(z(4)),
        VE,
        r"D must have 2 dimensions, got shape \(4,\)",
    ),
    (
        "xai_tf.crate.critique.dictionary_gap",
        lambda: critique.dictionary_gap(torch.full((3, 3), NAN)),
        VE,
        "D has NaN or ±inf",
    ),
    (
        "xai_tf.crate.critique.dictionary_gap",
        lambda: critique.dictionary_gap(torch.eye(3, dtype=torch.long)),
        TE,
        r"D must be a floating-point tensor \(float32 or float64\), got torch.int64",
    ),
    (
        "xai_tf.crate.critique.dictionary_gap",
        lambda: critique.dictionary_gap([[1.0]]),
        TE,
        "D must be a torch.Tensor, got list",
    ),
]

CHECKERS = {
    "xai_tf.exercises.crate_critique.check_dictionary_gap": "returned None: did you forget",
}

PANELS: dict = {}
