"""Circuits (lesson 15): induction heads, composition, ablation, activation and attribution patching.

One idea a module: ``induction`` (repeated random tokens, per-token loss, induction and
previous-token scores), ``composition`` (K-composition and its random baseline), ``ablation``
(zero or mean ablation of one head), ``metrics`` (the normalised logit difference), ``patching``
(exact activation patching, denoising and noising) and ``attribution`` (attribution patching, its first-order
estimate from one forward and one backward pass).
"""

from xai_tf.circuits.ablation import ablate_head
from xai_tf.circuits.attribution_patching import attribution_patching
from xai_tf.circuits.composition import k_composition, k_composition_baseline, qk_ov
from xai_tf.circuits.induction import (
    attention_patterns,
    heads_above,
    induction_scores,
    per_token_loss,
    previous_token_scores,
    repeated_tokens,
)
from xai_tf.circuits.metrics import LogitDifference, logit_difference_metric
from xai_tf.circuits.patching import COMPONENTS, activation_patching

__all__ = [
    "COMPONENTS",
    "LogitDifference",
    "ablate_head",
    "activation_patching",
    "attention_patterns",
    "attribution_patching",
    "heads_above",
    "induction_scores",
    "k_composition",
    "k_composition_baseline",
    "logit_difference_metric",
    "per_token_loss",
    "previous_token_scores",
    "qk_ov",
    "repeated_tokens",
]
