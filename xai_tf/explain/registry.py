"""One explanation verb: methods picked by name, one signature (lessons 06, 07, 08, 11).

As Captum's ``attribute``, every method answers the same call,

    explain(method, model, inputs, target, **options) → Explanation

with per-token ``scores`` [T] and, for integrated gradients, its completeness error
delta = Σ IG − (F(x) − F(x′)) and the number of nodes m it used. A family of methods that share a
model kind and a set of options is one ``Registry``; its options are declared once with their
defaults, and an option no method of the family reads is refused by name. A panel's dropdown lists a
registry's names and calls ``registry.explain``: **a new method is one entry in a registry, never a
new branch**.

The registries: ``ATTRIBUTIONS`` here (lesson 06: one next-token prediction of a language model, or a
class of ``xai_tf.tasks`` classifier; signed scores), ``faithfulness.importance.IMPORTANCES`` (lessons
08, 11: an attention classifier's words, magnitudes), ``faithfulness.transformer.TRANSFORMER``
(lesson 08: a transformer classifier's tokens) and ``faithfulness.erasure.ORDERS`` (lesson 08: the
orders in which erasure removes words). ``AGGREGATIONS`` (lesson 07) maps every layer's and head's
attention to one [T, T] map, ``(attentions [L, H, T, T], layer, head) → (A, what)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from torch import Tensor

from xai_tf.explain import attribution as attr
from xai_tf.explain import wordlevel as wl


@dataclass
class Explanation:
    """``scores`` [T], one per token; for IG its completeness ``delta`` and ``n_steps`` m (NaN and
    0 for a method without completeness); ``note`` says what the scores satisfy."""

    scores: Tensor
    delta: float = math.nan
    n_steps: int = 0
    note: str = ""


#: A method: ``(model, inputs, target, **options) → Explanation``, every declared option passed.
Method = Callable[..., Explanation]


class Registry(dict[str, Method]):
    """Methods by name for one kind of model, with the options they share and their defaults."""

    def __init__(self, what: str, methods: Mapping[str, Method], options: Mapping[str, Any]) -> None:
        super().__init__(methods)
        self.what, self.options = what, dict(options)

    def check(self, methods: object) -> list[str]:
        """``methods`` as a list of this registry's names (a non-empty list or tuple), or a ValueError."""
        names = list(methods) if isinstance(methods, list | tuple) else []
        unknown = [m for m in names if m not in self]
        if not names or unknown:
            raise ValueError(f"methods must be a non-empty list of names from {list(self)}, got {methods!r}")
        return names

    def settings(self, **options: Any) -> dict[str, Any]:
        """The declared options with ``options`` in place of their defaults (unknown ones refused)."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise TypeError(f"{self.what} takes the options {sorted(self.options)}, got {unknown}")
        return self.options | options

    def explain(
        self, method: str, model: Any, inputs: Any, target: Any = None, **options: Any
    ) -> Explanation:
        """The verb: ``method``'s explanation of ``target`` (the registry's default when None) for
        ``inputs`` of ``model``."""
        if not isinstance(method, str) or method not in self:
            raise ValueError(f"method must be one of {list(self)}, got {method!r}")
        return self[method](model, inputs, target, **self.settings(**options))


def _integrated_gradients(lm: Any, ids: Any, target: int, **o: Any) -> Explanation:
    r = attr.integrated_gradients(lm, ids, target, o["baseline"], o["n_steps"], o["quadrature"])
    note = (
        f"F(x) = {r.f_input:.3f}, F(x') = {r.f_baseline:.3f}, Σ IG = {float(r.token_scores.sum()):.3f}, "
        f"<b>delta = {r.delta:+.4f}</b> ({100 * r.relative_delta:.2f}% of F(x) − F(x'))"
    )
    return Explanation(r.token_scores.detach(), r.delta, o["n_steps"], note)


def _gradient(reduce: Callable[[Tensor, Tensor], Tensor]) -> Method:
    def attribute(lm: Any, ids: Any, target: int, **_: Any) -> Explanation:
        g, E = attr.embedding_gradients(lm, ids, target)
        return Explanation(
            reduce(g, E).detach(), note="gradients at the input only: no baseline, no completeness"
        )

    return attribute


def _leave_one_out(lm: Any, ids: Any, target: int, **_: Any) -> Explanation:
    space = int(attr.named_baselines(lm)["space"])
    return Explanation(attr.leave_one_out(lm, ids, target, space), note="token replaced by a space")


#: Lesson 06: token scores of one prediction (the logit of ``target`` after the prompt); the options
#: are IG's baseline (see ``attribution.named_baselines``), nodes m and quadrature.
ATTRIBUTIONS = Registry(
    "lesson 06's attributions",
    {
        "IG": _integrated_gradients,
        "G-avg": _gradient(lambda g, E: attr.gradient_saliency(g, "avg")),
        "G-L1": _gradient(lambda g, E: attr.gradient_saliency(g, "l1")),
        "G-L2": _gradient(lambda g, E: attr.gradient_saliency(g, "l2")),
        "gradient × input": _gradient(attr.gradient_times_input),
        "leave-one-out": _leave_one_out,
    },
    {"baseline": "token0", "n_steps": 50, "quadrature": "gausslegendre"},
)

# Lesson 20's map of methods (SmoothGrad … contrastive): entries and options of their own module.
from xai_tf.explain import catalogue  # noqa: E402  (its entries build the Explanation defined above)

ATTRIBUTIONS.update(catalogue.METHODS)
ATTRIBUTIONS.options.update(catalogue.OPTIONS)

Aggregate = Callable[[Tensor, int, int], tuple[Tensor, str]]

#: Flow solves T² max-flow problems on a graph of L·T² edges: it is offered up to this many tokens
#: (0.47 s for 40 tokens on the bundled model, measured; about 30 s for 120).
FLOW_MAX_TOKENS = 40


def _flow(attentions: Tensor) -> Tensor:
    T = attentions.size(-1)
    if T > FLOW_MAX_TOKENS:
        raise ValueError(
            f"flow is offered for up to {FLOW_MAX_TOKENS} tokens, this text has {T}: use rollout"
        )
    return wl.attention_flow(attentions, normalize=True)


AGGREGATIONS: dict[str, Aggregate] = {
    "one head": lambda A, layer, head: (A[layer, head], f"layer {layer}, head {head}"),
    "mean of heads": lambda A, layer, head: (
        wl.aggregate_heads(A, "mean")[layer],
        f"layer {layer}, mean of heads",
    ),
    "max of heads": lambda A, layer, head: (
        wl.aggregate_heads(A, "max")[layer],
        f"layer {layer}, max of heads",
    ),
    "rollout": lambda A, layer, head: (wl.attention_rollout(A), "rollout over all layers"),
    "flow": lambda A, layer, head: (_flow(A), "flow over all layers (rows normalised)"),
}
