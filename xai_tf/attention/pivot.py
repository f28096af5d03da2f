"""Sparsemax's threshold without sorting: Duchi, Shalev-Shwartz, Singer & Chandra (2008), *Efficient
projections onto the ℓ1-ball*, Fig. 2 (lesson 03).

η solves Σ_j [z_j − η]_+ = 1. Sorting finds it in O(n log n) (``maps.sparsemax_threshold``). The pivot method
keeps a set U of undecided scores, the sum s and count ρ of the scores known to be in the support, and
repeats: draw a pivot z_k from U, split U into G = {j ∈ U : z_j ≥ z_k} and L = U \\ G; if
(s + Σ_G z_j) − (ρ + |G|) z_k < 1, every score of G is in the support (s, ρ grow, U ← L), otherwise z_k
and everything below it is out (U ← G \\ {k}; here the ties of z_k go too, since the support is
{j : z_j > η}). Each pass costs O(|U|) and a random pivot halves U on average,
so the expected cost is O(n); at the end η = (s − 1) / ρ.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks


def sparsemax_threshold_pivot(z: Tensor, generator: np.random.Generator | None = None) -> float:
    """η of sparsemax for a 1-D vector of finite scores ``z``, by Duchi et al.'s randomized pivot (expected
    O(n); see the module), in float64. ``generator`` draws the pivots (default: seeded with 0)."""
    if _checks.tensor("z", z).dim() != 1 or z.numel() == 0:
        raise ValueError(f"z must be a non-empty 1-D tensor of scores, got shape {tuple(z.shape)}")
    if not bool(torch.isfinite(z).all()):
        raise ValueError("z must be finite (a −∞ score is outside the support: leave it out)")
    rng = np.random.default_rng(0) if generator is None else generator
    U = z.detach().to("cpu", torch.float64).numpy()
    s, rho = 0.0, 0
    while U.size:
        pivot = U[rng.integers(U.size)]
        above = U >= pivot
        G = U[above]
        if (s + G.sum()) - (rho + G.size) * pivot < 1:
            s, rho, U = s + G.sum(), rho + G.size, U[~above]
        else:
            U = G[G > pivot]  # z_k is out, and so is every score ≤ z_k (ties included)
    return (s - 1) / rho
