"""Are all heads needed? Head removal (Michel et al., 2019; Kovaleva et al., 2019; lesson 08): zero
one head's output, ṽ^{(l,h)}_s = 0 for every query s (its attention row set to 0 through the ``attn``
hook), and measure the change of the next-token loss,

    ΔL(l, h) = L(x; head (l, h) removed) − L(x),   L = −(1/(T−1)) Σ_s log p(x_{s+1} | x_{≤s}),

one head at a time. Many heads with striking patterns (all attention on the previous or the first
token) cost almost nothing when removed: a pattern is not a reason.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.tasks.language_model import next_token_loss


def _remove(head: int):
    def hook(attn: Tensor) -> Tensor:
        attn = attn.clone()
        attn[:, head] = 0
        return attn

    return hook


@torch.no_grad()
def head_removal(lm: LoadedModel, ids: Sequence[int] | Tensor) -> Tensor:
    """ΔL ``[layers, heads]``: the loss change when each head alone is removed."""
    lm = causal(lm, "head removal measures the next-token loss")
    if isinstance(ids, str):
        raise TypeError("ids must be token ids: encode the text with lm.encode")
    ids = _checks.token_ids("ids", ids if isinstance(ids, Tensor) else list(ids), lm.vocab_size).to(lm.device)
    base = next_token_loss(lm, ids)  # checks ids: one text of 2..n_ctx + 1 tokens
    delta = torch.zeros(lm.n_layer, lm.n_head, device=lm.device)
    with one_thread():  # many small forward passes: a second thread only waits (and stalls under load)
        for layer in range(lm.n_layer):
            for head in range(lm.n_head):
                logits = lm(ids[:-1], hooks={("attn", layer): _remove(head)})[0]
                delta[layer, head] = float(F.cross_entropy(logits.float(), ids[1:]) - base)
    return delta
