"""Bad-input probes for lesson 06's exercise steps and G-avg analysis (``xai_tf.explain.ig_steps``,
``xai_tf.explain.centring``) and the checkers added with them, collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, VE, tiny, z

from xai_tf.explain import centring, ig_steps

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.explain.ig_steps.g_l1",
        lambda: ig_steps.g_l1(z(3)),
        VE,
        r"g must have 2 dimensions, got shape \(3,\)",
    ),
    (
        "xai_tf.explain.ig_steps.straight_path",
        lambda: ig_steps.straight_path(z(2, 3), z(3, 2), z(4)),
        VE,
        r"E_base is \(2, 3\) but E is \(3, 2\)",
    ),
    (
        "xai_tf.explain.ig_steps.gauss_legendre",
        lambda: ig_steps.gauss_legendre(0),
        VE,
        "m must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.explain.ig_steps.completeness_delta",
        lambda: ig_steps.completeness_delta(z(2, 3), NAN, 0.0),
        VE,
        "f_input must be a finite number, got nan",
    ),
    (
        "xai_tf.explain.ig_steps.monomial_errors",
        lambda: ig_steps.monomial_errors(z(3), z(4), 2),
        VE,
        r"alphas is \(3,\) but weights is \(4,\)",
    ),
    (
        "xai_tf.explain.ig_steps.exact_degree",
        lambda: ig_steps.exact_degree(z(3), z(3), tol=-1.0),
        VE,
        "tol must be a finite number > 0",
    ),
    (
        "xai_tf.explain.ig_steps.probability_gradient",
        lambda: ig_steps.probability_gradient(z(4).softmax(-1), z(3, 2), 1),
        VE,
        r"dz must have one row per entry of p \(4\), got shape \(3, 2\)",
    ),
    (
        "xai_tf.explain.ig_steps.probability_gradient",
        lambda: ig_steps.probability_gradient(z(4).softmax(-1), z(4, 2), 4),
        VE,
        r"w must be an integer in 0\.\.3, got 4",
    ),
    (
        "xai_tf.explain.centring.shift_response",
        lambda: centring.shift_response(tiny(), [1, 2, 3], 4, c=float("inf")),
        VE,
        "c must be a finite number, got inf",
    ),
    (
        "xai_tf.explain.centring.g_avg_scale",
        lambda: centring.g_avg_scale(tiny(), [1, 2, 3], 50),
        VE,
        r"target must be an integer in 0\.\.49, got 50",
    ),
    (
        "xai_tf.explain.centring.g_avg_scale",
        lambda: centring.g_avg_scale(tiny(), torch.tensor([[1, 2], [3, 4]]), 4),
        VE,
        "explain one prompt at a time",
    ),
]

CHECKERS = {
    "xai_tf.exercises.attribution.check_gradient_x_input": "gradient × input is None",
    "xai_tf.exercises.attribution.check_straight_path": "path is None",
    "xai_tf.exercises.attribution.check_gauss_legendre": "returned None: did you forget",
    "xai_tf.exercises.attribution.check_completeness_delta": "delta is None",
    "xai_tf.exercises.attribution.check_prob_gradient": "∂p_w is None",
}

PANELS: dict = {}
