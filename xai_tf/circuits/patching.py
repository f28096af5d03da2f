"""Activation patching, batched over positions (lesson 15; Meng et al. 2022, Wang et al. 2022,
Heimersheim & Nanda 2024).

Run the *target* prompt while one activation a is replaced by its value in the *source* prompt, and
score the run with a metric m (``metrics.LogitDifference``: 0 = corrupted, 1 = clean):

    denoising: target = corrupted, source = clean     (is this activation *sufficient* to restore?)
    noising:   target = clean, source = corrupted     (is this activation *necessary*?)

    grid[l, p] = m(run of target with a^{l}_p := a^{l}_p(source))      for resid_pre, attn_out, mlp_out
    grid[l, h] = m(run of target with z^{l,h} := z^{l,h}(source))      for every head (all positions)

One forward pass per layer: the target is repeated once per position (or head), and row p of that
batch patches position p only. The metric scores the prediction at the end of the prompt, so each
patched run is unembedded at its last position only: the metric receives logits ``[batch, 1, vocab]``
(what ``LogitDifference`` reads), not the ``[T, T, vocab]`` of every position of every run (1.9 GiB at
100 tokens on GPT-2 small).
"""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.circuits import limits
from xai_tf.circuits.metrics import prompt_pair
from xai_tf.models.hooks import ActivationCache, Hooks
from xai_tf.models.loaded import LoadedModel, causal

Metric = Callable[[Tensor], Tensor]

#: What can be patched, and the grid's second axis.
COMPONENTS: dict[str, str] = {
    "resid_pre": "residual stream entering each layer, by position",
    "attn_out": "each layer's attention output, by position",
    "mlp_out": "each layer's MLP output, by position",
    "z": "each head's output (all positions)",
}
DIRECTIONS = ("denoising", "noising")


def check_request(component: object, direction: object) -> tuple[str, str]:
    """``component`` from ``COMPONENTS`` and ``direction`` from ``DIRECTIONS``."""
    for name, value, allowed in (
        ("component", component, list(COMPONENTS)),
        ("direction", direction, DIRECTIONS),
    ):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be one of {list(allowed)}, got {type(value).__name__} {value!r}")
        if value not in allowed:
            raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return str(component), str(direction)


def metric_values(metric: Metric, logits: Tensor, gradient: bool = False) -> Tensor:
    """``metric(logits)``, checked: a floating tensor ``[batch]`` (one score per run of the batch),
    finite, and with ``gradient`` one that depends on ``logits`` through autograd."""
    values = metric(logits)
    batch = logits.size(0)
    if not isinstance(values, Tensor) or not values.is_floating_point():
        raise TypeError(
            f"metric must map logits [batch, T, vocab] to a float tensor [batch], got {type(values).__name__}"
            + (f" {values.dtype}" if isinstance(values, Tensor) else "")
        )
    if values.shape != (batch,):
        raise ValueError(
            f"metric must map logits [batch, T, vocab] to one score per run [batch] = [{batch}], got shape "
            f"{tuple(values.shape)}"
        )
    if not torch.isfinite(values).all():
        raise ValueError(f"metric gave NaN or ±inf scores {values.tolist()[:4]}: it must be finite")
    if gradient and not values.requires_grad:
        raise ValueError(
            "metric must be differentiable in the logits it is given (attribution patching takes its "
            "gradient): it returned scores without a gradient (computed under no_grad, by .item() or "
            "float(), or from other logits than its argument)"
        )
    return values


def source_and_target(
    model: LoadedModel | nn.Module, clean_ids: object, corrupted_ids: object, direction: str
) -> tuple[LoadedModel, Tensor, Tensor]:
    """The causal model, and ``(source, target)`` ids of one length for ``direction``."""
    lm = causal(model, "activation patching")
    clean, corrupted = prompt_pair(lm, clean_ids, corrupted_ids)
    return (lm, clean, corrupted) if direction == "denoising" else (lm, corrupted, clean)


def source_run(
    model: LoadedModel | nn.Module,
    clean_ids: object,
    corrupted_ids: object,
    metric: object,
    component: object,
    direction: object,
) -> tuple[LoadedModel, Tensor, ActivationCache]:
    """What a patching grid starts from, its arguments checked: the causal model, the target's ids and
    the source run's activation cache (exact and attribution patching share it)."""
    component, direction = check_request(component, direction)
    if not callable(metric):
        raise TypeError(f"metric must map logits [batch, T, vocab] to [batch], got {type(metric).__name__}")
    lm, source, target = source_and_target(model, clean_ids, corrupted_ids, direction)
    limits.check_forward(
        "the source run",
        lm,
        source.size(0),
        source.size(1),
        "use shorter prompts in clean_ids and corrupted_ids",
        cache=True,
    )
    with torch.no_grad():
        logits, cache = lm.run_with_cache(source)
        metric_values(metric, logits)
    return lm, target, cache


def _last_logits(lm: LoadedModel, ids: Tensor, hooks: Hooks) -> Tensor:
    """The logits of the last position only, ``[batch, 1, vocab]``, of a run with ``hooks``."""
    net = causal(lm, "activation patching").model
    return F.linear(net.final_states(net.embed(ids), hooks)[:, -1:], net.unembedding)


def _patch_rows(source: Tensor) -> Callable[[Tensor], Tensor]:
    """A hook on a batch of n copies that puts source's entry i (position or head) into row i."""

    def hook(x: Tensor) -> Tensor:
        rows = torch.arange(x.size(0), device=x.device)
        x = x.clone()
        x[rows, rows] = source[0, rows].to(x.dtype)
        return x

    return hook


def activation_patching(
    model: LoadedModel | nn.Module,
    clean_ids: object,
    corrupted_ids: object,
    metric: Metric,
    component: str = "resid_pre",
    direction: str = "denoising",
) -> Tensor:
    """``[layers, T]`` (or ``[layers, heads]`` for ``"z"``): the metric of every single-activation patch,
    each run scored on its last position's logits ``[batch, 1, vocab]``."""
    lm, target, cache = source_run(model, clean_ids, corrupted_ids, metric, component, direction)
    n = lm.n_head if component == "z" else target.size(1)
    limits.check_forward(
        f"activation patching of {component}",
        lm,
        n,
        target.size(1),
        "use shorter prompts in clean_ids and corrupted_ids (or attribution_patching)",
        runs=lm.n_layer,
        unembedded=1,
    )
    with torch.no_grad():
        grid = [
            metric_values(
                metric,
                _last_logits(
                    lm, target.expand(n, -1), {(component, layer): _patch_rows(cache[component, layer])}
                ),
            )
            for layer in range(lm.n_layer)
        ]
    return torch.stack(grid)


def patched_top_tokens(
    model: LoadedModel | nn.Module,
    clean_ids: object,
    corrupted_ids: object,
    component: str,
    layer: int,
    index: int,
    direction: str = "denoising",
    k: int = 5,
) -> list[tuple[str, float]]:
    """The top ``k`` next tokens (string, probability) of the target run with one cell of the grid
    patched: position (or head, for ``"z"``) ``index`` of ``component`` at ``layer``."""
    component, direction = check_request(component, direction)
    lm, source, target = source_and_target(model, clean_ids, corrupted_ids, direction)
    layer = _checks.integer("layer", layer, 0, lm.n_layer - 1)
    index = _checks.integer("index", index, 0, (lm.n_head if component == "z" else target.size(1)) - 1)
    k = _checks.integer("k", k, 1, 100)
    with torch.no_grad():
        _, cache = lm.run_with_cache(source)

        def patch(x: Tensor) -> Tensor:
            x = x.clone()
            x[:, index] = cache[component, layer][:, index]
            return x

        probs = _last_logits(lm, target, {(component, layer): patch})[0, -1].softmax(-1)
    top = probs.topk(k)
    return list(zip(lm.token_strings(top.indices.tolist()), top.values.tolist(), strict=True))
