"""Bad-input probes for issue 55's last exercises of lessons 08, 14 and 15 (collected by
``test_bad_inputs.py``): the two new references and the three new checkers."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.efficient import relative
from xai_tf.exercises import faithfulness_importance

EXEMPT: dict = {}


def with_nan() -> torch.Tensor:
    A = z(1, 2, 3, 3)
    A[0, 1, 2, 0] = NAN
    return A


IMPORTANCE = "xai_tf.exercises.faithfulness_importance.attention_importance"
RELATIVE = "xai_tf.efficient.relative.relative_scores"
RAISES = [
    (
        IMPORTANCE,
        lambda: faithfulness_importance.attention_importance([[0.5, 0.5]]),
        TE,
        r"A must be a torch\.Tensor",
    ),
    (
        IMPORTANCE,
        lambda: faithfulness_importance.attention_importance(z(2, 3, 3)),
        VE,
        r"A must have 4 dimensions, got shape \(2, 3, 3\)",
    ),
    (
        IMPORTANCE,
        lambda: faithfulness_importance.attention_importance(z(1, 2, 3, 4)),
        VE,
        r"A must be \[L, H, T, T\] with at least one of each, got shape \(1, 2, 3, 4\)",
    ),
    (IMPORTANCE, lambda: faithfulness_importance.attention_importance(with_nan()), VE, r"A has NaN or ±inf"),
    (
        IMPORTANCE,
        lambda: faithfulness_importance.attention_importance(torch.ones(1, 1, 2, 2, dtype=torch.long)),
        TE,
        r"A must be a floating-point tensor",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4).long(), z(5, 4), z(3, 4)),
        TE,
        r"Q must be a floating",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4), z(6, 4), z(3, 4)),
        VE,
        r"Q and K must be \[\.\.\., T, d_att\] of one shape, got \(5, 4\) and \(6, 4\)",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4), z(5, 4), z(4, 4)),
        VE,
        r"a_K must be \[2c \+ 1, d_att\] = \[odd, 4\] \(one row per offset −c\.\.c\), got shape \(4, 4\)",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4), z(5, 4), z(3, 2)),
        VE,
        r"a_K must be \[2c \+ 1, d_att\]",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(4), z(4), z(3, 4)),
        VE,
        r"Q and K must be \[\.\.\., T, d_att\]",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4), z(5, 4).double(), z(3, 4)),
        TE,
        r"Q, K and a_K must share one dtype, got torch\.float32, torch\.float64 and torch\.float32",
    ),
    (
        RELATIVE,
        lambda: relative.relative_scores(z(5, 4), z(5, 4), torch.full((3, 4), NAN)),
        VE,
        r"a_K has NaN or ±inf",
    ),
]

CHECKERS = {
    "xai_tf.exercises.faithfulness_importance.check_attention_importance": "importance is None: did you",
    "xai_tf.exercises.efficient_relative.check_relative_scores": "z is None: did you forget",
    "xai_tf.exercises.circuits.check_previous_token_scores": "previous-token score is None: did you forget",
}

PANELS: dict = {}
