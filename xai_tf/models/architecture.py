"""What every architecture answers (every lesson): the ``Architecture`` protocol and its ``Sizes``.

``LoadedModel.model`` is an ``Architecture``. A lesson may rely on these and nothing else of it:

    model.kind                         "causal" (predicts the next token) or "encoder" (reads it all)
    model.sizes                        Sizes(n_layer=L, n_head=H, d_model=d_e, n_ctx=T_max, vocab_size=D,
                                             n_kv_head=H_kv, d_head=d_h, d_mlp=…, gated=…)
    model.hook_points                  {hook name: "[shape] what it is"}, one activation per layer each
    model.check_input_ids(ids)         ids as a validated ``[batch, T]`` long tensor on the model's device
    model(ids, hooks=…)                the output: logits ``[batch, T, D]`` (causal), last states (encoder)
    model.run_with_cache(ids, hooks=…) (output, cache) with cache[name, l] for every hook point and layer

with the hooks and the cache of ``models/hooks.py``. ``GPT2`` (``gpt2.py``) and ``BertEncoder``
(``bert.py``) conform, checked by mypy and by ``isinstance(model, Architecture)``
(``tests/test_protocol.py``). Hook names common to both mean the same activation: ``resid_pre``,
``q``, ``k``, ``v``, ``attn`` (A, rows sum to 1), ``z`` (A V per head), ``attn_out``, ``resid_mid``,
``mlp_post``, ``mlp_out``, ``resid_post``.

A causal language model answers more: the ``CausalLM`` protocol below is everything the causal helpers
(gradients and IG, the logit lens, decoding, the SAE's activations, circuits) read of it, so that any
architecture meeting it — ``GPT2`` (``gpt2.py``) and ``Llama`` (``llama.py``) here — is explained,
decoded and patched by the same code. No helper outside ``models/`` reads an architecture's own module
names (``tests/test_causal_lm.py`` greps for GPT-2's).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import torch
from torch import Tensor, nn

from xai_tf.models.hooks import ActivationCache, Hooks
from xai_tf.models.kv_cache import KVCache


@dataclass(frozen=True)
class Sizes:
    """The shape of a transformer: L layers of H heads, width d_e, context T_max, vocabulary D,
    H_kv = ``n_kv_head`` key/value heads (H for multi-head attention; fewer, each shared by H / H_kv
    query heads, for grouped-query attention), head size d_h = ``d_head`` (d_e / H in GPT-2 and BERT),
    and an MLP of hidden width ``d_mlp`` that is ``gated`` (SwiGLU: W_down (SiLU(W_gate u) ⊙ W_up u),
    three matrices) or not (W_out GELU(W_in u), two)."""

    n_layer: int
    n_head: int
    d_model: int
    n_ctx: int
    vocab_size: int
    n_kv_head: int
    d_head: int
    d_mlp: int
    gated: bool

    @property
    def block_weights(self) -> int:
        """The weights one block multiplies each token by (biases and norms left out):

            d_e H d_h (W_Q) + 2 d_e H_kv d_h (W_K, W_V) + H d_h d_e (W_O) + (3 if gated else 2) d_e d_mlp

        which is GPT-2's 12 d_e² (d_h H = d_e, d_mlp = 4 d_e)."""
        d, attention = self.d_model, (2 * self.n_head + 2 * self.n_kv_head) * self.d_head
        return d * attention + (3 if self.gated else 2) * d * self.d_mlp


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


def check_token_ids(
    input_ids: Tensor | Sequence[int], sizes: Sizes, device: torch.device, start: int = 0
) -> Tensor:
    """``input_ids`` as a ``[batch, T]`` long tensor on ``device``, validated: integer ids in 0..D−1 that
    will occupy positions ``start``..``start + T − 1``, which must fit the context."""
    ids = torch.as_tensor(input_ids, device=device)
    ids = ids.unsqueeze(0) if ids.dim() == 1 else ids
    if ids.dim() == 2 and ids.size(1) == 0:
        raise ValueError("input_ids is empty: the prompt needs at least one token")
    if ids.dim() != 2 or ids.dtype not in (torch.int64, torch.int32):
        raise ValueError(
            f"input_ids must be integer token ids shaped [T] or [batch, T], got {ids.dtype} of shape "
            f"{tuple(ids.shape)}"
        )
    T, n_ctx, vocab = ids.size(1), sizes.n_ctx, sizes.vocab_size
    if start + T > n_ctx:
        held = f"{T} tokens after {start} cached ones" if start else f"{T} tokens"
        raise ValueError(f"the prompt has {held} but the context holds 1..{n_ctx}")
    if ids.min() < 0 or ids.max() >= vocab:
        raise ValueError(f"input_ids must lie in 0..{vocab - 1}")
    return ids.long()


def check_embeddings(token_embeddings: Tensor, sizes: Sizes) -> None:
    """A ValueError unless ``token_embeddings`` is ``[batch, T, d]`` with T in 1..T_max."""
    d, n_ctx = sizes.d_model, sizes.n_ctx
    if (
        token_embeddings.dim() != 3
        or token_embeddings.size(-1) != d
        or not 1 <= token_embeddings.size(1) <= n_ctx
    ):
        raise ValueError(
            f"token_embeddings must be [batch, T, {d}] with T in 1..{n_ctx}, "
            f"got {tuple(token_embeddings.shape)}"
        )


@dataclass(frozen=True)
class HeadWeights:
    """One layer's attention weights per query head, in row-vector convention (a token's residual
    vector x is a row), the pre-attention norm's gain γ folded in:

        q_h = (x̂ γ) W_Q^h,  k_h = (x̂ γ) W_K^h,  v_h = (x̂ γ) W_V^h,  head h writes z_h W_O^h

    with x̂ the normalised x (LayerNorm's centring and scaling, or RMSNorm's scaling, left out) and
    biases left out. ``W_Q``, ``W_K``, ``W_V`` are ``[H, d, d_h]`` and ``W_O`` is ``[H, d_h, d]``: under
    grouped-query attention query head h's ``W_K[h]``, ``W_V[h]`` are those of the key/value head it reads
    (h // (H / H_kv)), repeated. ``rotation`` is None when positions enter the residual stream (GPT-2's
    W_P); under RoPE, q and k are rotated by their positions before the score, and ``rotation(δ)`` is
    R_δ ``[d_h, d_h]``: query i scores key j = i − δ by (x_i W_Q R_δ) · (x_j W_K), so W_Q W_Kᵀ is the
    score's bilinear form at offset δ = 0 only, and W_Q R_δ W_Kᵀ at offset δ."""

    W_Q: Tensor
    W_K: Tensor
    W_V: Tensor
    W_O: Tensor
    rotation: Callable[[int], Tensor] | None


@runtime_checkable
class CausalLM(Architecture, Protocol):
    """A causal language model: what every causal helper may call on it (``causal()`` checks it).

        model.embed(ids)                   E = W_E[x] ``[batch, T, d]`` (token embeddings only)
        model.embedding                    W_E ``[D, d]``
        model(ids, hooks=…, kv_cache=…)    logits ``[batch, T, D]``; with a ``KVCache`` the ids continue
                                           the cached text and their keys and values are appended
        model.forward_embeddings(E, hooks) logits from E given in place of W_E[x] (f = g ∘ e: this is g)
        model.final_states(E, hooks)       the final norm's output ``[batch, T, d]``, what W_U reads
        model.final_norm(h)                LN_f (GPT-2) or RMS_f (Llama) of any residual vectors h
        model.unembedding                  W_U ``[D, d]`` (W_E when tied)
        model.readout(E, position)         final_states(E)[:, position] ``[batch, d]`` without the work
                                           it does not depend on (IG's hot path)
        model.head_weights(layer)          ``HeadWeights`` of that layer (the layout above)
        model.backward_bytes(T)            an upper estimate of one backward pass of one position's
                                           output over T tokens, in bytes
        model.kv_cache_bytes(T)            the key/value cache of T tokens (one sequence), in bytes
        model.check_input_ids(ids, start)  ids validated for positions start..start+T−1
        model.sizes                        ``Sizes``, with H_kv

    Positions are the architecture's business (learned W_P added to E, or RoPE inside attention):
    ``forward_embeddings`` and ``final_states`` take token embeddings and add or apply them.
    """

    @property
    def embedding(self) -> Tensor: ...

    @property
    def unembedding(self) -> Tensor: ...

    def embed(self, input_ids: Tensor) -> Tensor: ...

    def __call__(
        self, input_ids: Tensor | Sequence[int], hooks: Hooks | None = None, kv_cache: KVCache | None = None
    ) -> Tensor: ...

    def forward_embeddings(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor: ...

    def final_states(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor: ...

    def final_norm(self, h: Tensor) -> Tensor: ...

    def readout(self, token_embeddings: Tensor, position: int) -> Tensor: ...

    def head_weights(self, layer: int) -> HeadWeights: ...

    def backward_bytes(self, T: int) -> int: ...

    def kv_cache_bytes(self, T: int) -> int: ...

    def check_input_ids(self, input_ids: Tensor | Sequence[int], start: int = 0) -> Tensor: ...

    def train(self, mode: bool = True) -> nn.Module: ...

    def requires_grad_(self, requires_grad: bool = True) -> nn.Module: ...

    def eval(self) -> nn.Module: ...
