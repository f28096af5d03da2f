"""Attention, the lecture's first idea (lessons 01–03): ``layers`` (scores, masks, single-, multi-head
and cross attention) and ``maps`` (softmax, sparsemax, α-entmax, fusedmax, hard attention); lesson 03
adds ``regularized`` (π_Ω(θ) = argmax_{p∈Δ} pᵀθ − Ω(p) by a generic solver) and ``hard`` (top-k
subset selection and its gradient estimators).

Both are re-exported here, so ``from xai_tf import attention as att; att.sparsemax(z)`` reads as one
module. A new map goes into ``maps.py``, a new way of attending into ``layers.py``.
"""

from xai_tf.attention.hard import estimate_summary, expected_loss, gradient_estimates, hard_topk, relaxed_topk
from xai_tf.attention.initialisation import attention_at_init
from xai_tf.attention.jacobians import softmax_jacobian, sparsemax_jacobian
from xai_tf.attention.layers import (
    additive_scores,
    attention,
    bilinear_scores,
    causal_mask,
    cross_attention,
    dot_scores,
    lecture_causal_mask,
    lecture_masked_attention,
    masked_softmax,
    multi_head_attention,
    padding_mask,
    scaled_dot_scores,
    self_attention,
    sensitivity_to_token,
    single_query_attention,
)
from xai_tf.attention.maps import (
    entmax,
    entropy,
    fusedmax,
    hard_attention,
    prox_tv1d,
    softmax,
    sparsemax,
    sparsemax_threshold,
    support_size,
)
from xai_tf.attention.regularized import omega_value, regularized_argmax, regularized_max, tsallis_omega

__all__ = [
    "additive_scores",
    "attention",
    "attention_at_init",
    "bilinear_scores",
    "causal_mask",
    "cross_attention",
    "dot_scores",
    "entmax",
    "entropy",
    "estimate_summary",
    "expected_loss",
    "fusedmax",
    "gradient_estimates",
    "hard_attention",
    "hard_topk",
    "lecture_causal_mask",
    "lecture_masked_attention",
    "masked_softmax",
    "multi_head_attention",
    "omega_value",
    "padding_mask",
    "prox_tv1d",
    "regularized_argmax",
    "regularized_max",
    "relaxed_topk",
    "scaled_dot_scores",
    "self_attention",
    "sensitivity_to_token",
    "single_query_attention",
    "softmax",
    "softmax_jacobian",
    "sparsemax",
    "sparsemax_jacobian",
    "sparsemax_threshold",
    "support_size",
    "tsallis_omega",
]
