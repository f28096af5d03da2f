"""Lesson 17's numbers over draws: what ``scripts/train_encdec.py`` recorded for every seed of every
variant (``shipped.draws``), as arrays in seed order that the lesson prints and a claim test bounds.
"""

from __future__ import annotations

import numpy as np

from xai_tf.encdec import shipped

KEYS = ("exact", "bleu", "word_accuracy", "ece", "seconds")


def per_draw(name: str, key: str) -> np.ndarray:
    """One recorded number per draw of variant ``name``: ``key`` is one of ``KEYS``."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {', '.join(KEYS)}, got {key!r}")
    return np.array([d[key] for d in shipped.draws(name)])


def paired(a: str, b: str, key: str) -> tuple[np.ndarray, np.ndarray]:
    """``key`` of variants ``a`` and ``b`` on the seeds both were trained with, in seed order."""
    if key not in KEYS:
        raise ValueError(f"key must be one of {', '.join(KEYS)}, got {key!r}")
    da, db = ({d["seed"]: d for d in shipped.draws(n)} for n in (a, b))
    common = sorted(da.keys() & db.keys())
    return np.array([da[s][key] for s in common]), np.array([db[s][key] for s in common])


def by_length(name: str, metric: str = "exact") -> tuple[list[str], np.ndarray]:
    """Bucket labels ("3–7", …) and ``metric`` ("exact" or "bleu") per draw and bucket [draws, buckets]."""
    if metric not in ("exact", "bleu"):
        raise ValueError(f"metric must be 'exact' or 'bleu', got {metric!r}")
    column = 3 if metric == "exact" else 4  # rows are metrics.LengthRow: lo, hi, n, exact, bleu
    rows = [d["by_length"] for d in shipped.draws(name)]
    return [f"{lo}–{hi}" for lo, hi, *_ in rows[0]], np.array([[r[column] for r in row] for row in rows])


def best_layers(name: str = "pre") -> tuple[np.ndarray, np.ndarray]:
    """Per draw of an encoder–decoder variant: the decoder layer of the head with the lowest test AER,
    and the layer whose heads' mean map has the lowest AER (the record's last column per layer)."""
    draws = shipped.draws(name)
    if "aer" not in draws[0]:
        raise ValueError(f"variant {name!r} has no cross-attention: it has no AER")
    aer = np.array([d["aer"] for d in draws])  # [draws, layers, heads + 1]
    heads = aer[:, :, :-1].reshape(len(draws), -1).argmin(1) // (aer.shape[2] - 1)
    return heads, aer[:, :, -1].argmin(1)


def late_gain(name: str, back: int = 2) -> np.ndarray:
    """Per draw: the dev word accuracy at the last recorded step minus the one ``back`` records earlier
    (``runs.CURVE_EVERY`` steps apart) — above 0 where the model was still improving when training stopped."""
    if isinstance(back, bool) or not isinstance(back, int) or back < 1:
        raise ValueError(f"back must be an integer ≥ 1, got {back!r}")
    curves = [d["dev_curve"] for d in shipped.draws(name)]
    if any(len(c) <= back for c in curves):
        raise ValueError(f"back must be below the number of recorded dev points, got {back}")
    return np.array([c[-1][2] - c[-1 - back][2] for c in curves])
