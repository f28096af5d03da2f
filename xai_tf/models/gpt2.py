"""GPT-2 from scratch, in one readable module (Radford et al., 2019); lesson 04 reads it, every
lesson runs it.

Notation of the lecture: a prompt of T tokens x_1..x_T, width d = ``n_embd``, H = ``n_head`` heads
of size d_h = d / H. The residual stream is

    h_0 = W_E[x] + W_P[1..T]
    h'_l = h_{l-1} + Attn_l(LN_1(h_{l-1}))          (pre-LayerNorm blocks)
    h_l  = h'_l + MLP_l(LN_2(h'_l)),  MLP(u) = W_out GELU_tanh(W_in u)
    logits = LN_f(h_L) W_Uᵀ,  W_U = W_E              (weight tying: the unembedding is W_E)

with causal self-attention per head A = softmax(Q Kᵀ / √d_h + M), M_ij = −∞ for j > i.

Other GPT-2s (Hugging Face config options, ``GPT2Config``): the exact GELU(u) = u Φ(u) in place of
GELU_tanh; an untied unembedding W_U (``lm_head``) of its own; scores Q Kᵀ / (l √d_h) in layer l
(``scale_attn_by_inverse_layer_idx``) or Q Kᵀ without the √d_h (``scale_attn_weights`` false).

Parameter names follow GPT-2's checkpoint (``wte``, ``wpe``, ``h.{l}.ln_1``, ``attn.c_attn``,
``attn.c_proj``, ``ln_2``, ``mlp.c_fc``, ``mlp.c_proj``, ``ln_f``) so that Hugging Face weights
load by name (their ``Conv1D`` weights are the transpose of our ``nn.Linear`` weights).

Every intermediate is one lookup away: ``logits, cache = model.run_with_cache(ids)`` and then
``cache["attn", 3]`` is layer 3's attention probabilities ``[batch, heads, T, T]``. Hooks replace
an activation during the forward pass: ``model(ids, hooks={("mlp_post", 2): f})`` uses ``f(a)``
wherever the MLP activations ``a`` of layer 2 would be used.

Incremental decoding keeps every layer's keys and values: with ``cache = KVCache()``,
``model(prompt, kv_cache=cache)`` and then ``model([next_id], kv_cache=cache)`` computes only the
new token's query, key and value and attends to the stored ones — the same logits as a forward pass
over the whole text, at a cost per step that grows with T instead of T².
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.architecture import HeadWeights, Sizes
from xai_tf.models.causal import CausalTransformer
from xai_tf.models.gpt2_config import CONFIGS, GPT2Config
from xai_tf.models.hooks import Tap
from xai_tf.models.kv_cache import KVCache

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["CONFIGS", "GPT2", "HOOK_POINTS", "GPT2Config"]

#: Every activation the cache records, per layer, with its shape.
HOOK_POINTS: dict[str, str] = {
    "resid_pre": "[batch, T, d] residual stream entering the block",
    "q": "[batch, heads, T, d_h] queries",
    "k": "[batch, heads, T, d_h] keys",
    "v": "[batch, heads, T, d_h] values",
    "attn": "[batch, heads, T, T] attention probabilities (rows sum to 1)",
    "z": "[batch, heads, T, d_h] each head's output A V before W_O (head h writes z_h W_O^h)",
    "attn_out": "[batch, T, d] attention output added to the residual stream",
    "resid_mid": "[batch, T, d] residual stream between attention and MLP",
    "mlp_post": "[batch, T, 4d] MLP hidden activations after GELU",
    "mlp_out": "[batch, T, d] MLP output added to the residual stream",
    "resid_post": "[batch, T, d] residual stream leaving the block",
}


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention: A = softmax(s_l Q Kᵀ + M), s_l = 1/√d_h, output (A V) W_O."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.n_head, self.attn_scale = config.n_head, config.attn_scale
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)

    def forward(self, x: Tensor, layer: int, tap: Tap, kv_cache: KVCache | None = None) -> Tensor:
        batch, T, d = x.shape
        q, k, v = (
            t.view(batch, T, self.n_head, d // self.n_head).transpose(1, 2)
            for t in self.c_attn(x).split(d, dim=2)
        )
        q, k, v = tap("q", layer, q), tap("k", layer, k), tap("v", layer, v)
        if kv_cache is not None:
            k, v = kv_cache.extend(layer, k, v)
        past = k.size(2) - T
        # query i sits at position past + i and sees keys j ≤ past + i
        future = torch.ones(T, past + T, dtype=torch.bool, device=x.device).triu(past + 1)
        scale = self.attn_scale(layer)
        if tap.wants("attn", layer):
            scores = (q @ k.transpose(-2, -1)) * scale
            attn = tap("attn", layer, scores.masked_fill(future, float("-inf")).softmax(-1))
            y = attn @ v
        elif past == 0:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=scale)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None if T == 1 else ~future, scale=scale)
        y = tap("z", layer, y)
        return self.c_proj(y.transpose(1, 2).reshape(batch, T, d))


class MLP(nn.Module):
    """MLP(u) = W_out GELU_tanh(W_in u) (or the exact GELU), hidden width 4d."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.gelu = config.gelu
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: Tensor, layer: int, tap: Tap) -> Tensor:
        return self.c_proj(tap("mlp_post", layer, F.gelu(self.c_fc(x), approximate=self.gelu)))


class Block(nn.Module):
    """One pre-LayerNorm block: h' = h + Attn(LN_1(h)), h'' = h' + MLP(LN_2(h'))."""

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        self.mlp = MLP(config)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x: Tensor, layer: int, tap: Tap, kv_cache: KVCache | None = None) -> Tensor:
        x = tap("resid_pre", layer, x)
        x = x + self.drop(tap("attn_out", layer, self.attn(self.ln_1(x), layer, tap, kv_cache)))
        x = tap("resid_mid", layer, x)
        x = x + self.drop(tap("mlp_out", layer, self.mlp(self.ln_2(x), layer, tap)))
        return tap("resid_post", layer, x)


class GPT2(CausalTransformer):
    """GPT-2 language model; ``model(input_ids)`` returns logits ``[batch, T, vocab]`` (the entry points
    shared with the other families are ``causal.CausalTransformer``'s)."""

    hook_points = HOOK_POINTS

    def __init__(self, config: GPT2Config):
        super().__init__()
        self.config = config
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_ctx, config.n_embd)
        self.drop = nn.Dropout(config.dropout)
        # a ModuleList of Blocks; torch's ModuleList is not generic, so mypy is told what it holds
        self.h = cast("Sequence[Block]", nn.ModuleList(Block(config) for _ in range(config.n_layer)))
        self.ln_f = nn.LayerNorm(config.n_embd, eps=config.layer_norm_epsilon)
        if not config.tie_word_embeddings:
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self._init_weights()

    def _init_weights(self) -> None:
        """GPT-2's initialisation (Radford et al., 2019, §2.3): N(0, 0.02) weights and zero biases,
        except the residual projections (``c_proj`` of attention and MLP, the 2L layers that write into
        the residual stream), drawn from N(0, 0.02/√(2L)) so that the stream's variance does not grow
        with depth."""
        for name, module in self.named_modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                residual = name.endswith("c_proj")
                nn.init.normal_(
                    module.weight, std=0.02 / math.sqrt(2 * self.config.n_layer) if residual else 0.02
                )
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    @property
    def token_embedding(self) -> nn.Embedding:
        return self.wte

    @property
    def final_layer_norm(self) -> nn.Module:
        return self.ln_f

    @property
    def sizes(self) -> Sizes:
        return self.config.sizes

    def kv_cache_bytes(self, T: int) -> int:
        """The cache of T tokens: keys and values of H heads × d_h = d per layer, 2 L T d numbers."""
        return 2 * self.config.n_layer * T * self.config.n_embd * self.wte.weight.element_size()

    def head_weights(self, layer: int) -> HeadWeights:
        """W_Q, W_K, W_V ``[H, d, d_h]`` and W_O ``[H, d_h, d]`` of ``layer``, LN_1's gain γ folded in.

        GPT-2's ``c_attn`` is ``nn.Linear(d, 3d)``: rows [0, d) the queries, [d, 2d) the keys, [2d, 3d)
        the values, head h owning rows h d_h..(h+1) d_h of each; ``c_proj``'s columns h d_h..(h+1) d_h
        read head h's z.
        """
        block = self.h[_checks.integer("layer", layer, 0, self.config.n_layer - 1)]
        d, H = self.config.n_embd, self.config.n_head
        gamma = block.ln_1.weight.detach()[None, :, None]
        W_q, W_k, W_v = (
            gamma * w.t().reshape(d, H, d // H).transpose(0, 1)
            for w in block.attn.c_attn.weight.detach().split(d)
        )
        W_O = block.attn.c_proj.weight.detach().t().reshape(H, d // H, d)
        return HeadWeights(W_q, W_k, W_v, W_O, rotation=None)

    def readout(self, token_embeddings: Tensor, position: int) -> Tensor:
        """LN_f(h_L)[:, position] ``[n, d]`` for E ``[n, T, d]``: ``final_states(E)[:, position]`` without
        the work it does not depend on (lessons 06–08: the hot path of integrated gradients).

        In a causal model nothing after p reaches LN_f(h_L)[p], and of the last block only position p
        is used: it needs the keys and values K, V of positions 0..p but the query, the attention
        output and the MLP at p alone. So

            LN_f(h_L)[p] = LN_f(Block_L(h_{L−1}[p] | K, V of h_{L−1}[0..p]))

        the same numbers as the full forward pass, without the last block's work at the other positions
        (about 1/L of the forward and backward work; ``benchmarks/bench_attribution.py``).
        """
        self._check_embeddings(token_embeddings)
        E = token_embeddings
        p = _checks.integer("position", position, -E.size(1), E.size(1) - 1) % E.size(1)  # −T..T−1
        tap = self._tap(None, None)
        x = self.drop(E[:, : p + 1] + self.wpe(torch.arange(p + 1, device=E.device)))
        *blocks, last = self.h
        for layer, block in enumerate(blocks):
            x = block(x, layer, tap)
        cache = KVCache()
        if p:  # K, V of positions 0..p−1: the key and value rows of the last block's W_qkv
            d, H = x.size(-1), last.attn.n_head
            kv = F.linear(last.ln_1(x[:, :p]), last.attn.c_attn.weight[d:], last.attn.c_attn.bias[d:])
            k, v = (t.view(len(x), p, H, d // H).transpose(1, 2) for t in kv.split(d, dim=2))
            cache.extend(len(blocks), k, v)
        return self.ln_f(last(x[:, p:], len(blocks), tap, cache))[:, 0]

    def _stream(self, token_embeddings: Tensor, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        past = len(kv_cache) if kv_cache is not None else 0
        positions = torch.arange(past, past + token_embeddings.size(1), device=token_embeddings.device)
        x = self.drop(token_embeddings + self.wpe(positions))
        for layer, block in enumerate(self.h):
            x = block(x, layer, tap, kv_cache)
        return self.ln_f(x)

    @classmethod
    def from_hf(cls, hf_model: PreTrainedModel) -> GPT2:
        """Ours, with the weights of a ``transformers.GPT2LMHeadModel`` (or ``GPT2Model``)."""
        config = GPT2Config.from_hf(hf_model.config.to_dict())
        state = {name: t.detach().clone() for name, t in hf_model.state_dict().items()}
        return cls.from_state_dict(config, state, hf_layout=True)

    @classmethod
    def from_state_dict(
        cls,
        config: GPT2Config,
        state_dict: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]],
        hf_layout: bool = False,
    ) -> GPT2:
        """A model in eval mode holding ``state_dict``, a mapping or ``(name, tensor)`` pairs.

        No second copy of the weights is made: pairs read lazily from a file (``hub.py`` reads
        safetensors one tensor at a time) are converted one by one, so loading holds the weights
        once plus the tensor in hand.

        With ``hf_layout`` the names and layout are a Hugging Face GPT-2 checkpoint's: an
        optional ``transformer.`` prefix, ``Conv1D`` weights stored as [in, out] (transposed
        here as a view: x W_inᵀ then reads the stored [in, out] matrix as it lies, so nothing is
        copied), the causal-mask buffers skipped, and ``lm_head`` too where it is tied to ``wte``.
        """
        conv1d = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight")
        ours = {}
        pairs = state_dict.items() if isinstance(state_dict, Mapping) else state_dict
        for name, tensor in pairs:
            if hf_layout:
                name = name.removeprefix("transformer.")
                tied = name == "lm_head.weight" and config.tie_word_embeddings
                if tied or name.endswith((".attn.bias", ".attn.masked_bias")):
                    continue
                tensor = tensor.t() if name.endswith(conv1d) else tensor  # a view: no copy
            ours[name] = tensor.float()
        return cls._assigned(config, ours, "GPT-2")
