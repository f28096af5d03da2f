"""The shipped 2-layer model that has an induction head (lesson 15), and the measurements recorded
with it.

``scripts/train_induction.py`` trains it (``circuits.induction_training``) and writes
``xai_tf/data/induction.safetensors`` and ``induction.json`` (its training settings, the code's
fingerprint and ``induction_report`` at the recorded lengths). ``induction_model()`` loads it as a
``LoadedModel`` with no tokenizer: its tokens are the ids 0..D−1 and are shown as numbers.
``tests/test_circuits.py`` checks that the fingerprint is current and that re-measuring the shipped
weights gives the recorded numbers.

``induction_report(lm, half)`` measures, on repeated random tokens of ``half`` tokens a half
(``induction.repeated_tokens``): the mean loss of each half, the top induction head and top
previous-token head with their scores, the K-composition of the previous-token head into the
induction head against its random baseline (mean, sd), and the second half's loss with the induction
head mean-ablated. ``report_ranges`` gives the smallest and largest of those numbers over many batches:
what a sentence about one batch has to allow for.
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from safetensors.torch import load_file
from torch import Tensor

from xai_tf import _checks, artifacts
from xai_tf.circuits import ablation, composition, induction, limits
from xai_tf.circuits.induction_training import CONFIG
from xai_tf.models.gpt2 import GPT2
from xai_tf.models.loaded import LoadedModel, causal

DATA = Path(str(files("xai_tf") / "data"))
WEIGHTS, METRICS = DATA / "induction.safetensors", DATA / "induction.json"
TRAINED_BY = "xai_tf.circuits.induction_training"
NAME = "induction-2l"


def fingerprint() -> str:
    """The training code's fingerprint (``artifacts.fingerprint`` of its import graph)."""
    return artifacts.fingerprint(TRAINED_BY)


def induction_model() -> LoadedModel:
    """The shipped 2-layer GPT-2 with an induction head, in eval mode on the CPU."""
    model = GPT2.from_state_dict(CONFIG, load_file(WEIGHTS))
    return LoadedModel(model, None, NAME, {"trained by": "scripts/train_induction.py"})


def recorded() -> dict:
    """What ``induction.json`` records: settings, fingerprint, training time, the reports."""
    return json.loads(METRICS.read_text())


def _top(grid: Tensor) -> tuple[tuple[int, int], float]:
    layer, head = divmod(int(grid.argmax()), grid.size(1))
    return (layer, head), float(grid.max())


def induction_report(model: LoadedModel, half: int, batch: int = 16, seed: int = 0) -> dict:
    """The measurements of the module docstring on ``batch`` sequences of 2 · ``half`` tokens."""
    lm = causal(model, "an induction report")
    half = _checks.integer("half", half, 2, lm.n_ctx // 2)
    batch = _checks.integer("batch", batch, 1, 1024)
    advice = "use a smaller batch or half"
    limits.check_forward("an induction report", lm, batch, 2 * half, advice, cache=True, runs=3)
    ids = induction.repeated_tokens(lm, half, batch, seed)
    loss = induction.per_token_loss(lm, ids)
    pattern = induction.attention_patterns(lm, ids)
    top_induction, induction_score = _top(induction.induction_scores(pattern))
    top_previous, previous_score = _top(induction.previous_token_scores(pattern))
    W_QK, _ = composition.qk_ov(lm, *top_induction)
    _, W_OV = composition.qk_ov(lm, *top_previous)
    chance, spread = composition.k_composition_baseline(lm.d_model, lm.d_model // lm.n_head, seed=seed)
    ablated = ablation.ablate_head(lm, ids, *top_induction, how="mean")
    return {
        "half": half,
        "loss first half": float(loss[:, : half - 1].mean()),
        "loss second half": float(loss[:, half:].mean()),
        "induction head": list(top_induction),
        "induction score": induction_score,
        "previous-token head": list(top_previous),
        "previous-token score": previous_score,
        "K-composition": float(composition.k_composition(W_QK, W_OV)),
        "K-composition baseline": [chance, spread],
        "loss second half, induction head mean-ablated": float(ablated[:, half:].mean()),
    }


def report_ranges(
    model: LoadedModel, half: int, draws: int = 30, batch: int = 16, windows: tuple[tuple[int, int], ...] = ()
) -> dict[str, tuple[float, float]]:
    """(min, max) over the batches of seeds 0, …, ``draws`` − 1 of: ``induction_report``'s previous-token
    score and losses, the ablation's rise (ablated minus unablated second-half loss), the lowest and the
    highest induction score of the last layer and the highest of the earlier layers, and, for each window
    (lo, hi) of positions, the loss ℓ_t averaged over the batch and over t = lo, …, hi."""
    lm = causal(model, "report ranges")
    half = _checks.integer("half", half, 2, lm.n_ctx // 2)
    draws = _checks.integer("draws", draws, 1, 1000)
    for window in windows:
        ok = isinstance(window, tuple) and len(window) == 2 and all(type(i) is int for i in window)
        if not ok or not 0 <= window[0] <= window[1] < 2 * half - 1:
            raise ValueError(
                f"windows must be pairs (lo, hi) of integers, 0 ≤ lo ≤ hi < {2 * half - 1}, got {window!r}"
            )
    values: dict[str, list[float]] = {}
    for seed in range(draws):
        r = induction_report(lm, half, batch, seed)
        ids = induction.repeated_tokens(lm, half, batch, seed)
        scores = induction.induction_scores(induction.attention_patterns(lm, ids))
        loss = induction.per_token_loss(lm, ids)
        row = {key: r[key] for key in ("previous-token score", "loss first half", "loss second half")}
        row["loss second half, induction head mean-ablated"] = r[
            "loss second half, induction head mean-ablated"
        ]
        row["ablation's rise"] = (
            row["loss second half, induction head mean-ablated"] - row["loss second half"]
        )
        row["lowest induction score, last layer"] = float(scores[-1].min())
        row["highest induction score, last layer"] = float(scores[-1].max())
        row["highest induction score, earlier layers"] = float(scores[:-1].max())
        for lo, hi in windows:
            row[f"loss over positions {lo}-{hi}"] = float(loss[:, lo : hi + 1].mean())
        for key, value in row.items():
            values.setdefault(key, []).append(value)
    return {key: (min(v), max(v)) for key, v in values.items()}
