"""Lesson 09's trained toy models, shipped: ``scripts/train_toytasks.py`` trains them (seeded, one
thread, about 10 minutes on a CPU) and writes ``xai_tf/data/toytasks.safetensors`` (the weights of the
histogram models and of seed 0 of each Dyck variant) and ``toytasks.json`` (accuracies, block
shares, stack shares for every seed, the α sweep of the solvable model, the settings, and the
fingerprint of the code that trained them: ``xai_tf.artifacts.fingerprint`` of ``TRAINED_BY``, the
modules the script trains with, and everything they import). ``tests/test_toytasks.py`` checks that
the fingerprint is current and that the shipped weights give the recorded numbers.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path
from typing import TypeVar

import torch
from safetensors.torch import load_file

from xai_tf import _checks, artifacts
from xai_tf.tasks.dyck_model import DyckModel
from xai_tf.tasks.histogram import MAX_L, HistogramModel

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, METRICS = DATA / "toytasks.safetensors", DATA / "toytasks.json"
#: the modules scripts/train_toytasks.py trains with (the fingerprint follows their imports)
TRAINED_BY = ("xai_tf.tasks.histogram", "xai_tf.tasks.dyck_model", "xai_tf.tasks.solvable")

M = TypeVar("M", bound=torch.nn.Module)

#: model name → constructor arguments of the shipped weights
HISTOGRAM_MODELS: dict[str, dict[str, str]] = {
    "semantic, restricted": {"block": "semantic"},
    "positional, restricted": {"block": "positional"},
    "semantic start": {},
    "positional start": {},
    "semantic, restricted → unrestricted": {},
    "positional, restricted → unrestricted": {},
}
DYCK_VARIANTS: dict[str, dict[str, bool]] = {
    "free attention": {},
    "layer 1 uniform": {"uniform_first": True},
    "pushed off the stack": {},
}


#: the histogram models' alphabet as letters (T = 15; it spells the lecture's "DATAIAIAIA")
LETTERS = "ABCDEFGHILMNORT"


def encode_letters(text: str, L: int = 10) -> torch.Tensor:
    """Token ids ``[1, L]`` of a sequence of L letters of ``LETTERS`` (case and spaces ignored)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string of letters, got {type(text).__name__}")
    L = _checks.integer("L", L, 1, MAX_L)
    letters = text.replace(" ", "").upper()
    bad = sorted({c for c in letters if c not in LETTERS})
    if bad:
        raise ValueError(f"{''.join(bad)!r} not in the alphabet: tokens must be letters of {LETTERS!r}")
    if len(letters) != L:
        raise ValueError(
            f"the models were trained on L = {L} tokens: type exactly {L} letters, got {len(letters)}"
        )
    return torch.tensor([[LETTERS.index(c) for c in letters]])


def fingerprint() -> str:
    """The training code's fingerprint (``xai_tf.artifacts``): the shipped models are current while
    it is unchanged."""
    return artifacts.fingerprint(*TRAINED_BY)


def load_toytasks() -> tuple[dict[str, HistogramModel], dict[str, DyckModel], dict]:
    """(histogram models by name, Dyck models by variant (seed 0), the recorded metrics), in eval mode."""
    state = load_file(WEIGHTS)
    metrics = json.loads(METRICS.read_text())

    def build(model: M, prefix: str) -> M:
        model.load_state_dict({k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)})
        return model.eval()

    histogram = {
        name: build(HistogramModel(block=kw.get("block")), f"histogram/{name}/")
        for name, kw in HISTOGRAM_MODELS.items()
    }
    dyck = {
        name: build(DyckModel(uniform_first=kw.get("uniform_first", False)), f"dyck/{name}/")
        for name, kw in DYCK_VARIANTS.items()
    }
    return histogram, dyck, metrics
