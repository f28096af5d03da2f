"""Our Llama (``models/llama.py``) against Hugging Face's Llama, Mistral and Qwen2 (eager attention): logits,
hidden states, attention, the key/value cache, checkpoint directories (``models/checkpoints.py``, through
``xai_tf.load_model``; their tokenizers and refusals in ``test_load_directory.py``) and the configs refused
by name."""

import json

import pytest
import torch
import transformers
from conftest import random_hf_gpt2, save_word_tokenizer

import xai_tf
from xai_tf.models import GPT2, KVCache
from xai_tf.models.architecture import Architecture
from xai_tf.models.gpt2 import HOOK_POINTS as GPT2_POINTS
from xai_tf.models.llama import HOOK_POINTS, Llama, LlamaConfig
from xai_tf.models.rope import rotary

V, D, H, L, T = 97, 32, 4, 2, 20  # vocabulary, width, query heads, layers, tokens
FAMILIES = {
    "llama": transformers.LlamaConfig,
    "mistral": transformers.MistralConfig,
    "qwen2": transformers.Qwen2Config,
}
CAUSAL_LMS = {
    "llama": transformers.LlamaForCausalLM,
    "mistral": transformers.MistralForCausalLM,
    "qwen2": transformers.Qwen2ForCausalLM,
}


def _hf(
    seed: int, family: str = "llama", dtype: torch.dtype = torch.float32, **options
) -> transformers.PreTrainedModel:
    """A random tiny causal LM of ``family``, weights at 10× the usual scale so that any wrong step moves
    the logits far beyond the tolerance."""
    torch.manual_seed(seed)
    sizes = dict(
        vocab_size=V, hidden_size=D, intermediate_size=48, num_hidden_layers=L, num_attention_heads=H
    )
    config = FAMILIES[family](
        **sizes, max_position_embeddings=64, initializer_range=0.2, attn_implementation="eager", **options
    )
    return CAUSAL_LMS[family](config).eval().to(dtype)


def _ids(seed: int = 1) -> torch.Tensor:
    return torch.randint(0, V, (2, T), generator=torch.Generator().manual_seed(seed))


def _loaded_module(directory) -> torch.nn.Module:
    """The module ``xai_tf.load_model`` reads from ``directory``, given a tokenizer of V words."""
    save_word_tokenizer(directory, V)
    return xai_tf.load_model(directory).model


def _max_error(ours: Llama, hf: transformers.PreTrainedModel) -> float:
    ids = _ids()
    with torch.no_grad():
        return (ours(ids) - hf(ids).logits).abs().max().item()


PARITY = [
    (kv, tied, dtype)
    for kv in (1, 2, H)
    for tied in (False, True)
    for dtype in (torch.float32, torch.float64)
]


@pytest.mark.parametrize(
    ("n_kv", "tied", "dtype"), PARITY, ids=[f"kv{k}-{'tied' if t else 'untied'}-{d}" for k, t, d in PARITY]
)
def test_logits_hidden_states_and_attention_match_hugging_face(n_kv, tied, dtype):
    hf = _hf(2, num_key_value_heads=n_kv, tie_word_embeddings=tied, rope_theta=500.0, dtype=dtype)
    ours = Llama.from_hf(hf)
    ids = _ids()
    with torch.no_grad():
        ref = hf(ids, output_hidden_states=True, output_attentions=True)
        logits, cache = ours.run_with_cache(ids)
        plain = ours(ids)
    assert logits.dtype == dtype and logits.shape == (2, T, V)
    assert (logits - ref.logits).abs().max() <= 1e-5
    assert (ref.logits - ref.logits.mean()).abs().max() > 1  # far from a constant: the bound means something
    torch.testing.assert_close(plain, logits, rtol=0, atol=0)
    # Hugging Face's hidden states: each layer's input, then the final RMSNorm of the last layer's output
    for layer in range(L):
        assert (cache["resid_pre", layer] - ref.hidden_states[layer]).abs().max() <= 1e-5
        assert (cache["attn", layer] - ref.attentions[layer]).abs().max() <= 1e-5
    assert (ours.norm(cache["resid_post", L - 1]) - ref.hidden_states[L]).abs().max() <= 1e-5
    assert cache["k", 0].shape == cache["v", 0].shape == (2, n_kv, T, D // H)
    assert cache["q", 0].shape == cache["z", 0].shape == (2, H, T, D // H)
    if tied:
        assert ours.unembedding is ours.embed_tokens.weight and not hasattr(ours, "lm_head")
    else:
        assert torch.equal(ours.unembedding, hf.lm_head.weight)


@pytest.mark.parametrize("n_kv", [1, 2, H])
def test_the_cache_decoding_token_by_token_equals_a_full_forward(n_kv):
    hf = _hf(3, num_key_value_heads=n_kv)
    ours = Llama.from_hf(hf)
    ids, cache, halves = _ids(4), KVCache(), KVCache()
    with torch.no_grad():
        full = ours(ids)
        stepped = torch.cat([ours(ids[:, i : i + 1], kv_cache=cache) for i in range(T)], dim=1)
        two = torch.cat([ours(ids[:, :7], kv_cache=halves), ours(ids[:, 7:], kv_cache=halves)], dim=1)
    assert (stepped - full).abs().max() <= 1e-5 and (two - full).abs().max() <= 1e-5
    assert cache.keys[0].shape == (2, n_kv, T, D // H)  # only the key/value heads are stored
    with pytest.raises(ValueError, match="45 tokens after 20 cached ones but the context holds 1..64"):
        ours(torch.zeros(2, 45, dtype=torch.long), kv_cache=cache)


def test_q_and_k_are_hooked_after_the_rotation():
    ours = Llama.from_hf(_hf(5))
    with torch.no_grad():
        _, cache = ours.run_with_cache(_ids())
    scores = cache["q", 1] @ cache["k", 1].transpose(-2, -1) / (D // H) ** 0.5  # H_kv = H here
    causal = torch.ones(T, T, dtype=torch.bool).triu(1)
    torch.testing.assert_close(cache["attn", 1], scores.masked_fill(causal, float("-inf")).softmax(-1))
    torch.testing.assert_close(
        cache["resid_post", 0], cache["resid_pre", 0] + cache["attn_out", 0] + cache["mlp_out", 0]
    )


def test_hooks_replace_activations():
    hf = _hf(6)
    ours = Llama.from_hf(hf)
    ids = _ids()
    with torch.no_grad():
        hf.model.layers[1].mlp.down_proj.weight.zero_()  # zeroed MLP activations = zeroed W_down
        ref = hf(ids).logits
        hooked = ours(ids, hooks={("mlp_post", 1): torch.zeros_like})
    assert (hooked - ref).abs().max() <= 1e-5 and (ours(ids) - ref).abs().max() > 1e-2
    assert list(HOOK_POINTS) == list(GPT2_POINTS) and isinstance(ours, Architecture)


@pytest.mark.parametrize(
    ("family", "options"),
    [
        ("mistral", dict(num_key_value_heads=2, sliding_window=None)),
        ("qwen2", dict(num_key_value_heads=2)),  # q, k, v with biases
        ("llama", dict(num_key_value_heads=1, attention_bias=True, mlp_bias=True, head_dim=16)),
    ],
)
def test_families_load_from_a_sharded_checkpoint_directory(tmp_path, family, options):
    hf = _hf(7, family, **options)
    for name, p in hf.named_parameters():
        if name.endswith("bias"):  # Hugging Face starts biases at zero: draw them so that they count
            torch.nn.init.normal_(p, std=0.5)
    hf.save_pretrained(tmp_path, safe_serialization=True, max_shard_size="20KB")
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    assert len(set(index["weight_map"].values())) > 1
    assert not list(tmp_path.glob("*.bin"))
    ours = _loaded_module(tmp_path)
    assert isinstance(ours, Llama)
    assert _max_error(ours, hf) <= 1e-5


def test_an_unsharded_checkpoint_loads(tmp_path):
    hf = _hf(8, tie_word_embeddings=True)
    hf.save_pretrained(tmp_path, safe_serialization=True)
    assert (tmp_path / "model.safetensors").is_file()
    assert _max_error(_loaded_module(tmp_path), hf) <= 1e-5


def _refused(family: str, message: str, **options) -> tuple:
    return (family, options, message)


REFUSED = [
    _refused(
        "llama",
        "rope_parameters type 'linear' is not supported",
        rope_parameters=dict(rope_type="linear", rope_theta=1e4, factor=2.0),
    ),
    _refused("llama", "hidden_act 'gelu' is not supported: use 'silu'", hidden_act="gelu"),
    _refused("llama", "attention_dropout 0.1 is not supported: use 0.0", attention_dropout=0.1),
    _refused("mistral", "sliding_window 8 is not supported: use None", sliding_window=8),
    _refused(
        "qwen2",
        "sliding_window 8 is not supported",
        use_sliding_window=True,
        sliding_window=8,
        max_window_layers=0,
    ),
    _refused("qwen2", "n_kv_head=3 must divide n_head=4", num_key_value_heads=3),
]


@pytest.mark.parametrize(("family", "options", "message"), REFUSED, ids=[r[2][:24] for r in REFUSED])
def test_configs_not_run_here_are_refused_by_name(family, options, message):
    torch.manual_seed(0)
    sizes = dict(
        vocab_size=V, hidden_size=D, intermediate_size=48, num_hidden_layers=L, num_attention_heads=H
    )
    config = FAMILIES[family](**sizes, max_position_embeddings=64, **options).to_dict()
    with pytest.raises(ValueError, match=message):
        LlamaConfig.from_hf(config)


def test_older_config_files_name_rope_theta_and_rope_scaling_at_the_top_level():
    old = dict(vocab_size=V, hidden_size=D, intermediate_size=48, num_hidden_layers=L, num_attention_heads=H)
    old |= dict(max_position_embeddings=64, rope_theta=5e5, rope_scaling=None)
    assert LlamaConfig.from_hf(old).rope_theta == 5e5
    with pytest.raises(ValueError, match="rope_scaling type 'llama3' is not supported"):
        LlamaConfig.from_hf(old | dict(rope_scaling=dict(rope_type="llama3", factor=8.0)))
    # issue 58 item 6: beside rope_parameters "default", Hugging Face reads rope_scaling (and scales)
    both = dict(
        rope_parameters=dict(rope_type="default", rope_theta=1e4),
        rope_scaling=dict(type="linear", factor=4.0),
    )
    with pytest.raises(ValueError, match="rope_scaling type 'linear' is not supported"):
        LlamaConfig.from_hf(old | both)


def test_rotary_scores_depend_only_on_the_offset():
    """The angles are float32 (as Hugging Face computes them) whatever the dtype of q and k, so the
    scores at one offset agree to float32's precision, not float64's (seeded: the draw once depended on
    the tests run before)."""
    q, k = torch.randn(2, 1, 1, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0)).unbind(0)
    at = [torch.tensor([p]) for p in range(12)]

    def score(i: int, j: int) -> torch.Tensor:
        return (rotary(q, at[i], 100.0) * rotary(k, at[j], 100.0)).sum()

    torch.testing.assert_close(score(3, 7), score(0, 4), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(score(9, 2), score(7, 0), rtol=1e-5, atol=1e-6)
    assert (score(3, 7) - score(3, 8)).abs() > 1e-3  # another offset, another score


def test_the_table_loads_a_gpt2_directory_too(tmp_path):
    hf = random_hf_gpt2(0, vocab_size=V, n_positions=32, n_embd=16, n_layer=2, n_head=2)
    hf.save_pretrained(tmp_path, safe_serialization=True)
    ours = _loaded_module(tmp_path)
    ids = _ids()
    assert isinstance(ours, GPT2)
    with torch.no_grad():
        assert (ours(ids) - hf(ids).logits).abs().max() <= 1e-4  # test_gpt2.py's bound
