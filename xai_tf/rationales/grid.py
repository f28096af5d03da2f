"""Lesson 11's λ panel on shipped rationalizers: HardKuma trained on the planted-cue task at every
(λ₁, λ₂) the panel offers, so that moving a slider loads a model instead of training one (300 steps,
about a second each on one CPU core and more under load).

``scripts/train_rationale_grid.py`` runs ``model.train_rationalizer(training_data(), 38, "hardkuma",
λ₁, λ₂)`` (its default ``OPTIONS``: 300 steps, seed 0) for every (λ₁, λ₂) of ``LAM1 × LAM2`` (offset
0) and writes the weights to ``xai_tf/data/rationale_grid.safetensors`` and, with the fingerprint of
the training code, each model's ``model.evaluate`` on ``test_data()`` to ``rationale_grid.json``. One
draw per setting: the panel shows that draw whatever ``XAI_TF_SEED_OFFSET`` is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path

from safetensors.torch import load_file

from xai_tf import artifacts, seeds
from xai_tf.rationales.model import Rationalizer
from xai_tf.tasks import cues
from xai_tf.tasks.words import Example

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, RECORD = DATA / "rationale_grid.safetensors", DATA / "rationale_grid.json"
TRAINED_BY = ("xai_tf.rationales.model", "xai_tf.tasks.cues")
LAM1 = (0.0, 0.01, 0.02, 0.05, 0.1)  # λ₁ (compactness)
LAM2 = (0.0, 0.005, 0.01, 0.025, 0.05, 0.1)  # λ₂ (contiguity)
ESTIMATOR = "hardkuma"


def training_data() -> list[Example]:
    """The sentences every shipped rationalizer was trained on: lesson 11's ``cue_train``."""
    return cues.cue_sentences(1000, seed=0)


def test_data() -> list[Example]:
    """The sentences their recorded scores are measured on: lesson 11's ``cue_test[:100]``."""
    return cues.cue_sentences(200, seed=1)[:100]


def key(lam1: float, lam2: float) -> str:
    """The setting's name in the record and the weights' prefix: ``"0.02/0.01"``."""
    if lam1 not in LAM1 or lam2 not in LAM2:
        raise ValueError(
            f"lam1, lam2 must lie on the shipped grid λ₁ ∈ {LAM1}, λ₂ ∈ {LAM2}, got {lam1}, {lam2}"
        )
    return f"{lam1:g}/{lam2:g}"


def fingerprint() -> str:
    """``artifacts.fingerprint`` of the training code's import graph."""
    return artifacts.fingerprint(*TRAINED_BY)


def recorded() -> dict:
    """What ``rationale_grid.json`` records: fingerprint, settings, and per setting its scores."""
    return json.loads(RECORD.read_text())


def covers(train: Sequence[Example], estimator: str) -> bool:
    """Whether the shipped grid holds the rationalizers ``train_rationalizer(train, …, estimator)`` gives."""
    return estimator == ESTIMATOR and list(train) == _training_data()


def model(lam1: float, lam2: float) -> Rationalizer:
    """The shipped rationalizer of (λ₁, λ₂), in eval mode."""
    prefix = key(lam1, lam2) + "/"
    with seeds.seeded(0):  # the initial weights are overwritten; the caller's generator does not move
        m = Rationalizer(len(cues.VOCAB), ESTIMATOR, lam1, lam2)
    m.load_state_dict({k[len(prefix) :]: v for k, v in _weights().items() if k.startswith(prefix)})
    return m.eval()


@cache
def _weights() -> dict:
    return load_file(WEIGHTS)


@cache
def _training_data() -> list[Example]:
    return training_data()
