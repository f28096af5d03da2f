"""Lesson 17's shipped Transformers and the measurements recorded with them.

``scripts/train_encdec.py`` trains every variant of ``runs.VARIANTS`` for each of its seeds, scores each
on the test split (``runs.measure``), and writes the seed-0 weights of ``NAMES`` to
``xai_tf/data/encdec.safetensors`` and every draw's numbers to ``encdec.json``. Training them all takes
longer than a lesson may; the lesson loads the weights and re-measures what it shows, and the claim
tests read the recorded draws. ``tests/test_encdec_shipped.py`` checks that the fingerprint is current and
that the shipped weights re-score their recorded numbers.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path

from safetensors.torch import load_file
from torch import nn

from xai_tf import _checks, artifacts
from xai_tf.encdec import runs
from xai_tf.seq2seq import data

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, METRICS = DATA / "encdec.safetensors", DATA / "encdec.json"
TRAINED_BY = ("xai_tf.encdec.runs",)
#: The variants whose seed-0 weights are shipped.
NAMES = ("pre", "post", "decoder_only")


def fingerprint() -> str:
    """The training and scoring code's fingerprint (``artifacts.fingerprint`` of its import graph)."""
    return artifacts.fingerprint(*TRAINED_BY)


def recorded() -> dict:
    """What ``encdec.json`` records: settings, variants, fingerprint, and every draw's numbers."""
    return json.loads(METRICS.read_text())


def corpus() -> data.Corpus:
    """The corpus the shipped models were trained and scored on: ``make_corpus(0)``, which
    ``XAI_TF_SEED_OFFSET`` does not move (lesson 16's rule: the test split must stay unseen)."""
    return data.make_corpus(0)


def draws(name: str) -> list[dict]:
    """The recorded draws of variant ``name``, by seed."""
    runs.variant(name)
    return sorted((d for d in recorded()["draws"] if d["name"] == name), key=lambda d: d["seed"])


def reached(curve: list, target: float) -> tuple[int, float] | None:
    """The first row (step, seconds) of a dev curve [(step, seconds, accuracy), …] (``runs.run``'s
    ``dev_curve``) whose accuracy is ≥ ``target``: min{step : accuracy(step) ≥ target}; None if none is."""
    target = _checks.real("target", target, 0.0, 1.0)
    if not isinstance(curve, list | tuple) or not all(
        isinstance(r, list | tuple) and len(r) == 3 for r in curve
    ):
        raise TypeError("curve must be a list of (step, seconds, accuracy) rows (a draw's 'dev_curve')")
    return next(((int(step), float(sec)) for step, sec, acc in curve if acc >= target), None)


def steps_to(name: str, target: float) -> list[int | None]:
    """For each recorded draw of variant ``name`` (by seed): the first step at which its dev word
    accuracy reached ``target`` (``reached``), None where it never did."""
    return [None if (r := reached(d["dev_curve"], target)) is None else r[0] for d in draws(name)]


def model(name: str) -> nn.Module:
    """The shipped seed-0 model of variant ``name`` (one of ``NAMES``), in eval mode on the CPU."""
    if name not in NAMES:
        raise ValueError(f"name must be one of {', '.join(NAMES)}, got {name!r}")
    return _model(name)


@cache
def _model(name: str) -> nn.Module:
    m = runs.build(name, corpus(), seed=0)
    weights = load_file(WEIGHTS)
    m.load_state_dict({k.split("/", 1)[1]: v for k, v in weights.items() if k.startswith(name + "/")})
    return m.eval()
