"""The residual stream at every layer, the representations a probe reads (lesson 19).

For token windows ``ids [n, T]``, h_0 = the stream entering block 1 (embedding, ``resid_pre`` of layer
0) and h_l = the stream leaving block l (``resid_post`` of layer l − 1), l = 1..L, read through the
model protocol's cache (the same hook names on GPT-2, the bundled model and MiniLM).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows


@torch.no_grad()
def residual_streams(lm: LoadedModel, ids: Tensor, batch_size: int = 16) -> Tensor:
    """h_0..h_L for every token of ``ids [n, T]``: ``[L + 1, n·T, d_e]`` in float32, windows in order."""
    lm = _windows.loaded(lm)
    _checks.integer("batch_size", batch_size, 1)
    ids = _windows.checked(lm, ids, "ids")
    sizes = lm.model.sizes
    n_bytes = 4 * (sizes.n_layer + 1) * ids.numel() * sizes.d_model  # the float32 result
    _checks.fits(f"the residual streams of {ids.size(0)} windows", n_bytes, "read fewer windows of ids")
    out = []
    for chunk in ids.split(batch_size):
        _, cache = lm.run_with_cache(chunk)
        h = torch.cat([cache["resid_pre", 0][None], cache.stack("resid_post")])  # [L + 1, b, T, d_e]
        out.append(h.flatten(1, 2).float())
    return torch.cat(out, 1)
