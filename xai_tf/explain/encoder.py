"""Attention importances of a transformer, and explaining an encoder (lessons 07, 08: MiniLM).

A transformer's attention gives token t the attention the T queries s pay it, averaged over them
(lesson 08; A(x) ``[L, H, T, T]`` from the model in use):

    attention_t = (1/T) Σ_s mean_h A_L[s, t]                           (the last layer's heads)
    rollout_t   = (1/T) Σ_s R[s, t],   flow_t = (1/T) Σ_s flow[s, t]   (lesson 07, residual ½)

An encoder predicts no token: what it gives is a sentence embedding, all-MiniLM-L6-v2's mean of the
last states s(x) = (1/T) Σ_t h_L(x)[t] (sentence-transformers' mean pooling). Its leave-one-out asks
how far that embedding turns when token t is removed,

    loo_t = 1 − cos(s(x), s(x_{−t}))        (0: not at all; at most 2),

so an encoder is explained with no target (``target`` must be None). Gradient methods are not
offered: with no target there is no scalar F to differentiate (1 − cos(s(x), s(x′)) has gradient 0 at
x′ = x), and ``BertEncoder`` has no forward from token embeddings.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from xai_tf.explain import wordlevel as wl
from xai_tf.explain.registry import Explanation, register
from xai_tf.models.loaded import LoadedModel, as_model

#: Each attention importance's [T, T] map from A ``[L, H, T, T]``.
MAPS: dict[str, Callable[[Tensor], Tensor]] = {
    "attention": lambda A: A[-1].mean(0),
    "rollout": wl.attention_rollout,
    "flow": wl.attention_flow,
}
#: Rows of the leave-one-out batch per forward pass.
LOO_BATCH = 16


def received(attentions: Tensor, how: str) -> Tensor:
    """``[T]``: the map ``how`` (a key of ``MAPS``) of ``attentions`` ``[L, H, T, T]``, averaged over
    the queries (rows)."""
    if how not in MAPS:
        raise ValueError(f"how must be one of {list(MAPS)}, got {how!r}")
    if how == "flow" and attentions.size(-1) > wl.FLOW_MAX_TOKENS:
        raise ValueError(f"flow is offered for up to {wl.FLOW_MAX_TOKENS} tokens, got {attentions.size(-1)}")
    return MAPS[how](attentions).mean(0).detach()


def _sentence(model: Any, ids: Any, target: Any) -> tuple[LoadedModel, Tensor]:
    """The encoder's handle and one sentence's ids ``[1, T]`` (T ≥ 2), checked; target must be None."""
    lm = as_model(model)
    lm.require("encoder", "explaining a sentence embedding")
    if target is not None:
        raise ValueError(
            f"target must be None for an encoder (it explains the sentence embedding), got {target!r}"
        )
    found = lm.model.check_input_ids(ids)
    if found.size(0) != 1 or found.size(1) < 2:
        raise ValueError(f"ids must be one sentence of at least 2 tokens, got shape {tuple(found.shape)}")
    return lm, found


def _attention_importance(how: str) -> Callable[..., Explanation]:
    def method(model: Any, ids: Any, target: Any, **_: Any) -> Explanation:
        lm, found = _sentence(model, ids, target)
        return Explanation(received(lm.attentions(found), how), note="attention the queries pay each token")

    return method


for _how in MAPS:
    register(_how, "encoder", label=_how, reads="activations")(_attention_importance(_how))


@register("loo", "encoder", label="leave-one-out", reads="forward")
@torch.no_grad()
def _leave_one_out(model: Any, ids: Any, target: Any, **_: Any) -> Explanation:
    lm, found = _sentence(model, ids, target)
    T = found.size(1)
    keep = ~torch.eye(T, dtype=torch.bool, device=found.device)
    dropped = found.expand(T, T)[keep].view(T, T - 1)  # row t: the sentence without token t
    s = lm(found).mean(1)  # [1, d]
    s_dropped = torch.cat([lm(rows).mean(1) for rows in dropped.split(LOO_BATCH)])  # [T, d]
    scores = 1 - torch.nn.functional.cosine_similarity(s, s_dropped, dim=-1)
    return Explanation(scores, note="1 − cos(s(x), s(x without token t)), s the mean-pooled embedding")
