"""Greedy against beam search over widths β and length penalties α on lesson 17's shipped models.

``scripts/beam_encdec.py`` scores every shipped model (``shipped.NAMES``, seed 0) on the whole test split
with greedy decoding and with ``beam.translate`` at every (β, α) of ``GRID`` (exact match, BLEU from
sacrebleu, output/reference length), and writes them to ``xai_tf/data/encdec_beam.json`` with the
fingerprint of the search's import graph and, as a spot check, the translations of the first
``CHECK_PAIRS`` test sentences at ``CHECK``. Scoring the grid takes minutes; the lesson reads the record
and re-runs a small part live. Only three trained models are shipped (seed 0 of three variants), so the
full grid's comparisons are counts out of three. Over draws: ``scripts/beam_encdec.py --draws 20``
retrains seeds 1–19 of the same variants (the recipe of ``encdec.json``, checked against its loss
curves) and scores the smaller ``DRAW_GRID`` on the same sentences; ``draw_gains`` reads beam − greedy
per draw.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import torch

from xai_tf import artifacts
from xai_tf.encdec import beam, evaluate
from xai_tf.encdec.model import Seq2SeqTransformer
from xai_tf.seq2seq import data
from xai_tf.seq2seq.decoding import BOS_ID, EOS_ID

RECORD = Path(str(files("xai_tf") / "data")) / "encdec_beam.json"
TRAINED_BY = ("xai_tf.encdec.beam",)
BEAMS, ALPHAS = (3, 10), (0.0, 0.6, 1.2)
GRID = ((1, 0.0), *((b, a) for b in BEAMS for a in ALPHAS))  # β = 1 once: α barely matters there
CHECK, CHECK_PAIRS = (3, 0.6), 20
DRAW_GRID = ((0, 0.0), (3, 0.6), (10, 1.2))  # greedy and two beams, for the retrained seeds 1–19


def fingerprint() -> str:
    """``artifacts.fingerprint`` of the beam search's import graph (the code behind the record)."""
    return artifacts.fingerprint(*TRAINED_BY)


def recorded() -> dict:
    """What ``encdec_beam.json`` records: machine, grid, fingerprint, and per model its rows."""
    return json.loads(RECORD.read_text())


def sweep(model: evaluate.Model, pairs: list[data.Pair], corpus: data.Corpus) -> list[dict]:
    """One row per decoder: greedy (beam 0), then every (β, α) of ``GRID``, each with ``beam.scores``."""
    rows = [{"beam": 0, "alpha": 0.0, **beam.scores(model, pairs, corpus, 0)}]
    rows += [{"beam": b, "alpha": a, **beam.scores(model, pairs, corpus, b, a)} for b, a in GRID]
    return rows


def table(name: str) -> dict[tuple[int, float], dict]:
    """The recorded rows of shipped model ``name`` keyed by (β, α); greedy is (0, 0.0)."""
    models = recorded()["models"]
    if name not in models:
        raise ValueError(f"name must be one of {', '.join(models)}, got {name!r}")
    return {(r["beam"], r["alpha"]): r for r in models[name]}


def draw_gains(name: str, key: str = "exact") -> dict[tuple[int, float], list[float]]:
    """For shipped variant ``name`` and each beam setting (β, α) of ``DRAW_GRID`` after greedy: the
    recorded ``key`` ("exact", "bleu" or "length_ratio") of beam search minus greedy's, same model, one
    number per draw, Δ_s = key_s(β, α) − key_s(greedy): seed 0 (the shipped model's rows) first, then the
    retrained seeds of the record's ``"draws"`` (``scripts/beam_encdec.py --draws``) in seed order."""
    seed0 = table(name)
    if key not in ("exact", "bleu", "length_ratio"):
        raise ValueError(f"key must be one of exact, bleu, length_ratio, got {key!r}")
    tables = [seed0] + [
        {(r["beam"], r["alpha"]): r for r in d["rows"]}
        for d in sorted(recorded().get("draws", []), key=lambda d: d["seed"])
        if d["name"] == name
    ]
    return {
        (b, a): [t[(b, a)][key] - t[(0, 0.0)][key] for t in tables]
        for b, a in DRAW_GRID
        if (b, a) != (0, 0.0)
    }


@torch.no_grad()
def log_prob(model: evaluate.Model, source: Sequence[int], target: Sequence[int]) -> float:
    """log p(Y | X) = Σ_i log p(y_i | y_<i, X) over the ``target`` ids followed by <eos>, given the
    ``source`` ids, in one teacher-forced pass (an empty ``target`` is the translation that stops at once)."""
    model = evaluate._model(model, (Seq2SeqTransformer, evaluate.DecoderOnly)).eval()
    device = next(model.parameters()).device
    x = torch.tensor([beam.word_ids("source", source, model.source.W_e.size(0))], device=device)
    y = beam.word_ids("target", target, model.target.W_e.size(0), empty=True)
    logits = model(x, x != 0, torch.tensor([[BOS_ID, *y]], device=device))[0]
    gold = torch.tensor([*y, EOS_ID], device=device)[:, None]
    return float(torch.log_softmax(logits[0].double(), -1).gather(1, gold).sum())
