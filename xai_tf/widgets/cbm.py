"""Lesson 12's panel: intervention by hand. Pick a test example and a model (the λ of a joint model,
or the sequential/independent one); its predicted concepts appear as sliders (a real-valued concept's
value, a binary concept's probability σ(h_j)); move one and g recomputes the output from the edited
bottleneck. Concepts left where the model put them keep its exact b_j."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping

import ipywidgets as widgets
import torch

from xai_tf.cbm.data import ConceptData, check_data
from xai_tf.cbm.intervention import intervene
from xai_tf.cbm.models import ConceptBottleneck
from xai_tf.widgets._panel import Panel

STEP = 0.01


def _predicted(model: ConceptBottleneck, data: ConceptData, i: int) -> list[float]:
    """Slider values for example i: h_j (real) or σ(h_j) (binary)."""
    with torch.no_grad():
        out = model.concept_outputs(data.x[i : i + 1])[0]
    return out.where(~model.binary, out.sigmoid()).tolist()


def concept_panel(models: Mapping[str, ConceptBottleneck], data: ConceptData, example: int = 0) -> Panel:
    """The panel of the module docstring for ``models`` (name → a trained bottleneck model that is not
    standard) on the examples of ``data``."""
    if not isinstance(models, Mapping) or not models:
        raise TypeError("models must map names to trained ConceptBottleneck models (at least one)")
    if not all(isinstance(m, ConceptBottleneck) for m in models.values()):
        raise TypeError("models must map names to trained ConceptBottleneck models (at least one)")
    if any(m.mode == "standard" for m in models.values()):
        raise ValueError("a standard model has no concepts to move: leave it out of models")
    for m in models.values():
        check_data("data", data, m.k)
    pick = widgets.IntText(value=example, description="example", continuous_update=False)
    which = widgets.Dropdown(options=list(models), description="model")
    lows, highs = data.c.min(0).values.tolist(), data.c.max(0).values.tolist()
    sliders = {
        name: widgets.FloatSlider(
            min=0.0 if binary else math.floor(lo),
            max=1.0 if binary else math.ceil(hi),
            step=STEP,
            description=f"{name} (p)" if binary else name,
            continuous_update=False,
        )
        for name, binary, lo, hi in zip(data.names, data.binary.tolist(), lows, highs, strict=True)
    }

    def index() -> int:
        if not 0 <= pick.value < len(data):
            raise ValueError(f"example must be an integer in 0..{len(data) - 1}, got {pick.value}")
        return pick.value

    def reset() -> None:
        if not 0 <= pick.value < len(data):
            return  # render() says why
        for slider, value in zip(
            sliders.values(), _predicted(models[which.value], data, pick.value), strict=True
        ):
            slider.value = min(max(value, slider.min), slider.max)

    def render() -> str:
        model, i = models[which.value], index()
        predicted = _predicted(model, data, i)
        now = [slider.value for slider in sliders.values()]
        moved = [
            j
            for j, (slider, p) in enumerate(zip(sliders.values(), predicted, strict=True))
            if abs(slider.value - min(max(p, slider.min), slider.max)) > STEP / 2
        ]
        with torch.no_grad():
            b = model.bottleneck(data.x[i : i + 1])
            before = float(model.predict_from(b))
            values = torch.tensor([now], dtype=b.dtype, device=b.device)
            after = float(model.predict_from(intervene(model, b, values, moved, None)))
        rows = "".join(
            f"<tr style='{'background:#ffe9a8' if j in moved else ''}'><td>{html.escape(name)}</td>"
            f"<td>{float(data.c[i, j]):.2f}</td><td>{predicted[j]:.2f}</td><td>{slider.value:.2f}</td></tr>"
            for j, (name, slider) in enumerate(sliders.items())
        )
        unit = "grade" if data.task == "regression" else "logit"
        shown = (
            (lambda v: f"{v:.2f}")
            if data.task == "regression"
            else (lambda v: f"{v:.2f} (p = {1 / (1 + math.exp(-v)):.2f})")
        )
        return (
            f"<p style='font-size:14px'><b>{html.escape(which.value)}</b>, example {i}: output {unit} "
            f"{shown(before)} as predicted → <b>{shown(after)}</b> with {len(moved)} concept(s) moved; "
            f"true y = {float(data.y[i]):g}</p>"
            "<table style='font-size:13px; border-spacing:14px 2px'><tr><th>concept</th><th>true</th>"
            f"<th>predicted</th><th>now</th></tr>{rows}</table>"
        )

    controls = {"example": pick, "model": which, **sliders}
    names = list(sliders)
    rows = [["example", "model"], *[names[j : j + 3] for j in range(0, len(names), 3)]]
    with_reset = {"example": reset, "model": reset}
    panel = Panel(controls, render, rows=rows, updates=with_reset)
    with panel.held():
        reset()
    panel.redraw()
    return panel
