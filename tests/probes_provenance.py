"""Bad-input probes for ``xai_tf.provenance`` (the run record every artifact-making script writes),
collected by ``test_bad_inputs.py``."""

import re

from probe_kit import TE, VE

from xai_tf import provenance

EXEMPT: dict = {}

RAISES = [
    ("xai_tf.provenance.record", lambda: provenance.record(0), VE, "threads must be an integer ≥ 1, got 0"),
    (
        "xai_tf.provenance.record",
        lambda: provenance.record(1.0),
        TE,
        "threads must be an integer ≥ 1, got 1.0",
    ),
    (
        "xai_tf.provenance.record",
        lambda: provenance.record(True),
        TE,
        "threads must be an integer ≥ 1, got True",
    ),
    (
        "xai_tf.provenance.record",
        lambda: provenance.record(1, 0),
        VE,
        "workers must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.provenance.record",
        lambda: provenance.record(1, workers="2"),
        TE,
        "workers must be an integer ≥ 1, got '2'",
    ),
]
RAISES = [(name, call, error, re.escape(message)) for name, call, error, message in RAISES]

CHECKERS: dict = {}
PANELS: dict = {}
