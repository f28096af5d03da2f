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
``explanations`` gives the explanations lesson 11 compares, by name: the importances of
``importance.IMPORTANCES`` (one verb), a random floor and the rationalizers' selections.
"""

from __future__ import annotations

import numbers
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.faithfulness.importance import IMPORTANCES, METHODS, ig_misses, in_dtype
from xai_tf.faithfulness.plausibility import precision_at_k
from xai_tf.rationales.model import Rationalizer, check_rationalizers, rationale_mask
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, check_examples

BINS = (0.01, 0.05, 0.10, 0.20, 0.50)
#: A model as ERASER sees it: word ids → class probabilities [classes].
Probabilities = Callable[[list[int]], Tensor]
#: The floor's name in ERASER's tables: uniform random scores.
RANDOM = "random"


def _scores(scores: Tensor | Sequence[float]) -> Tensor:
    """One explanation's scores ``[T]`` (T ≥ 1) as float64. NaN is refused: a word without a number
    cannot be ranked (torch would rank it first); ±inf rank last and first."""
    if isinstance(scores, str) or not isinstance(scores, Tensor | list | tuple):
        raise TypeError(
            f"scores must be one number per word (a tensor or a list), got {type(scores).__name__}"
        )
    try:
        scores = torch.as_tensor(scores, dtype=torch.float64, device="cpu")
    except (TypeError, ValueError) as err:
        raise TypeError(f"scores must be one number per word (a tensor or a list): {err}") from None
    if scores.dim() != 1 or len(scores) == 0:
        raise ValueError(f"scores must be one score per word [T], T ≥ 1, got shape {tuple(scores.shape)}")
    if torch.isnan(scores).any():
        raise ValueError("scores has NaN: an explanation must give every word a number to rank")
    return scores


def top_k(scores: Tensor | Sequence[float], k: int) -> list[int]:
    """The positions of the k highest scores (ties broken by position), in sentence order."""
    scores = _scores(scores)
    k = _checks.integer("k", k, 1, len(scores))
    return sorted(int(t) for t in scores.argsort(descending=True, stable=True)[:k])


def _sentence(ids: object) -> list[int]:
    """One sentence's word ids: a list, tuple or integer tensor of at least one id."""
    if not isinstance(ids, list | tuple | Tensor):
        raise TypeError(f"ids must be a list of integer word ids, got {type(ids).__name__}")
    words = ids.tolist() if isinstance(ids, Tensor) else list(ids)
    if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in words):
        raise TypeError(f"ids must hold integer word ids, got {words[:8]!r}")
    if not words:
        raise ValueError("ids must be the word ids of one sentence, at least 1 word")
    return [int(i) for i in words]


def _predict(m: Probabilities, ids: list[int]) -> Tensor:
    """m(ids), checked: class probabilities ``[classes]``, finite, in [0, 1]."""
    p = m(ids)
    if (
        not isinstance(p, Tensor)
        or p.dim() != 1
        or not torch.isfinite(p).all()
        or (p < 0).any()
        or (p > 1).any()
    ):
        shown = tuple(p.shape) if isinstance(p, Tensor) else type(p).__name__
        raise ValueError(f"m must return class probabilities [classes] in [0, 1], got {shown}: {p!r:.80}")
    return p


def _split(m: object, ids: object, rationale: object) -> tuple[list[int], list[int], list[int]]:
    """The sentence, the words of r (in order) and the rest; ``m`` must be callable."""
    if not callable(m):
        raise TypeError(
            f"m must be a function from word ids to class probabilities [classes], got {type(m).__name__}"
        )
    ids = _sentence(ids)
    chosen = set(_checks.indices("rationale", rationale, len(ids)))
    if not chosen:
        raise ValueError("the rationale is empty: it selects no word, so there is nothing to keep or remove")
    kept = [i for t, i in enumerate(ids) if t in chosen]
    rest = [i for t, i in enumerate(ids) if t not in chosen]
    return ids, kept, rest


def comprehensiveness(m: Probabilities, ids: Sequence[int], rationale: Sequence[int]) -> float:
    """m(x)_j − m(x \\ r)_j; r covering every word is refused (no sentence is left)."""
    ids, _, rest = _split(m, ids, rationale)
    if not rest:
        raise ValueError("the rationale covers every word: removing it leaves an empty sentence")
    p = _predict(m, ids)
    j = int(p.argmax())
    return float(p[j] - _predict(m, rest)[j])


def sufficiency(m: Probabilities, ids: Sequence[int], rationale: Sequence[int]) -> float:
    """m(x)_j − m(r)_j, the words of r kept in their order."""
    ids, kept, _ = _split(m, ids, rationale)
    p = _predict(m, ids)
    j = int(p.argmax())
    return float(p[j] - _predict(m, kept)[j])


def aopc(m: Probabilities, ids: Sequence[int], scores: Tensor, which: str) -> float:
    """AOPC of ``which`` ("comprehensiveness" or "sufficiency") over ERASER's bins; for
    comprehensiveness k is capped at T − 1 so that a word is left (a one-word sentence is refused)."""
    if which not in ("comprehensiveness", "sufficiency"):
        raise ValueError(f"which must be 'comprehensiveness' or 'sufficiency', got {which!r}")
    ids, scores = _sentence(ids), _scores(scores)
    T = len(ids)
    if len(scores) != T:
        raise ValueError(f"scores must give one score per word: {len(scores)} scores for {T} words")
    if which == "comprehensiveness" and T < 2:
        raise ValueError("ids has 1 word: comprehensiveness needs at least 2 (one must remain after removal)")
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


def explanations(
    model: AttentionClassifier,
    ids: Sequence[int],
    methods: Sequence[str] = METHODS,
    rationalizers: Mapping[str, Rationalizer] | None = None,
    generator: torch.Generator | None = None,
) -> dict[str, Tensor]:
    """Lesson 11's explanations of one sentence as word scores ``[T]``: each of ``methods`` (names of
    ``importance.IMPORTANCES``, through its verb with its default options); with a ``generator``,
    ``RANDOM``: uniform scores drawn from it (the floor); each rationalizer's selection scored 1, the
    rest 0 (``rationales.model.rationale_mask``: top-k's ties then go to the earlier word)."""
    return _explained(model, ids, methods, rationalizers, generator)[0]


def _explained(
    model: AttentionClassifier,
    ids: Sequence[int],
    methods: Sequence[str],
    rationalizers: Mapping[str, Rationalizer] | None,
    generator: torch.Generator | None,
) -> tuple[dict[str, Tensor], float]:
    """``explanations`` and IG's completeness delta (NaN without IG)."""
    classifier_probabilities(model)  # checks the model
    ids = _sentence(ids)
    _checks.token_ids("ids", ids, model.config.vocab_size)
    names = IMPORTANCES.check(methods)
    rationalizers = check_rationalizers(rationalizers)
    found = {m: IMPORTANCES.explain(m, model, ids) for m in names}
    scores = {m: e.scores for m, e in found.items()}
    if generator is not None:
        scores[RANDOM] = torch.rand(len(ids), generator=generator, device="cpu")
    delta = found["IG"].delta if "IG" in found else float("nan")
    return scores | {name: rationale_mask(r, ids) for name, r in rationalizers.items()}, delta


def eraser_table(
    model: AttentionClassifier,
    data: Sequence[Example],
    methods: Sequence[str] = METHODS,
    rationalizers: Mapping[str, Rationalizer] | None = None,
    seed: int = 0,
) -> list[EraserRow]:
    """AOPC comprehensiveness, sufficiency and P@k (k = the number of planted cues; NaN where no
    sentence has cues) over ``data`` (its sentences of ≥ 2 words) of each of ``explanations``: the
    importances ``methods`` of ``model``, ``RANDOM`` drawn afresh for each sentence from one generator
    seeded with ``seed``, and each rationalizer's selection; m is ``model``'s class probabilities.
    Rows ranked by comprehensiveness − sufficiency."""
    m = classifier_probabilities(model)
    data = check_examples("data", data, model.config.vocab_size, classes=None)
    IMPORTANCES.check(methods)
    rationalizers, g = check_rationalizers(rationalizers), seeds.generator(seed)
    data = [e for e in data if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    explained = in_dtype(model, IMPORTANCES.settings()["dtype"])  # one copy for every sentence
    comp: dict[str, list[float]] = defaultdict(list)
    suff: dict[str, list[float]] = defaultdict(list)
    plaus: dict[str, list[float]] = defaultdict(list)
    deltas: list[float] = []
    with one_thread(), ig_misses("eraser_table", deltas, IMPORTANCES.settings()["ig_tolerance"]):
        for e in data:
            found, delta = _explained(explained, e.ids, methods, rationalizers, g)
            deltas.append(delta)
            for name, scores in found.items():
                comp[name].append(aopc(m, e.ids, scores, "comprehensiveness"))
                suff[name].append(aopc(m, e.ids, scores, "sufficiency"))
                if any(e.cues):
                    plaus[name].append(precision_at_k(scores, e.cues))
    rows = [
        EraserRow(name, float(np.mean(comp[name])), float(np.mean(suff[name])), _mean(plaus[name]))
        for name in comp
    ]
    return sorted(rows, key=lambda r: r.sufficiency - r.comprehensiveness)


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else float("nan")
