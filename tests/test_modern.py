"""From GPT-2 to today's block (``transformer/modern.py``, lesson 04 §11) against independent references:
torch's and transformers' RMSNorm, transformers' own Llama attention and rotary embedding
(``apply_rotary_pos_emb``) and GPT-2, parameter counts of transformers' models, and the key/value tensors
transformers' cache holds."""

import math

import pytest
import torch
import torch.nn.functional as F
import transformers
from conftest import random_hf_gpt2
from transformers.models.llama import modeling_llama

from xai_tf.models import GPT2, LoadedModel
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.transformer import modern

V, D, H, T = 61, 32, 4, 10


def _hf_llama(n_kv: int = 2, seed: int = 0, **options) -> transformers.LlamaForCausalLM:
    """A random tiny transformers Llama, weights at 10× the usual scale so wrong steps show."""
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=V,
        hidden_size=D,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=H,
        num_key_value_heads=n_kv,
        max_position_embeddings=32,
        initializer_range=0.2,
        rope_theta=100.0,
        attn_implementation="eager",
        **options,
    )
    return transformers.LlamaForCausalLM(config).eval()


def _ours(hf: transformers.PreTrainedModel) -> LoadedModel:
    return LoadedModel(Llama.from_hf(hf), None, "tiny-llama")


def _X(seed: int = 3) -> torch.Tensor:
    return torch.randn(T, D, generator=torch.Generator().manual_seed(seed)) * 2 + 0.5


def test_rms_norm_is_layer_norm_without_centring_and_bias():
    """LN_{γ,β}(u) = RMS_γ(u − μ) + β, with torch's LayerNorm and RMSNorm and transformers' LlamaRMSNorm."""
    u, gamma, beta = _X(), torch.rand(D) + 0.5, torch.randn(D)
    rms = torch.nn.RMSNorm(D, eps=1e-5)
    hf = modeling_llama.LlamaRMSNorm(D, eps=1e-5)
    with torch.no_grad():
        rms.weight.copy_(gamma)
        hf.weight.copy_(gamma)
        centred = u - u.mean(-1, keepdim=True)
        torch.testing.assert_close(rms(centred) + beta, F.layer_norm(u, (D,), gamma, beta, 1e-5))
        torch.testing.assert_close(hf(centred) + beta, F.layer_norm(u, (D,), gamma, beta, 1e-5))
        assert (rms(u) - F.layer_norm(u, (D,), gamma, torch.zeros(D), 1e-5)).abs().max() > 0.1


def test_centring_share_is_the_mean_squared_over_the_mean_square():
    """u = c·1 + v with v centred of mean square s: share = c² / (c² + s), and u = c·1 gives 1."""
    v = _X()
    v = v - v.mean(-1, keepdim=True)
    s = v.pow(2).mean(-1)
    for c in (0.0, 0.3, -2.0):
        torch.testing.assert_close(modern.centring_share(c + v), c**2 / (c**2 + s))
    torch.testing.assert_close(modern.centring_share(torch.full((2, D), -3.0)), torch.ones(2))


@pytest.mark.parametrize("n_kv", [1, 2, H])
def test_the_pre_norm_sublayer_is_the_models_own(n_kv):
    """X + MHATT(RMS(X)) with RMS_1's gain folded in is layer 1's h' = h + Attn(RMS_1(h)) (our Llama,
    equal to transformers' in test_llama.py), given h = resid_pre."""
    hf = _hf_llama(n_kv)
    lm = _ours(hf)
    ids = torch.randint(0, V, (1, T), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        _, cache = lm.run_with_cache(ids)
        ours = modern.attention_sublayer(lm, 1, cache["resid_pre", 1][0], "pre-norm", hf.config.rms_norm_eps)
    torch.testing.assert_close(ours, cache["resid_mid", 1][0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("n_kv", [1, 2, H])
def test_the_recap_block_against_transformers_attention(n_kv):
    """RMS(X + MHATT(X)) with transformers' LlamaAttention (its rotary embedding, eager attention, the
    causal mask) applied to γ ⊙ X, and LlamaRMSNorm of gain 1."""
    hf = _hf_llama(n_kv)
    layer, X = hf.model.layers[0], _X()
    positions = torch.arange(T)[None]
    mask = torch.full((T, T), float("-inf")).triu(1)[None, None]
    norm = modeling_llama.LlamaRMSNorm(D, eps=hf.config.rms_norm_eps)
    with torch.no_grad():
        cos_sin = hf.model.rotary_emb(X[None], positions)
        attn, _ = layer.self_attn(layer.input_layernorm.weight * X[None], cos_sin, attention_mask=mask)
        expected = norm(X[None] + attn)[0]
        ours = modern.attention_sublayer(_ours(hf), 0, X, "recap", hf.config.rms_norm_eps)
    torch.testing.assert_close(ours, expected, atol=1e-5, rtol=1e-5)
    assert (ours - modern.attention_sublayer(_ours(hf), 0, X, "pre-norm", 1e-6)).abs().max() > 0.1


def test_layer0_scores_under_rope_against_apply_rotary_pos_emb_and_depend_on_the_offset_only():
    """S[i, j] = R_i q_a · R_j k_b / √d_h from transformers' rotary embedding on RMS_1(W_E[a]),
    RMS_1(W_E[b]); a function of i − j (every diagonal constant) though not of the position pair alone."""
    hf, a, b, head = _hf_llama(2), 5, 17, 3
    layer, d_h = hf.model.layers[0], D // H
    with torch.no_grad():
        x = layer.input_layernorm(hf.model.embed_tokens.weight[[a, b]])  # [2, D]
        q = layer.self_attn.q_proj(x[0]).view(H, d_h)[head].expand(1, 1, T, d_h)
        k = layer.self_attn.k_proj(x[1]).view(2, d_h)[head // 2].expand(1, 1, T, d_h)
        cos, sin = hf.model.rotary_emb(q, torch.arange(T)[None])
        q_rot, k_rot = modeling_llama.apply_rotary_pos_emb(q, k, cos, sin)
        expected = q_rot[0, 0] @ k_rot[0, 0].T / math.sqrt(d_h)
        S = modern.layer0_scores(_ours(hf), a, b, head, T)
    torch.testing.assert_close(S, expected, atol=1e-5, rtol=1e-5)
    assert modern.diagonal_spread(S) < 1e-5 * S.abs().max()
    assert (S.diagonal(-1)[0] - S[0, 0]).abs() > 0.01 * S.abs().max()  # the offset does matter


def test_layer0_scores_of_gpt2_depend_on_both_positions():
    """GPT-2's S[i, j] = q(LN_1(W_E[a] + W_P[i])) · k(LN_1(W_E[b] + W_P[j])) / √d_h with transformers'
    own GPT-2 modules; its diagonals are not constant."""
    hf = random_hf_gpt2(0, vocab_size=V, n_positions=32, n_embd=D, n_layer=2, n_head=H)
    a, b, head, d_h = 5, 17, 1, D // H
    block, wte, wpe = hf.transformer.h[0], hf.transformer.wte.weight, hf.transformer.wpe.weight[:T]
    with torch.no_grad():
        q = block.attn.c_attn(block.ln_1(wte[a] + wpe))[:, :D].view(T, H, d_h)[:, head]
        k = block.attn.c_attn(block.ln_1(wte[b] + wpe))[:, D : 2 * D].view(T, H, d_h)[:, head]
        S = modern.layer0_scores(GPT2.from_hf(hf), a, b, head, T)
    torch.testing.assert_close(S, q @ k.T / math.sqrt(d_h), atol=1e-5, rtol=1e-5)
    assert modern.diagonal_spread(S) > 0.1 * (S.max() - S.min())


def test_diagonal_spread_of_known_matrices():
    c = torch.randn(T)
    toeplitz = torch.stack([torch.stack([c[abs(i - j)] for j in range(T)]) for i in range(T)])
    assert modern.diagonal_spread(toeplitz) == 0.0
    bumped = toeplitz.clone()
    bumped[6, 2] += 0.75  # offset 4
    assert modern.diagonal_spread(bumped) == pytest.approx(0.75, abs=1e-6)


def test_llama_d_mlp_gives_llamas_published_widths():
    """LLaMA 7B and 13B as released (intermediate_size 11008 and 13824 at d = 4096, 5120) and 256 → 768."""
    assert [modern.llama_d_mlp(d) for d in (4096, 5120, 256)] == [11008, 13824, 768]


@pytest.mark.parametrize("bias", [False, True])
def test_mlp_parameters_against_transformers_mlps(bias):
    hf_gpt2 = random_hf_gpt2(0, vocab_size=V, n_positions=32, n_embd=D, n_layer=1, n_head=H, n_inner=48)
    n_gpt2 = sum(p.numel() for p in hf_gpt2.transformer.h[0].mlp.parameters())
    n_llama = sum(p.numel() for p in _hf_llama(mlp_bias=bias).model.layers[0].mlp.parameters())
    assert modern.mlp_parameters(D, 48, gated=False, bias=True) == n_gpt2
    assert modern.mlp_parameters(D, 48, gated=True, bias=bias) == n_llama


COUNTS = [
    (1, False, {}),
    (2, True, {}),
    (H, True, {"attention_bias": True, "mlp_bias": True}),
]


@pytest.mark.parametrize(("n_kv", "tied", "options"), COUNTS)
def test_llama_parameter_counts_against_transformers(n_kv, tied, options):
    hf = _hf_llama(n_kv, tie_word_embeddings=tied, **options)
    config = LlamaConfig.from_hf(hf.config.to_dict())
    assert modern.llama_parameter_counts(config)["total"] == hf.num_parameters()


@pytest.mark.parametrize("n_kv", [1, 2, H])
def test_the_decoded_cache_holds_what_transformers_cache_holds(n_kv):
    """P prompt tokens and n − 1 fed-back tokens: the cache's bytes equal kv_cache_bytes(P + n − 1) and
    the sum of the key and value tensors transformers' DynamicCache keeps for the same text."""
    hf = _hf_llama(n_kv)
    lm = _ours(hf)
    prompt, n = [3, 14, 15, 9, 26], 6
    cache = modern.decoded_cache(lm, prompt, n)
    text = torch.tensor([prompt + [0] * (n - 1)])
    with torch.no_grad():
        past = hf(text, use_cache=True).past_key_values
    hf_bytes = sum(t.numel() * t.element_size() for layer in past.layers for t in (layer.keys, layer.values))
    assert len(cache) == len(prompt) + n - 1
    assert modern.cache_bytes(cache) == lm.model.kv_cache_bytes(len(cache)) == hf_bytes
    assert hf_bytes == 2 * 2 * len(cache) * n_kv * (D // H) * 4  # 2 tensors × L × T × H_kv × d_h × float32


def test_gpt2_caches_every_head():
    lm = LoadedModel(
        GPT2.from_hf(random_hf_gpt2(0, vocab_size=V, n_positions=32, n_embd=D, n_layer=2, n_head=H)),
        None,
        "g",
    )
    cache = modern.decoded_cache(lm, [1, 2, 3], 4)
    assert modern.cache_bytes(cache) == 2 * 2 * 6 * H * (D // H) * 4 == lm.model.kv_cache_bytes(6)
