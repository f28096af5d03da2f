"""A BERT-family encoder (Hugging Face, eager attention) behind the same cache keys as ``GPT2``.

BERT reads the whole sentence at once: every token attends to every token (no causal mask),
A = softmax(Q Kᵀ / √d_h + M_pad), and the sentence is wrapped as ``[CLS] … [SEP]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from xai_tf.models.gpt2 import ActivationCache


class BertEncoder(nn.Module):
    """``model(ids)`` gives the last hidden states ``[batch, T, d]``; ``run_with_cache`` adds
    ``cache["attn", l]`` ``[batch, heads, T, T]`` and ``cache["resid_pre"/"resid_post", l]``."""

    def __init__(self, hf_model: nn.Module):
        super().__init__()
        if hf_model.config._attn_implementation != "eager":
            raise ValueError("load the BERT model with attn_implementation='eager'")
        self.hf = hf_model.eval()
        self.config = hf_model.config
        self.n_ctx = hf_model.config.max_position_embeddings

    def _ids(self, input_ids: Tensor | Sequence[int]) -> Tensor:
        ids = torch.as_tensor(input_ids, device=self.hf.device).long()
        ids = ids.unsqueeze(0) if ids.dim() == 1 else ids
        if ids.dim() != 2 or ids.size(1) == 0 or ids.size(1) > self.n_ctx:
            raise ValueError(f"input_ids must be shaped [T] or [batch, T] with T in 1..{self.n_ctx}")
        return ids

    def forward(self, input_ids: Tensor | Sequence[int]) -> Tensor:
        return self.hf(input_ids=self._ids(input_ids)).last_hidden_state

    def run_with_cache(self, input_ids: Tensor | Sequence[int]) -> tuple[Tensor, ActivationCache]:
        out = self.hf(input_ids=self._ids(input_ids), output_attentions=True, output_hidden_states=True)
        cache = ActivationCache()
        for layer, attn in enumerate(out.attentions):
            cache["attn", layer] = attn
            cache["resid_pre", layer] = out.hidden_states[layer]
            cache["resid_post", layer] = out.hidden_states[layer + 1]
        return out.last_hidden_state, cache
