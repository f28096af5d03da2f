"""Brunner et al. (2020), on identifiability in transformers (lesson 08): a head's output for query s is
ṽ_s = α_s V with V ∈ ℝ^{T×d_h}. When T > d_h + 1, the system {δ : δ V = 0, Σ_t δ_t = 0} has non-zero
solutions (its dimension is at least T − d_h − 1), and every

    α̃_s = α_s + δ  with  δ V = 0,  Σ_t δ_t = 0,  α_s + δ ≥ 0

is again a distribution with exactly the same output α̃_s V = α_s V: the attention weights are not
identifiable from what the head computes. To make the difference visible, ``equivalent_attention``
picks the α̃ of that set which puts the most weight on one chosen key (a linear program, solved by
scipy.optimize.linprog).
"""

from __future__ import annotations

import numpy as np
import torch
from scipy.linalg import null_space
from scipy.optimize import linprog
from torch import Tensor

from xai_tf import _checks


def _values(V: Tensor) -> np.ndarray:
    V = _checks.real_tensor("V", V)
    if V.dim() != 2 or V.size(0) == 0:
        raise ValueError(f"V must be a finite matrix [T, d_h], got shape {tuple(V.shape)}")
    return V.detach().double().cpu().numpy()


def null_directions(V: Tensor) -> np.ndarray:
    """An orthonormal basis ``[T, r]`` of {δ ∈ ℝ^T : δ V = 0, Σ_t δ_t = 0} (r = 0: none)."""
    v = _values(V)
    return null_space(np.vstack([v.T, np.ones((1, len(v)))]))


def equivalent_attention(alpha: Tensor, V: Tensor, key: int, most: bool = True) -> Tensor:
    """α̃ ``[T]``: of all distributions with α̃ V = α V, the one with the largest (``most``) or the
    smallest weight α̃_key, for one query's weights α ``[T]`` over keys whose values are V ``[T, d_h]``.
    Equal to α when that set holds α alone (T ≤ d_h + 1, in general). The linear program's answer
    is exact to about 1e-9; its entries are clipped at 0 (they may come out as −1e-17)."""
    _checks.real_tensor("alpha", alpha)
    v = _values(V)
    if alpha.dim() != 1 or len(alpha) != len(v):
        raise ValueError(
            f"alpha [T] and V [T, d_h] must share T, got {tuple(alpha.shape)} and {tuple(V.shape)}"
        )
    a = alpha.detach().double().cpu().numpy()
    if not np.isfinite(a).all() or (a < 0).any() or abs(a.sum() - 1) > 1e-4:
        raise ValueError("alpha must be a distribution: entries ≥ 0 summing to 1")
    key = _checks.integer("key", key, 0, len(a) - 1)
    A_eq = np.vstack([v.T, np.ones((1, len(a)))])
    cost = np.zeros(len(a))
    cost[key] = -1.0 if most else 1.0
    result = linprog(cost, A_eq=A_eq, b_eq=A_eq @ a, bounds=(0, None), method="highs")
    if not result.success:
        raise ValueError(f"no equivalent attention found: {result.message}")
    return torch.from_numpy(result.x).clamp(min=0).to(alpha)
