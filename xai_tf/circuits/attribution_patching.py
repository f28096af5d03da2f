"""Attribution patching: activation patching to first order (lesson 15; Nanda 2023, Syed et al. 2023).

Patching a ↦ a_source in the target run changes the metric by about

    m(a_source) − m(a_target) ≈ (a_source − a_target) · ∂m/∂a |_{target run}

so adding the target run's metric m_target gives an estimate of every cell of the exact grid of
``patching.activation_patching`` from one forward and one backward pass of the target run (the dot
product over d at each position for resid_pre, attn_out, mlp_out; over positions and d_h for a head).
Exact where m is linear in a; elsewhere its error is what the lesson measures.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf.circuits.patching import Metric, metric_values, source_run
from xai_tf.models.loaded import LoadedModel


def attribution_patching(
    model: LoadedModel | nn.Module,
    clean_ids: object,
    corrupted_ids: object,
    metric: Metric,
    component: str = "resid_pre",
    direction: str = "denoising",
) -> Tensor:
    """The first-order estimate of ``activation_patching``'s grid, same shape, same metric."""
    lm, target, cache = source_run(model, clean_ids, corrupted_ids, metric, component, direction)
    seen: dict[int, tuple[Tensor, Tensor]] = {}

    def tap(layer: int):
        def hook(a: Tensor) -> Tensor:
            delta = torch.zeros_like(a, requires_grad=True)  # ∂m/∂delta = ∂m/∂a
            seen[layer] = (a.detach(), delta)
            return a + delta

        return hook

    with torch.enable_grad():
        logits = lm(target, hooks={(component, layer): tap(layer) for layer in range(lm.n_layer)})
        m_target = metric_values(metric, logits, gradient=True)
        deltas = [seen[layer][1] for layer in range(lm.n_layer)]
        grads = torch.autograd.grad(m_target.sum(), deltas, allow_unused=True)
    if any(g is None for g in grads):
        raise ValueError(
            "metric does not depend on the logits it is given: attribution patching needs m(logits) of "
            "this run (a metric built from another model's logits, or a constant, has no gradient here)"
        )
    sum_dims = (2, 3) if component == "z" else (2,)
    return torch.stack(
        [
            m_target.detach()[0] + ((cache[component, layer] - seen[layer][0]) * g).sum(sum_dims)[0]
            for layer, g in enumerate(grads)
            if g is not None
        ]
    )
