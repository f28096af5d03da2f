"""One decoder step of lesson 16's attention, written out on unbatched tensors (the exercises' functions;
the models use ``xai_tf.seq2seq.attention``, which these agree with). For the previous decoder state
s_{i−1} ∈ ℝ^{d} and the encoder states h_j ∈ ℝ^{d} (j = 1..S, the rows of h):

    additive (Bahdanau et al. 2015):   e_j = v_aᵀ tanh(W_a s_{i−1} + U_a h_j)
    bilinear (Luong's "general"):      e_j = s_{i−1}ᵀ W_a h_j
    weights and context:               α_j = exp e_j / Σ_{j′} exp e_j′,   c_i = Σ_j α_j h_j.

Kept apart from ``attention`` so that the shipped models' fingerprint (their code's import graph) stays.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def _step_inputs(s_prev: object, h: object) -> tuple[Tensor, Tensor]:
    s_prev, h = _checks.real_tensor("s_prev", s_prev, dims=1), _checks.real_tensor("h", h, dims=2)
    if h.shape[0] == 0 or h.shape[1] != s_prev.shape[0]:
        raise ValueError(
            "s_prev [d] and h [S, d] (S ≥ 1) need one width d, "
            f"got {tuple(s_prev.shape)} and {tuple(h.shape)}"
        )
    return s_prev, h


def additive_scores(s_prev: Tensor, h: Tensor, W_a: Tensor, U_a: Tensor, v_a: Tensor) -> Tensor:
    """Bahdanau's scores for one decoder step, e_j = v_aᵀ tanh(W_a s_{i−1} + U_a h_j) [S], for
    s_prev = s_{i−1} [d], h [S, d], W_a, U_a [d_att, d], v_a [d_att]."""
    s_prev, h = _step_inputs(s_prev, h)
    d = h.shape[1]
    W_a, U_a = _checks.real_tensor("W_a", W_a, dims=2), _checks.real_tensor("U_a", U_a, dims=2)
    v_a = _checks.real_tensor("v_a", v_a, dims=1)
    if W_a.shape[1] != d or U_a.shape != W_a.shape or v_a.shape[0] != W_a.shape[0]:
        raise ValueError(
            f"W_a and U_a must be [d_att, {d}] and v_a [d_att], "
            f"got {tuple(W_a.shape)}, {tuple(U_a.shape)}, {tuple(v_a.shape)}"
        )
    return torch.tanh(W_a @ s_prev + h @ U_a.T) @ v_a


def bilinear_scores(s_prev: Tensor, h: Tensor, W_a: Tensor) -> Tensor:
    """Luong's "general" scores for one decoder step, e_j = s_{i−1}ᵀ W_a h_j [S], for s_prev [d],
    h [S, d], W_a [d, d]."""
    s_prev, h = _step_inputs(s_prev, h)
    W_a = _checks.real_tensor("W_a", W_a, dims=2)
    if W_a.shape != (h.shape[1], h.shape[1]):
        raise ValueError(f"W_a must be [d, d] = {[h.shape[1]] * 2}, got {tuple(W_a.shape)}")
    return (h @ W_a.T) @ s_prev


def context_vector(e: Tensor, h: Tensor) -> tuple[Tensor, Tensor]:
    """From the scores e [S] of one decoder step and the encoder states h [S, d]: the weights
    α_j = exp e_j / Σ_{j′} exp e_j′ [S] and the context vector c = Σ_j α_j h_j [d]."""
    e = _checks.scores("e", e)
    if not e.is_floating_point():
        raise TypeError(f"e must be a floating-point tensor of scores [S], got {e.dtype}")
    h = _checks.real_tensor("h", h, dims=2)
    if e.dim() != 1 or e.shape[0] != h.shape[0]:
        raise ValueError(f"e must be [S] with S = {h.shape[0]} rows of h, got {tuple(e.shape)}")
    alpha = torch.softmax(e, -1)
    return alpha, alpha @ h


def additive_step(
    s: Tensor, h: Tensor, W_a: Tensor, U_a: Tensor, v_a: Tensor, i: int
) -> tuple[Tensor, Tensor]:
    """(α_i· [S], c_i [d]) at decoder step i ≥ 1 from the decoder states s [T+1, d] (row 0: s_0): the
    ``additive_scores`` of s_{i−1} = s[i − 1] turned into weights and a context by ``context_vector``."""
    s = _checks.real_tensor("s", s, dims=2)
    i = _checks.integer("i", i, 1, s.shape[0])
    return context_vector(additive_scores(s[i - 1], h, W_a, U_a, v_a), h)
