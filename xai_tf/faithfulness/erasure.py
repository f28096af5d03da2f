"""Serrano & Smith (2019), is attention interpretable? Erase attention weights (lesson 08): with the
encoder's states h fixed, zero the weights of a set R of words and renormalise the rest,

    α'_t = 0 for t ∈ R,   α'_t = α_t / Σ_{u ∉ R} α_u otherwise,

and ask whether the decision argmax_c s_c(α') changes. Removing the words in a given order, the
fraction k/T of weights zeroed at the first flip says how well that order finds what the decision
rests on: by attention (largest α_t first), by the gradient of the decision's score with respect to
the weights (largest ∂s_ŷ/∂α_t first, S&S's gradient ranking), or at random.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example

ORDERS = ("attention", "gradient", "random")


def erase(alpha: Tensor, removed: Sequence[int]) -> Tensor:
    """α' ``[T]``: the weights at ``removed`` zeroed, the rest renormalised to sum to 1."""
    _checks.tensor("alpha", alpha)
    if alpha.dim() != 1:
        raise ValueError(f"alpha must be one sentence's weights [T], got shape {tuple(alpha.shape)}")
    removed = [
        _checks.integer("removed", int(t) if not isinstance(t, bool) else t, 0, len(alpha) - 1)
        for t in removed
    ]
    kept = torch.ones_like(alpha, dtype=torch.bool)
    kept[removed] = False
    if not kept.any():
        raise ValueError("removed covers every word: keep at least one weight")
    out = torch.where(kept, alpha, torch.zeros_like(alpha))
    if out.sum() <= 0:
        raise ValueError("the kept weights sum to 0: nothing to renormalise")
    return out / out.sum()


def sentence_states(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> tuple[Tensor, Tensor]:
    """``(h [1, T, d], α [T])`` of one sentence: the encoder's states and the model's attention."""
    ids = model.check_input_ids(ids)
    if ids.size(0) != 1:
        raise ValueError(f"explain one sentence at a time: ids has shape {tuple(ids.shape)}")
    with torch.no_grad():
        h = model.states(model.wte(ids))
        return h, model.attention(h)[0]


def removal_order(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, by: str, seed: int = 0
) -> list[int]:
    """The words' positions in the order ``by`` (see ``ORDERS``) removes them."""
    if by not in ORDERS:
        raise ValueError(f"by must be one of {ORDERS}, got {by!r}")
    h, alpha = sentence_states(model, ids)
    if by == "random":
        return [int(t) for t in seeds.numpy_rng(seed).permutation(len(alpha))]
    if by == "attention":
        return [int(t) for t in alpha.argsort(descending=True, stable=True)]
    a = alpha.clone().requires_grad_(True)
    scores = model.readout(h, a[None])[0]
    (grad,) = torch.autograd.grad(scores[scores.argmax()], a)
    return [int(t) for t in grad.argsort(descending=True, stable=True)]


@torch.no_grad()
def removals_to_flip(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, order: Sequence[int]
) -> int | None:
    """How many weights, removed in ``order``, until the decision flips; None if it never does
    while at least one weight is left."""
    h, alpha = sentence_states(model, ids)
    decision = int(model.readout(h, alpha[None]).argmax())
    for k in range(1, len(alpha)):
        if int(model.readout(h, erase(alpha, order[:k])[None]).argmax()) != decision:
            return k
    return None


@dataclass
class Erasure:
    """Over a test set: the share of decisions flipped by zeroing the highest weight and by zeroing a
    random one, and per order the fraction of weights removed at the first flip (1 where it never
    flips) ``[n]``."""

    flip_top: float
    flip_random: float
    fraction: dict[str, np.ndarray]

    def never(self, by: str) -> float:
        """The share of sentences whose decision survives removing all but one weight in order ``by``."""
        return float((self.fraction[by] == 1.0).mean())


def erasure_study(model: AttentionClassifier, data: Sequence[Example], seed: int = 0) -> Erasure:
    """S&S's two measurements on every sentence of ``data`` with at least 2 words."""
    data = [e for e in data if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    fraction = {by: np.empty(len(data)) for by in ORDERS}
    top, rand = [], []
    with one_thread():
        for i, e in enumerate(data):
            for by in ORDERS:
                order = removal_order(model, e.ids, by, seed + i)
                k = removals_to_flip(model, e.ids, order)
                fraction[by][i] = 1.0 if k is None else k / len(e.ids)
                if by != "gradient":
                    (top if by == "attention" else rand).append(k == 1)
    return Erasure(float(np.mean(top)), float(np.mean(rand)), fraction)
