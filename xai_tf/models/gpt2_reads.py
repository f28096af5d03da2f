"""What the causal helpers read of a GPT-2 besides its forward pass (``architecture.CausalLM``): one
position's final state without the work it does not depend on, and the attention weights per head.

**The readout** (lessons 06–08: the hot path of integrated gradients, which runs it at every path point).
A GPT-2 reads token p's prediction from LN_f(h_L)[p]. In a causal model nothing after p reaches it, and
of the last block only position p is used: it needs the keys and values K, V of positions 0..p but the
query, the attention output and the MLP at p alone. So

    LN_f(h_L)[p] = LN_f(Block_L(h_{L−1}[p] | K, V of h_{L−1}[0..p]))

where h_{L−1}[0..p] runs through the first L − 1 blocks as usual: the same numbers as the full forward
pass, without the last block's queries, attention and MLP at the other positions (about 1/L of the
forward and backward work; measured in ``benchmarks/bench_attribution.py``).

**The head weights** in ``HeadWeights``' layout: GPT-2's ``c_attn`` is ``nn.Linear(d, 3d)``, rows
[0, d) the queries, [d, 2d) the keys, [2d, 3d) the values, head h owning rows h d_h..(h+1) d_h of each;
``c_proj``'s columns h d_h..(h+1) d_h read head h's z.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.architecture import HeadWeights
from xai_tf.models.kv_cache import KVCache

if TYPE_CHECKING:
    from xai_tf.models.gpt2 import GPT2


def readout(model: GPT2, E: Tensor, position: int) -> Tensor:
    """LN_f(h_L)[:, position] ``[n, d]`` for token embeddings E ``[n, T, d]`` (checked by the caller)."""
    p = _checks.integer("position", position, -E.size(1), E.size(1) - 1) % E.size(1)  # −T..T−1
    tap = model._tap(None, None)
    x = model.drop(E[:, : p + 1] + model.wpe(torch.arange(p + 1, device=E.device)))
    *blocks, last = model.h
    for layer, block in enumerate(blocks):
        x = block(x, layer, tap)
    cache = KVCache()
    if p:  # K, V of positions 0..p−1: the key and value rows of the last block's W_qkv
        d, H = x.size(-1), last.attn.n_head
        kv = F.linear(last.ln_1(x[:, :p]), last.attn.c_attn.weight[d:], last.attn.c_attn.bias[d:])
        k, v = (t.view(len(x), p, H, d // H).transpose(1, 2) for t in kv.split(d, dim=2))
        cache.extend(len(blocks), k, v)
    return model.ln_f(last(x[:, p:], len(blocks), tap, cache))[:, 0]


def head_weights(model: GPT2, layer: int) -> HeadWeights:
    """W_Q, W_K, W_V ``[H, d, d_h]`` and W_O ``[H, d_h, d]`` of ``layer``, LN_1's gain γ folded in."""
    block, d, H = model.h[layer], model.config.n_embd, model.config.n_head
    gamma = block.ln_1.weight.detach()[None, :, None]
    W_q, W_k, W_v = (
        gamma * w.t().reshape(d, H, d // H).transpose(0, 1)
        for w in block.attn.c_attn.weight.detach().split(d)
    )
    W_O = block.attn.c_proj.weight.detach().t().reshape(H, d // H, d)
    return HeadWeights(W_q, W_k, W_v, W_O, rotation=None)
