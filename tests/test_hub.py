import json

import pytest
import torch
from conftest import random_hf_gpt2
from huggingface_hub import constants

import xai_tf
from xai_tf.models import GPT2, BertEncoder
from xai_tf.models.hub import MODEL_NAMES
from xai_tf.models.tokenization import gpt2 as tiktoken_gpt2
from xai_tf.transformer.decoding import greedy


@pytest.fixture
def empty_hf_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)


def test_unknown_name_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown model 'gtp2'") as err:
        xai_tf.load_model("gtp2")
    assert all(name in str(err.value) for name in MODEL_NAMES)


@pytest.mark.parametrize("device", ["cuda:7", "tpu", "meta-nonsense"])
def test_missing_device_is_a_clear_error(device):
    with pytest.raises(ValueError, match=f"device '{device}'"):
        xai_tf.load_model("shakespeare", device=device)


def test_gpt2_offline_and_not_cached_says_how_to_get_it(empty_hf_cache):
    with pytest.raises(RuntimeError, match=r"gpt2-medium is not on disk.*load_model\('shakespeare'\)"):
        xai_tf.load_model("gpt2-medium")


def test_auto_falls_back_to_the_bundled_model_with_a_notice(empty_hf_cache, capsys):
    lm = xai_tf.load_model()
    assert lm.name == "shakespeare"
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "'shakespeare'" in out[0] and "python -m xai_tf.models.hub gpt2" in out[0]


def test_gpt2_in_the_hugging_face_cache_loads_through_the_directory_loader(empty_hf_cache, tmp_path, capsys):
    """What Binder users get: GPT-2's files in a snapshot of the Hugging Face cache (a tiny model of GPT-2's
    vocabulary here), read by ``load_model("gpt2")`` and by "auto", with tiktoken's GPT-2 encoding."""
    repo = tmp_path / "hub" / "models--openai-community--gpt2"
    hf = random_hf_gpt2(0, n_embd=8, n_layer=1, n_head=2, n_positions=16)
    hf.save_pretrained(repo / "snapshots" / ("0" * 40), safe_serialization=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    lm = xai_tf.load_model("gpt2")
    ids = lm.encode("Hello, world!")
    assert lm.name == "gpt2" and ids == tiktoken_gpt2().encode("Hello, world!")
    with torch.no_grad():
        assert (lm(ids) - hf(torch.tensor([ids])).logits).abs().max() <= 1e-4
    assert xai_tf.load_model().name == "gpt2" and "GPT-2 small, found on disk" in capsys.readouterr().out


def test_local_directory_checkpoint(tmp_path):
    hf = random_hf_gpt2(0, n_embd=32, n_layer=2, n_head=2, n_positions=32)
    hf.save_pretrained(tmp_path)
    assert (tmp_path / "model.safetensors").exists()
    lm = xai_tf.load_model(str(tmp_path))
    assert isinstance(lm.model, GPT2) and lm.n_ctx == 32 and lm.name == tmp_path.name
    ids = lm.encode("Hello, world!")
    with torch.no_grad():
        assert (lm.model(ids) - hf(torch.tensor([ids])).logits).abs().max() <= 1e-4


# Options of a Hugging Face GPT-2 config that change the function (tests/test_gpt2.py checks each one
# through GPT2.from_hf); weights at 5× GPT-2's scale so that ignoring one moves the logits visibly.
HF_OPTIONS = {
    "exact-gelu": dict(activation_function="gelu"),
    "untied-lm-head": dict(tie_word_embeddings=False),
    "unscaled-attention": dict(scale_attn_weights=False),
    "inverse-layer-scale": dict(scale_attn_by_inverse_layer_idx=True, reorder_and_upcast_attn=True),
}


@pytest.mark.parametrize("options", HF_OPTIONS.values(), ids=HF_OPTIONS)
def test_local_directory_checkpoint_with_options(tmp_path, options):
    hf = random_hf_gpt2(1, n_embd=64, n_layer=3, n_head=4, n_positions=64, initializer_range=0.1, **options)
    hf.save_pretrained(tmp_path)
    lm = xai_tf.load_model(str(tmp_path))
    ids = lm.encode("Hello, world! The quick brown fox jumps over the lazy dog.")
    with torch.no_grad():
        assert (lm.model(ids) - hf(torch.tensor([ids])).logits).abs().max() <= 1e-4
    prompt = torch.tensor([ids])  # "!" is token 0: an explicit mask, or generate takes it for padding
    ref = hf.generate(
        prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=20, do_sample=False, eos_token_id=None
    )
    assert greedy(lm.model, ids, 20) == ref[0].tolist()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(activation_function="relu"), "activation_function 'relu' is not supported: use 'gelu_new'"),
        (dict(n_inner=100), "n_inner 100 is not supported"),
    ],
)
def test_local_directory_with_an_unsupported_option(tmp_path, options, message):
    random_hf_gpt2(0, n_embd=32, n_layer=2, n_head=2, n_positions=32, **options).save_pretrained(tmp_path)
    with pytest.raises(ValueError, match=message):
        xai_tf.load_model(str(tmp_path))


def test_directory_that_is_not_a_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="is not a checkpoint: it has no config.json"):
        xai_tf.load_model(str(tmp_path))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "bert"}))
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(ValueError, match="model_type 'bert', which is not supported: use one of"):
        xai_tf.load_model(str(tmp_path))


def test_encode_checks_the_prompt(bundled):
    with pytest.raises(ValueError, match="prompt is empty"):
        bundled.encode("   ")
    with pytest.raises(ValueError, match=f"reads at most {bundled.n_ctx}"):
        bundled.encode("To be, or not to be. " * 200)


def test_minilm_attention_is_bidirectional():
    lm = xai_tf.load_model("minilm")
    assert isinstance(lm.model, BertEncoder)
    ids = lm.encode("The cat sat on the mat.")
    assert lm.token_strings(ids)[0] == "[CLS]" and lm.token_strings(ids)[-1] == "[SEP]"
    with torch.no_grad():
        hidden, cache = lm.model.run_with_cache(ids)
    T = len(ids)
    assert hidden.shape == (1, T, 384)
    attn = cache.stack("attn")
    assert attn.shape == (6, 1, 12, T, T)
    torch.testing.assert_close(attn.sum(-1), torch.ones(6, 1, 12, T))
    assert attn.triu(1).sum() > 1  # tokens attend to later tokens too
    torch.testing.assert_close(cache["resid_post", 5], hidden)
    with pytest.raises(ValueError, match="1..512"):
        lm.model(torch.zeros(1, 513, dtype=torch.long))


def test_auto_device_takes_cuda_then_mps_then_the_cpu(monkeypatch, capsys):
    from xai_tf.models import hub

    for cuda, mps, want in [(True, True, "cuda"), (False, True, "mps"), (False, False, "cpu")]:
        monkeypatch.setattr(torch.cuda, "is_available", lambda cuda=cuda: cuda)
        monkeypatch.setattr(torch.backends.mps, "is_available", lambda mps=mps: mps)
        assert hub._auto_device() == torch.device(want)
        assert f"device '{want}'" in capsys.readouterr().out
    assert xai_tf.load_model("shakespeare", device="auto").device == torch.device("cpu")


def test_the_memory_guard_reads_psutil_on_every_system(monkeypatch):
    """``fits`` refuses by the RAM psutil reports, so the guard works where /proc/meminfo is missing
    (macOS, Windows): the old reader returned "unlimited" there and never refused."""
    from types import SimpleNamespace

    import psutil

    from xai_tf import _checks

    monkeypatch.setattr(psutil, "virtual_memory", lambda: SimpleNamespace(available=2**30))
    assert _checks.available_ram() == 2**30
    _checks.fits("a small table", 2**29, "choose less")
    with pytest.raises(ValueError, match=r"a big table needs 2\.0 GiB, more than the 1\.0 GiB free on cpu"):
        _checks.fits("a big table", 2**31, "choose less")


def test_the_hub_is_asked_through_huggingface_hub_with_a_short_timeout(tmp_path, monkeypatch):
    """Online mode, nothing cached: the reachability question goes to huggingface_hub's own client (which
    reads HTTPS_PROXY), mocked here so that no test touches the network; no answer means the message."""
    from xai_tf.models import hub

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    asked = []

    def model_info(self, repo_id, timeout=None):
        asked.append((repo_id, timeout))
        raise ConnectionError("no route")  # what a dead proxy gives, through any HTTP library

    monkeypatch.setattr(hub.HfApi, "model_info", model_info)
    with pytest.raises(
        RuntimeError, match="gpt2-medium is not on disk and the Hugging Face hub cannot be reached"
    ):
        xai_tf.load_model("gpt2-medium")
    assert asked == [("openai-community/gpt2-medium", 3.0)]
    monkeypatch.setattr(hub.HfApi, "model_info", lambda self, repo_id, timeout=None: object())
    assert hub._hub_reachable("openai-community/gpt2")
