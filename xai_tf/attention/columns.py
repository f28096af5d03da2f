"""Attention with one token per *column*, as lecture 004 (the notes on white-box transformers) writes it.

X ∈ ℝ^{d×T} holds token t in column t; a head has Q, K, V ∈ ℝ^{p×d}, and

    SATT(X) = (V X) · softmax[(K X)ᵀ (Q X)],

the softmax taken down each column: entry (j, i) of (KX)ᵀ(QX) is k_j · q_i, column i of the softmax is query
i's weights over the keys j, and column i of SATT(X) is Σ_j α_ji v_j. H heads are stacked and mixed,

    MHATT(X) = A [SATT_1(X); …; SATT_H(X)],   A ∈ ℝ^{d×Hp}.

The notes leave out the 1/√p by which every implementation divides the scores (Vaswani et al. 2017, §3.2.1);
``scale=True`` puts it back. With it, this is lesson 01's row form transposed: MHATT(X)ᵀ = MultiHead(Xᵀ) with
W_q = [Q_1; …; Q_H] (and W_k, W_v) stacked the same way and W_o = A.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf import _checks


def satt(X: Tensor, Q: Tensor, K: Tensor, V: Tensor, scale: bool = False) -> Tensor:
    """SATT(X) = (V X) softmax[(K X)ᵀ (Q X) (/ √p where ``scale``)] for X [d, T] and Q, K, V [p, d]:
    [p, T]."""
    if _checks.tensor("X", X).dim() != 2:
        raise ValueError(f"X must be [d, T] (one token per column), got {tuple(X.shape)}")
    for name, W in (("Q", Q), ("K", K), ("V", V)):
        if _checks.tensor(name, W).dim() != 2 or W.shape[1] != X.shape[0]:
            raise ValueError(f"{name} must be [p, d] with d = {X.shape[0]} (X's rows), got {tuple(W.shape)}")
    if Q.shape[0] != K.shape[0]:
        raise ValueError(f"Q and K must have the same number of rows p, got {Q.shape[0]} and {K.shape[0]}")
    scores = (K @ X).T @ (Q @ X)  # (j, i) = k_j · q_i
    if scale:
        scores = scores / Q.shape[0] ** 0.5
    return (V @ X) @ torch.softmax(scores, dim=0)


def mhatt(
    X: Tensor, heads: Sequence[tuple[Tensor, Tensor, Tensor]], A: Tensor, scale: bool = False
) -> Tensor:
    """MHATT(X) = A [SATT_1(X); …; SATT_H(X)] for ``heads`` = [(Q_h, K_h, V_h), …] and A [d_o, H p]:
    [d_o, T]."""
    if not heads:
        raise ValueError("heads must hold at least one (Q_h, K_h, V_h)")
    stacked = torch.cat([satt(X, Q, K, V, scale) for Q, K, V in heads])
    if _checks.tensor("A", A).dim() != 2 or A.shape[1] != stacked.shape[0]:
        raise ValueError(
            f"A must be [d_o, {stacked.shape[0]}] (the heads' rows stacked), got {tuple(A.shape)}"
        )
    return A @ stacked
