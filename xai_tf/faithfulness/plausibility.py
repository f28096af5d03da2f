"""Plausible or faithful? (Jacovi & Goldberg, 2020; lesson 08): on the planted-cue task the words that
decide the label are known, so an explanation can be scored against them. Precision at k:

    P@k = |top_k(scores) ∩ cues| / k,   k = the number of planted cues (by default),

the share of the k highest-scored words that are cues (ties broken by position).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from torch import Tensor

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.faithfulness.importance import (
    IMPORTANCES,
    METHODS,
    explanations,
    ig_misses,
    in_dtype,
    vocabulary_size,
)
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, check_examples


def precision_at_k(scores: Tensor | Sequence[float], cues: Sequence[int], k: int | None = None) -> float:
    """P@k of one sentence's word scores against its cue mask (1 = cue, 0 = not). NaN scores are
    refused (torch would rank NaN first)."""
    scores = _checks.real_vector("scores", scores)
    cues = _checks.indices("cues", cues, 2)  # each entry 0 or 1
    _checks.same_length("P@k", "scores", scores, "cues", cues)
    if len(scores) == 0:
        raise ValueError("scores is empty: give one score per word of a sentence")
    n_cues = sum(cues)
    if k is None:
        if n_cues == 0:
            raise ValueError("cues marks no word: give k or a sentence with planted cues")
        k = n_cues
    k = _checks.integer("k", k, 1, len(scores))
    top = scores.argsort(descending=True, stable=True)[:k]
    return sum(cues[int(t)] for t in top) / k


def precision_study(
    model: AttentionClassifier,
    data: Sequence[Example],
    methods: Sequence[str] = METHODS,
    options: dict | None = None,
) -> dict[str, float]:
    """Mean P@k (k = each sentence's number of cues) of every method over ``data``, the importances
    computed with ``importance.IMPORTANCES``' keywords ``options`` (e.g. ``importance.PAPER``)."""
    data = [e for e in check_examples("data", data, vocabulary_size(model), None) if any(e.cues)]
    data = [e for e in data if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence with planted cues")
    methods = IMPORTANCES.check(methods)
    settings = IMPORTANCES.settings(**(options or {}))
    model = in_dtype(model, settings["dtype"])  # one copy for every sentence
    totals = dict.fromkeys(methods, 0.0)
    deltas: list[float] = []
    with one_thread(), ig_misses("precision_study", deltas, settings["ig_tolerance"]):
        for e in data:
            found = explanations(model, e.ids, methods, **settings)
            deltas += [found[m].delta for m in found if m == "IG"]
            for method, explained in found.items():
                totals[method] += precision_at_k(explained.scores, e.cues)
    return {m: float(np.float64(v) / len(data)) for m, v in totals.items()}
