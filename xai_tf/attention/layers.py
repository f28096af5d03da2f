"""Attention from scratch (lessons 01–02): score functions, masks, single-, multi-head and cross attention.

Notation of the lecture: a query q ∈ ℝ^d, keys k_1..k_T and values v_1..v_T (rows of K and V).
Attention scores z_j = score(k_j, q), weights p = π(z) on the probability simplex (a map of
``xai_tf.attention.maps``), output Σ_j p_j v_j. For a whole sequence, Q = X W_q, K = X W_k,
V = X W_v and A = π(Q Kᵀ / √d_att).

Masks are boolean and say where a query **may** attend (True = visible). A masked score becomes
−∞, which every map sends to probability 0; a row with no visible position gives all zeros.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf.attention.maps import softmax

# ---------------------------------------------------------------- score functions


def dot_scores(Q: Tensor, K: Tensor) -> Tensor:
    """z_ij = k_jᵀ q_i. ``Q [..., n, d]``, ``K [..., m, d]`` → ``[..., n, m]``."""
    return Q @ K.transpose(-2, -1)


def scaled_dot_scores(Q: Tensor, K: Tensor) -> Tensor:
    """z_ij = k_jᵀ q_i / √d, which keeps the scores' variance near 1 for random unit-variance q, k."""
    return dot_scores(Q, K) / math.sqrt(Q.size(-1))


def bilinear_scores(Q: Tensor, K: Tensor, W: Tensor) -> Tensor:
    """z_ij = k_jᵀ W q_i with ``W [d_k, d_q]`` (Luong et al., 2015)."""
    return K.unsqueeze(-3).matmul((Q @ W.T).unsqueeze(-1)).squeeze(-1)


def additive_scores(Q: Tensor, K: Tensor, W1: Tensor, W2: Tensor, v: Tensor) -> Tensor:
    """z_ij = vᵀ tanh(W₁ k_j + W₂ q_i) (Bahdanau et al., 2015).

    ``W1 [h, d_k]``, ``W2 [h, d_q]``, ``v [h]``."""
    hidden = torch.tanh((K @ W1.T).unsqueeze(-3) + (Q @ W2.T).unsqueeze(-2))  # [..., n, m, h]
    return hidden @ v


# ---------------------------------------------------------------- masks


def causal_mask(T: int, device: torch.device | None = None) -> Tensor:
    """M_ij = (j ≤ i): position i sees itself and the past, never the future (GPT-2). ``[T, T]``."""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor | list[int], T: int) -> Tensor:
    """Keys j < length of each sequence are visible: ``[batch, 1, T]`` (broadcasts over queries),
    on the device of ``lengths`` (the CPU for a list)."""
    lengths = torch.as_tensor(lengths, device=lengths.device if isinstance(lengths, Tensor) else "cpu")
    if (lengths < 0).any() or (lengths > T).any():
        raise ValueError(f"lengths must lie in 0..{T}, got {lengths.tolist()}")
    return (torch.arange(T, device=lengths.device) < lengths[:, None]).unsqueeze(-2)


# ---------------------------------------------------------------- attention


def attention(
    Q: Tensor,
    K: Tensor,
    V: Tensor,
    mask: Tensor | None = None,
    normalizer=softmax,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """(A V, A) with A = π(Q Kᵀ · scale), masked positions set to −∞ before π.

    ``Q [..., n, d]``, ``K [..., m, d]``, ``V [..., m, d_v]``; ``mask`` broadcasts to
    ``[..., n, m]`` (True = visible); ``scale`` defaults to 1/√d; ``normalizer`` is any map
    above (e.g. ``sparsemax`` or ``lambda z: entmax(z, 1.5)``).
    """
    if Q.size(-1) != K.size(-1):
        raise ValueError(f"queries have size {Q.size(-1)} but keys {K.size(-1)}: they must match")
    if K.size(-2) != V.size(-2):
        raise ValueError(f"{K.size(-2)} keys but {V.size(-2)} values: they must match")
    scores = dot_scores(Q, K) * (scale if scale is not None else 1 / math.sqrt(Q.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    A = normalizer(scores)
    return A @ V, A


def single_query_attention(q: Tensor, K: Tensor, V: Tensor, normalizer=softmax) -> tuple[Tensor, Tensor]:
    """One query: p = π(K q / √d), output Σ_j p_j v_j. ``q [d]``, ``K [T, d]``, ``V [T, d_v]``."""
    out, p = attention(q.unsqueeze(0), K, V, normalizer=normalizer)
    return out[0], p[0]


def self_attention(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, mask: Tensor | None = None, normalizer=softmax
) -> tuple[Tensor, Tensor]:
    """Q = X W_q, K = X W_k, V = X W_v; returns (A V, A), A = π(Q Kᵀ / √d_att)."""
    return attention(X @ W_q, X @ W_k, X @ W_v, mask, normalizer)


def cross_attention(
    X: Tensor, Y: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Queries from X (e.g. the decoder), keys and values from Y (the encoder): A is ``[n_X, n_Y]``."""
    return attention(X @ W_q, Y @ W_k, Y @ W_v, mask)


def multi_head_attention(
    X: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor,
    n_heads: int,
    mask: Tensor | None = None,
    Y: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """MultiHead(X) = Concat(head_1, …, head_H) W_o, head_h = Attention(X W_q^h, Y W_k^h, Y W_v^h).

    The projections ``W_q, W_k, W_v [d, d_att]`` are split into H heads of size d_att / H (as in
    GPT-2); Y defaults to X (self-attention). Returns (output ``[..., n, d_o]``, A ``[..., H, n, m]``).
    """
    Y = X if Y is None else Y
    d_att = W_q.size(1)
    if d_att % n_heads:
        raise ValueError(f"d_att={d_att} must be divisible by n_heads={n_heads}")

    def heads(t: Tensor) -> Tensor:  # [..., T, d_att] → [..., H, T, d_att / H]
        return t.unflatten(-1, (n_heads, d_att // n_heads)).transpose(-3, -2)

    out, A = attention(heads(X @ W_q), heads(Y @ W_k), heads(Y @ W_v), mask)
    return out.transpose(-3, -2).flatten(-2) @ W_o, A


# ---------------------------------------------------------------- reading attention


def sensitivity_to_token(attend, X: Tensor, t: int, replacement: Tensor) -> Tensor:
    """max_k |attend(X')_{i,k} − attend(X)_{i,k}| for each position i, where X' is X with row t
    replaced: which outputs can "see" token t. With a causal mask, positions i < t give 0."""
    X_new = X.clone()
    X_new[t] = replacement
    return (attend(X_new) - attend(X)).abs().amax(-1)
