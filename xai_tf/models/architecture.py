"""What every architecture answers (every lesson): the ``Architecture`` protocol and its ``Sizes``.

``LoadedModel.model`` is an ``Architecture``. A lesson may rely on these and nothing else of it:

    model.kind                         "causal" (predicts the next token) or "encoder" (reads it all)
    model.sizes                        Sizes(n_layer=L, n_head=H, d_model=d_e, n_ctx=T_max, vocab_size=D)
    model.hook_points                  {hook name: "[shape] what it is"}, one activation per layer each
    model.check_input_ids(ids)         ids as a validated ``[batch, T]`` long tensor on the model's device
    model(ids, hooks=…)                the output: logits ``[batch, T, D]`` (causal), last states (encoder)
    model.run_with_cache(ids, hooks=…) (output, cache) with cache[name, l] for every hook point and layer

with the hooks and the cache of ``models/hooks.py``. ``GPT2`` (``gpt2.py``) and ``BertEncoder``
(``bert.py``) conform, checked by mypy and by ``isinstance(model, Architecture)``
(``tests/test_protocol.py``). Hook names common to both mean the same activation: ``resid_pre``,
``q``, ``k``, ``v``, ``attn`` (A, rows sum to 1), ``z`` (A V per head), ``attn_out``, ``resid_mid``,
``mlp_post``, ``mlp_out``, ``resid_post``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import torch
from torch import Tensor, nn

from xai_tf.models.hooks import ActivationCache, Hooks


@dataclass(frozen=True)
class Sizes:
    """The shape of a transformer: L layers of H heads, width d_e, context T_max, vocabulary D."""

    n_layer: int
    n_head: int
    d_model: int
    n_ctx: int
    vocab_size: int


@runtime_checkable
class Architecture(Protocol):
    """A transformer behind the model handle: what ``LoadedModel`` and every helper may call on it."""

    @property
    def kind(self) -> str:
        """ "causal" or "encoder" (``loaded.KINDS``)."""
        ...

    @property
    def sizes(self) -> Sizes: ...

    @property
    def hook_points(self) -> Mapping[str, str]: ...

    def check_input_ids(self, input_ids: Tensor | Sequence[int]) -> Tensor: ...

    def __call__(self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None) -> Tensor: ...

    def run_with_cache(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None
    ) -> tuple[Tensor, ActivationCache]: ...

    def parameters(self, recurse: bool = True) -> Iterator[nn.Parameter]: ...

    def to(self, device: torch.device | str) -> nn.Module: ...
