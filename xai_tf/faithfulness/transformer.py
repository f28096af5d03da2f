"""Attention, rollout and flow against IG and leave-one-out on a transformer classifier (lesson 08).

Lesson 06's classifier reads the model's final states averaged over the positions,
s = W_c (1/T) Σ_s LN_f(h_L)[s] + b, so every query s counts equally; a word's attention importance is
the attention the queries pay it, averaged over them (A from the model in use, causal: query s sees t ≤ s):

    raw_t     = (1/T) Σ_s mean_h A_L[s, t]           (the last layer's heads)
    rollout_t = (1/T) Σ_s R[s, t],   flow_t = (1/T) Σ_s flow[s, t]   (lesson 07, residual ½)

against |IG_t| (zero-embedding baseline) and |f(x) − f(x_{−t})| (token t removed) for f the
probability of the predicted class, each compared by Kendall's τ per phrase.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.explain import attribution as attr
from xai_tf.explain.encoder import received
from xai_tf.explain.registry import Explanation, Method, View, register
from xai_tf.faithfulness.correlation import kendall
from xai_tf.models.loaded import LoadedModel, as_model, causal
from xai_tf.tasks.sentiment import CLASSES, SequenceClassifier, train_classifier

#: IG's nodes are one forward and backward pass each: more than this is not a lesson's wait.
MAX_STEPS = 1024
PAIRS = (
    ("raw", "IG"),
    ("raw", "LOO"),
    ("rollout", "IG"),
    ("rollout", "LOO"),
    ("flow", "IG"),
    ("flow", "LOO"),
    ("IG", "LOO"),
)


def phrase_classifier(lm: LoadedModel, data: Sequence[tuple[str, int]]) -> SequenceClassifier:
    """Lesson 06's classifier (``xai_tf.tasks.sentiment.train_classifier``) fit on one thread: its
    features are small forward passes, on which a second thread only waited (10× slower on a busy
    2-core machine, measured when they ran one phrase at a time)."""
    if not isinstance(data, list | tuple) or not all(
        isinstance(d, tuple) and len(d) == 2 and isinstance(d[0], str) for d in data
    ):
        raise TypeError("data must be a list of (phrase, label) pairs, e.g. [('O noble lord!', 1)]")
    for _, label in data:
        _checks.integer("data's labels", label, 0, len(CLASSES) - 1)
    with one_thread():
        return train_classifier(lm, list(data))


def _attention(how: str) -> Method:
    """An attention importance (``explain.encoder.received``: the map ``how`` averaged over queries)."""

    def method(clf: SequenceClassifier, ids: Tensor, target: int, **_: Any) -> Explanation:
        A = as_model(clf.body).attentions(ids[None])
        return Explanation(received(A, how), note="attention the queries pay each token, averaged")

    return method


def _integrated_gradients(clf: SequenceClassifier, ids: Tensor, target: int, **o: Any) -> Explanation:
    r = attr.integrated_gradients(clf, ids, target, baseline="zeros", n_steps=o["n_steps"], output="prob")
    note = f"|IG| from the zero embedding, m = {o['n_steps']}, delta = {r.delta:+.1e}"
    return Explanation(r.token_scores.abs().detach(), r.delta, o["n_steps"], note)


def _leave_one_out(clf: SequenceClassifier, ids: Tensor, target: int, **_: Any) -> Explanation:
    loo = attr.leave_one_out(clf, ids, target, replacement=None, output="prob")
    return Explanation(loo.abs(), note="|f(x) − f(x without token t)|")


def _checked(explain: Method) -> Method:
    """A method of ``TRANSFORMER`` with the shared checks first: lesson 06's classifier, one phrase
    of at least 2 tokens, a class of the classifier (None: the predicted one), m ≥ 1 nodes."""

    def method(clf: SequenceClassifier, ids: Any, target: Any, **o: Any) -> Explanation:
        if not isinstance(clf, SequenceClassifier):
            raise TypeError(f"model must be lesson 06's SequenceClassifier, got {type(clf).__name__}")
        ids = clf.check_input_ids(ids)
        if ids.size(0) != 1 or ids.size(1) < 2:
            raise ValueError(f"ids must be one phrase of at least 2 tokens, got shape {tuple(ids.shape)}")
        if "n_steps" in o:
            _checks.integer("n_steps", o["n_steps"], 1, MAX_STEPS)
        if target is None:
            with torch.no_grad():
                target = int(clf(ids).argmax())
        target = _checks.integer("target", target, 0, clf.head.out_features - 1)
        return explain(clf, ids[0], target, **o)

    return method


for _how in ("attention", "rollout", "flow"):
    register(_how, "sequence", label=_how, reads="activations")(_checked(_attention(_how)))
register("ig", "sequence", label="IG", reads="gradients", options={"n_steps": 32})(
    _checked(_integrated_gradients)
)
register("loo", "sequence", label="leave-one-out", reads="forward")(_checked(_leave_one_out))

#: Lesson 08: a transformer classifier's token importances (f = the probability of ``target``, by
#: default the predicted class), a view of the registry's "sequence" kind ("raw" is the id
#: ``attention``); IG's option is its number of Gauss–Legendre nodes m.
TRANSFORMER = View(
    "a transformer classifier's importances",
    "sequence",
    {"raw": "attention", "rollout": "rollout", "flow": "flow", "IG": "ig", "LOO": "loo"},
)
METHODS = tuple(TRANSFORMER)


def transformer_explanations(
    lm: LoadedModel, clf: SequenceClassifier, text: str, **options: Any
) -> dict[str, Explanation]:
    """``{method: Explanation}`` for every method of ``TRANSFORMER`` on one phrase (at least 2
    tokens), for the class ``clf`` predicts; ``options`` are ``TRANSFORMER``'s (``n_steps``)."""
    lm = causal(lm, "the classifier of lesson 06")
    if not isinstance(clf, SequenceClassifier):
        raise TypeError(
            f"clf must be lesson 06's SequenceClassifier (phrase_classifier), got {type(clf).__name__}"
        )
    if clf.body is not lm.model:
        raise ValueError("clf must be a classifier on lm's own model (phrase_classifier(lm, data))")
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    ids = lm.encode(text)
    if len(ids) < 2:
        raise ValueError(f"text must have at least 2 tokens, got {len(ids)}")
    settings = TRANSFORMER.settings(**options)
    return {m: TRANSFORMER.explain(m, clf, ids, None, **settings) for m in TRANSFORMER}


def transformer_importances(
    lm: LoadedModel, clf: SequenceClassifier, text: str, **options: Any
) -> dict[str, Tensor]:
    """``{method: scores [T]}``: the importance vectors of ``transformer_explanations``."""
    return {m: e.scores for m, e in transformer_explanations(lm, clf, text, **options).items()}


@dataclass
class TransformerCorrelation:
    """Kendall τ ``[n]`` of every pair of ``PAIRS`` over the phrases, and each phrase's explanations
    (the importance vectors, IG's delta and m)."""

    tau: dict[tuple[str, str], np.ndarray]
    explanations: list[dict[str, Explanation]]

    def deltas(self, method: str = "IG") -> np.ndarray:
        """``method``'s completeness delta per phrase ``[n]`` (NaN for a method without one)."""
        return np.array([e[method].delta for e in self.explanations])


def transformer_correlation(
    lm: LoadedModel, clf: SequenceClassifier, texts: Sequence[str], **options: Any
) -> TransformerCorrelation:
    """Kendall τ of every pair of ``PAIRS`` over the phrases ``texts`` (``options``: ``TRANSFORMER``'s)."""
    texts = _checks.strings("texts", texts)
    if not texts:
        raise ValueError("texts is empty: give at least one phrase")
    tau = {pair: np.empty(len(texts)) for pair in PAIRS}
    found = []
    with one_thread():  # many small passes over short phrases: a second thread only waits
        for i, text in enumerate(texts):
            found.append(transformer_explanations(lm, clf, text, **options))
            for pair in PAIRS:
                tau[pair][i] = kendall(found[i][pair[0]].scores, found[i][pair[1]].scores)[0]
    return TransformerCorrelation(tau, found)
