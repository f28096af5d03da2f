"""The logit lens (nostalgebraist, 2020): read the residual stream of every layer as if it were
the last, through the final norm and the unembedding.

For a prompt x_1..x_T and a position t, layer l's guess for the next token is

    z^(l) = LN_f(h_l[t]) W_Uᵀ,   l = 0..L   (W_U = W_E when the embedding is tied, as in GPT-2),

(LN_f is the model's final norm: ``final_norm``, RMS_f in a Llama) where h_0 = W_E[x] + W_P is the embedding
(W_E[x] alone under RoPE) and h_l the stream leaving block l. z^(L) is the model's
own output, so the rows show the prediction forming layer by layer. Lesson 04 uses this module;
it needs a causal model (an encoder has no unembedding to read through).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, causal


@torch.no_grad()
def logit_lens(
    model: LoadedModel | nn.Module, input_ids: Sequence[int] | Tensor, position: int = -1
) -> Tensor:
    """z^(0..L) at ``position`` (−T..T−1) for a single prompt: ``[n_layer + 1, vocab]``."""
    net = causal(model, "the logit lens").model
    ids = net.check_input_ids(input_ids)
    T = ids.size(1)
    if ids.size(0) != 1 or not -T <= position < T:
        raise ValueError(
            f"need one prompt and a position in {-T}..{T - 1}, got {tuple(ids.shape)} and {position}"
        )
    _, cache = net.run_with_cache(ids)
    h = torch.cat([cache["resid_pre", 0][:, position], cache.stack("resid_post")[:, 0, position]])
    return F.linear(net.final_norm(h), net.unembedding)


def logit_lens_top(
    model: LoadedModel | nn.Module, input_ids: Sequence[int] | Tensor, k: int = 5, position: int = -1
) -> tuple[Tensor, Tensor]:
    """Per layer, the ``k`` tokens z^(l) ranks first and their probabilities: two ``[L + 1, k]``."""
    _checks.integer("k", k, 1, causal(model, "the logit lens").vocab_size)
    probs, ids = logit_lens(model, input_ids, position).softmax(-1).topk(k)
    return ids, probs
