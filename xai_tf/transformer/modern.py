"""From GPT-2 to today's block (lesson 04): the four changes a Llama-style model makes to GPT-2's block,
each as a formula to compute on the two bundled models, which are read through the ``CausalLM``
protocol only.

Notation of the lecture: width d = d_e, H query heads of size d_h, H_kv key/value heads, L layers, T
tokens, a residual vector u ∈ ℝ^d with mean μ and (biased) variance σ².

1. **The norm.** LN(u) = γ ⊙ (u − μ)/√(σ² + ε) + β, RMS(u) = γ ⊙ u/√(mean(u²) + ε). Since
   mean(u²) = μ² + σ², RMSNorm is LayerNorm without the centring and without β: LN_{γ,β}(u) =
   RMS_γ(u − μ) + β. ``centring_share`` is μ²/(μ² + σ²), the part of u's mean square that LayerNorm
   removes and RMSNorm keeps. The white-box notes (lecture 004) normalise after the residual sum,
   Z ← RMS_γ(Z + MHATT(Z)) ("recap", post-norm); GPT-2 and Llama before it, Z ← Z + MHATT(RMS(Z))
   ("pre-norm"): ``attention_sublayer``.
2. **Positions.** GPT-2 adds W_P[i] to the token's embedding, so layer 0's score of token a at
   position i against token b at j, s(i, j) = q(W_E[a] + W_P[i]) · k(W_E[b] + W_P[j]) / √d_h, depends on
   both positions. RoPE rotates q and k instead: (q R_i) · (k R_j) = q R_{i−j} · k, a function of the
   offset i − j alone: ``layer0_scores``, ``diagonal_spread``.
3. **The MLP.** GELU: W_out GELU(W_in u) has 2·d·d_mlp weights (d_mlp = 4d); SwiGLU:
   W_down (SiLU(W_gate u) ⊙ W_up u) has 3·d·d_mlp, equal at d_mlp = (2/3)·4d, which Llama rounds up to a
   multiple m of 256: d_mlp = m ⌈(2/3)·4d / m⌉ (``swiglu``, ``llama_d_mlp``, ``mlp_parameters``,
   ``llama_parameter_counts``).
4. **The key/value cache.** Decoding keeps one key and one value per layer, token and key/value head:
   2 L T H_kv d_h numbers. Multi-head attention has H_kv = H; grouped-query attention (H_kv < H) keeps
   H / H_kv times fewer (``decoded_cache``, ``cache_bytes``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.architecture import CausalLM, HeadWeights
from xai_tf.models.kv_cache import KVCache
from xai_tf.models.llama_config import LlamaConfig
from xai_tf.models.loaded import LoadedModel, causal

Model = LoadedModel | nn.Module
#: Where the norm sits around attention: before it (GPT-2, Llama) or after the residual sum (lecture 004).
FORMS = ("pre-norm", "recap")


def centring_share(u: Tensor) -> Tensor:
    """μ² / (μ² + σ²) = μ² / mean(u²) for each vector of ``u`` ``[..., d]``: 0 for a centred vector (then
    RMS(u) = LN(u) with γ = 1, β = 0, ε aside), 1 for a constant one (which LayerNorm maps to 0)."""
    u = _checks.tensor("u", u)
    if u.dim() < 1 or u.size(-1) < 2 or not u.is_floating_point():
        raise ValueError(
            f"u must be floating-point vectors [..., d] with d ≥ 2, got {u.dtype} {tuple(u.shape)}"
        )
    mean_square = u.pow(2).mean(-1)
    if not torch.isfinite(u).all() or (mean_square == 0).any():
        raise ValueError("u must be finite and hold no all-zero vector (its share is 0/0)")
    return u.mean(-1).pow(2) / mean_square


def mhatt(weights: HeadWeights, X: Tensor) -> Tensor:
    """MHATT(X) = Σ_h softmax(Q_h K_hᵀ / √d_h + M) V_h W_O^h for one sequence X ``[T, d]``, with
    Q_h = X W_Q^h, K_h = X W_K^h, V_h = X W_V^h (``HeadWeights``: the norm's gain folded in, biases left
    out), M_ij = −∞ for j > i, and under RoPE row i of Q_h and K_h turned by R_i (``weights.rotation``)."""
    X = _checks.tensor("X", X)
    d = weights.W_Q.size(1)
    if X.dim() != 2 or X.size(1) != d or X.size(0) < 1:
        raise ValueError(f"X must be one sequence [T, {d}], got {tuple(X.shape)}")
    X = X.to(weights.W_Q.dtype)
    Q, K, V = (torch.einsum("td,hde->hte", X, W) for W in (weights.W_Q, weights.W_K, weights.W_V))
    if weights.rotation is not None:
        R = torch.stack([weights.rotation(p) for p in range(X.size(0))]).to(X)  # [T, d_h, d_h]
        Q, K = torch.einsum("hte,tef->htf", Q, R), torch.einsum("hte,tef->htf", K, R)
    T = X.size(0)
    future = torch.ones(T, T, dtype=torch.bool, device=X.device).triu(1)
    scores = (Q @ K.mT / math.sqrt(Q.size(-1))).masked_fill(future, float("-inf"))
    return torch.einsum("hte,hed->td", scores.softmax(-1) @ V, weights.W_O)


def _rms(X: Tensor, eps: float) -> Tensor:
    """X / √(mean(X²) + ε) row by row: RMSNorm with γ = 1."""
    return X * torch.rsqrt(X.pow(2).mean(-1, keepdim=True) + eps)


def attention_sublayer(model: Model, layer: int, X: Tensor, form: str, eps: float) -> Tensor:
    """One attention sub-layer of ``model``'s ``layer`` on one sequence X ``[T, d]``, in one of two forms:

        "pre-norm":  X + MHATT(X / √(mean(X²) + ε))       (Llama: the model's own h' = h + Attn(RMS_1(h)))
        "recap":     RMS(X + MHATT(X)),  γ = 1              (lecture 004's block: the norm after the sum)

    with MHATT the layer's attention (``mhatt``: RMS_1's gain γ folded into W_Q, W_K, W_V). Exact for
    attention without biases (the Llama family); GPT-2's biases and LayerNorm's centring are not in
    ``HeadWeights``. ``eps`` is the model's ε (``rms_norm_eps``)."""
    lm = causal(model, "the attention sub-layer")
    X = _checks.tensor("X", X)
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    eps = _checks.positive("eps", eps)
    weights = lm.model.head_weights(_checks.integer("layer", layer, 0, lm.n_layer - 1))
    if form == "pre-norm":
        return X + mhatt(weights, _rms(X, eps))
    return _rms(X + mhatt(weights, X), eps)


@torch.no_grad()
def layer0_scores(model: Model, a: int, b: int, head: int, T: int) -> Tensor:
    """S ``[T, T]``: S[i, j] = q_a(i) · k_b(j) / √d_h, the layer-0 score of head ``head`` for token a as
    the query at position i and token b as the key at position j. At layer 0 a token's query and key
    depend only on that token and its position, so two passes give all T² pairs: a repeated T times
    (queries) and b repeated T times (keys), read from the ``q`` and ``k`` hooks (RoPE's after the
    rotation). Query head h reads key/value head h // (H / H_kv)."""
    lm = causal(model, "layer-0 scores")
    _checks.integer("head", head, 0, lm.n_head - 1)
    T = _checks.integer("T", T, 1, lm.n_ctx)
    for name, token in (("a", a), ("b", b)):
        _checks.integer(name, token, 0, lm.vocab_size - 1)
    q = lm.run_with_cache(torch.full((1, T), a, device=lm.device))[1]["q", 0][0, head]  # [T, d_h]
    kv_head = head // (lm.n_head // lm.sizes.n_kv_head)
    k = lm.run_with_cache(torch.full((1, T), b, device=lm.device))[1]["k", 0][0, kv_head]  # [T, d_h]
    return q @ k.T / math.sqrt(q.size(-1))


def diagonal_spread(S: Tensor) -> float:
    """max over offsets δ = 0..T−1 of (max − min) of S[i, i − δ] along the diagonal: 0 when S[i, j] is a
    function of i − j alone (a Toeplitz matrix), which RoPE's scores are (up to rounding)."""
    S = _checks.tensor("S", S)
    if S.dim() != 2 or S.size(0) != S.size(1) or S.size(0) < 1:
        raise ValueError(f"S must be a square matrix [T, T], got {tuple(S.shape)}")
    diagonals = [S.diagonal(-delta) for delta in range(S.size(0))]
    return max(float(v.max() - v.min()) for v in diagonals)


def llama_d_mlp(d: int, multiple: int = 256) -> int:
    """Llama's MLP width: m ⌈(2/3)·4d / m⌉ for m = ``multiple``, so that SwiGLU's three matrices hold
    about (at least) the weights of GPT-2's two at 4d."""
    d, m = _checks.integer("d", d, 1), _checks.integer("multiple", multiple, 1)
    return m * -(-8 * d // (3 * m))  # ⌈8d / 3m⌉ in integers


def mlp_parameters(d: int, d_mlp: int, gated: bool, bias: bool) -> int:
    """Parameters of one MLP of width d → d_mlp → d: 2·d·d_mlp weights (GELU) or 3·d·d_mlp (``gated``,
    SwiGLU), plus, with ``bias``, d_mlp + d (GELU) or 2·d_mlp + d (SwiGLU)."""
    d, d_mlp = _checks.integer("d", d, 1), _checks.integer("d_mlp", d_mlp, 1)
    if not isinstance(gated, bool) or not isinstance(bias, bool):
        raise TypeError(f"gated and bias must be True or False, got {gated!r} and {bias!r}")
    matrices = 3 if gated else 2
    return matrices * d * d_mlp + bias * ((matrices - 1) * d_mlp + d)


def swiglu(u: Tensor, W_gate: Tensor, W_up: Tensor, W_down: Tensor) -> Tensor:
    """SwiGLU(u) = W_down (SiLU(W_gate u) ⊙ W_up u), SiLU(x) = x σ(x) (Shazeer 2020; Llama's MLP without
    biases), for ``u`` ``[..., d]`` and the weights stored as ``torch.nn.Linear`` holds them, out × in:
    ``W_gate``, ``W_up`` ``[d_mlp, d]``, ``W_down`` ``[d, d_mlp]`` (so W u is ``u @ W.T``)."""
    u = _checks.tensor("u", u)
    for name, W in (("W_gate", W_gate), ("W_up", W_up), ("W_down", W_down)):
        _checks.tensor(name, W)
    if u.dim() < 1 or not u.is_floating_point():
        raise ValueError(f"u must be floating-point vectors [..., d], got {u.dtype} {tuple(u.shape)}")
    d, d_mlp = u.size(-1), W_gate.size(0) if W_gate.dim() == 2 else -1
    if W_gate.shape != (d_mlp, d) or W_up.shape != (d_mlp, d) or W_down.shape != (d, d_mlp):
        raise ValueError(
            f"W_gate and W_up must be [d_mlp, {d}] and W_down [{d}, d_mlp] (out × in, d the last dim of u), "
            f"got {tuple(W_gate.shape)}, {tuple(W_up.shape)}, {tuple(W_down.shape)}"
        )
    return (torch.nn.functional.silu(u @ W_gate.T) * (u @ W_up.T)) @ W_down.T


def llama_parameter_counts(config: LlamaConfig) -> dict[str, int]:
    """Parameters of a Llama-style model by part (V vocabulary, d width, L layers, H and H_kv heads of
    size d_h):

    token embeddings W_E: V d (also W_U when tied; else W_U: V d more)     no position embeddings (RoPE)
    per block: two RMSNorm gains 2d + W_Q d·H d_h + W_K, W_V 2·d·H_kv d_h + W_O H d_h·d
               (+ q, k, v biases H d_h + 2 H_kv d_h, + W_O's d) + SwiGLU (``mlp_parameters``)
    final RMSNorm: d
    """
    if not isinstance(config, LlamaConfig):
        raise TypeError(f"config must be a LlamaConfig, got {type(config).__name__}")
    c = config
    d, q_width, kv_width = c.n_embd, c.n_head * c.d_head, c.n_kv_head * c.d_head
    attention = d * q_width + 2 * d * kv_width + q_width * d
    attention += c.qkv_bias * (q_width + 2 * kv_width) + c.o_bias * d
    block = 2 * d + attention + mlp_parameters(d, c.d_mlp, gated=True, bias=c.mlp_bias)
    counts = {"token embeddings": c.vocab_size * d, "blocks": c.n_layer * block, "final norm": d}
    if not c.tie_word_embeddings:
        counts["unembedding W_U"] = c.vocab_size * d
    return counts | {"total": sum(counts.values())}


@torch.no_grad()
def decoded_cache(model: Model, input_ids: Sequence[int] | Tensor, max_new_tokens: int) -> KVCache:
    """The key/value cache after greedy decoding as lesson 05's decoders run it: the prompt in one pass
    through a ``KVCache``, then one token per step (x_{t+1} = argmax z_t). Holds T = P + n − 1 tokens
    (the last chosen token is not read); the text must fit the context."""
    lm = causal(model, "decoding")
    net: CausalLM = lm.model
    ids = net.check_input_ids(input_ids)
    if ids.size(0) != 1:
        raise ValueError(f"input_ids must be one prompt, [T] or [1, T], got shape {tuple(ids.shape)}")
    n = _checks.integer("max_new_tokens", max_new_tokens, 1, lm.n_ctx - ids.size(1) + 1)
    cache = KVCache()
    logits = net(ids, kv_cache=cache)
    for _ in range(n - 1):
        logits = net(logits[:, -1].argmax(-1, keepdim=True), kv_cache=cache)
    return cache


def cache_bytes(cache: KVCache) -> int:
    """Bytes of the key and value tensors a ``KVCache`` holds, summed over its layers."""
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache, got {type(cache).__name__}")
    tensors = [*cache.keys.values(), *cache.values.values()]
    return sum(t.numel() * t.element_size() for t in tensors)
