"""Bad-input probes for lesson 04's exercises in sections 1, 4, 7 and 11.3 (issue 54), collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import TE, VE

from xai_tf.transformer.bpe import merge_step, word_counts
from xai_tf.transformer.modern import swiglu
from xai_tf.transformer.parameter_count import gpt2_parameter_count
from xai_tf.transformer.pre_ln import pre_ln_block

EXEMPT: dict = {}


def _identity(u):
    return u


RAISES = [
    ("xai_tf.transformer.bpe.word_counts", lambda: word_counts("  "), VE, "text is empty"),
    (
        "xai_tf.transformer.bpe.word_counts",
        lambda: word_counts(["low"]),
        TE,
        "text must be a string, got list",
    ),
    ("xai_tf.transformer.bpe.merge_step", lambda: merge_step({("a",): 3}), VE, "no pair left to merge"),
    ("xai_tf.transformer.bpe.merge_step", lambda: merge_step({}), VE, "words is empty"),
    ("xai_tf.transformer.bpe.merge_step", lambda: merge_step(["ab"]), TE, "words must be a dict"),
    (
        "xai_tf.transformer.bpe.merge_step",
        lambda: merge_step({"ab": 2}),
        TE,
        "words' keys must be tuples of non-empty strings, got 'ab'",
    ),
    (
        "xai_tf.transformer.bpe.merge_step",
        lambda: merge_step({("a", "b"): 0}),
        VE,
        r"the count of \('a', 'b'\) must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.transformer.pre_ln.pre_ln_block",
        lambda: pre_ln_block([[0.0]], _identity, _identity, _identity, _identity),
        TE,
        "f must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.transformer.pre_ln.pre_ln_block",
        lambda: pre_ln_block(torch.zeros(2, 4), _identity, None, _identity, _identity),
        TE,
        r"attn must be a function of the stream \[..., T, d\], got NoneType",
    ),
    (
        "xai_tf.transformer.parameter_count.gpt2_parameter_count",
        lambda: gpt2_parameter_count(50257, 1024, 0, 12),
        VE,
        "d_e must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.transformer.parameter_count.gpt2_parameter_count",
        lambda: gpt2_parameter_count(50257.0, 1024, 768, 12),
        TE,
        "D must be an integer ≥ 1, got 50257.0",
    ),
    (
        "xai_tf.transformer.modern.swiglu",
        lambda: swiglu(torch.zeros(3, 8), torch.zeros(12, 8), torch.zeros(12, 8), torch.zeros(12, 8)),
        VE,
        r"W_gate and W_up must be \[d_mlp, 8\] and W_down \[8, d_mlp\]",
    ),
    (
        "xai_tf.transformer.modern.swiglu",
        lambda: swiglu(torch.zeros(3, 8, dtype=torch.long), *[torch.zeros(12, 8)] * 2, torch.zeros(8, 12)),
        VE,
        "u must be floating-point vectors",
    ),
    (
        "xai_tf.transformer.modern.swiglu",
        lambda: swiglu(torch.zeros(3, 8), [[0.0]], torch.zeros(12, 8), torch.zeros(8, 12)),
        TE,
        "W_gate must be a torch.Tensor, got list",
    ),
]

CHECKERS = {
    "xai_tf.exercises.blocks_parts.check_merge_step": "returned None",
    "xai_tf.exercises.blocks_parts.check_pre_ln_block": r"block\(f\) is None",
    "xai_tf.exercises.blocks_parts.check_parameter_count": "the count is None",
    "xai_tf.exercises.blocks_parts.check_swiglu": r"SwiGLU\(u\) is None",
}

PANELS: dict = {}
