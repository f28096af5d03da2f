"""Jain & Wallace (2019), experiment 1 (lesson 08): does attention rank the words as the gradient and
leave-one-out do? Per sentence, Kendall's τ_b between two importance vectors a, b ∈ ℝ^T,

    τ = (n_c − n_d) / √((n_0 − n_a)(n_0 − n_b)),

n_c / n_d the concordant / discordant pairs, n_0 = T(T − 1)/2, n_a / n_b the pairs tied in a / b
(scipy.stats.kendalltau, with its p-value for "no association"). Ties: τ_b counts a pair tied in a
(or b) in n_a (or n_b) and in neither n_c nor n_d; a constant vector makes τ_b = 0/0, reported as
(NaN, NaN) and left out of the summary. Over a test set: mean ± sd of τ and the share of sentences
with p < 0.05; τ(gradient, LOO) is the yardstick of what agreement looks like.

A saturated classifier's f lies within 2⁻²⁴ of 0 or 1, where float32 leave-one-out differences are
multiples of ≈ 6e-8 and become ties: the importances' defaults (``{}``, equal to lesson 08's
``importance.PAPER``) are float64, Jain & Wallace's detached gradient and adaptive IG.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats
from torch import Tensor

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.explain.registry import Explanation
from xai_tf.faithfulness.importance import IMPORTANCES, explanations, ig_misses, in_dtype, vocabulary_size
from xai_tf.tasks.recurrent import AttentionClassifier, predict
from xai_tf.tasks.words import Example, check_examples

#: The pairs of experiment 1: attention against each importance, and the yardstick.
PAIRS = (("attention", "gradient"), ("attention", "LOO"), ("attention", "IG"), ("gradient", "LOO"))


def kendall(a: Tensor | Sequence[float], b: Tensor | Sequence[float]) -> tuple[float, float]:
    """``(τ_b, p)`` of two importance vectors of one sentence ((NaN, NaN) when either is constant:
    τ_b is then 0/0). NaN or infinite scores are refused: no order is defined for them."""
    x, y = _checks.real_vector("a", a), _checks.real_vector("b", b)
    if x.shape != y.shape or len(x) < 2:
        raise ValueError(
            f"a and b must be vectors of one length ≥ 2, got shapes {tuple(x.shape)} and {tuple(y.shape)}"
        )
    if np.ptp(x.numpy()) == 0 or np.ptp(y.numpy()) == 0:
        return float("nan"), float("nan")
    result = stats.kendalltau(x.numpy(), y.numpy(), variant="b")
    return float(result.statistic), float(result.pvalue)


@dataclass
class Correlation:
    """τ and p ``[n]`` per sentence for each pair of ``PAIRS``, each sentence's predicted class, and
    each sentence's explanations ``{method: Explanation}`` (the importance vectors, and IG's
    completeness delta and number of nodes)."""

    tau: dict[tuple[str, str], np.ndarray]
    p: dict[tuple[str, str], np.ndarray]
    predicted: np.ndarray
    explanations: list[dict[str, Explanation]]

    def summary(self, pair: tuple[str, str]) -> tuple[float, float, float]:
        """``(mean τ, sd τ, share of sentences with p < 0.05)`` for one pair (NaN τ left out; all three
        NaN when every sentence's τ is NaN: no sentence has an order to compare)."""
        if pair not in self.tau:
            raise ValueError(f"pair must be one of the study's pairs {list(self.tau)}, got {pair!r}")
        tau, p = self.tau[pair], self.p[pair]
        ok = ~np.isnan(tau)
        if not ok.any():
            return float("nan"), float("nan"), float("nan")
        return float(tau[ok].mean()), float(tau[ok].std()), float((p[ok] < 0.05).mean())

    def scores(self, method: str) -> list[Tensor]:
        """``method``'s importance vector ``[T]`` of each sentence."""
        return [e[method].scores for e in self.explanations]

    def deltas(self, method: str = "IG") -> np.ndarray:
        """``method``'s completeness delta per sentence ``[n]`` (NaN for a method without one)."""
        return np.array([e[method].delta for e in self.explanations])

    def steps(self, method: str = "IG") -> np.ndarray:
        """``method``'s number of nodes m per sentence ``[n]`` (0 for a method without nodes)."""
        return np.array([e[method].n_steps for e in self.explanations])


def correlation_study(
    model: AttentionClassifier,
    data: Sequence[Example],
    pairs: Sequence[tuple[str, str]] = PAIRS,
    options: dict | None = None,
) -> Correlation:
    """Kendall τ of every pair on every sentence of ``data`` (sentences of at least 2 words), the
    importances computed by ``importance.explanations`` with the keywords ``options`` (e.g.
    ``PAPER``). A model with uniform attention (α_t = 1/T, lesson 08's baseline) has a constant
    attention vector on every sentence: its τ with attention is NaN on each, and ``summary`` gives
    (NaN, NaN, NaN) for such a pair, by the rule of ``kendall``."""
    settings = IMPORTANCES.settings(**({} if options is None else options))
    for pair in pairs:
        if not isinstance(pair, tuple | list) or len(pair) != 2 or any(m not in IMPORTANCES for m in pair):
            raise ValueError(f"pairs must be pairs of {list(IMPORTANCES)}, got {pair!r}")
    data = [e for e in check_examples("data", data, vocabulary_size(model), None) if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    needed = [m for m in IMPORTANCES if any(m in pair for pair in pairs)]
    converted = in_dtype(model, settings["dtype"])
    tau = {pair: np.empty(len(data)) for pair in pairs}
    p = {pair: np.empty(len(data)) for pair in pairs}
    found: list[dict[str, Explanation]] = []
    deltas: list[float] = []
    with one_thread(), ig_misses("correlation_study", deltas, settings["ig_tolerance"]):
        for i, e in enumerate(data):
            found.append(explanations(converted, e.ids, needed, **settings))
            deltas.append(found[i]["IG"].delta if "IG" in needed else float("nan"))
            for pair in pairs:
                tau[pair][i], p[pair][i] = kendall(found[i][pair[0]].scores, found[i][pair[1]].scores)
    predicted = predict(model, data)[0].argmax(-1).cpu().numpy()
    return Correlation(tau, p, predicted, found)
