"""How far a learned dictionary is from the orthogonal one the ISTA derivation assumes (lesson 13, section 6;
the reference of its exercise 6.1).

The proximal lemma behind CRATE's ISTA block needs DᵀD = I (lecture 004: "D orthogonale"; the authors allow
an incoherent family, DᵀD ≈ I). The gap is measured in the spectral norm, which D's singular values s_i give:

    ‖DᵀD − I‖₂ = max_i |s_i² − 1|        (0 for an orthogonal D)
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def dictionary_gap(D: Tensor) -> Tensor:
    """‖DᵀD − I‖₂ (module docstring) of a dictionary ``D [d, m]`` whose columns are the atoms: a 0-d tensor in
    D's dtype (float16/bfloat16 computed in float32)."""
    D = _checks.real_tensor("D", D, dims=2)
    D = D.to(_checks.compute_dtype(D))
    eye = torch.eye(D.size(1), dtype=D.dtype, device=D.device)
    return torch.linalg.matrix_norm(D.mT @ D - eye, ord=2)
