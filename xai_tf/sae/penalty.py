"""Why the sparsity penalty weighs each code by ‖W^dec_{:,j}‖ (lesson 10's errata).

Rescaling feature j — W^enc_{j,:} and b^enc_j times 1/c, W^dec_{:,j} times c — leaves s(h) unchanged
but divides a_j by c. The plain penalty Σ_j a_j then falls by the factor c for free, so an SAE trained
on it can meet any sparsity target by shrinking its codes and growing its decoder; the weighted
penalty Σ_j a_j ‖W^dec_{:,j}‖ does not move.
"""

from __future__ import annotations

import copy
import math

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.sae.model import SparseAutoencoder, _sae


@torch.no_grad()
def rescale_features(sae: SparseAutoencoder, c: float) -> SparseAutoencoder:
    """A copy of ``sae`` with every feature rescaled: W^enc, b^enc times 1/c and W^dec times c. Refused,
    naming the range, for a c whose rescaled weights leave the weights' dtype (c = 1e40 overflows
    float32's W^dec to inf and the penalties to NaN; c = 1e-40 flushes W^dec to 0)."""
    c = _checks.positive("c", c)
    lo, hi = _rescale_range(_sae(sae))
    if not lo <= c <= hi:
        raise ValueError(
            f"c must lie in [{lo:.3g}, {hi:.3g}] for this SAE's {sae.W_dec.dtype} weights, got {c:g}: "
            "beyond it W^dec or W^enc, b^enc overflow to inf or fall below the smallest normal number"
        )
    out = copy.deepcopy(_sae(sae))
    out.W_enc.div_(c)
    out.b_enc.div_(c)
    out.W_dec.mul_(c)
    return out


def _rescale_range(sae: SparseAutoencoder) -> tuple[float, float]:
    """[lo, hi]: the c for which c·W^dec and (W^enc, b^enc)/c stay finite and their non-zero entries
    normal in the weights' dtype."""
    info = torch.finfo(sae.W_dec.dtype)
    enc = torch.cat([sae.W_enc.detach().flatten(), sae.b_enc.detach().flatten()]).double().abs()
    dec = sae.W_dec.detach().flatten().double().abs()
    lo, hi = 0.0, math.inf
    if dec.any():
        lo, hi = info.tiny / float(dec[dec > 0].min()), info.max / float(dec.max())
    if enc.any():
        lo, hi = max(lo, float(enc.max()) / info.max), min(hi, float(enc[enc > 0].min()) / info.tiny)
    return lo, hi


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
