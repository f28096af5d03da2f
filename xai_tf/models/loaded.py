"""The one model handle (every lesson): ``LoadedModel``, what ``xai_tf.load_model`` returns.

The model owns its tokenizer (TransformerLens's idea): ``lm.encode(prompt)``, ``lm.token_strings(ids)``.
It knows its shape — ``n_layer``, ``n_head``, ``d_model``, ``n_ctx`` — and its ``kind``: "causal"
(predicts the next token: GPT-2, the bundled model) or "encoder" (reads the whole text at once:
MiniLM). ``lm.model`` is an ``Architecture`` (``models/architecture.py``): every architecture answers
the same calls (``models/gpt2.py``, ``models/bert.py``): ``kind``, ``hook_points``, ``sizes``,
``check_input_ids``, ``model(ids, hooks=…)`` and ``run_with_cache(ids, hooks=…)`` with the hooks and
cache of ``models/hooks.py``.

Every public helper that needs a model takes this handle. ``as_model`` also accepts a bare module
and wraps it, in this one place; ``causal(model, task)`` is the capability check of helpers that
need next-token prediction, and says so in one line when the model cannot do it. Its handle is a
``LoadedModel[CausalLM]``: it checks the ``CausalLM`` protocol (``architecture.py``), not a class, so
GPT-2, the Llama family and any other architecture meeting it pass, and the causal helpers call only
the protocol's members (``embed``, ``forward_embeddings``, ``final_norm``, ``unembedding``,
``head_weights``, ``readout``, the key/value cache, …), which mypy checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, cast

import torch
from torch import Tensor, nn
from typing_extensions import TypeVar, get_protocol_members

from xai_tf.models import tokenization
from xai_tf.models.architecture import Architecture, CausalLM, Sizes
from xai_tf.models.hooks import ActivationCache, Hooks

#: The architecture a handle holds; a bare ``LoadedModel`` holds any ``Architecture``.
Arch = TypeVar("Arch", bound=Architecture, default=Architecture, covariant=True)

#: What each kind is, and which models have it (for the one-line capability message).
KINDS = {
    "causal": ("a causal language model", "a causal model ('shakespeare', 'gpt2', …)"),
    "encoder": ("an encoder", "an encoder ('minilm')"),
}


@dataclass
class LoadedModel(Generic[Arch]):
    """A model ready for the lessons: ``.model`` (the network), ``.tokenizer``, ``.name``, ``.card``."""

    model: Arch
    tokenizer: Any
    name: str
    card: dict = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """ "causal" or "encoder"."""
        return self.model.kind

    @property
    def sizes(self) -> Sizes:
        """L, H, d_e, T_max and D at once (``Sizes``)."""
        return self.model.sizes

    @property
    def n_layer(self) -> int:
        return self.model.sizes.n_layer

    @property
    def n_head(self) -> int:
        return self.model.sizes.n_head

    @property
    def d_model(self) -> int:
        """d_e, the width of the residual stream."""
        return self.model.sizes.d_model

    @property
    def n_ctx(self) -> int:
        """T_max, the most tokens the model reads at once."""
        return self.model.sizes.n_ctx

    @property
    def vocab_size(self) -> int:
        """D, the number of token ids."""
        return self.model.sizes.vocab_size

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def eot_token(self) -> int | None:
        """The end-of-text id (None when the tokenizer has none)."""
        return getattr(self.tokenizer, "eot_token", None)

    def encode(self, prompt: str) -> list[int]:
        """Token ids of ``prompt``, checked: not empty and no longer than the context. A tokenizer that
        opens every text with a beginning-of-sequence token (the Llama family's ``tokenizer.json``:
        ``prepended``) has it put first, as Hugging Face's tokenizer does; ``tokenizer.encode`` gives the
        text's own tokens only."""
        if self.tokenizer is None:
            raise ValueError(f"{self.name} has no tokenizer: load it with xai_tf.load_model to type text")
        if not isinstance(prompt, str):
            raise TypeError(f"prompt must be a str, the text to encode; got {type(prompt).__name__}")
        if not prompt.strip():
            raise ValueError("prompt is empty: type at least one word")
        for special in sorted(getattr(self.tokenizer, "special_tokens_set", ())):
            if special in prompt:  # tiktoken's own error asks for an argument a student cannot pass
                what = "the end-of-text marker" if special == tokenization.ENDOFTEXT else "a special token"
                raise ValueError(f"{special} is {what}; it cannot be typed in a prompt")
        ids = [*getattr(self.tokenizer, "prepended", ()), *self.tokenizer.encode(prompt)]
        if len(ids) > self.n_ctx:
            raise ValueError(f"prompt is {len(ids)} tokens long; {self.name} reads at most {self.n_ctx}")
        return ids

    def token_strings(self, ids: Sequence[int]) -> list[str]:
        """Each token as a printable label (newline shown as ``↵``)."""
        if self.tokenizer is None:
            return [str(int(i)) for i in ids]
        return tokenization.token_strings(self.tokenizer, ids)

    def require(self, kind: str, task: str) -> None:
        """Raise a one-line ValueError unless this model is of ``kind``, e.g. "minilm is an encoder:
        next-token prediction needs a causal model ('shakespeare', 'gpt2', …)"."""
        if self.kind != kind:
            raise ValueError(f"{self.name} is {KINDS[self.kind][0]}: {task} needs {KINDS[kind][1]}")

    def __call__(self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None) -> Tensor:
        """The network's output: logits ``[batch, T, vocab]`` (causal) or hidden states (encoder)."""
        return self.model(input_ids, hooks=hooks)

    def run_with_cache(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None
    ) -> tuple[Tensor, ActivationCache]:
        """``(output, cache)``: every activation of ``model.hook_points`` and ``("attn", l)``."""
        return self.model.run_with_cache(input_ids, hooks=hooks)

    @torch.no_grad()
    def attentions(self, input_ids: Tensor | Sequence[int]) -> Tensor:
        """A(x) of every layer and head for one prompt: ``[layers, heads, T, T]``, rows sum to 1."""
        ids = self.model.check_input_ids(input_ids)
        if ids.size(0) != 1:
            raise ValueError(f"input_ids must be one prompt, got a batch of shape {tuple(ids.shape)}")
        return self.run_with_cache(ids)[1].stack("attn")[:, 0]


def as_model(model: LoadedModel | nn.Module | Architecture) -> LoadedModel:
    """The handle for ``model``: a ``LoadedModel`` as it is, a bare architecture (``GPT2``, ``Llama``,
    ``BertEncoder``) wrapped."""
    if isinstance(model, LoadedModel):
        return model
    if isinstance(model, nn.Module) and isinstance(model, Architecture) and model.kind in KINDS:
        return LoadedModel(model, None, type(model).__name__)
    raise TypeError(
        f"model must be a model from xai_tf.load_model (or a GPT2 / Llama / BertEncoder module), "
        f"got {type(model).__name__}"
    )


def causal(model: LoadedModel | nn.Module, task: str) -> LoadedModel[CausalLM]:
    """The handle of a model that must predict the next token for ``task``; a one-line ValueError
    for an encoder, a TypeError for a causal model that does not meet the ``CausalLM`` protocol."""
    if not isinstance(task, str):
        raise TypeError(f"task must be a string naming what needs the model, got {task!r}")
    lm = as_model(model)
    lm.require("causal", task)
    if not isinstance(lm.model, CausalLM):
        missing = sorted(m for m in get_protocol_members(CausalLM) if not hasattr(lm.model, m))
        raise TypeError(
            f"{task} needs a model meeting the CausalLM protocol; {type(lm.model).__name__} lacks {missing}"
        )
    return cast("LoadedModel[CausalLM]", lm)
