"""A BERT-family encoder (Hugging Face weights) behind the same handle and hooks as ``GPT2``
(lesson 07 and on).

BERT reads the whole sentence at once: every token attends to every token (no causal mask), and the
sentence is wrapped as ``[CLS] … [SEP]``. It predicts no next token: ``model(ids)`` gives the last
hidden states. Its blocks put the LayerNorm after each sum (post-LN, Devlin et al., 2019):

    h_0  = LN_e(W_E[x] + W_P[1..T] + W_S[0])
    h'_l = LN_1(h_{l-1} + Attn_l(h_{l-1})),  A = softmax(Q Kᵀ / √d_h)
    h_l  = LN_2(h'_l + MLP_l(h'_l)),          MLP(u) = W_out GELU(W_in u)

This module runs those layers itself on the Hugging Face module's weights (in eval mode: no dropout),
so every hook point GPT-2 has exists here too and means the same activation: ``resid_pre`` h_{l−1},
``q``/``k``/``v``, ``attn`` A, ``z`` A V, ``attn_out`` Attn_l(h_{l−1}), ``resid_mid`` h'_l, ``mlp_post``,
``mlp_out`` and ``resid_post`` h_l (= Hugging Face's ``hidden_states[l + 1]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from xai_tf.models.architecture import Sizes
from xai_tf.models.hooks import ActivationCache, Hooks, Tap

if TYPE_CHECKING:
    from transformers import BertModel
    from transformers.models.bert.modeling_bert import BertLayer

#: Every activation the cache records, per layer, with its shape.
HOOK_POINTS: dict[str, str] = {
    "resid_pre": "[batch, T, d] residual stream entering the layer",
    "q": "[batch, heads, T, d_h] queries",
    "k": "[batch, heads, T, d_h] keys",
    "v": "[batch, heads, T, d_h] values",
    "attn": "[batch, heads, T, T] attention probabilities (rows sum to 1)",
    "z": "[batch, heads, T, d_h] each head's output A V before W_O",
    "attn_out": "[batch, T, d] attention output, added to the stream before LN_1",
    "resid_mid": "[batch, T, d] residual stream between attention and MLP, after LN_1",
    "mlp_post": "[batch, T, d_mlp] MLP hidden activations after GELU",
    "mlp_out": "[batch, T, d] MLP output, added to the stream before LN_2",
    "resid_post": "[batch, T, d] residual stream leaving the layer, after LN_2",
}


class BertEncoder(nn.Module):
    """``model(ids)`` gives the last hidden states ``[batch, T, d]``; ``run_with_cache`` adds every
    activation of ``HOOK_POINTS`` for every layer."""

    kind = "encoder"
    hook_points = HOOK_POINTS

    def __init__(self, hf_model: BertModel):
        super().__init__()
        self.hf = hf_model.eval()
        self.config = hf_model.config

    @property
    def sizes(self) -> Sizes:
        c = self.config
        return Sizes(
            c.num_hidden_layers,
            c.num_attention_heads,
            c.hidden_size,
            c.max_position_embeddings,
            c.vocab_size,
            c.num_attention_heads,
            c.hidden_size // c.num_attention_heads,
            c.intermediate_size,
            gated=False,
        )

    def check_input_ids(self, input_ids: Tensor | Sequence[int]) -> Tensor:
        """``input_ids`` as a ``[batch, T]`` long tensor on the model's device, validated."""
        ids = torch.as_tensor(input_ids, device=self.hf.device)
        ids = ids.unsqueeze(0) if ids.dim() == 1 else ids
        n_ctx = self.sizes.n_ctx
        if ids.dim() != 2 or ids.size(1) == 0 or ids.size(1) > n_ctx or ids.is_floating_point():
            raise ValueError(f"input_ids must be integer ids shaped [T] or [batch, T] with T in 1..{n_ctx}")
        return ids.long()

    def forward(self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None) -> Tensor:
        return self._run(input_ids, Tap(HOOK_POINTS, self.sizes.n_layer, None, hooks or {}))

    def run_with_cache(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None
    ) -> tuple[Tensor, ActivationCache]:
        cache = ActivationCache()
        return self._run(input_ids, Tap(HOOK_POINTS, self.sizes.n_layer, cache, hooks or {})), cache

    def _run(self, input_ids: Tensor | Sequence[int], tap: Tap) -> Tensor:
        x = self.hf.embeddings(input_ids=self.check_input_ids(input_ids))
        for layer, block in enumerate(self.hf.encoder.layer):
            x = self._layer(block, layer, x, tap)
        return x

    def _layer(self, block: BertLayer, layer: int, x: Tensor, tap: Tap) -> Tensor:
        """One post-LN layer, h → LN_2(h' + MLP(h')) with h' = LN_1(h + Attn(h)), every step tapped."""
        attention, H = block.attention.self, self.sizes.n_head
        x = tap("resid_pre", layer, x)
        batch, T, d = x.shape
        q, k, v = (
            tap(name, layer, f(x).view(batch, T, H, d // H).transpose(1, 2))
            for name, f in (("q", attention.query), ("k", attention.key), ("v", attention.value))
        )
        attn = tap("attn", layer, (q @ k.transpose(2, 3) * attention.scaling).softmax(-1))
        z = tap("z", layer, attn @ v)
        out = block.attention.output  # W_O and LN_1
        attn_out = tap("attn_out", layer, out.dense(z.transpose(1, 2).reshape(batch, T, d)))
        x = tap("resid_mid", layer, out.LayerNorm(attn_out + x))
        mlp_out = tap("mlp_out", layer, block.output.dense(tap("mlp_post", layer, block.intermediate(x))))
        return tap("resid_post", layer, block.output.LayerNorm(mlp_out + x))
