"""What every causal language model family of the package shares (``architecture.CausalLM``): GPT-2
(``gpt2.py``) and the Llama family (``llama.py``) are each their blocks, their stream and how they read
a head's weights; the rest is here, written once.

A family's model is f = g ∘ e: e(x) = W_E[x] looks the tokens up, g runs the stream h_0 → h_L and ends
with the final norm, and the logits are g(e(x)) W_Uᵀ, where W_U is W_E (tied) or an ``lm_head`` of its
own. Every entry point below is one of those pieces:

    forward(x)             = _stream(W_E[x]) W_Uᵀ           (logits ``[batch, T, vocab]``)
    forward_embeddings(E)  = _stream(E) W_Uᵀ                (E given in place of W_E[x])
    final_states(E)        = _stream(E)                     (norm_f(h_L), what W_U reads)
    run_with_cache(x)      = forward(x) and every activation of ``hook_points``

A family supplies ``token_embedding`` (its ``nn.Embedding``, named as its checkpoints name it),
``final_layer_norm`` (its final norm module), ``_stream``, ``sizes``, ``readout``, ``head_weights`` and
``kv_cache_bytes``; its config supplies ``n_layer``, ``tie_word_embeddings`` and ``backward_bytes``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf.models.architecture import Sizes, check_embeddings, check_token_ids
from xai_tf.models.hooks import ActivationCache, Hooks, Tap
from xai_tf.models.kv_cache import KVCache

Model = TypeVar("Model", bound="CausalTransformer")


class CausalTransformer(nn.Module, ABC):
    """The entry points a causal language model family shares; ``model(input_ids)`` returns logits."""

    kind = "causal"
    hook_points: Mapping[str, str]
    config: Any  # the family's config: n_layer, tie_word_embeddings, backward_bytes(T)
    lm_head: nn.Linear  # only where the unembedding is untied

    @property
    @abstractmethod
    def token_embedding(self) -> nn.Embedding:
        """The family's W_E as a module (``wte`` in GPT-2's checkpoints, ``embed_tokens`` in Llama's)."""

    @property
    @abstractmethod
    def final_layer_norm(self) -> nn.Module:
        """The family's final norm (LN_f, RMS_f)."""

    @property
    @abstractmethod
    def sizes(self) -> Sizes:
        """The sizes the helpers read (``architecture.Sizes``)."""

    @abstractmethod
    def _stream(self, token_embeddings: Tensor, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        """norm_f(h_L) ``[batch, T, d]`` from E, positions continuing ``kv_cache`` where one is given."""

    @property
    def unembedding(self) -> Tensor:
        """W_U ``[vocab, d]``, the logits' weights: W_E (weight tying) or an untied ``lm_head``'s."""
        return self.token_embedding.weight if self.config.tie_word_embeddings else self.lm_head.weight

    @property
    def embedding(self) -> Tensor:
        """W_E ``[vocab, d]``."""
        return self.token_embedding.weight

    def embed(self, input_ids: Tensor) -> Tensor:
        """E = W_E[x] ``[..., d]`` (positions, learned or rotary, act later, in the stream)."""
        return self.token_embedding(input_ids)

    def final_norm(self, h: Tensor) -> Tensor:
        """norm_f(h) of residual vectors ``[..., d]``."""
        return self.final_layer_norm(h)

    def backward_bytes(self, T: int) -> int:
        """The config's ``backward_bytes``: one position's output back to the embeddings of T tokens."""
        return self.config.backward_bytes(T)

    def _tap(self, cache: ActivationCache | None, hooks: Hooks | None) -> Tap:
        return Tap(self.hook_points, self.config.n_layer, cache, hooks or {})

    def forward(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None, kv_cache: KVCache | None = None
    ) -> Tensor:
        """Logits ``[batch, T, vocab]``; a 1-D ``input_ids`` is a batch of one.

        With ``kv_cache`` the ids continue the text whose keys and values the cache holds: they take
        positions T_past..T_past+T−1, and their keys and values are appended to the cache.
        """
        ids = self.check_input_ids(input_ids, start=len(kv_cache) if kv_cache is not None else 0)
        return self._run(self.token_embedding(ids), self._tap(None, hooks), kv_cache)

    def forward_embeddings(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor:
        """Logits from token embeddings ``[batch, T, d]`` given in place of W_E[x]: the part g of
        f = g ∘ e that gradient attributions differentiate."""
        self._check_embeddings(token_embeddings)
        return self._run(token_embeddings, self._tap(None, hooks), None)

    def final_states(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor:
        """norm_f(h_L) ``[batch, T, d]`` from token embeddings: what the unembedding reads (and what
        a classifier on top of the model reads)."""
        self._check_embeddings(token_embeddings)
        return self._stream(token_embeddings, self._tap(None, hooks), None)

    def run_with_cache(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None
    ) -> tuple[Tensor, ActivationCache]:
        """``(logits, cache)`` with every activation of ``hook_points`` for every layer."""
        cache = ActivationCache()
        ids = self.check_input_ids(input_ids)
        return self._run(self.token_embedding(ids), self._tap(cache, hooks), None), cache

    def check_input_ids(self, input_ids: Tensor | Sequence[int], start: int = 0) -> Tensor:
        """``input_ids`` as a ``[batch, T]`` long tensor on the model's device, validated; they will
        occupy positions ``start``..``start + T − 1``, which must fit the context."""
        return check_token_ids(input_ids, self.sizes, self.token_embedding.weight.device, start)

    def _run(self, token_embeddings: Tensor, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        return F.linear(self._stream(token_embeddings, tap, kv_cache), self.unembedding)

    def _check_embeddings(self, token_embeddings: Tensor) -> None:
        check_embeddings(token_embeddings, self.sizes)

    @classmethod
    def _assigned(cls: type[Model], config: Any, weights: dict[str, Tensor], family: str) -> Model:
        """A model of ``config`` built on the meta device and given ``weights`` as its parameters (no
        copy, no initialisation), in eval mode; weights that do not fit are a ValueError."""
        with torch.device("meta"):
            model = cls(config)
        try:
            model.load_state_dict(weights, assign=True)
        except RuntimeError as err:
            raise ValueError(f"the weights do not fit a {family} with {config}: {err}") from err
        return model.eval()
