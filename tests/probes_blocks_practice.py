"""Bad-input probes for lesson 04's later exercises (issue 54), collected by ``test_bad_inputs.py``; the
first five checkers' probes sit in ``probes_transformer.py``."""

import torch
from probe_kit import TE, VE

from xai_tf.explain.lens_track import final_token_probability
from xai_tf.transformer.kv_cache_size import kv_cache_size
from xai_tf.transformer.shifted_loss import shifted_cross_entropy

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.explain.lens_track.final_token_probability",
        lambda: final_token_probability(torch.zeros(5)),
        VE,
        r"z must be float logits \[L \+ 1, D\] with D ≥ 2, got torch.float32 \(5,\)",
    ),
    (
        "xai_tf.explain.lens_track.final_token_probability",
        lambda: final_token_probability([[0.0, 1.0]]),
        TE,
        "z must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.transformer.kv_cache_size.kv_cache_size",
        lambda: kv_cache_size(2, 10, 8, 3, 16, 4),
        VE,
        r"n_kv_head must divide n_head = 8, got 3",
    ),
    (
        "xai_tf.transformer.kv_cache_size.kv_cache_size",
        lambda: kv_cache_size(2, 10, 4, 8, 16, 4),
        VE,
        r"n_kv_head must be an integer in 1..4, got 8",
    ),
    (
        "xai_tf.transformer.kv_cache_size.kv_cache_size",
        lambda: kv_cache_size(2, 10.0, 4, 4, 16, 4),
        TE,
        r"T must be an integer ≥ 0, got 10.0",
    ),
    (
        "xai_tf.transformer.shifted_loss.shifted_cross_entropy",
        lambda: shifted_cross_entropy(torch.zeros(3, 5), torch.zeros(4, dtype=torch.long)),
        VE,
        r"logits must be \[T, D\] and ids \[T\] with T ≥ 2, got \(3, 5\) and \(4,\)",
    ),
    (
        "xai_tf.transformer.shifted_loss.shifted_cross_entropy",
        lambda: shifted_cross_entropy(torch.zeros(3, 5), torch.tensor([0, 5, 1])),
        VE,
        r"ids must be integer token ids in 0..4",
    ),
    (
        "xai_tf.transformer.shifted_loss.shifted_cross_entropy",
        lambda: shifted_cross_entropy([[0.0]], torch.zeros(1, dtype=torch.long)),
        TE,
        "logits must be a torch.Tensor, got list",
    ),
]

CHECKERS = {
    "xai_tf.exercises.blocks.check_rotary": r"R_p x is None",
    "xai_tf.exercises.blocks.check_shifted_cross_entropy": "L is None",
    "xai_tf.exercises.blocks.check_kv_cache_size": "bytes is None",
    "xai_tf.exercises.blocks.check_final_token_probability": "p is None",
}

PANELS: dict = {}
