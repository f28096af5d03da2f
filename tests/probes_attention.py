"""Bad-input probes for lessons 01–03 (attention: ``xai_tf.attention``, its exercises and panels),
collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf import attention as att
from xai_tf.attention.columns import mhatt, satt
from xai_tf.attention.pivot import sparsemax_threshold_pivot
from xai_tf.attention.sigmoid import sigmoid_attention
from xai_tf.widgets import attention

X, W = z(4, 6), z(5, 3)  # W does not fit X: 6 ≠ 5 (the panels' bad input)


EXEMPT: dict = {}


RAISES = [
    # attention (lessons 01–03)
    (
        "xai_tf.attention.columns.satt",
        lambda: satt(z(6), z(3, 6), z(3, 6), z(3, 6)),
        VE,
        r"X must be \[d, T\]",
    ),
    (
        "xai_tf.attention.columns.mhatt",
        lambda: mhatt(z(6, 5), [], z(6, 6)),
        VE,
        "heads must hold at least one",
    ),
    (
        "xai_tf.attention.pivot.sparsemax_threshold_pivot",
        lambda: sparsemax_threshold_pivot(z(2, 3)),
        VE,
        "z must be a non-empty 1-D tensor",
    ),
    (
        "xai_tf.attention.layers.dot_scores",
        lambda: att.dot_scores(z(3, 4), z(5, 6)),
        VE,
        "queries have size 4 but keys 6",
    ),
    (
        "xai_tf.attention.layers.scaled_dot_scores",
        lambda: att.scaled_dot_scores(z(3, 4), z(5, 6)),
        VE,
        "queries have size 4 but keys 6",
    ),
    (
        "xai_tf.attention.layers.bilinear_scores",
        lambda: att.bilinear_scores(z(3, 4), z(5, 4), z(3, 3)),
        VE,
        r"W must be \[4, 4\]",
    ),
    (
        "xai_tf.attention.layers.additive_scores",
        lambda: att.additive_scores(z(3, 4), z(5, 4), z(8, 4), z(8, 4), z(7)),
        VE,
        r"v must be \[8\]",
    ),
    (
        "xai_tf.attention.layers.causal_mask",
        lambda: att.causal_mask(-1),
        VE,
        "T must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.attention.layers.padding_mask",
        lambda: att.padding_mask([1.5], 3),
        TE,
        "lengths must be integers",
    ),
    (
        "xai_tf.attention.layers.attention",
        lambda: att.attention(z(3, 4), z(5, 4), z(5, 2), mask=torch.ones(3, 5)),
        TE,
        "mask must be a bool tensor",
    ),
    (
        "xai_tf.attention.layers.single_query_attention",
        lambda: att.single_query_attention(z(4), z(5, 3), z(5, 2)),
        VE,
        "queries have size 4 but keys 3",
    ),
    (
        "xai_tf.attention.layers.self_attention",
        lambda: att.self_attention(
            z(3, 4), z(2, 4), z(2, 4), z(2, 4), mask=torch.ones(3, 3, dtype=torch.long)
        ),
        TE,
        "mask must be a bool tensor",
    ),
    (
        "xai_tf.attention.layers.cross_attention",
        lambda: att.cross_attention(z(3, 4), z(5, 6), z(2, 4), z(2, 4), z(2, 4)),
        VE,
        r"Y has size 6 but W_k \[d_att, d_e\] expects d_e = 4",
    ),
    (
        "xai_tf.attention.layers.multi_head_attention",
        lambda: att.multi_head_attention(z(3, 8), *[z(8, 8)] * 4, n_heads=0),
        VE,
        "n_heads must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.attention.layers.sensitivity_to_token",
        lambda: att.sensitivity_to_token(lambda X: X, z(3, 4), 7, z(4)),
        VE,
        "t must be an integer in 0..2, got 7",
    ),
    (
        "xai_tf.attention.maps.softmax",
        lambda: att.softmax(torch.tensor([1.0, NAN])),
        VE,
        r"z has \+inf or NaN scores",
    ),
    (
        "xai_tf.attention.maps.sparsemax",
        lambda: att.sparsemax(torch.zeros(2, 0)),
        VE,
        "z must have at least one position",
    ),
    (
        "xai_tf.attention.maps.sparsemax_threshold",
        lambda: att.sparsemax_threshold(torch.tensor([1.0, NAN])),
        VE,
        r"z has \+inf or NaN scores",
    ),
    (
        "xai_tf.attention.jacobians.softmax_jacobian",
        lambda: att.softmax_jacobian(torch.tensor([0.5, -0.5])),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.attention.jacobians.sparsemax_jacobian",
        lambda: att.sparsemax_jacobian(torch.tensor(0.5)),
        VE,
        r"p must be finite float weights \[..., T\]",
    ),
    (
        "xai_tf.attention.regularized.tsallis_omega",
        lambda: att.tsallis_omega(torch.tensor([0.5, 0.5]), 1.0),
        VE,
        r"alpha must be a finite number in \(1, 10\], got 1.0",
    ),
    (
        "xai_tf.attention.maps.entmax",
        lambda: att.entmax(z(4), 0.5),
        VE,
        "alpha must be a finite number ≥ 1, got 0.5",
    ),
    (
        "xai_tf.attention.maps.prox_tv1d",
        lambda: att.prox_tv1d([1.0, 2.0], -1.0),
        VE,
        "lam must be a finite number ≥ 0",
    ),
    (
        "xai_tf.attention.maps.fusedmax",
        lambda: att.fusedmax(z(4), float("inf")),
        VE,
        "lam must be a finite number ≥ 0, got inf",
    ),
    (
        "xai_tf.attention.maps.hard_attention",
        lambda: att.hard_attention(z(4), "top"),
        VE,
        "mode must be 'argmax' or 'sample'",
    ),
    ("xai_tf.attention.maps.entropy", lambda: att.entropy([0.5, 0.5]), TE, "p must be a torch.Tensor"),
    (
        "xai_tf.attention.maps.support_size",
        lambda: att.support_size(torch.tensor([0.5, NAN])),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.attention.regularized.omega_value",
        lambda: att.omega_value(torch.tensor([0.5, -0.5]), "sparsemax"),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.attention.regularized.regularized_argmax",
        lambda: att.regularized_argmax(z(4), "sigmoid"),
        VE,
        "omega must be one of 'argmax', 'softmax', 'sparsemax', 'entmax', 'fusedmax', got 'sigmoid'",
    ),
    (
        "xai_tf.attention.regularized.regularized_max",
        lambda: att.regularized_max(z(4), "entmax", alpha=1.0),
        VE,
        r"alpha must be a finite number in \(1, 10\], got 1.0",
    ),
    (
        "xai_tf.attention.hard.hard_topk",
        lambda: att.hard_topk(z(5), 6),
        VE,
        "k must be an integer in 1..5, got 6",
    ),
    (
        "xai_tf.attention.sigmoid.sigmoid_attention",
        lambda: sigmoid_attention(torch.tensor([1, 2])),
        TE,
        "z must be a float tensor of scores, got torch.int64",
    ),
    (
        "xai_tf.attention.hard.relaxed_topk",
        lambda: att.relaxed_topk(z(5), 2, 0.0),
        VE,
        "tau must be a finite number > 0, got 0.0",
    ),
    (
        "xai_tf.attention.hard.expected_loss",
        lambda: att.expected_loss(z(5), 2, "mse"),
        TE,
        "loss must be a function of the mask m",
    ),
    (
        "xai_tf.attention.hard.gradient_estimates",
        lambda: att.gradient_estimates(z(5), 2, lambda m: m.sum(-1), "reinforce", 0),
        VE,
        "n must be an integer in 1..10000000, got 0",
    ),
    (
        "xai_tf.attention.hard.estimate_summary",
        lambda: att.estimate_summary(z(1, 5), z(5)),
        VE,
        r"G must be \[n ≥ 2, T\] estimates and exact \[T\], got \(1, 5\) and \(5,\)",
    ),
    # lecture errata and notation (issue 15), whole characters (issue 14)
    (
        "xai_tf.attention.layers.lecture_causal_mask",
        lambda: att.lecture_causal_mask(0),
        VE,
        "T must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.attention.layers.masked_softmax",
        lambda: att.masked_softmax(z(3, 4), z(3, 4)),
        TE,
        "mask must be a bool tensor",
    ),
    (
        "xai_tf.attention.layers.lecture_masked_attention",
        lambda: att.lecture_masked_attention(z(3, 4), z(3, 4), "divide"),
        VE,
        "combine must be 'add' or 'multiply', got 'divide'",
    ),
    (
        "xai_tf.attention.layers.self_attention",
        lambda: att.self_attention(z(3, 8), z(4, 8), z(4, 8), z(3, 8), biases=(z(4), z(3), z(3))),
        VE,
        r"the bias of W_k must have shape \(4,\), got \(3,\)",
    ),
    (
        "xai_tf.attention.initialisation.attention_at_init",
        lambda: att.attention_at_init(z(8), z(4, 8), z(4, 8)),
        VE,
        r"X must be a \[T, d_e\] tensor with T ≥ 2 tokens",
    ),
]


CHECKERS = {
    "xai_tf.exercises.attention.check_scores": "z is None",
    "xai_tf.exercises.attention.check_entropy": "H is None",
    "xai_tf.exercises.attention.check_multi_head": "returned None: did you forget",
    "xai_tf.exercises.masking.check_masked_softmax": "A is None",
    "xai_tf.exercises.masking.check_padding_mask": "mask is None",
    "xai_tf.exercises.masking.check_encoder_decoder_attention": "returned None: did you forget",
    "xai_tf.exercises.attention.check_softmax": r"softmax\(z\) is None",
    "xai_tf.exercises.attention.check_scaled_dot_product_attention": "returned None: did you forget",
    "xai_tf.exercises.masking.check_causal_mask": "mask is None",
    "xai_tf.exercises.masking.check_masked_attention": "returned None: did you forget",
    "xai_tf.exercises.attention.check_sparsemax": r"sparsemax\(z\) is None",
    "xai_tf.exercises.attention.check_sparsemax_jacobian": "J is None",
    "xai_tf.exercises.attention.check_sparsemax_threshold": "η is None",
    "xai_tf.exercises.attention.check_tsallis": "Ω is None",
    "xai_tf.exercises.attention.check_softmax_jacobian": "J is None",
    "xai_tf.exercises.attention.check_hard_topk": "m is None",
    "xai_tf.exercises.attention.check_sigmoid": "p is None",
}


PANELS = {
    "xai_tf.widgets.attention.attention_explorer": (
        lambda: attention.attention_explorer(X, W, W, W, list("abcd")),
        None,
        None,
    ),
    "xai_tf.widgets.attention.mask_explorer": (
        lambda: attention.mask_explorer(X, W, W, W, list("abcd")),
        None,
        None,
    ),
    "xai_tf.widgets.attention.flavors_panel": (
        lambda: attention.flavors_panel(z(5), list("abc")),
        None,
        None,
    ),
}
