"""A Llama-family language model from scratch (Touvron et al., 2023; Mistral and Qwen2 share it): the
block every model after GPT-2 uses, in one readable module next to ``gpt2.py``.

Notation of the lecture: a prompt of T tokens x_1..x_T, width d = ``n_embd``, H = ``n_head`` query
heads of size d_h, grouped in H_kv = ``n_kv_head`` groups that share one key/value head each. The
residual stream is

    h_0  = W_E[x]                                      (no position embedding: RoPE rotates q and k)
    h'_l = h_{l-1} + Attn_l(RMS_1(h_{l-1}))
    h_l  = h'_l + MLP_l(RMS_2(h'_l)),   MLP(u) = W_down (SiLU(W_gate u) ⊙ W_up u)      (SwiGLU)
    logits = RMS_f(h_L) W_Uᵀ,   W_U = W_E (tied) or ``lm_head`` (untied)

with RMS(u) = γ ⊙ u / √(mean(u²) + ε) (no centring, no bias: Zhang & Sennrich, 2019) and per head
A = softmax(R_i q_i · R_j k_j / √d_h + M), M_ij = −∞ for j > i, where R_p rotates the pair of
dimensions (c, c + d_h/2) of a head by the angle p θ^(−2c/d_h) (RoPE, Su et al., 2021, in Hugging
Face's rotate-half layout, so checkpoints load without permuting W_Q, W_K). Since R_iᵀ R_j = R_{j−i},
a score depends on the positions only through the offset j − i. Query head h reads key/value head
h // (H / H_kv) (grouped-query attention, Ainslie et al., 2023; H_kv = 1 is multi-query attention).

Hook points are GPT-2's (``HOOK_POINTS``) and mean the same activations, with two differences:
``q`` and ``k`` are hooked **after** the rotation (so ``attn`` = softmax(q kᵀ / √d_h + M) holds for the
cached tensors, and ``k`` is what the key/value cache stores), and ``k``/``v`` have H_kv heads, not H.

Parameter names follow Hugging Face's checkpoints (``embed_tokens``, ``layers.{l}.input_layernorm``,
``self_attn.{q,k,v,o}_proj``, ``post_attention_layernorm``, ``mlp.{gate,up,down}_proj``, ``norm``,
``lm_head``) so weights load by name (``checkpoints.py``). The key/value cache (``kv_cache.KVCache``)
stores the rotated keys and the values of the H_kv heads only: H / H_kv times less memory than GPT-2's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.architecture import HeadWeights, Sizes
from xai_tf.models.causal import CausalTransformer
from xai_tf.models.hooks import Tap
from xai_tf.models.kv_cache import KVCache
from xai_tf.models.llama_config import LlamaConfig
from xai_tf.models.rope import rotary, rotation

if TYPE_CHECKING:
    from transformers import PreTrainedModel

__all__ = ["HOOK_POINTS", "Llama", "LlamaConfig"]

#: Every activation the cache records, per layer, with its shape.
HOOK_POINTS: dict[str, str] = {
    "resid_pre": "[batch, T, d] residual stream entering the block",
    "q": "[batch, heads, T, d_h] queries, after the rotation (RoPE)",
    "k": "[batch, kv_heads, T, d_h] keys, after the rotation (RoPE), one per key/value head",
    "v": "[batch, kv_heads, T, d_h] values, one per key/value head",
    "attn": "[batch, heads, T, T] attention probabilities (rows sum to 1)",
    "z": "[batch, heads, T, d_h] each head's output A V before W_O (head h writes z_h W_O^h)",
    "attn_out": "[batch, T, d] attention output added to the residual stream",
    "resid_mid": "[batch, T, d] residual stream between attention and MLP",
    "mlp_post": "[batch, T, d_mlp] MLP hidden activations SiLU(W_gate u) ⊙ W_up u",
    "mlp_out": "[batch, T, d] MLP output added to the residual stream",
    "resid_post": "[batch, T, d] residual stream leaving the block",
}


class RMSNorm(nn.Module):
    """RMS(u) = γ ⊙ u / √(mean(u²) + ε), computed in at least float32."""

    def __init__(self, d: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x: Tensor) -> Tensor:
        u = x.to(torch.promote_types(x.dtype, torch.float32))
        u = u * torch.rsqrt(u.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * u.to(x.dtype)


class GroupedQueryAttention(nn.Module):
    """Causal attention, H query heads over H_kv key/value heads, RoPE on q and k, output (A V) W_O."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.n_head, self.n_kv_head, self.d_head = config.n_head, config.n_kv_head, config.d_head
        self.theta = config.rope_theta
        d, qkv = config.n_embd, config.qkv_bias
        self.q_proj = nn.Linear(d, self.n_head * self.d_head, bias=qkv)
        self.k_proj = nn.Linear(d, self.n_kv_head * self.d_head, bias=qkv)
        self.v_proj = nn.Linear(d, self.n_kv_head * self.d_head, bias=qkv)
        self.o_proj = nn.Linear(self.n_head * self.d_head, d, bias=config.o_bias)

    def forward(self, x: Tensor, positions: Tensor, layer: int, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        B, T, _ = x.shape
        past = int(positions[0])
        q = self.q_proj(x).view(B, T, self.n_head, self.d_head).transpose(1, 2)  # (B, nh, T, hs)
        k = self.k_proj(x).view(B, T, self.n_kv_head, self.d_head).transpose(1, 2)  # (B, n_kv, T, hs)
        v = self.v_proj(x).view(B, T, self.n_kv_head, self.d_head).transpose(1, 2)  # (B, n_kv, T, hs)
        q = tap("q", layer, rotary(q, positions, self.theta))
        k = tap("k", layer, rotary(k, positions, self.theta))
        v = tap("v", layer, v)
        if kv_cache is not None:
            k, v = kv_cache.extend(layer, k, v)  # (B, n_kv, past + T, hs)
        group = self.n_head // self.n_kv_head  # query heads per key/value head
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)  # (B, nh, past + T, hs)
        # query i sits at position past + i and sees keys j ≤ past + i
        future = torch.ones(T, past + T, dtype=torch.bool, device=x.device).triu(past + 1)
        scores = (q @ k.transpose(-2, -1)) * self.d_head**-0.5  # (B, nh, T, past + T)
        attn = tap("attn", layer, scores.masked_fill(future, float("-inf")).softmax(-1))
        y = tap("z", layer, attn @ v)  # (B, nh, T, hs)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_head * self.d_head))


class SwiGLU(nn.Module):
    """MLP(u) = W_down (SiLU(W_gate u) ⊙ W_up u) (Shazeer, 2020), hidden width d_mlp."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        d, d_mlp, bias = config.n_embd, config.d_mlp, config.mlp_bias
        self.gate_proj = nn.Linear(d, d_mlp, bias=bias)
        self.up_proj = nn.Linear(d, d_mlp, bias=bias)
        self.down_proj = nn.Linear(d_mlp, d, bias=bias)

    def forward(self, x: Tensor, layer: int, tap: Tap) -> Tensor:
        return self.down_proj(tap("mlp_post", layer, F.silu(self.gate_proj(x)) * self.up_proj(x)))


class Block(nn.Module):
    """One pre-RMSNorm block: h' = h + Attn(RMS_1(h)), h'' = h' + MLP(RMS_2(h'))."""

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(config.n_embd, config.rms_norm_eps)
        self.self_attn = GroupedQueryAttention(config)
        self.post_attention_layernorm = RMSNorm(config.n_embd, config.rms_norm_eps)
        self.mlp = SwiGLU(config)

    def forward(self, x: Tensor, positions: Tensor, layer: int, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        x = tap("resid_pre", layer, x)
        attn_out = self.self_attn(self.input_layernorm(x), positions, layer, tap, kv_cache)
        x = x + tap("attn_out", layer, attn_out)
        x = tap("resid_mid", layer, x)
        x = x + tap("mlp_out", layer, self.mlp(self.post_attention_layernorm(x), layer, tap))
        return tap("resid_post", layer, x)


class Llama(CausalTransformer):
    """Llama-style language model; ``model(input_ids)`` returns logits ``[batch, T, vocab]`` (the entry
    points shared with the other families are ``causal.CausalTransformer``'s)."""

    hook_points = HOOK_POINTS

    def __init__(self, config: LlamaConfig):
        super().__init__()
        self.config = config
        self.embed_tokens = nn.Embedding(config.vocab_size, config.n_embd)
        # a ModuleList of Blocks; torch's ModuleList is not generic, so mypy is told what it holds
        self.layers = cast("Sequence[Block]", nn.ModuleList(Block(config) for _ in range(config.n_layer)))
        self.norm = RMSNorm(config.n_embd, config.rms_norm_eps)
        if not config.tie_word_embeddings:
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)

    @property
    def token_embedding(self) -> nn.Embedding:
        return self.embed_tokens

    @property
    def final_layer_norm(self) -> nn.Module:
        return self.norm

    @property
    def sizes(self) -> Sizes:
        c = self.config
        return Sizes(
            c.n_layer, c.n_head, c.n_embd, c.n_ctx, c.vocab_size, c.n_kv_head, c.d_head, c.d_mlp, gated=True
        )

    def kv_cache_bytes(self, T: int) -> int:
        """The cache of T tokens: rotated keys and values of the H_kv heads, 2 L T H_kv d_h numbers."""
        c = self.config
        return 2 * c.n_layer * T * c.n_kv_head * c.d_head * self.embed_tokens.weight.element_size()

    def head_weights(self, layer: int) -> HeadWeights:
        """W_Q, W_K, W_V ``[H, d, d_h]`` and W_O ``[H, d_h, d]`` of ``layer``, RMS_1's gain γ folded in.

        ``q_proj`` is ``nn.Linear(d, H d_h)``, ``k_proj`` and ``v_proj`` are ``nn.Linear(d, H_kv d_h)``,
        head h owning output rows h d_h..(h+1) d_h; query head h reads key/value head h // (H / H_kv), so
        its W_K^h and W_V^h are that head's, repeated. ``o_proj``'s columns h d_h..(h+1) d_h read head
        h's z. RoPE rotates q and k by their positions before the score: ``rotation(δ)`` is the R_δ with
        (x_i W_Q R_i) · (x_j W_K R_j) = x_i W_Q R_{i−j} · x_j W_K, so a head's W_QK depends on the offset
        δ = i − j (what lesson 15's QK and OV circuits read).
        """
        c = self.config
        block = self.layers[_checks.integer("layer", layer, 0, c.n_layer - 1)]
        gamma = block.input_layernorm.weight.detach()[None, :, None]
        attn = block.self_attn

        def per_head(linear: nn.Linear, heads: int) -> Tensor:  # [heads, d, d_h], then one per query head
            W = gamma * linear.weight.detach().t().reshape(c.n_embd, heads, c.d_head).transpose(0, 1)
            return W.repeat_interleave(c.n_head // heads, dim=0)

        W_O = attn.o_proj.weight.detach().t().reshape(c.n_head, c.d_head, c.n_embd)
        return HeadWeights(
            per_head(attn.q_proj, c.n_head),
            per_head(attn.k_proj, c.n_kv_head),
            per_head(attn.v_proj, c.n_kv_head),
            W_O,
            rotation=partial(rotation, c.d_head, c.rope_theta, device=self.embed_tokens.weight.device),
        )

    def readout(self, token_embeddings: Tensor, position: int) -> Tensor:
        """RMS_f(h_L)[:, position] ``[n, d]`` for E ``[n, T, d]``: ``final_states(E)[:, position]`` without
        the work it does not depend on, as GPT-2's: of the last block it needs the rotated keys and the
        values of positions 0..p but the query, the attention output and the MLP at p alone:

            RMS_f(h_L)[p] = RMS_f(Block_L(h_{L−1}[p] | R K, V of h_{L−1}[0..p]))
        """
        self._check_embeddings(token_embeddings)
        E = token_embeddings
        p = _checks.integer("position", position, -E.size(1), E.size(1) - 1) % E.size(1)  # −T..T−1
        tap, positions = self._tap(None, None), torch.arange(p + 1, device=E.device)
        *blocks, last = self.layers
        x = E[:, : p + 1]
        for layer, block in enumerate(blocks):
            x = block(x, positions, layer, tap, None)
        cache = KVCache()
        if p:  # R K and V of positions 0..p−1: the last block's k_proj and v_proj
            attn, u = last.self_attn, last.input_layernorm(x[:, :p])
            k, v = (
                f(u).view(len(x), p, attn.n_kv_head, attn.d_head).transpose(1, 2)
                for f in (attn.k_proj, attn.v_proj)
            )
            cache.extend(len(blocks), rotary(k, positions[:p], self.config.rope_theta), v)
        return self.norm(last(x[:, p:], positions[p:], len(blocks), tap, cache))[:, 0]

    def _stream(self, token_embeddings: Tensor, tap: Tap, kv_cache: KVCache | None) -> Tensor:
        x = token_embeddings
        past = len(kv_cache) if kv_cache is not None else 0  # read before layer 0 appends to it
        positions = torch.arange(past, past + x.size(1), device=x.device)
        for layer, block in enumerate(self.layers):
            x = block(x, positions, layer, tap, kv_cache)
        return self.norm(x)

    @classmethod
    def from_hf(cls, hf_model: PreTrainedModel) -> Llama:
        """Ours, with the weights (and dtype) of a ``transformers`` Llama, Mistral or Qwen2 causal LM."""
        config = LlamaConfig.from_hf(hf_model.config.to_dict())
        dtype = next(hf_model.parameters()).dtype
        state = {name: t.detach().clone() for name, t in hf_model.state_dict().items()}
        return cls.from_state_dict(config, state, dtype=dtype)

    @classmethod
    def from_state_dict(
        cls,
        config: LlamaConfig,
        state_dict: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]],
        dtype: torch.dtype = torch.float32,
    ) -> Llama:
        """A model in eval mode holding ``state_dict`` (a mapping or lazily read ``(name, tensor)`` pairs)
        in Hugging Face's names: the ``model.`` prefix is dropped, the rotary ``inv_freq`` buffers of
        older checkpoints are skipped (RoPE is computed from ``rope_theta``), and so is ``lm_head`` where
        it is tied to ``embed_tokens``."""
        ours = {}
        pairs = state_dict.items() if isinstance(state_dict, Mapping) else state_dict
        for name, tensor in pairs:
            name = name.removeprefix("model.")
            tied = name == "lm_head.weight" and config.tie_word_embeddings
            if tied or name.endswith("rotary_emb.inv_freq"):
                continue
            ours[name] = tensor.to(dtype)
        return cls._assigned(config, ours, "Llama")
