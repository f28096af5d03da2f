"""Lesson 09's panels: the histogram task's two trained solutions on a typed sequence, and a Dyck
model's attention with the stack top s(i) of every query outlined."""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import torch

from xai_tf import viz
from xai_tf.tasks.dyck import encode_dyck, parse_dyck
from xai_tf.tasks.dyck_model import DyckModel
from xai_tf.tasks.histogram import HistogramModel, histogram_labels
from xai_tf.tasks.toytasks import LETTERS, encode_letters
from xai_tf.widgets._panel import Panel, position_labels, side_by_side

TRAINED_LENGTH = 24  # the Dyck models saw strings of 24 brackets


def _text_box(value: str, description: str) -> widgets.Text:
    return widgets.Text(
        value=value, description=description, continuous_update=False, layout=widgets.Layout(width="60%")
    )


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    cells = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 8px'>{html.escape(c)}</td>" for c in r) + "</tr>"
        for r in rows
    )
    return f"<table style='font-size:14px;border-collapse:collapse'>{cells}</table>"


def histogram_panel(models: dict[str, HistogramModel], sequence: str = "DATAIAIAIA") -> Panel:
    """Type 10 letters of ``LETTERS``, pick a trained model; see its attention map and its predicted
    histogram next to the true one."""
    if not models or not all(isinstance(m, HistogramModel) for m in models.values()):
        raise TypeError("models must be a non-empty dict of name → HistogramModel")
    text = _text_box(sequence, f"sequence ({LETTERS})")
    model = widgets.Dropdown(options=list(models), description="model")

    def render() -> str:
        x = encode_letters(text.value)
        with torch.no_grad():
            logits, A = models[model.value](x)
        labels = position_labels(list(text.value.replace(" ", "").upper()))
        pred, true = logits[0].argmax(-1).tolist(), histogram_labels(x)[0].tolist()
        right = sum(p == t for p, t in zip(pred, true, strict=True))
        table = _table(
            [("position", "predicted", "true")]
            + [(lab, str(p), str(t)) for lab, p, t in zip(labels, pred, true, strict=True)]
        )
        note = f"<p style='font-size:14px'>{right} of {len(true)} counts right</p>"
        return side_by_side(viz.svg_heatmap(A[0], labels, title=f"A(x): {model.value}"), table + note)

    return Panel({"text": text, "model": model}, render, rows=[["text"], ["model"]])


def dyck_panel(models: dict[str, DyckModel], string: str = "([[]()])[(())]") -> Panel:
    """Type a Dyck_{2,4} string (at most 24 brackets), pick a model, layer and head; see the head's
    attention with each query's last unmatched open bracket s(i) outlined, and the head's share
    of attention there. The layer and head sliders follow the picked model's sizes."""
    if not models or not all(isinstance(m, DyckModel) for m in models.values()):
        raise TypeError("models must be a non-empty dict of name → DyckModel")
    first = next(iter(models.values()))
    text = _text_box(string, "Dyck string")
    model = widgets.Dropdown(options=list(models), description="model")
    layer = widgets.IntSlider(value=2, min=1, max=len(first.W_qkv), description="layer")
    head = widgets.IntSlider(value=1, min=1, max=first.n_head, description="head")

    def render() -> str:
        s = text.value.replace(" ", "")
        parsed = parse_dyck(s, 2, 4)
        if not parsed.valid or not s:
            raise ValueError(f"not a string of Dyck_{{2,4}}: {parsed.error or 'it is empty'}")
        if len(s) > TRAINED_LENGTH:
            raise ValueError(
                f"the models were trained on {TRAINED_LENGTH} brackets: type at most that many, got {len(s)}"
            )
        with torch.no_grad():
            _, A = models[model.value](encode_dyck([s]))
        A = A[0, layer.value - 1, head.value - 1]
        seen = [i for i, t in enumerate(parsed.top) if t >= 0]
        share = sum(float(A[i, parsed.top[i]]) for i in seen) / max(len(seen), 1)
        title = f"{model.value}, layer {layer.value}, head {head.value}: share on s(i) = {share:.2f}"
        return viz.svg_heatmap(A, position_labels(list(s)), title=title, outline=parsed.top)

    def fit_sliders() -> None:
        picked = models[model.value]
        layer.max, head.max = len(picked.W_qkv), picked.n_head

    controls = {"text": text, "model": model, "layer": layer, "head": head}
    return Panel(
        controls, render, rows=[["text"], ["model", "layer", "head"]], updates={"model": fit_sliders}
    )
