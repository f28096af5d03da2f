"""Ablating one head (lesson 15): is an induction head causal for the in-context drop in loss?

Zero ablation sets the head's output z^{l,h} (``[batch, T, d_h]`` before W_O) to 0; mean ablation
sets it to its mean over the batch and positions of the same input, E[z^{l,h}], so the rest of the
network still sees the head's average contribution. The per-token loss ℓ_t = −log p(x_{t+1} | x_≤t)
of the ablated run is returned.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf.circuits import limits
from xai_tf.circuits.composition import _head
from xai_tf.circuits.induction import token_losses
from xai_tf.models.loaded import LoadedModel, causal

HOW = ("zero", "mean")


def ablate_head(
    model: LoadedModel | nn.Module, ids: Tensor, layer: int, head: int, how: str = "mean"
) -> Tensor:
    """``[batch, T−1]`` per-token loss with head ``head`` of ``layer`` zero- or mean-ablated."""
    lm = causal(model, "ablating a head")
    layer, head = _head(lm, layer, head)
    if not isinstance(how, str) or how not in HOW:
        raise (ValueError if isinstance(how, str) else TypeError)(
            f"how must be one of {list(HOW)}, got {how!r}"
        )
    ids = limits.token_ids(lm, "ids", ids)
    if ids.size(1) < 2:
        raise ValueError(f"ids must have at least 2 tokens (a loss predicts the next one), got {ids.size(1)}")
    limits.check_forward(
        "ablating a head", lm, ids.size(0), ids.size(1), "pass fewer or shorter sequences in ids"
    )

    def hook(z: Tensor) -> Tensor:
        z = z.clone()
        z[:, head] = 0.0 if how == "zero" else z[:, head].mean(dim=(0, 1), keepdim=True)
        return z

    with torch.no_grad():
        return token_losses(lm(ids, hooks={("z", layer): hook}), ids)
