"""Sigmoid attention (lesson 03, §6): every position weighed on its own, off the simplex.

    p_j = σ(θ_j) = 1 / (1 + e^{−θ_j})

Each weight lies in (0, 1), but nothing makes a row sum to 1: it is the regularised argmax of
lecture 001 over the cube [0, 1]^T instead of the simplex, with
Ω(p) = Σ_j p_j log p_j + (1 − p_j) log(1 − p_j).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def sigmoid_attention(z: Tensor) -> Tensor:
    """p = σ(z) = 1 / (1 + e^{−z}) elementwise (z: the scores θ, any shape); finite for every float z."""
    t = _checks.tensor("z", z)
    if not t.is_floating_point():
        raise TypeError(f"z must be a float tensor of scores, got {t.dtype}")
    return torch.sigmoid(t)
