"""Lesson 06's methods in the registry (``xai_tf.explain.registry``): one next-token prediction of a
causal language model, F = the logit of ``target`` after the prompt, signed token scores (red
raises F). The formulas are ``attribution``'s:

    ig            IG_t = Σ_j (E_tj − E'_tj) ∫₀¹ ∂F(E' + α(E − E'))/∂E_tj dα   (options: baseline, n_steps m,
                  quadrature; the note gives F(x), F(x'), Σ IG and the completeness delta)
    grad_avg      (1/d_e) Σ_j ∇_tj          grad_l1   (1/d_e) Σ_j |∇_tj|     grad_l2   √((1/d_e) Σ_j ∇_tj²)
    grad_x_input  Σ_j ∇_tj E_tj
    loo           F(x) − F(x with token t replaced by a space)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch import Tensor

from xai_tf.explain import attribution as attr
from xai_tf.explain.registry import Explanation, Method, register

#: IG's options and their defaults (the baseline: a name of ``attribution.named_baselines``' values).
IG_OPTIONS = {"baseline": "token0", "n_steps": 50, "quadrature": "gausslegendre"}


@register(
    "ig",
    "causal",
    label="IG",
    reads="gradients",
    options=IG_OPTIONS,
    completeness="yes, up to the quadrature",
)
def _integrated_gradients(lm: Any, ids: Any, target: int, **o: Any) -> Explanation:
    r = attr.integrated_gradients(lm, ids, target, o["baseline"], o["n_steps"], o["quadrature"])
    note = (
        f"F(x) = {r.f_input:.3f}, F(x') = {r.f_baseline:.3f}, Σ IG = {float(r.token_scores.sum()):.3f}, "
        f"delta = {r.delta:+.4f} ({100 * r.relative_delta:.2f}% of F(x) − F(x'))"
    )
    return Explanation(r.token_scores.detach(), r.delta, o["n_steps"], note)


def _gradient(reduce: Callable[[Tensor, Tensor], Tensor]) -> Method:
    def attribute(lm: Any, ids: Any, target: int, **_: Any) -> Explanation:
        g, E = attr.embedding_gradients(lm, ids, target)
        return Explanation(
            reduce(g, E).detach(), note="gradients at the input only: no baseline, no completeness"
        )

    return attribute


def _saliency(aggregation: str) -> Callable[[Tensor, Tensor], Tensor]:
    return lambda g, E: attr.gradient_saliency(g, aggregation)


register("grad_avg", "causal", label="G-avg", reads="gradients")(_gradient(_saliency("avg")))
register("grad_l1", "causal", label="G-L1", reads="gradients")(_gradient(_saliency("l1")))
register("grad_l2", "causal", label="G-L2", reads="gradients")(_gradient(_saliency("l2")))
register("grad_x_input", "causal", label="gradient × input", reads="gradients")(
    _gradient(attr.gradient_times_input)
)


@register("loo", "causal", label="leave-one-out", reads="forward")
def _leave_one_out(lm: Any, ids: Any, target: int, **_: Any) -> Explanation:
    space = int(attr.named_baselines(lm)["space"])
    return Explanation(attr.leave_one_out(lm, ids, target, space), note="token replaced by a space")
