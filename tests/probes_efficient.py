"""Bad-input probes for lesson 14's helpers added after ``test_bad_inputs.py``'s efficient rows,
collected by ``test_bad_inputs.py``."""

from probe_kit import TE, VE

from xai_tf.efficient import compare, cost

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.efficient.cost.multiply_adds",
        lambda: cost.multiply_adds("GRU", 8),
        VE,
        "kind must be 'self-attention' or 'LSTM', got 'GRU'",
    ),
    ("xai_tf.efficient.cost.multiply_adds", lambda: cost.multiply_adds("LSTM", 0), VE, "n must be"),
    ("xai_tf.efficient.cost.multiply_adds", lambda: cost.multiply_adds("LSTM", 8, d=1.5), TE, "d must be"),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.0),
        VE,
        "sigma must be",
    ),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.5, n=8, knobs=[16]),
        VE,
        "knobs must be an integer in 1..8, got 16",
    ),
]

CHECKERS: dict = {}
PANELS: dict = {}
