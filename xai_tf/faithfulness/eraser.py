"""Measuring faithfulness the ERASER way (DeYoung et al., 2020; lesson 11). For a model m giving class
probabilities m(x), its predicted class j = argmax m(x), and a rationale r (a set of words of x):

    comprehensiveness = m(x)_j − m(x \\ r)_j    (r deleted: how much did the decision need r?)
    sufficiency       = m(x)_j − m(r)_j        (only r kept: is r enough? lower is better)

For a scoring explanation, r_k = its top-k words (ties broken by position), and AOPC averages over
ERASER's bins B = {1, 5, 10, 20, 50} % of the words, k = max(1, round(b · T)):

    AOPC = (1/|B|) Σ_{b ∈ B} score(r_{k(b)})

(the paper writes 1/(|B| + 1) with a k = 0 term; for comprehensiveness that term is 0, for
sufficiency it needs m(∅), which a word-level model does not have; we leave it out, as ERASER's scoring script
rationale_benchmark/metrics.py does). Words are
deleted, not masked, as in ERASER. Plausibility: P@k against the planted cues (lesson 08).
``explainers`` builds the explanations lesson 11 compares.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.faithfulness import importance
from xai_tf.faithfulness.plausibility import precision_at_k
from xai_tf.rationales.model import Rationalizer, rationale
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example

BINS = (0.01, 0.05, 0.10, 0.20, 0.50)
#: A model as ERASER sees it: word ids → class probabilities [classes].
Probabilities = Callable[[list[int]], Tensor]
#: An explanation: word ids → one score per word [T].
Explainer = Callable[[list[int]], Tensor]


def top_k(scores: Tensor | Sequence[float], k: int) -> list[int]:
    """The positions of the k highest scores (ties broken by position), in sentence order."""
    scores = torch.as_tensor(scores, dtype=torch.float64, device="cpu")
    if scores.dim() != 1 or len(scores) == 0:
        raise ValueError(f"scores must be one score per word [T], T ≥ 1, got shape {tuple(scores.shape)}")
    k = _checks.integer("k", k, 1, len(scores))
    return sorted(int(t) for t in scores.argsort(descending=True, stable=True)[:k])


def _split(ids: Sequence[int], rationale: Sequence[int]) -> tuple[list[int], list[int]]:
    ids = [int(i) for i in ids]
    chosen = {_checks.integer("rationale", t, 0, len(ids) - 1) for t in rationale}
    if not chosen:
        raise ValueError("the rationale is empty: it selects no word, so there is nothing to keep or remove")
    kept = [i for t, i in enumerate(ids) if t in chosen]
    rest = [i for t, i in enumerate(ids) if t not in chosen]
    return kept, rest


def comprehensiveness(m: Probabilities, ids: Sequence[int], rationale: Sequence[int]) -> float:
    """m(x)_j − m(x \\ r)_j; r covering every word is refused (no sentence is left)."""
    _, rest = _split(ids, rationale)
    if not rest:
        raise ValueError("the rationale covers every word: removing it leaves an empty sentence")
    p = m(list(ids))
    j = int(p.argmax())
    return float(p[j] - m(rest)[j])


def sufficiency(m: Probabilities, ids: Sequence[int], rationale: Sequence[int]) -> float:
    """m(x)_j − m(r)_j, the words of r kept in their order."""
    kept, _ = _split(ids, rationale)
    p = m(list(ids))
    j = int(p.argmax())
    return float(p[j] - m(kept)[j])


def aopc(m: Probabilities, ids: Sequence[int], scores: Tensor, which: str) -> float:
    """AOPC of ``which`` ("comprehensiveness" or "sufficiency") over ERASER's bins; for
    comprehensiveness k is capped at T − 1 so that a word is left."""
    if which not in ("comprehensiveness", "sufficiency"):
        raise ValueError(f"which must be 'comprehensiveness' or 'sufficiency', got {which!r}")
    T = len(ids)
    if len(scores) != T:
        raise ValueError(f"scores must give one score per word: {len(scores)} scores for {T} words")
    score = comprehensiveness if which == "comprehensiveness" else sufficiency
    ks = [min(max(1, round(b * T)), T - 1 if which == "comprehensiveness" else T) for b in BINS]
    return float(np.mean([score(m, ids, top_k(scores, k)) for k in ks]))


def classifier_probabilities(model: AttentionClassifier) -> Probabilities:
    """m(x) = softmax(s(x)) of lesson 08's classifier, as a function of word ids."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")

    @torch.no_grad()
    def m(ids: list[int]) -> Tensor:
        return model(ids).softmax(-1)[0].cpu()

    return m


@dataclass
class EraserRow:
    """One explanation's means over a test set."""

    method: str
    comprehensiveness: float
    sufficiency: float
    plausibility: float


def eraser_table(
    m: Probabilities, explainers: Mapping[str, Explainer], data: Sequence[Example]
) -> list[EraserRow]:
    """AOPC comprehensiveness, sufficiency and P@k (k = the number of planted cues) of each explainer
    over ``data`` (sentences of ≥ 2 words), ranked by comprehensiveness − sufficiency."""
    if not explainers:
        raise ValueError("explainers is empty: give at least one {name: scores function}")
    data = [e for e in data if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    rows = []
    with one_thread():
        for name, explain in explainers.items():
            comp, suff, plaus = [], [], []
            for e in data:
                scores = explain(e.ids).detach().cpu()
                comp.append(aopc(m, e.ids, scores, "comprehensiveness"))
                suff.append(aopc(m, e.ids, scores, "sufficiency"))
                if any(e.cues):
                    plaus.append(precision_at_k(scores, e.cues))
            rows.append(
                EraserRow(name, float(np.mean(comp)), float(np.mean(suff)), float(np.mean(plaus or [np.nan])))
            )
    return sorted(rows, key=lambda r: r.sufficiency - r.comprehensiveness)


def explainers(
    model: AttentionClassifier, rationalizers: Mapping[str, Rationalizer] | None = None, seed: int = 0
) -> dict[str, Explainer]:
    """The explanations lesson 11 ranks: each of ``importance.METHODS`` of ``model``; "random", uniform
    scores from one generator seeded with ``seed`` (drawn afresh for each sentence: the floor); and
    each rationalizer's selection scored 1, the rest 0 (``eraser_table``'s ties then go to the
    earlier word)."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")
    rationalizers = dict(rationalizers or {})
    for name, r in rationalizers.items():
        if not isinstance(r, Rationalizer):
            raise TypeError(f"rationalizers[{name!r}] must be a Rationalizer, got {type(r).__name__}")
    out: dict[str, Explainer] = {
        m: (lambda ids, m=m: importance.importances(model, ids, [m])[m]) for m in importance.METHODS
    }
    g = seeds.generator(seed)
    out["random"] = lambda ids: torch.rand(len(ids), generator=g)
    for name, r in rationalizers.items():
        out[name] = lambda ids, r=r: torch.tensor([float(t in rationale(r, ids)) for t in range(len(ids))])
    return out
