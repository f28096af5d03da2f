"""A BERT-family encoder (Hugging Face, eager attention) behind the same handle and hooks as ``GPT2``
(lesson 07 and on).

BERT reads the whole sentence at once: every token attends to every token (no causal mask),
A = softmax(Q Kᵀ / √d_h + M_pad), and the sentence is wrapped as ``[CLS] … [SEP]``. It predicts no
next token: ``model(ids)`` gives the last hidden states.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from typing import Any

import torch
from torch import Tensor, nn

from xai_tf.models.hooks import ActivationCache, Hooks, Tap

#: Activations a hook may replace, per layer (``cache["attn", l]`` is recorded too).
HOOK_POINTS: dict[str, str] = {
    "resid_pre": "[batch, T, d] residual stream entering the layer",
    "resid_post": "[batch, T, d] residual stream leaving the layer",
}


class BertEncoder(nn.Module):
    """``model(ids)`` gives the last hidden states ``[batch, T, d]``; ``run_with_cache`` adds
    ``cache["attn", l]`` ``[batch, heads, T, T]`` and ``cache["resid_pre"/"resid_post", l]``."""

    kind = "encoder"
    hook_points = HOOK_POINTS

    def __init__(self, hf_model: nn.Module):
        super().__init__()
        if hf_model.config._attn_implementation != "eager":
            raise ValueError("load the BERT model with attn_implementation='eager'")
        self.hf = hf_model.eval()
        self.config = hf_model.config
        self.n_ctx = hf_model.config.max_position_embeddings

    @property
    def sizes(self) -> tuple[int, int, int, int]:
        """``(n_layer, n_head, d_model, n_ctx)``."""
        c = self.config
        return c.num_hidden_layers, c.num_attention_heads, c.hidden_size, self.n_ctx

    def check_input_ids(self, input_ids: Tensor | Sequence[int]) -> Tensor:
        """``input_ids`` as a ``[batch, T]`` long tensor on the model's device, validated."""
        ids = torch.as_tensor(input_ids, device=self.hf.device)
        ids = ids.unsqueeze(0) if ids.dim() == 1 else ids
        if ids.dim() != 2 or ids.size(1) == 0 or ids.size(1) > self.n_ctx or ids.is_floating_point():
            raise ValueError(
                f"input_ids must be integer ids shaped [T] or [batch, T] with T in 1..{self.n_ctx}"
            )
        return ids.long()

    def forward(self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None) -> Tensor:
        with self._tapped(Tap(HOOK_POINTS, self.sizes[0], None, hooks or {})):
            return self.hf(input_ids=self.check_input_ids(input_ids)).last_hidden_state

    def run_with_cache(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None
    ) -> tuple[Tensor, ActivationCache]:
        cache = ActivationCache()
        with self._tapped(Tap(HOOK_POINTS, self.sizes[0], cache, hooks or {})):
            out = self.hf(input_ids=self.check_input_ids(input_ids), output_attentions=True)
        for layer, attn in enumerate(out.attentions):
            cache["attn", layer] = attn
        return out.last_hidden_state, cache

    @contextmanager
    def _tapped(self, tap: Tap):
        """Route every layer's input and output through ``tap`` for one forward pass."""

        def pre(layer: int):
            def hook(_module: nn.Module, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
                if args:
                    return (tap("resid_pre", layer, args[0]), *args[1:]), kwargs
                return args, kwargs | {"hidden_states": tap("resid_pre", layer, kwargs["hidden_states"])}

            return hook

        def post(layer: int):
            def hook(_module: nn.Module, _args: Any, out: Tensor | tuple) -> Tensor | tuple:
                if isinstance(out, tuple):  # transformers < 5 returns (hidden, …)
                    return (tap("resid_post", layer, out[0]), *out[1:])
                return tap("resid_post", layer, out)

            return hook

        handles = []
        for layer, module in enumerate(self.hf.encoder.layer):
            handles.append(module.register_forward_pre_hook(pre(layer), with_kwargs=True))
            handles.append(module.register_forward_hook(post(layer)))
        try:
            yield
        finally:
            for handle in handles:
                handle.remove()
