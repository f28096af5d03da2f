"""Why the sparsity penalty weighs each code by ‖W^dec_{:,j}‖ (lesson 10's errata).

Rescaling feature j — W^enc_{j,:} and b^enc_j times 1/c, W^dec_{:,j} times c — leaves s(h) unchanged
but divides a_j by c. The plain penalty Σ_j a_j then falls by the factor c for free, so an SAE trained
on it can meet any sparsity target by shrinking its codes and growing its decoder; the weighted
penalty Σ_j a_j ‖W^dec_{:,j}‖ does not move.
"""

from __future__ import annotations

import copy

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.sae.model import SparseAutoencoder, _sae


@torch.no_grad()
def rescale_features(sae: SparseAutoencoder, c: float) -> SparseAutoencoder:
    """A copy of ``sae`` with every feature rescaled: W^enc, b^enc times 1/c and W^dec times c."""
    c = _checks.positive("c", c)
    out = copy.deepcopy(_sae(sae))
    out.W_enc.div_(c)
    out.b_enc.div_(c)
    out.W_dec.mul_(c)
    return out


@torch.no_grad()
def penalties(sae: SparseAutoencoder, H: Tensor) -> dict[str, float]:
    """The plain Σ_j a_j and the weighted Σ_j a_j ‖W^dec_{:,j}‖ penalties, averaged over the rows of
    ``H``, and the reconstruction error (1/n) Σ_i ‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖²."""
    H = _sae(sae).check_input(H).reshape(-1, sae.config.d)
    s, a = sae(H)
    return {
        "plain": float(a.sum(-1).mean()),
        "weighted": float((a * sae.feature_norms()).sum(-1).mean()),
        "mse": float(((H - s) ** 2).sum(-1).mean()),
    }
