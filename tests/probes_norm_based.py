"""Bad-input probes for lesson 07's norm-based reading (``xai_tf.explain.norm_based``, Kobayashi et al.,
2020) and its exercise, collected by ``test_bad_inputs.py``."""

from probe_kit import NAN, TE, VE, lm, tiny, z

from xai_tf.explain import norm_based as nb

N = "xai_tf.explain.norm_based"
A = z(2, 4, 4).softmax(-1)

EXEMPT: dict = {}

RAISES = [
    (f"{N}.output_projections", lambda: nb.output_projections(tiny()), TE, "lm must be the model handle"),
    (f"{N}.hook_projections", lambda: nb.hook_projections(tiny()), TE, "lm must be the model handle"),
    (f"{N}.norm_based", lambda: nb.norm_based(lm(), []), VE, "input_ids is empty"),
    (f"{N}.norm_based", lambda: nb.norm_based(lm(), [[1, 2], [3, 4]]), VE, "input_ids must be one prompt"),
    (
        f"{N}.weighted_norms",
        lambda: nb.weighted_norms(A, z(2, 3, 5), z(2, 5, 6)),
        VE,
        r"v must be \[\.\.\., 2, 4, d_h\]",
    ),
    (
        f"{N}.weighted_norms",
        lambda: nb.weighted_norms(A, z(2, 4, 5), z(2, 4, 6)),
        VE,
        r"W_O must be \[\.\.\., 2, 5, d\]",
    ),
    (
        f"{N}.weighted_norms",
        lambda: nb.weighted_norms(z(2, 4, 3), z(2, 4, 5), z(2, 5, 6)),
        VE,
        r"attn must be \[\.\.\., H, T, T\]",
    ),
    (
        f"{N}.weighted_norms",
        lambda: nb.weighted_norms(-A, z(2, 4, 5), z(2, 5, 6)),
        VE,
        "attn must be attention weights ≥ 0",
    ),
    (f"{N}.weighted_norms", lambda: nb.weighted_norms(A, z(2, 4, 5) * NAN, z(2, 5, 6)), VE, "v has NaN"),
    (
        f"{N}.weighted_norms",
        lambda: nb.weighted_norms(A.tolist(), z(2, 4, 5), z(2, 5, 6)),
        TE,
        "attn must be a torch.Tensor",
    ),
    (f"{N}.column_share", lambda: nb.column_share(A, [4]), VE, r"columns\[0\] must be an integer in 0..3"),
    (f"{N}.column_share", lambda: nb.column_share(A, []), VE, "columns is empty"),
    (f"{N}.column_share", lambda: nb.column_share(A * 0, [0]), VE, "a row that sums to 0"),
    (f"{N}.column_share", lambda: nb.column_share(z(4), [0]), VE, r"weights must be \[\.\.\., T, T\]"),
]

CHECKERS = {"xai_tf.exercises.norm_based.check_weighted_norms": "‖α f\\(x\\)‖ is None"}

PANELS: dict = {}
