"""Lesson 16's shipped encoder–decoders and the measurements recorded with them.

``scripts/train_seq2seq.py`` trains, with ``training.train``'s ``SETTINGS``, one model per score
function and one without attention on ``data.make_corpus(0)`` for each of ``DRAWS`` seeds, scores
every one on the test split (``evaluate.scores``, ``decoding.position_accuracy``) and the dev AER over
training, and writes the seed-0 models to ``xai_tf/data/seq2seq.safetensors`` and every draw's
numbers to ``seq2seq.json``. Training them all takes longer than a lesson may (minutes a model on one
thread); the lesson loads the weights and re-measures what it shows, and the claim tests read the
recorded draws. ``tests/test_seq2seq.py`` checks that the fingerprint is current and that the shipped
weights re-score their recorded numbers.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path

from safetensors.torch import load_file

from xai_tf import artifacts
from xai_tf.seq2seq import data
from xai_tf.seq2seq.model import Config, Seq2Seq

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, METRICS = DATA / "seq2seq.safetensors", DATA / "seq2seq.json"
TRAINED_BY = ("xai_tf.seq2seq.training", "xai_tf.seq2seq.evaluate")
#: The shipped models by name: no attention, then the five score functions.
NAMES = ("none", "dot", "scaled_dot", "bilinear", "additive", "mlp")


def fingerprint() -> str:
    """The training and scoring code's fingerprint (``artifacts.fingerprint`` of its import graph)."""
    return artifacts.fingerprint(*TRAINED_BY)


def recorded() -> dict:
    """What ``seq2seq.json`` records: settings, fingerprint, and every draw's numbers."""
    return json.loads(METRICS.read_text())


def model(name: str) -> Seq2Seq:
    """The shipped model ``name`` (one of ``NAMES``; "none" has no attention), in eval mode on the CPU."""
    if name not in NAMES:
        raise ValueError(f"name must be one of {', '.join(NAMES)}, got {name!r}")
    return _model(name)


@cache
def _model(name: str) -> Seq2Seq:
    corpus = data.make_corpus(0)
    settings = recorded()["settings"]
    c = Config(
        len(corpus.source_vocab),
        len(corpus.target_vocab),
        d_h=settings["d_h"],
        score=None if name == "none" else name,
    )
    m = Seq2Seq(c)
    weights = load_file(WEIGHTS)
    m.load_state_dict({k.split("/", 1)[1]: v.float() for k, v in weights.items() if k.startswith(name + "/")})
    return m.eval()
