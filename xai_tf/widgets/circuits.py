"""Lesson 15's figures and panel: a grid (layers × positions or heads) as a heatmap, and the
patching panel (a prompt pair, the answer and wrong token, the component, exact or attribution
patching; a chosen cell's patched run shows its top next tokens)."""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

from xai_tf import _checks
from xai_tf.circuits import metrics, patching
from xai_tf.circuits.attribution import attribution_patching
from xai_tf.models.loaded import LoadedModel
from xai_tf.viz.svg import html_ranked_table, svg_heatmap
from xai_tf.widgets._panel import Panel, needs, position_labels, side_by_side

METHODS = ("exact", "attribution")


def plot_grid(
    grid, columns: Sequence[str], title: str = "", ax: Axes | None = None, scale: float | None = None
) -> Axes:
    """``grid [layers, n]`` as a diverging heatmap (0 white, ±``scale``, default the largest |value|),
    layers down, ``columns`` across."""
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 2 or grid.shape[1] != len(columns):
        raise ValueError(
            f"grid must be [layers, {len(columns)}] for {len(columns)} columns, got {grid.shape}"
        )
    ax = ax or plt.subplots(figsize=(0.55 * len(columns) + 2, 0.4 * len(grid) + 1.4))[1]
    scale = max(float(np.abs(grid).max()), 1e-9) if scale is None else _checks.positive("scale", scale)
    image = ax.imshow(grid, cmap="RdBu_r", vmin=-scale, vmax=scale, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=60, ha="right", fontsize=9)
    ax.set_yticks(range(len(grid)), [f"layer {layer}" for layer in range(len(grid))], fontsize=9)
    ax.set_title(title, fontsize=11)
    plt.colorbar(image, ax=ax, shrink=0.8)
    return ax


def _grid(lm, clean, corrupted, metric, component, method, direction) -> torch.Tensor:
    run = patching.activation_patching if method == "exact" else attribution_patching
    return run(lm, clean, corrupted, metric, component, direction)


@needs("causal", "patching")
def patching_panel(lm: LoadedModel, clean: str, corrupted: str, answer: str, wrong: str) -> Panel:
    """Exact or attribution patching of the normalised logit difference of ``answer`` over ``wrong``;
    the chosen cell (layer, position or head) shows the patched run's top next tokens."""
    boxes = {
        name: widgets.Text(value=value, description=name, continuous_update=False)
        for name, value in (("clean", clean), ("corrupted", corrupted), ("answer", answer), ("wrong", wrong))
    }
    component = widgets.Dropdown(options=list(patching.COMPONENTS), description="component")
    method = widgets.Dropdown(options=METHODS, description="method")
    direction = widgets.Dropdown(options=patching.DIRECTIONS, description="direction")
    layer = widgets.BoundedIntText(value=lm.n_layer - 1, min=0, max=lm.n_layer - 1, description="layer")
    cell = widgets.BoundedIntText(value=0, min=0, max=lm.n_ctx - 1, description="position/head")

    def render() -> str:
        ids = [torch.tensor([lm.encode(boxes[k].value)]) for k in ("clean", "corrupted")]
        answer_ids, wrong_ids = lm.encode(boxes["answer"].value), lm.encode(boxes["wrong"].value)
        if len(answer_ids) != 1 or len(wrong_ids) != 1:
            raise ValueError("answer and wrong must each be one token of the model's vocabulary")
        metric = metrics.logit_difference_metric(lm, *ids, answer_ids[0], wrong_ids[0])
        grid = _grid(lm, *ids, metric, component.value, method.value, direction.value)
        columns = (
            [f"head {h}" for h in range(lm.n_head)]
            if component.value == "z"
            else position_labels(lm.token_strings(ids[0][0].tolist()))
        )
        if cell.value >= len(columns):
            raise ValueError(f"position/head must lie in 0..{len(columns) - 1} for this component")
        top = patching.patched_top_tokens(
            lm, *ids, component.value, layer.value, cell.value, direction.value, k=6
        )
        table = html_ranked_table(
            ["patched run"],
            [top],
            title=f"top next tokens, layer {layer.value}, {html.escape(columns[cell.value])}",
        )
        title = f"{method.value} {direction.value}: normalised logit difference"
        heat = svg_heatmap(grid.clamp(0, 1).numpy(), [f"L{i}" for i in range(lm.n_layer)], columns, title)
        return side_by_side(heat, table)

    return Panel(
        {
            **boxes,
            "component": component,
            "method": method,
            "direction": direction,
            "layer": layer,
            "cell": cell,
        },
        render,
        rows=[
            ["clean", "corrupted"],
            ["answer", "wrong"],
            ["component", "method", "direction"],
            ["layer", "cell"],
        ],
        slow=True,
    )
