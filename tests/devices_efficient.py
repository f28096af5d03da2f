"""Device rows for lesson 14: the cost of attention (collected by ``test_devices.py``)."""

from collections.abc import Callable

import torch

import xai_tf


def _efficient(lm: xai_tf.LoadedModel) -> list[torch.Tensor]:
    from xai_tf.efficient import adaptive, chunked, linear, linformer, performer, sparse

    g = torch.Generator().manual_seed(0)
    Q, K, V = (torch.randn(2, 20, 8, generator=g, device="cpu").to(lm.device) for _ in range(3))
    z = torch.randn(2, 3, 4, 6, generator=g, device="cpu").to(lm.device)
    alpha = torch.tensor([1.2, 1.5, 2.0], device=lm.device)
    return [
        chunked.naive_attention(Q, K, V, causal=True),
        chunked.chunked_attention(Q, K, V, 6, causal=True, query_chunk_size=7),
        sparse.windowed_attention(Q, K, V, 4),
        sparse.sparse_attention(Q, K, V, sparse.sparse_transformer_mask(20, 4, device=lm.device)),
        linear.linear_attention(Q, K, V, chunk_size=6),
        linear.linear_attention_quadratic(Q, K, V),
        performer.performer_attention(Q, K, V, 16),
        linformer.linformer_attention(Q, K, V, 5),
        linformer.linformer_attention(Q, K, V, 5, kind="gaussian"),
        adaptive.entmax_heads(z, alpha),
        adaptive.entmax_alpha_grad(adaptive.entmax_heads(z, alpha)[:, 0], 1.2),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "efficient attention (lesson 14)": lambda lm: _efficient(lm),
}
