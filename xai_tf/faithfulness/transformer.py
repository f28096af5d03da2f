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

import numpy as np
import torch
from torch import Tensor

from xai_tf._threads import one_thread
from xai_tf.explain import attribution as attr
from xai_tf.explain import wordlevel as wl
from xai_tf.faithfulness.correlation import kendall
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.tasks.sentiment import SequenceClassifier, train_classifier

METHODS = ("raw", "rollout", "flow", "IG", "LOO")
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
    features are one small forward pass per phrase, and a second thread only waits (10× slower on a
    busy 2-core machine)."""
    with one_thread():
        return train_classifier(lm, list(data))


def transformer_importances(lm: LoadedModel, clf: SequenceClassifier, text: str) -> dict[str, Tensor]:
    """``{method: scores [T]}`` for ``METHODS`` on one phrase (at least 2 tokens)."""
    lm = causal(lm, "the classifier of lesson 06")
    ids = lm.encode(text)
    if len(ids) < 2:
        raise ValueError(f"text must have at least 2 tokens, got {len(ids)}")
    A = lm.attentions(ids)
    with torch.no_grad():
        target = int(clf(ids).argmax())
    ig = attr.integrated_gradients(clf, ids, target, baseline="zeros", n_steps=32, output="prob")
    loo = attr.leave_one_out(clf, ids, target, replacement=None, output="prob")
    return {
        "raw": A[-1].mean(0).mean(0),
        "rollout": wl.attention_rollout(A).mean(0),
        "flow": wl.attention_flow(A).mean(0),
        "IG": ig.token_scores.abs().detach(),
        "LOO": loo.abs(),
    }


def transformer_correlation(
    lm: LoadedModel, clf: SequenceClassifier, texts: Sequence[str]
) -> dict[tuple[str, str], np.ndarray]:
    """Kendall τ ``[n]`` of every pair of ``PAIRS`` over the phrases ``texts``."""
    if not texts:
        raise ValueError("texts is empty: give at least one phrase")
    tau = {pair: np.empty(len(texts)) for pair in PAIRS}
    with one_thread():  # many small passes over short phrases: a second thread only waits
        for i, text in enumerate(texts):
            scores = transformer_importances(lm, clf, text)
            for pair in PAIRS:
                tau[pair][i] = kendall(scores[pair[0]], scores[pair[1]])[0]
    return tau
