"""What the causal helpers read of a Llama-family model besides its forward pass (``architecture.CausalLM``):
one position's final state without the work it does not depend on, and the attention weights per head.

**The readout** (lessons 06–08: the hot path of integrated gradients), as GPT-2's (``gpt2_reads``): token
p's prediction reads RMS_f(h_L)[p]; nothing after p reaches it, and of the last block it needs the rotated
keys and the values of positions 0..p but the query, the attention output and the MLP at p alone:

    RMS_f(h_L)[p] = RMS_f(Block_L(h_{L−1}[p] | R K, V of h_{L−1}[0..p]))

the same numbers as the full forward pass, without the last block's queries, attention and MLP at the
other positions (about 1/L of the forward and backward work).

**The head weights** in ``HeadWeights``' layout (what lesson 15's QK and OV circuits read through
``CausalLM.head_weights``).

``q_proj`` is ``nn.Linear(d, H d_h)``, ``k_proj`` and ``v_proj`` are ``nn.Linear(d, H_kv d_h)``, head h
owning output rows h d_h..(h+1) d_h; query head h reads key/value head h // (H / H_kv), so its W_K^h and
W_V^h are that head's, repeated. ``o_proj``'s columns h d_h..(h+1) d_h read head h's z. RMS_1's gain γ is
folded in. RoPE rotates q and k by their positions before the score: ``rotation(δ)`` is the R_δ with
(x_i W_Q R_i) · (x_j W_K R_j) = x_i W_Q R_{i−j} · x_j W_K, so a head's W_QK depends on the offset δ = i − j.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.architecture import HeadWeights
from xai_tf.models.kv_cache import KVCache

if TYPE_CHECKING:
    from xai_tf.models.llama import Llama


def readout(model: Llama, E: Tensor, position: int, rotate: Callable[[Tensor, Tensor], Tensor]) -> Tensor:
    """RMS_f(h_L)[:, position] ``[n, d]`` for token embeddings E ``[n, T, d]`` (checked by the caller);
    ``rotate(x, positions)`` is the model's RoPE (``llama.rotary`` at its θ)."""
    p = _checks.integer("position", position, -E.size(1), E.size(1) - 1) % E.size(1)  # −T..T−1
    tap, positions = model._tap(None, None), torch.arange(p + 1, device=E.device)
    *blocks, last = model.layers
    x = E[:, : p + 1]
    for layer, block in enumerate(blocks):
        x = block(x, positions, layer, tap, None)
    cache = KVCache()
    if p:  # R K and V of positions 0..p−1: the last block's k_proj and v_proj
        attn, u = last.self_attn, last.input_layernorm(x[:, :p])
        k, v = (
            f(u).view(len(x), p, attn.n_kv_head, attn.d_head).transpose(1, 2)
            for f in (attn.k_proj, attn.v_proj)
        )
        cache.extend(len(blocks), rotate(k, positions[:p]), v)
    return model.norm(last(x[:, p:], positions[p:], len(blocks), tap, cache))[:, 0]


def head_weights(model: Llama, layer: int, rotation: Callable[[int], Tensor]) -> HeadWeights:
    """W_Q, W_K, W_V ``[H, d, d_h]`` and W_O ``[H, d_h, d]`` of ``layer`` (checked by the caller), with the
    model's R_δ (``llama.rotation``)."""
    block, c = model.layers[layer], model.config
    gamma = block.input_layernorm.weight.detach()[None, :, None]
    attn = block.self_attn

    def per_head(linear: nn.Linear, heads: int) -> Tensor:  # [heads, d, d_h], then one per query head
        W = gamma * linear.weight.detach().t().reshape(c.n_embd, heads, c.d_head).transpose(0, 1)
        return W.repeat_interleave(c.n_head // heads, dim=0)

    W_O = attn.o_proj.weight.detach().t().reshape(c.n_head, c.d_head, c.n_embd)
    return HeadWeights(
        per_head(attn.q_proj, c.n_head),
        per_head(attn.k_proj, c.n_kv_head),
        per_head(attn.v_proj, c.n_kv_head),
        W_O,
        rotation=rotation,
    )
