"""Bad-input probes for the practice shared by every lesson (``xai_tf.widgets.predict``), collected by
``test_bad_inputs.py``; the checkers' probes sit with their lesson's topic."""

from probe_kit import TE, VE

from xai_tf.widgets.predict import predict

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.widgets.predict.predict",
        lambda: predict("q?", ["a", "b"], "c", "because"),
        VE,
        r"answer must be one of choices \['a', 'b'\], got 'c'",
    ),
    (
        "xai_tf.widgets.predict.predict",
        lambda: predict("q?", None, "six", "because"),
        TE,
        "answer must be a number when there are no choices, got 'six'",
    ),
]

CHECKERS: dict = {}

PANELS: dict = {}
