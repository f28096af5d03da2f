"""Bad-input probes for lesson 05's step functions (``xai_tf.transformer.decoding_steps``) and its
exercise checkers, collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.transformer import decoding_steps as steps

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.transformer.decoding_steps.greedy_step",
        lambda: steps.greedy_step(torch.tensor([1.0, NAN])),
        VE,
        "logits has \\+inf or NaN scores",
    ),
    (
        "xai_tf.transformer.decoding_steps.sample_by_inverse_cdf",
        lambda: steps.sample_by_inverse_cdf(torch.tensor([0.5, 0.5]), torch.tensor(1.0)),
        VE,
        r"u must lie in \[0, 1\)",
    ),
    (
        "xai_tf.transformer.decoding_steps.sample_by_inverse_cdf",
        lambda: steps.sample_by_inverse_cdf(torch.ones(3, 2) / 2, torch.zeros(2)),
        VE,
        r"u must have probs' shape without its last dim, \(3,\), got \(2,\)",
    ),
    (
        "xai_tf.transformer.decoding_steps.beam_step",
        lambda: steps.beam_step(torch.zeros(2), z(2, 5), 11),
        VE,
        r"beam_width must be an integer in 1..10, got 11",
    ),
    (
        "xai_tf.transformer.decoding_steps.beam_step",
        lambda: steps.beam_step(torch.zeros(3), z(2, 5), 2),
        VE,
        r"log_p must be \[B\] and logits \[B, V\] for the same B hypotheses, got \(3,\) and \(2, 5\)",
    ),
    (
        "xai_tf.transformer.decoding_steps.length_penalised",
        lambda: steps.length_penalised(torch.tensor([-1.0]), torch.tensor([0]), 1.0),
        VE,
        "n must count at least one new token",
    ),
    (
        "xai_tf.transformer.decoding_steps.length_penalised",
        lambda: steps.length_penalised(torch.tensor([-1.0]), torch.tensor([2]), NAN),
        VE,
        "alpha must be a finite number, got nan",
    ),
    (
        "xai_tf.transformer.decoding_steps.append_kv",
        lambda: steps.append_kv(z(1, 2, 3, 4), z(1, 2, 3, 4), z(2, 4), z(1, 2, 1, 4)),
        VE,
        r"k must be \[batch, heads, T, d_h\], got shape \(2, 4\)",
    ),
    (
        "xai_tf.transformer.decoding_steps.append_kv",
        lambda: steps.append_kv(z(1, 2, 3, 4), [1.0], z(1, 2, 1, 4), z(1, 2, 1, 4)),
        TE,
        "past_v must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.transformer.decoding_steps.append_kv",
        lambda: steps.append_kv(z(1, 2, 3, 4), z(1, 2, 3, 4), z(1, 2, 1, 8), z(1, 2, 1, 8)),
        VE,
        r"must share batch, heads and d_h .*\(1, 2, 1, 8\)",
    ),
]

CHECKERS = {
    "xai_tf.exercises.decoding.check_greedy_step": "token id is None",
    "xai_tf.exercises.decoding.check_sample_by_inverse_cdf": "token id is None",
    "xai_tf.exercises.decoding.check_beam_step": "returned None: did you forget",
    "xai_tf.exercises.decoding.check_length_penalised": r"s \(α = 0.6\) is None",
    "xai_tf.exercises.decoding.check_append_kv": "returned None: did you forget",
}

PANELS: dict = {}
