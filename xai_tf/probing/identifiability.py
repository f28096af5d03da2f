"""Token identifiability (Brunner et al. 2020; lesson 19): does the hidden state h_l[i] still say which
input token it came from?

Within a window, the input embeddings are e_j = h_0[j] (token plus position embedding). Token i is
identified at layer l when the input embedding nearest to g(h_l[i]) (cosine similarity) is e_i or an
embedding of the same token id:

    identified(i, l) = [ x_{argmax_j cos(g(h_l[i]), e_j)} = x_i ].

Two maps g: the identity (is h_l[i] still closest to its own input?) and a linear map
g(h) = W h + b fitted by least squares from h_l to h_0 on other windows (the training windows), tested on
held-out windows, so it cannot have memorised these tokens' states.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks


def identified(g_h: Tensor, e: Tensor, ids: Tensor) -> Tensor:
    """Per window and token, whether the nearest input embedding to g(h) has the token's own id:
    ``g_h, e [n, T, d]``, ``ids [n, T]`` → bool ``[n, T]``."""
    g_h, e = _checks.real_tensor("g_h", g_h, dims=3), _checks.real_tensor("e", e, dims=3)
    _checks.same_shape("identifiability", "g_h", g_h, "e", e)
    if _checks.tensor("ids", ids).shape != e.shape[:2] or ids.is_floating_point() or ids.dtype == torch.bool:
        raise ValueError(
            f"ids must be integer token ids [n, T] = {tuple(e.shape[:2])}, got {tuple(ids.shape)}"
        )
    cos = F.normalize(g_h.double(), dim=-1) @ F.normalize(e.double(), dim=-1).transpose(1, 2)  # [n, T, T]
    nearest = cos.argmax(-1)
    return ids.gather(1, nearest) == ids


def identifiability_by_layer(
    H: Tensor,
    ids: Tensor,
    train: Tensor,
    test: Tensor,
    identify: Callable[[Tensor, Tensor, Tensor], Tensor] = identified,
) -> dict[str, list[float]]:
    """Share of test-window tokens identified at each layer, by the identity map and by a linear map fitted
    on the training windows; ``H [L + 1, n·T, d]`` (``features.residual_streams``), ``ids [n, T]``,
    ``train``/``test`` window indices; ``identify`` is ``identified`` (a lesson passes a student's)."""
    H = _checks.real_tensor("H", H, dims=3)
    ids = _checks.tensor("ids", ids)
    if ids.dim() != 2 or ids.is_floating_point() or ids.dtype == torch.bool:
        raise ValueError(f"ids must be integer token windows [n, T], got {ids.dtype} {tuple(ids.shape)}")
    n, T = ids.shape
    train = torch.as_tensor(_checks.indices("train", train, n), dtype=torch.long)
    test = torch.as_tensor(_checks.indices("test", test, n), dtype=torch.long)
    if train.numel() == 0 or test.numel() == 0:
        raise ValueError(f"train and test must each hold at least one window index in 0..{n - 1}")
    if H.size(1) != n * T:
        raise ValueError(f"H holds {H.size(1)} tokens but ids has n·T = {n * T}")
    S = H.view(H.size(0), n, T, -1).double()
    e = S[0]
    out: dict[str, list[float]] = {"identity": [], "linear": []}
    for layer in range(H.size(0)):
        out["identity"].append(float(identify(S[layer, test], e[test], ids[test]).double().mean()))
        X = F.pad(S[layer, train].flatten(0, 1), (0, 1), value=1.0)  # [N, d + 1]: h and a constant for b
        W = torch.linalg.lstsq(X, e[train].flatten(0, 1)).solution
        g_h = F.pad(S[layer, test], (0, 1), value=1.0) @ W
        out["linear"].append(float(identify(g_h, e[test], ids[test]).double().mean()))
    return out
