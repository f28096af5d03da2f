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
from typing import Any

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.explain.registry import Explanation, Method, View, register
from xai_tf.faithfulness.importance import sentence_ids, vocabulary_size
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, check_examples


def erase(alpha: Tensor, removed: Sequence[int]) -> Tensor:
    """α' ``[T]``: the weights at ``removed`` (positions 0..T − 1; 1.7 is refused, not truncated)
    zeroed, the rest renormalised to sum to 1. ``alpha`` must be weights: finite, ≥ 0, floating."""
    alpha = _checks.real_tensor("alpha", alpha, dims=1)
    if (alpha < 0).any():
        raise ValueError("alpha must be attention weights ≥ 0, got a negative entry")
    removed = _checks.indices("removed", removed, len(alpha))
    kept = torch.ones_like(alpha, dtype=torch.bool)
    kept[removed] = False
    if not kept.any():
        raise ValueError("removed covers every word: keep at least one weight")
    out = torch.where(kept, alpha, torch.zeros_like(alpha))
    if out.sum() <= 0:
        raise ValueError("alpha is 0 on every word not in removed: nothing to renormalise")
    return out / out.sum()


def sentence_states(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> tuple[Tensor, Tensor]:
    """``(h [1, T, d], α [T])`` of one sentence: the encoder's states and the model's attention."""
    ids = sentence_ids(model, ids)
    with torch.no_grad():
        h = model.states(model.embed(ids))
        return h, model.attention(h)[0]


def _checked(explain: Method) -> Method:
    """An order of ``ORDERS`` with the shared checks first: one sentence of the model's words, the
    decision ŷ (None: the model's own), a valid seed where it takes one."""

    def method(model: AttentionClassifier, ids: Any, target: Any, **o: Any) -> Explanation:
        if not isinstance(model, AttentionClassifier):
            raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")
        if "seed" in o:
            _checks.integer("seed", o["seed"], 0)
        h, alpha = sentence_states(model, ids)
        if target is None:
            with torch.no_grad():
                target = int(model.readout(h, alpha[None]).argmax())
        target = _checks.integer("target", target, 0, model.config.n_classes - 1)
        return explain(model, sentence_ids(model, ids)[0], target, **o)

    return method


@register("grad_alpha", "attention", label="∂s/∂α", reads=("activations", "gradients"))
@_checked
def _by_gradient(model: AttentionClassifier, ids: Tensor, target: int, **_: Any) -> Explanation:
    h, alpha = sentence_states(model, ids)
    a = alpha.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(model.readout(h, a[None])[0, target], a)
    return Explanation(grad, note="∂s_ŷ/∂α_t: largest first")


@register("random", "attention", label="random", reads=(), options={"seed": 0})
@_checked
def _at_random(model: AttentionClassifier, ids: Tensor, target: int, **o: Any) -> Explanation:
    """Scores T, T − 1, …, 1 at the positions of a seeded random permutation (the order)."""
    T = len(ids)
    scores = torch.empty(T, dtype=torch.float64, device="cpu")  # an order: on the CPU on any device
    order = torch.as_tensor(seeds.numpy_rng(o["seed"]).permutation(T), device="cpu")
    scores[order] = torch.arange(T, 0, -1, device="cpu").double()
    return Explanation(scores, note=f"a random order, seed {o['seed']}")


#: The orders of S&S's erasure, each a score per word (the order removes the largest first), a view of
#: the registry's "attention" kind: attention (α, computed in float32 as before), "∂s/∂α" the id
#: ``grad_alpha`` (the gradient of the decision's score with respect to the weights: S&S's "gradient", keyed
#: by its own label since lesson 08's "gradient" is ∇·e), a seeded random one.
ORDERS = View(
    "erasure's orders",
    "attention",
    {"attention": "attention", "∂s/∂α": "grad_alpha", "random": "random"},
    defaults={"dtype": torch.float32},
)


def removal_order(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, by: str, seed: int = 0
) -> list[int]:
    """The words' positions in the order ``by`` (a name of ``ORDERS``) removes them: its scores,
    largest first (ties: the earlier word first)."""
    if not isinstance(by, str) or by not in ORDERS:
        raise ValueError(f"by must be one of {list(ORDERS)}, got {by!r}")
    scores = ORDERS.explain(by, model, ids, seed=seed).scores
    return [int(t) for t in scores.argsort(descending=True, stable=True)]


@torch.no_grad()
def removals_to_flip(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, order: Sequence[int]
) -> int | None:
    """How many weights, removed in ``order``, until the decision flips; None if it never does
    while at least one weight is left."""
    h, alpha = sentence_states(model, ids)
    order = _checks.indices("order", order, len(alpha))
    if sorted(order) != list(range(len(alpha))):
        raise ValueError(f"order must be a permutation of the positions 0..{len(alpha) - 1}, got {order}")
    decision = int(model.readout(h, alpha[None]).argmax())
    for k in range(1, len(alpha)):
        if int(model.readout(h, erase(alpha, order[:k])[None]).argmax()) != decision:
            return k
    return None


@dataclass
class Erasure:
    """Over a test set, per order of ``ORDERS``: the share of decisions flipped by zeroing its first
    word ``flip_first``, and the fraction of weights removed at the first flip (1 where it never
    flips) ``fraction`` ``[n]``."""

    flip_first: dict[str, float]
    fraction: dict[str, np.ndarray]

    @property
    def flip_top(self) -> float:
        """The share of decisions flipped by zeroing the highest weight."""
        return self.flip_first["attention"]

    @property
    def flip_random(self) -> float:
        """The share of decisions flipped by zeroing a random weight."""
        return self.flip_first["random"]

    def never(self, by: str) -> float:
        """The share of sentences whose decision survives removing all but one weight in order ``by``."""
        return float((self.fraction[by] == 1.0).mean())


def erasure_study(model: AttentionClassifier, data: Sequence[Example], seed: int = 0) -> Erasure:
    """S&S's two measurements on every sentence of ``data`` with at least 2 words (sentence i's random
    order seeded with seed + i)."""
    data = [e for e in check_examples("data", data, vocabulary_size(model), classes=None) if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    _checks.integer("seed", seed, 0)
    fraction = {by: np.empty(len(data)) for by in ORDERS}
    first = {by: np.empty(len(data), dtype=bool) for by in ORDERS}
    with one_thread():
        for i, e in enumerate(data):
            for by in ORDERS:
                order = removal_order(model, e.ids, by, seed + i)
                k = removals_to_flip(model, e.ids, order)
                fraction[by][i] = 1.0 if k is None else k / len(e.ids)
                first[by][i] = k == 1
    return Erasure({by: float(f.mean()) for by, f in first.items()}, fraction)
