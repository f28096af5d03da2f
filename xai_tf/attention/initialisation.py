"""Why a freshly initialised attention layer attends almost evenly (lesson 01), measured.

The lecture argues by orthogonality: random queries and keys in high dimension are nearly orthogonal,
so q_s · k_t ≈ 0 and every weight is ≈ 1/T. Orthogonality is scale-free, though — multiplying W_q and
W_k by c leaves every cosine unchanged and multiplies every score by c² — so it cannot be the reason
on its own: attention is close to uniform when the *scores* are small, i.e. when the weights are small.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf.attention.layers import _project
from xai_tf.attention.maps import entropy


def attention_at_init(X: Tensor, W_q: Tensor, W_k: Tensor) -> dict[str, float]:
    """With Q = E W_qᵀ, K = E W_kᵀ (``X`` = E ``[T, d_e]``, ``W [d_att, d_e]``), A = softmax(QKᵀ/√d_att):

    "max |A − 1/T|":     max_{s,t} |A_{s,t} − 1/T|             (0 for exactly uniform rows)
    "entropy / log T":   mean_s H(A_{s,:}) / log T             (1 for exactly uniform rows)
    "mean |cos(q, k)|":  mean_{s,t} |q_s · k_t| / (‖q_s‖ ‖k_t‖)  (0 for orthogonal queries and keys)
    """
    if not isinstance(X, Tensor) or X.dim() != 2 or X.size(0) < 2:
        raise ValueError(f"X must be a [T, d_e] tensor with T ≥ 2 tokens, got {getattr(X, 'shape', X)}")
    Q, K = _project("X", X, "W_q", W_q), _project("X", X, "W_k", W_k)
    T = X.size(0)
    A = torch.softmax(Q @ K.T / math.sqrt(Q.size(-1)), dim=-1)
    cosines = torch.nn.functional.normalize(Q, dim=-1) @ torch.nn.functional.normalize(K, dim=-1).T
    return {
        "max |A − 1/T|": (A - 1 / T).abs().max().item(),
        "entropy / log T": (entropy(A).mean() / math.log(T)).item(),
        "mean |cos(q, k)|": cosines.abs().mean().item(),
    }
