"""Lesson 17's training runs: one recipe, its variants, and what is measured on each trained model.

Every variant trains ``SETTINGS`` on ``data.make_corpus(0)`` and changes one thing from ``"pre"``
(the encoder–decoder in pre-LN order with warm-up and the paper's inverse-square-root decay):

    "post"           post-LN (the 2017 paper's order)          "pre_nowarmup"  / "post_nowarmup": warmup = 0
    "pre_noramp" / "post_noramp": the ramp removed, the decay of 100 warm-up steps kept (``ramp = False``)
    "decoder_only"   one causal stack, source as a prefix      "smoothing"     label smoothing ε = 0.1
    "dropout"        dropout 0.1                               "constant_lr"   no decay after the warm-up
    "encoder_only"   one bidirectional stack over [source; S + 8 slots], every slot read out at once
                     (``model.EncoderOnly``; its loss is over the slots, see ``training``)

``measure`` scores a trained model on the test split: exact match and BLEU (greedy), both by source
length, the teacher-forced word accuracy and its calibration (ECE; the encoder-only model's on its
slots, see ``evaluate``), and for encoder–decoders the AER of each cross-attention head and layer (the
other two have no cross-attention: no AER). ``scripts/train_encdec.py`` runs it over seeds.
"""

from __future__ import annotations

import time

import torch

from xai_tf import _checks, seeds
from xai_tf.encdec import evaluate
from xai_tf.encdec.model import DecoderOnly, EncoderOnly, Seq2SeqTransformer
from xai_tf.encdec.training import Settings, train
from xai_tf.seq2seq import data, metrics

SETTINGS = {"steps": 1200, "batch_size": 32, "lr": 5e-3, "warmup": 100, "d_e": 64, "n_heads": 4, "d_ff": 128}
# 2 + 2 blocks against 4, about the same parameters (d_e 64, d_ff 128; the embeddings' 37 504 included):
# encoder–decoder 205 184, decoder-only 171 520, encoder-only 171 584 (the same stack + the slot vector m)
N_LAYERS = {"encoder_decoder": 2, "decoder_only": 4, "encoder_only": 4}
VARIANTS: dict[str, dict] = {
    "pre": {},
    "post": {"norm_first": False},
    "pre_nowarmup": {"warmup": 0},
    "post_nowarmup": {"norm_first": False, "warmup": 0},
    "pre_noramp": {"ramp": False},
    "post_noramp": {"norm_first": False, "ramp": False},
    "decoder_only": {"kind": "decoder_only"},
    "smoothing": {"label_smoothing": 0.1},
    "dropout": {"dropout": 0.1},
    "constant_lr": {"decay": "constant"},
    "encoder_only": {"kind": "encoder_only"},
}
CURVE_EVERY = 100
CURVE_PAIRS = 200  # dev pairs scored along training


def variant(name: str) -> dict:
    """The full settings of variant ``name`` (one of ``VARIANTS``)."""
    if name not in VARIANTS:
        raise ValueError(f"name must be one of {', '.join(VARIANTS)}, got {name!r}")
    full = {**SETTINGS, "kind": "encoder_decoder", "norm_first": True, "dropout": 0.0}
    full.update(decay="inverse_sqrt", label_smoothing=0.0, ramp=True)
    return {**full, **VARIANTS[name]}


def build(name: str, corpus: data.Corpus, seed: int = 0) -> evaluate.Model:
    """An untrained model of variant ``name``, its weights drawn with ``seed``."""
    v, corpus = variant(name), data._check_corpus(corpus)
    kind = {"decoder_only": DecoderOnly, "encoder_only": EncoderOnly}.get(v["kind"], Seq2SeqTransformer)
    with seeds.seeded(seed):
        return kind(
            len(corpus.source_vocab),
            len(corpus.target_vocab),
            d_e=v["d_e"],
            n_heads=v["n_heads"],
            n_layers=N_LAYERS[v["kind"]],
            d_ff=v["d_ff"],
            dropout=v["dropout"],
            norm_first=v["norm_first"],
        )


def settings(name: str, steps: int | None = None) -> Settings:
    """The ``training.Settings`` of variant ``name`` (``steps`` overrides its step count)."""
    v = variant(name)
    keys = ("steps", "batch_size", "lr", "warmup", "decay", "label_smoothing", "ramp")
    s = Settings(**{k: v[k] for k in keys})
    if steps is not None:
        s.steps = _checks.integer("steps", steps, 1)
    return s


@torch.no_grad()
def word_accuracy(model: evaluate.Model, pairs: list[data.Pair], corpus: data.Corpus) -> float:
    """Teacher-forced share of target words (and <eos>) predicted right."""
    return evaluate.confidence(model, pairs, corpus)[1].float().mean().item()


def run(name: str, seed: int = 0, steps: int | None = None) -> tuple[evaluate.Model, dict]:
    """Train variant ``name`` with ``seed``; return the model and a record: training seconds, the loss
    every 50 steps, the dev word accuracy every ``CURVE_EVERY`` steps with the seconds spent so far."""
    corpus = data.make_corpus(0)
    model = build(name, corpus, seed)
    curve: list[tuple[int, float, float]] = []
    clock = {"train": 0.0, "last": time.perf_counter()}

    def record(step: int, m: evaluate.Model) -> bool:
        clock["train"] += time.perf_counter() - clock["last"]
        if step % CURVE_EVERY == 0:
            curve.append((step, round(clock["train"], 2), word_accuracy(m, corpus.dev[:CURVE_PAIRS], corpus)))
            m.train()
        clock["last"] = time.perf_counter()
        return False

    history = train(model, corpus, settings(name, steps), seed=seed, callback=record)
    losses = history.loss
    return model, {
        "name": name,
        "seed": seed,
        "seconds": round(clock["train"], 1),
        "loss_curve": [
            round(sum(losses[i : i + 50]) / len(losses[i : i + 50]), 4) for i in range(0, len(losses), 50)
        ],
        "dev_curve": curve,
    }


def measure(model: evaluate.Model, pairs: list[data.Pair], corpus: data.Corpus) -> dict:
    """Exact match, BLEU, both by source length, word accuracy, ECE and (encoder–decoders) AER."""
    hyp = evaluate.greedy(model, pairs, corpus)
    ref, src = [p.target for p in pairs], [p.source for p in pairs]
    top, right = evaluate.confidence(model, pairs, corpus)
    out = {
        "exact": metrics.exact_match(hyp, ref),
        "bleu": metrics.bleu(hyp, ref),
        "by_length": [list(r) for r in metrics.by_length(src, hyp, ref)],
        "word_accuracy": right.float().mean().item(),
        "ece": evaluate.expected_calibration_error(top, right),
    }
    if isinstance(model, Seq2SeqTransformer):
        out["aer"] = evaluate.alignment_error_rates(model, pairs, corpus).tolist()
    return out
