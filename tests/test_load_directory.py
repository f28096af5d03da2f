"""``xai_tf.load_model(directory)`` on Llama, Mistral and Qwen2 checkpoints saved by Hugging Face with a
tokenizer built by the ``tokenizers`` library (``models/checkpoints.py``, ``models/tokenizer_json.py``):
the same token ids as ``AutoTokenizer`` (the Llama family's beginning-of-sequence token first), the same
logits as the Hugging Face model, labels and baselines read through the tokenizer, the directories refused
by name, and ``XAI_TF_MODEL``."""

import json
import re
import shutil

import pytest
import torch
import transformers
from conftest import random_hf_gpt2, save_word_tokenizer
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

import xai_tf
from xai_tf.circuits.ioi import NAMES, ioi_pairs
from xai_tf.explain.attribution import named_baselines
from xai_tf.explain.wordlevel import words_of
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.models.tokenization import whole_characters

TEXT = "To be, or not to be: that is the questioning mind, Café"
CORPUS = [
    "To be, or not to be, that is the question:",
    "Whether 'tis nobler in the mind to suffer",
    "The slings and arrows of outrageous fortune,",
    "Or to take arms against a sea of troubles, Café",
]
SIZES = dict(hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4)


def _sentencepiece_style() -> Tokenizer:
    """A BPE in the layout of Llama 2's and Mistral's tokenizer.json: "▁" marks a space, <s> opens every
    text (ids <unk> 0, <s> 1, </s> 2: the Llama configs' defaults)."""
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
    tokenizer.decoder = decoders.Sequence(
        [decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)]
    )
    tokenizer.train_from_iterator(
        CORPUS, trainers.BpeTrainer(vocab_size=150, special_tokens=["<unk>", "<s>", "</s>"])
    )
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    return tokenizer


def _byte_level() -> Tokenizer:
    """A byte-level BPE in the layout of Qwen2's (and GPT-2's) tokenizer.json: no token added to a text."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"], initial_alphabet=alphabet)
    tokenizer.train_from_iterator(CORPUS, trainer)
    return tokenizer


FAMILIES = {
    "llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
    "mistral": (transformers.MistralConfig, transformers.MistralForCausalLM),
    "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM),
}
#: family, config options, tokenizer; the vocabularies have rows beyond the tokenizer's, as Qwen2's do
CASES = {
    "llama-kv1-untied": ("llama", dict(num_key_value_heads=1), _sentencepiece_style),
    "llama-kv2-tied": ("llama", dict(num_key_value_heads=2, tie_word_embeddings=True), _sentencepiece_style),
    "llama-kv4-untied": ("llama", dict(num_key_value_heads=4), _sentencepiece_style),
    "llama-kv4-tied": ("llama", dict(num_key_value_heads=4, tie_word_embeddings=True), _sentencepiece_style),
    "mistral-window-not-in-effect": (
        "mistral",
        dict(num_key_value_heads=2, sliding_window=64),
        _sentencepiece_style,
    ),
    "qwen2": ("qwen2", dict(num_key_value_heads=2, tie_word_embeddings=True, eos_token_id=0), _byte_level),
}


def _save(
    directory, family: str, options: dict, tokenizer: Tokenizer, seed: int = 0
) -> transformers.PreTrainedModel:
    """A random tiny causal LM of ``family`` and ``tokenizer`` saved in ``directory`` as Hugging Face saves
    them (safetensors; tokenizer.json with tokenizer_config.json); weights at 10× the usual scale, so that
    a wrong step moves the logits far beyond the tolerance."""
    config_class, model_class = FAMILIES[family]
    vocab = 320 if tokenizer.get_vocab_size() > 150 else 160
    config = config_class(
        vocab_size=vocab,
        max_position_embeddings=64,
        initializer_range=0.2,
        attn_implementation="eager",
        **SIZES,
        **options,
    )
    torch.manual_seed(seed)
    hf = model_class(config).eval()
    for name, p in hf.named_parameters():
        if name.endswith("bias"):  # Hugging Face starts biases at zero: draw them so that they count
            torch.nn.init.normal_(p, std=0.5)
    hf.save_pretrained(directory, safe_serialization=True)
    specials = dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>") if family != "qwen2" else {}
    transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, **specials).save_pretrained(directory)
    return hf


@pytest.mark.parametrize(("family", "options", "tokenizer"), CASES.values(), ids=CASES)
def test_a_saved_checkpoint_loads_with_its_tokenizer_and_gives_hugging_faces_logits(
    tmp_path, family, options, tokenizer
):
    hf = _save(tmp_path, family, options, tokenizer())
    lm = xai_tf.load_model(tmp_path)
    assert isinstance(lm.model, Llama) and lm.name == tmp_path.name
    ids = lm.encode(TEXT)
    assert ids == transformers.AutoTokenizer.from_pretrained(tmp_path)(TEXT)["input_ids"]
    opens = family != "qwen2"  # the Llama family's <s> first, Qwen2's nothing
    assert (ids[0] == 1) == opens and 1 not in ids[1:]
    with torch.no_grad():
        ref = hf(torch.tensor([ids])).logits
        ours = lm(ids)
    assert (ours - ref).abs().max() <= 1e-5
    assert (ref - ref.mean()).abs().max() > 1  # far from a constant: the bound means something
    # labels: each token's bytes ("▁" a space), whole characters joined give the text back
    words, _ = whole_characters(lm.tokenizer, ids)
    assert "".join(words) == ("<s> " if opens else "") + TEXT
    assert "questioning" in words_of(lm, ids)[2]  # pieces of a word without a leading space join it
    if not opens:  # byte-level: "ü" (not in the corpus) is two tokens, each "�" alone, one label together
        umlaut = lm.tokenizer.encode("ü")
        assert lm.token_strings(umlaut) == ["�", "�"] and whole_characters(lm.tokenizer, umlaut)[0] == ["ü"]
    # the text's own tokens: a baseline of spaces is a space, not <s>; the end-of-text id is config.json's
    assert lm.token_strings([named_baselines(lm)["space"]]) == [" "]
    assert lm.eot_token == hf.config.eos_token_id


def test_a_steered_texts_token_share_counts_the_texts_own_tokens_not_bos(tmp_path):
    from xai_tf.sae.steer import token_share

    _save(tmp_path, "llama", dict(num_key_value_heads=2), _sentencepiece_style())
    lm = xai_tf.load_model(tmp_path)
    own = lm.token_strings(lm.encode(TEXT))[1:]  # after <s>
    assert token_share(lm, TEXT, {"<s>"}) == 0.0
    assert token_share(lm, TEXT, set(own)) == 1.0
    assert token_share(lm, TEXT, {own[0]}) == pytest.approx(own.count(own[0]) / len(own))


def test_a_typed_special_token_is_refused_by_name(tmp_path):
    _save(tmp_path, "llama", dict(num_key_value_heads=2), _sentencepiece_style())
    lm = xai_tf.load_model(str(tmp_path))
    with pytest.raises(ValueError, match=r"^<s> is a special token; it cannot be typed in a prompt$"):
        lm.encode("To be <s> or not")


def test_the_llama_familys_beginning_token_is_not_taken_for_a_name(tmp_path):
    """``ioi_pairs`` reads a name's own token (``tokenizer.encode``), not ``lm.encode``'s <s> before it."""
    words = ["<unk>", "<s>", "</s>", *(f"▁{name.strip()}" for name in NAMES)]
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 1)])
    _save(tmp_path, "llama", dict(num_key_value_heads=2), tokenizer)
    lm = xai_tf.load_model(tmp_path)
    clean, corrupted, io, s = ioi_pairs(lm, 1, seed=3)[0]
    assert clean[0, 0] == corrupted[0, 0] == 1 and io != s
    assert {lm.token_strings([io])[0], lm.token_strings([s])[0]} <= set(NAMES)


def test_rope_scaling_beside_default_rope_parameters_is_refused_as_hugging_face_scales_it(tmp_path):
    """Issue 58 item 6: a config.json with ``rope_parameters`` "default" and ``rope_scaling`` linear ×4.
    Hugging Face reads ``rope_scaling`` first and scales; plain RoPE gives other logits, so it is refused."""
    both = dict(
        rope_parameters=dict(rope_type="default", rope_theta=1e4),
        rope_scaling=dict(rope_type="linear", factor=4.0),
    )
    hf = _save(tmp_path, "llama", dict(num_key_value_heads=2), _sentencepiece_style())
    config = json.loads((tmp_path / "config.json").read_text()) | both
    (tmp_path / "config.json").write_text(json.dumps(config))
    scaled = transformers.LlamaForCausalLM.from_pretrained(tmp_path, attn_implementation="eager").eval()
    assert scaled.config.rope_parameters["rope_type"] == "linear"
    plain = config | dict(rope_scaling=None)
    ours = Llama.from_state_dict(LlamaConfig.from_hf(plain), hf.state_dict())
    ids = torch.arange(3, 40)[None]
    with torch.no_grad():
        assert (ours(ids) - hf(ids).logits).abs().max() <= 1e-5  # plain RoPE is the unscaled model
        assert (ours(ids) - scaled(ids).logits).abs().max() > 1e-2  # and not the scaled one
    where = re.escape(str(tmp_path))
    with pytest.raises(
        ValueError, match=rf"^directory '{where}': rope_scaling type 'linear' is not supported"
    ):
        xai_tf.load_model(tmp_path)


def _config_edit(**changes):
    def edit(directory):
        config = json.loads((directory / "config.json").read_text())
        (directory / "config.json").write_text(json.dumps(config | changes))

    return edit


def _config_drop(key: str):
    def edit(directory):
        config = json.loads((directory / "config.json").read_text())
        (directory / "config.json").write_text(json.dumps({k: v for k, v in config.items() if k != key}))

    return edit


def _remove(name: str):
    return lambda directory: (directory / name).unlink()


def _bigger_tokenizer(directory):
    save_word_tokenizer(directory, 200)


def _as_gpt2_without_tokenizer(directory):
    shutil.rmtree(directory)
    directory.mkdir()
    random_hf_gpt2(0, vocab_size=97, n_positions=32, n_embd=16, n_layer=2, n_head=2).save_pretrained(
        directory
    )


#: How a good Llama directory (kv 2, untied, sentencepiece-style tokenizer) is broken, and the message.
BROKEN = {
    "no-config": (_remove("config.json"), "is not a checkpoint: it has no config.json"),
    "unknown-family": (
        _config_edit(model_type="gemma"),
        r"model_type 'gemma', which is not supported: use one of \['gpt2', 'llama', 'mistral', 'qwen2'\]",
    ),
    "rope-llama3": (
        _config_edit(rope_parameters=dict(rope_type="llama3", rope_theta=5e5, factor=8.0)),
        "rope_parameters type 'llama3' is not supported",
    ),
    "rope-older-type-key": (
        _config_edit(rope_scaling=dict(type="dynamic", factor=2.0)),
        "rope_scaling type 'dynamic' is not supported",
    ),
    "rope-extra-key": (
        _config_edit(rope_parameters=dict(rope_type="default", rope_theta=1e4, factor=2.0)),
        r"rope_parameters \['factor'\] are not supported",
    ),
    "partial-rotary": (_config_edit(partial_rotary_factor=0.5), "partial_rotary_factor 0.5 is not supported"),
    "mistral-window-in-effect": (
        _config_edit(model_type="mistral", sliding_window=16),
        "sliding_window 16 is not supported: use None",
    ),
    "qwen2-window-in-effect": (
        _config_edit(model_type="qwen2", use_sliding_window=True, sliding_window=16, max_window_layers=1),
        "sliding_window 16 is not supported",
    ),
    "bias-in-config-not-in-weights": (
        _config_edit(attention_bias=True),
        r"the weights do not fit a Llama .*Missing key\(s\) in state_dict: \"layers.0.self_attn.q_proj.b",
    ),
    "shapes-unlike-config": (
        _config_edit(intermediate_size=40),
        r"size mismatch for layers.0.mlp.gate_proj.weight: copying a param with shape torch.Size\(\[48, 32",
    ),
    "missing-key": (_config_drop("hidden_size"), "config.json lacks the key 'hidden_size'"),
    "no-weights": (_remove("model.safetensors"), "has no model.safetensors or model.safetensors.index.json"),
    "no-tokenizer": (
        _remove("tokenizer.json"),
        r"has no tokenizer.json: a vocabulary of 160 tokens needs the tokenizer",
    ),
    "tokenizer-bigger-than-model": (
        _bigger_tokenizer,
        "tokenizer.json has 200 tokens but the model's vocab_size is 160",
    ),
    "gpt2-not-gpt2s-vocabulary": (
        _as_gpt2_without_tokenizer,
        r"a vocabulary of 97 tokens needs GPT-2's vocabulary of 50257 tokens or the tokenizer",
    ),
}


@pytest.fixture(scope="module")
def good_directory(tmp_path_factory):
    directory = tmp_path_factory.mktemp("llama")
    _save(directory, "llama", dict(num_key_value_heads=2), _sentencepiece_style())
    xai_tf.load_model(directory)  # it loads before it is broken
    return directory


@pytest.mark.parametrize(("damage", "message"), BROKEN.values(), ids=BROKEN)
def test_a_directory_that_cannot_be_run_is_refused_by_name(good_directory, tmp_path, damage, message):
    directory = tmp_path / "checkpoint"
    shutil.copytree(good_directory, directory)
    damage(directory)
    with pytest.raises(ValueError, match=rf"(?s)directory '{re.escape(str(directory))}'.*{message}"):
        xai_tf.load_model(directory)


def test_xai_tf_model_points_the_default_model_at_a_directory(good_directory, monkeypatch, capsys):
    monkeypatch.setenv("XAI_TF_MODEL", str(good_directory))
    lm = xai_tf.load_model()
    assert isinstance(lm.model, Llama) and lm.name == good_directory.name
    assert capsys.readouterr().out == f"xai_tf: using model {str(good_directory)!r} (from XAI_TF_MODEL)\n"
    assert xai_tf.load_model("shakespeare").name == "shakespeare"  # a named model stays itself
    # a lesson that names its model (lesson 15: "shakespeare") asks for it through lesson_model
    from xai_tf.models.hub import lesson_model

    assert lesson_model("shakespeare") == str(good_directory)
    monkeypatch.delenv("XAI_TF_MODEL")
    assert lesson_model("shakespeare") == "shakespeare"
    monkeypatch.setenv("XAI_TF_MODEL", "auto")
    assert lesson_model("shakespeare") == "shakespeare"
    monkeypatch.setenv("XAI_TF_MODEL", str(good_directory / "nowhere"))
    with pytest.raises(ValueError, match=r"XAI_TF_MODEL='.*nowhere' is neither a model name \(shakespeare"):
        xai_tf.load_model()
