"""What one position's prediction reads, computed without the work it does not depend on (lessons 06–08:
the hot path of integrated gradients, which runs it at every path point).

A GPT-2 reads token p's prediction from LN_f(h_L)[p]. In a causal model nothing after p reaches it, and
of the last block only position p is used: it needs the keys and values K, V of positions 0..p but the
query, the attention output and the MLP at p alone. So

    LN_f(h_L)[p] = LN_f(Block_L(h_{L−1}[p] | K, V of h_{L−1}[0..p]))

where h_{L−1}[0..p] runs through the first L − 1 blocks as usual: the same numbers as the full forward
pass, without the last block's queries, attention and MLP at the other positions (about 1/L of the
forward and backward work; measured in ``benchmarks/bench_attribution.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf.models.gpt2 import GPT2
from xai_tf.models.hooks import Tap
from xai_tf.models.kv_cache import KVCache


def final_state(model: GPT2, E: Tensor, position: int) -> Tensor:
    """LN_f(h_L)[:, position] ``[n, d]`` for token embeddings E ``[n, T, d]`` (position −T..T−1), equal
    to ``model.final_states(E)[:, position]``."""
    model._check_embeddings(E)  # the checks of final_states: [n, T, d] with T in 1..n_ctx
    p = position % E.size(1)
    tap = Tap(model.hook_points, model.config.n_layer, None, {})
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


@contextmanager
def inputs_only(module: nn.Module) -> Iterator[None]:
    """Run a block with ``module``'s parameters not requiring gradients, then restore each flag: IG
    differentiates with respect to its inputs only, and autograd then records no weight-gradient edges
    (IG at 50 steps × 32 tokens, one thread: 10% less time on GPT-2 small, 6% on the bundled model;
    ``benchmarks/bench_attribution.py``). The numbers are unchanged."""
    flags = [(p, p.requires_grad) for p in module.parameters()]
    try:
        for p, _ in flags:
            p.requires_grad_(False)
        yield
    finally:
        for p, flag in flags:
            p.requires_grad_(flag)
