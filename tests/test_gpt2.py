"""Our GPT-2 against Hugging Face's (eager attention): logits, attention and greedy text."""

import pytest
import torch
import transformers
from conftest import random_hf_gpt2
from huggingface_hub import try_to_load_from_cache

import xai_tf
from xai_tf.models import CONFIGS, GPT2, GPT2Config, KVCache
from xai_tf.models.gpt2 import HOOK_POINTS
from xai_tf.transformer.decoding import greedy

SIZES = [
    dict(n_embd=64, n_layer=2, n_head=4),
    dict(n_embd=96, n_layer=3, n_head=3),  # odd head count
    dict(n_embd=120, n_layer=2, n_head=5),  # width not a power of two, head size 24
]


def _pair(seed: int, **sizes) -> tuple[transformers.GPT2LMHeadModel, GPT2]:
    hf = random_hf_gpt2(seed, vocab_size=1000, n_positions=64, **sizes)
    return hf, GPT2.from_hf(hf)


@pytest.mark.parametrize("sizes", SIZES)
def test_logits_and_attention_match_hugging_face(sizes):
    hf, ours = _pair(1, **sizes)
    ids = torch.randint(0, 1000, (3, 50), generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        ref = hf(ids, output_attentions=True)
        fused = ours(ids)
        logits, cache = ours.run_with_cache(ids)
    assert fused.shape == (3, 50, 1000)
    assert (fused - ref.logits).abs().max() <= 1e-4
    assert (logits - ref.logits).abs().max() <= 1e-4
    for layer, attn in enumerate(ref.attentions):
        assert cache["attn", layer].shape == (3, sizes["n_head"], 50, 50)
        assert (cache["attn", layer] - attn).abs().max() <= 1e-5


@pytest.mark.parametrize("sizes", SIZES)
def test_greedy_continuation_matches_hugging_face(sizes):
    hf, ours = _pair(3, **sizes)
    prompt = [5, 17, 256, 999, 3]
    ref = hf.generate(
        torch.tensor([prompt]), max_new_tokens=20, do_sample=False, pad_token_id=0, eos_token_id=None
    )[0].tolist()
    assert greedy(ours, prompt, 20) == ref
    assert len(ref) == 25


def test_cache_has_every_hook_point_with_its_shape():
    _, ours = _pair(0, **SIZES[1])
    with torch.no_grad():
        _, cache = ours.run_with_cache(torch.arange(7))
    assert set(cache) == {(name, layer) for name in HOOK_POINTS for layer in range(3)}
    assert cache["resid_pre", 0].shape == (1, 7, 96)
    assert cache["mlp_post", 2].shape == (1, 7, 384)
    assert cache["q", 1].shape == (1, 3, 7, 32)
    attn = cache.stack("attn")
    assert attn.shape == (3, 1, 3, 7, 7)
    torch.testing.assert_close(attn.sum(-1), torch.ones(3, 1, 3, 7))
    assert (attn.triu(1) == 0).all()  # no token looks into the future
    # the residual stream is the running sum of what each block adds
    torch.testing.assert_close(
        cache["resid_post", 1], cache["resid_pre", 1] + cache["attn_out", 1] + cache["mlp_out", 1]
    )
    with pytest.raises(KeyError, match="names are"):
        cache["nope", 0]


def test_hook_replaces_an_activation():
    hf, ours = _pair(4, **SIZES[0])
    ids = torch.arange(10)
    # Zeroing layer 1's MLP activations is the same as zeroing its output weights
    # (the MLP then adds only its output bias): check against a Hugging Face copy edited that way.
    with torch.no_grad():
        hf.transformer.h[1].mlp.c_proj.weight.zero_()
        ref = hf(ids[None]).logits
        hooked = ours(ids, hooks={("mlp_post", 1): torch.zeros_like})
        plain = ours(ids)
    assert (hooked - ref).abs().max() <= 1e-4
    assert (plain - ref).abs().max() > 1e-3  # the hook changed something


def test_attention_hook_is_applied_and_cached():
    hf, ours = _pair(5, **SIZES[0])
    ids = torch.arange(10)
    # Zero attention probabilities make the layer add only c_proj's bias, like zeroed c_proj weights.
    with torch.no_grad():
        hf.transformer.h[0].attn.c_proj.weight.zero_()
        ref = hf(ids[None]).logits
        logits, cache = ours.run_with_cache(ids, hooks={("attn", 0): torch.zeros_like})
        hooked = ours(ids, hooks={("attn", 0): torch.zeros_like})
    assert (cache["attn", 0] == 0).all()  # the cache holds the replaced value
    assert (logits - ref).abs().max() <= 1e-4
    assert (hooked - ref).abs().max() <= 1e-4


def test_hook_errors_are_clear():
    _, ours = _pair(0, **SIZES[0])
    with pytest.raises(ValueError, match="unknown hook point 'mlp'"):
        ours(torch.arange(4), hooks={("mlp", 0): lambda x: x})
    with pytest.raises(ValueError, match=r"returned \(1, 4\), expected shape \(1, 4, 256\)"):
        ours(torch.arange(4), hooks={("mlp_post", 0): lambda x: x[..., 0]})


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        ([], "empty"),
        (list(range(65)), "65 tokens but the context holds 1..64"),
        ([1, 1000], r"0\.\.999"),
        ([-1], r"0\.\.999"),
        (torch.ones(3), "integer token ids"),
        (torch.ones(1, 2, 3, dtype=torch.long), "integer token ids"),
    ],
)
def test_bad_input_ids(ids, message):
    _, ours = _pair(0, **SIZES[0])
    with pytest.raises(ValueError, match=message):
        ours(ids)


def test_configs_are_the_released_sizes():
    counts = {
        name: sum(p.numel() for p in GPT2(GPT2Config(**{**c.to_dict(), "vocab_size": 8})).parameters())
        for name, c in CONFIGS.items()
        if name == "gpt2"
    }
    # GPT-2 small: 124,439,808 parameters, of which 50257 × 768 are the token embedding
    assert counts["gpt2"] + (50257 - 8) * 768 == 124_439_808
    with pytest.raises(ValueError, match="divisible"):
        GPT2Config(n_embd=100, n_head=3)


def test_weights_that_do_not_fit_are_refused():
    hf = random_hf_gpt2(0, vocab_size=1000, n_positions=64, **SIZES[0])
    with pytest.raises(ValueError, match="do not fit"):
        GPT2.from_state_dict(
            GPT2Config(vocab_size=1000, n_ctx=64, n_embd=64, n_layer=3, n_head=4),
            hf.state_dict(),
            hf_layout=True,
        )


# Options of a Hugging Face GPT-2 config that change the function, each supported. The weights are
# drawn at 5× GPT-2's scale (initializer_range=0.1) so that ignoring an option moves the logits far
# beyond the tolerance (the two GELUs by ~1e-3, the others by 0.3 to 6).
HF_OPTIONS = {
    "exact-gelu": dict(activation_function="gelu"),
    "pytorch-tanh-gelu": dict(activation_function="gelu_pytorch_tanh"),
    "untied-lm-head": dict(tie_word_embeddings=False),
    "unscaled-attention": dict(scale_attn_weights=False),
    # Stanford CRFM's GPT-2s set both; the reordering and upcasting change nothing in float32
    "inverse-layer-scale": dict(scale_attn_by_inverse_layer_idx=True, reorder_and_upcast_attn=True),
}


@pytest.mark.parametrize("options", HF_OPTIONS.values(), ids=HF_OPTIONS)
def test_hugging_face_options_match(options):
    hf = random_hf_gpt2(6, vocab_size=1000, n_positions=64, initializer_range=0.1, **SIZES[1], **options)
    ours = GPT2.from_hf(hf)
    ids = torch.randint(0, 1000, (3, 50), generator=torch.Generator().manual_seed(7))
    cache = KVCache()
    with torch.no_grad():
        ref = hf(ids, output_attentions=True)
        fused = ours(ids)
        logits, acts = ours.run_with_cache(ids)
        stepped = torch.cat([ours(ids[:, :30], kv_cache=cache), ours(ids[:, 30:], kv_cache=cache)], 1)
    for ours_logits in (fused, logits, stepped):
        assert (ours_logits - ref.logits).abs().max() <= 1e-4
    for layer, attn in enumerate(ref.attentions):
        assert (acts["attn", layer] - attn).abs().max() <= 1e-5
    prompt = [5, 17, 256, 999, 3]
    ref_ids = hf.generate(
        torch.tensor([prompt]), max_new_tokens=20, do_sample=False, pad_token_id=0, eos_token_id=None
    )[0].tolist()
    assert greedy(ours, prompt, 20) == ref_ids


def test_untied_lm_head_is_the_unembedding():
    hf = random_hf_gpt2(6, vocab_size=1000, n_positions=64, tie_word_embeddings=False, **SIZES[0])
    ours = GPT2.from_hf(hf)
    assert torch.equal(ours.unembedding, hf.lm_head.weight)
    assert not torch.equal(ours.unembedding, ours.wte.weight)
    tied = GPT2.from_hf(random_hf_gpt2(6, vocab_size=1000, n_positions=64, **SIZES[0]))
    assert tied.unembedding is tied.wte.weight and not hasattr(tied, "lm_head")


REFUSED_OPTIONS = {
    "relu": (dict(activation_function="relu"), "activation_function 'relu' is not supported: use 'gelu_new'"),
    "quick-gelu": (
        dict(activation_function="quick_gelu"),
        "activation_function 'quick_gelu' is not supported",
    ),
    "n-inner": (dict(n_inner=100), r"n_inner 100 is not supported: use 256 \(4 · n_embd\) or None"),
    "cross-attention": (
        dict(add_cross_attention=True),
        "add_cross_attention True is not supported: use False",
    ),
}


@pytest.mark.parametrize(("options", "message"), REFUSED_OPTIONS.values(), ids=REFUSED_OPTIONS)
def test_unsupported_hugging_face_options_are_refused(options, message):
    hf = random_hf_gpt2(0, vocab_size=1000, n_positions=64, **SIZES[0], **options)
    with pytest.raises(ValueError, match=message):
        GPT2.from_hf(hf)


def test_a_real_config_json_uses_the_hugging_face_defaults():
    # openai-community/gpt2's config.json names no GELU approximation, tying or attention scaling
    config_json = {
        "activation_function": "gelu_new",
        "model_type": "gpt2",
        "n_ctx": 1024,
        "n_embd": 768,
        "n_head": 12,
        "n_layer": 12,
        "n_positions": 1024,
        "layer_norm_epsilon": 1e-05,
        "vocab_size": 50257,
    }
    assert GPT2Config.from_hf(config_json) == CONFIGS["gpt2"]
    assert GPT2Config.from_hf({**config_json, "n_inner": 3072}) == CONFIGS["gpt2"]
    del config_json["activation_function"]
    assert GPT2Config.from_hf(config_json) == CONFIGS["gpt2"]
    with pytest.raises(ValueError, match="gelu 'erf' is not supported: use 'tanh' or 'none'"):
        GPT2Config(gelu="erf")


GPT2_ON_DISK = isinstance(try_to_load_from_cache("openai-community/gpt2", "model.safetensors"), str)


@pytest.mark.skipif(not GPT2_ON_DISK, reason="GPT-2 small is not in the Hugging Face cache")
def test_real_gpt2_small_matches_hugging_face():
    lm = xai_tf.load_model("gpt2")
    hf = transformers.GPT2LMHeadModel.from_pretrained(
        "openai-community/gpt2", attn_implementation="eager"
    ).eval()
    ids = lm.encode("The quick brown fox jumps over the lazy dog because")
    with torch.no_grad():
        ref = hf(torch.tensor([ids]), output_attentions=True)
        logits, cache = lm.model.run_with_cache(ids)
    assert (logits - ref.logits).abs().max() <= 1e-4
    assert max((cache["attn", i] - a).abs().max() for i, a in enumerate(ref.attentions)) <= 1e-5
    ref_ids = hf.generate(torch.tensor([ids]), max_new_tokens=20, do_sample=False, pad_token_id=50256)[
        0
    ].tolist()
    assert greedy(lm.model, ids, 20) == ref_ids
