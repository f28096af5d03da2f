"""Linear attention (lesson 14): Katharopoulos, Vyas, Pappas & Fleuret (2020), *Transformers are
RNNs: Fast Autoregressive Transformers with Linear Attention*.

Replace the softmax's exp(q·k) by a kernel φ(q)·φ(k) with φ(x) = elu(x) + 1 > 0. Then

    out_i = Σ_{j≤i} φ(q_i)ᵀφ(k_j) v_j / Σ_{j≤i} φ(q_i)ᵀφ(k_j) = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i,
    S_i = Σ_{j≤i} φ(k_j) v_jᵀ  (d × d_v),   z_i = Σ_{j≤i} φ(k_j),

prefix sums that cost O(n·d·d_v) instead of O(n²·d): the causal transformer becomes an RNN whose
state is (S, z). ``linear_attention_quadratic`` computes the same numbers the O(n²) way (the
n × n matrix of φ(q_i)ᵀφ(k_j)), as the definition and the test reference. It is *not* softmax
attention: φ(q)ᵀφ(k) is a different similarity, so the outputs differ from softmax attention's.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.efficient import _common


def elu_feature_map(x: Tensor) -> Tensor:
    """φ(x) = elu(x) + 1: x + 1 for x > 0, eˣ for x ≤ 0; always > 0."""
    return F.elu(_checks.real_tensor("x", x)) + 1


def linear_attention_quadratic(Q: Tensor, K: Tensor, V: Tensor, causal: bool = True) -> Tensor:
    """The definition: A_ij = φ(q_i)ᵀφ(k_j) / Σ_{j'} φ(q_i)ᵀφ(k_{j'}) (j, j' ≤ i if causal), out = A V.
    Builds the n × n matrix: O(n²·d)."""
    Q, K, V = _common.qkv(Q, K, V)
    n, m, causal = Q.size(-2), K.size(-2), _checks.flag("causal", causal)
    batch = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2]).numel()
    _common.fits(f"linear attention's n × n form at n={n}", 2 * batch * n * m * Q.element_size(), Q.device)
    A = elu_feature_map(Q) @ elu_feature_map(K).transpose(-2, -1)
    if causal:
        A = A.masked_fill(~torch.ones(n, m, dtype=torch.bool, device=Q.device).tril(m - n), 0)
    return _common.finite_scores((A / A.sum(-1, keepdim=True)) @ V, "φ(Q)φ(K)ᵀ V / φ(Q)φ(K)ᵀ 1")


def linear_attention(Q: Tensor, K: Tensor, V: Tensor, causal: bool = True, chunk_size: int = 64) -> Tensor:
    """φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i with the prefix sums S_i, z_i above, carried from chunk to chunk of
    ``chunk_size`` positions (within a chunk the few pairs are summed directly): O(n·d·d_v) time,
    O(c² + d·d_v) extra memory. ``chunk_size`` = 1 is the pure RNN form. Not causal:
    φ(Q) (φ(K)ᵀ V) / φ(Q) (φ(K)ᵀ 1) with one global sum."""
    Q, K, V = _common.qkv(Q, K, V)
    c, causal = _checks.integer("chunk_size", chunk_size, 1), _checks.flag("causal", causal)
    fq, fk = elu_feature_map(Q), elu_feature_map(K)
    if not causal:
        ratio = (fq @ (fk.transpose(-2, -1) @ V)) / (fq @ fk.sum(-2).unsqueeze(-1))
        return _common.finite_scores(ratio, "φ(Q)(φ(K)ᵀ V) / φ(Q)(φ(K)ᵀ 1)")
    n = Q.size(-2)
    if K.size(-2) != n:
        raise ValueError(
            f"causal linear attention is self-attention: Q has {n} positions but K has {K.size(-2)}"
        )
    lead = torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2])
    S = torch.zeros((*lead, Q.size(-1), V.size(-1)), dtype=Q.dtype, device=Q.device)  # Σ φ(k_j) v_jᵀ
    z = torch.zeros((*lead, 1, Q.size(-1)), dtype=Q.dtype, device=Q.device)  # Σ φ(k_j)
    out = []
    for i0 in range(0, n, c):
        q, k, v = fq[..., i0 : i0 + c, :], fk[..., i0 : i0 + c, :], V[..., i0 : i0 + c, :]
        within = (q @ k.transpose(-2, -1)).tril()  # pairs j ≤ i inside this chunk
        num = q @ S + within @ v
        den = (q * z).sum(-1, keepdim=True) + within.sum(-1, keepdim=True)
        out.append(num / den)
        S, z = S + k.transpose(-2, -1) @ v, z + k.sum(-2, keepdim=True)
    return _common.finite_scores(torch.cat(out, -2), "φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i")
