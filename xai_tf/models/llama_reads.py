"""The attention weights of a Llama-family model per head, in ``architecture.HeadWeights``' layout (what
lesson 15's QK and OV circuits read through ``CausalLM.head_weights``).

``q_proj`` is ``nn.Linear(d, H d_h)``, ``k_proj`` and ``v_proj`` are ``nn.Linear(d, H_kv d_h)``, head h
owning output rows h d_h..(h+1) d_h; query head h reads key/value head h // (H / H_kv), so its W_K^h and
W_V^h are that head's, repeated. ``o_proj``'s columns h d_h..(h+1) d_h read head h's z. RMS_1's gain γ is
folded in. RoPE rotates q and k by their positions before the score: ``rotation(δ)`` is the R_δ with
(x_i W_Q R_i) · (x_j W_K R_j) = x_i W_Q R_{i−j} · x_j W_K, so a head's W_QK depends on the offset δ = i − j.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from torch import Tensor, nn

from xai_tf.models.architecture import HeadWeights

if TYPE_CHECKING:
    from xai_tf.models.llama import Llama


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
