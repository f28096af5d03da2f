"""Lesson 18's shipped structured decoders and the measurements recorded with them.

``scripts/train_structured.py`` trains one ``decoder.StructuredSeq2Seq`` per normalizer
(``decoder.NORMALIZERS``) for each of its seeds with ``training.SETTINGS`` (lesson 16's), scores every draw
on the test split (``training.scores``) and writes the seed-0 weights to
``xai_tf/data/structured.safetensors`` and every draw's numbers to ``structured.json``. Training them
takes longer than a lesson may (10–50 s a model on an idle core, 20 seeds of seven maps); the lesson
loads the weights and reads the recorded draws. ``tests/test_structured_lesson.py`` checks that the
fingerprint is current and that the shipped weights re-score their recorded numbers.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path

from safetensors.torch import load_file

from xai_tf import artifacts
from xai_tf.seq2seq import data
from xai_tf.structured import training
from xai_tf.structured.decoder import NORMALIZERS, StructuredSeq2Seq

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, METRICS = DATA / "structured.safetensors", DATA / "structured.json"
TRAINED_BY = ("xai_tf.structured.training",)


def fingerprint() -> str:
    """The training and scoring code's fingerprint (``artifacts.fingerprint`` of its import graph)."""
    return artifacts.fingerprint(*TRAINED_BY)


def recorded() -> dict:
    """What ``structured.json`` records: settings, fingerprint, and every draw's numbers."""
    return json.loads(METRICS.read_text())


def model(normalizer: str) -> StructuredSeq2Seq:
    """The shipped seed-0 decoder with attention map ``normalizer`` (one of ``NORMALIZERS``), in eval
    mode on the CPU."""
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {', '.join(NORMALIZERS)}, got {normalizer!r}")
    return _model(normalizer)


@cache
def _model(normalizer: str) -> StructuredSeq2Seq:
    m = training.build(normalizer, data.make_corpus(0), recorded()["settings"]["d_h"])
    weights = load_file(WEIGHTS)
    prefix = normalizer + "/"
    m.load_state_dict({k[len(prefix) :]: v.float() for k, v in weights.items() if k.startswith(prefix)})
    return m.eval()


def draws(normalizer: str, key: str) -> list[float]:
    """The recorded ``key`` ("exact", "bleu", "aer", "support", "mass", "seconds") of every draw of
    ``normalizer``, by seed."""
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {', '.join(NORMALIZERS)}, got {normalizer!r}")
    rows = sorted((d for d in recorded()["draws"] if d["normalizer"] == normalizer), key=lambda d: d["seed"])
    if rows and key not in rows[0]:
        raise ValueError(f"key must be one of {', '.join(rows[0])}, got {key!r}")
    return [float(d[key]) for d in rows]
