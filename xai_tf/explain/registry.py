"""Explanation methods picked by name (lessons 06 and 07, and every later panel with a method menu).

A panel's dropdown lists a registry's keys and calls the chosen entry; a new method is one entry
here, never a new branch in a panel.

- ``ATTRIBUTIONS``: token scores for one prediction, ``(lm, ids, target, baseline, n_steps,
  quadrature) → (scores [T], note)``; the note says what the scores satisfy (IG: F(x), F(x′), delta).
- ``AGGREGATIONS``: one [T, T] map from every layer's and head's attention, ``(attentions
  [L, H, T, T], layer, head) → (A, what)``.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import Tensor

from xai_tf.explain import attribution as attr
from xai_tf.explain import wordlevel as wl
from xai_tf.models.loaded import LoadedModel

Attribute = Callable[[LoadedModel, list[int], int, str | int, int, str], tuple[Tensor, str]]
Aggregate = Callable[[Tensor, int, int], tuple[Tensor, str]]


def _integrated_gradients(
    lm: LoadedModel, ids: list[int], target: int, baseline: str | int, n_steps: int, quadrature: str
) -> tuple[Tensor, str]:
    r = attr.integrated_gradients(lm, ids, target, baseline, n_steps, quadrature)
    note = (
        f"F(x) = {r.f_input:.3f}, F(x') = {r.f_baseline:.3f}, Σ IG = {float(r.token_scores.sum()):.3f}, "
        f"<b>delta = {r.delta:+.4f}</b> ({100 * r.relative_delta:.2f}% of F(x) − F(x'))"
    )
    return r.token_scores, note


def _gradient(reduce: Callable[[Tensor, Tensor], Tensor]) -> Attribute:
    def attribute(lm: LoadedModel, ids: list[int], target: int, *_options: object) -> tuple[Tensor, str]:
        g, E = attr.embedding_gradients(lm, ids, target)
        return reduce(g, E), "gradients at the input only: no baseline, no completeness"

    return attribute


def _leave_one_out(lm: LoadedModel, ids: list[int], target: int, *_options: object) -> tuple[Tensor, str]:
    space = attr.named_baselines(lm)["space"]
    return attr.leave_one_out(lm, ids, target, space), "token replaced by a space"


ATTRIBUTIONS: dict[str, Attribute] = {
    "IG": _integrated_gradients,
    "G-avg": _gradient(lambda g, E: attr.gradient_saliency(g, "avg")),
    "G-L1": _gradient(lambda g, E: attr.gradient_saliency(g, "l1")),
    "G-L2": _gradient(lambda g, E: attr.gradient_saliency(g, "l2")),
    "gradient × input": _gradient(attr.gradient_times_input),
    "leave-one-out": _leave_one_out,
}

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
