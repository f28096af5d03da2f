"""Lesson 19's figures and panel: probe accuracy, control accuracy, selectivity and MDL compression by
layer, and the specialised-head table.

``probing_panel(tables)``: choose a label, a probe (linear or MLP) and a layer; the panel shows, at that
layer, the task and control accuracies against the majority baseline as bars, and the whole row of
numbers by layer (accuracy, control, selectivity, the probe's MDL compression where the table has it)
with the chosen layer marked. The
tables are computed once in the lesson (``probing.by_layer.study``): a change of a control only redraws.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np

from xai_tf import _checks
from xai_tf.probing.probes import PROBES
from xai_tf.viz.svg import svg_bars
from xai_tf.widgets._panel import Panel

Tables = Mapping[str, Mapping[str, Sequence[float]]]


def plot_study(tables: Tables) -> plt.Figure:
    """One column per label: accuracy (task, control, majority), selectivity, MDL compression by layer;
    linear probes solid, MLP dashed; one legend for the whole figure, above it."""
    if not isinstance(tables, Mapping) or not tables:
        raise TypeError("tables must be a non-empty dict: label → by_layer.study(...) table")
    fig, axes = plt.subplots(3, len(tables), figsize=(3.4 * len(tables), 8.8), sharex=True, squeeze=False)
    for j, (label, t) in enumerate(tables.items()):
        x = np.arange(len(t["majority"]))
        top, mid, low = axes[:, j]
        for k, style in zip(PROBES, ("-", "--"), strict=True):
            if f"{k} task" in t:
                top.plot(x, t[f"{k} task"], "o" + style, c="#1f77b4", label=f"{k}: task")
                top.plot(x, t[f"{k} control"], "s" + style, c="#ff7f0e", label=f"{k}: control")
                mid.plot(x, t[f"{k} selectivity"], "o" + style, c="#2ca02c", label=f"{k}: selectivity")
            if f"{k} mdl task" in t:
                low.plot(x, t[f"{k} mdl task"], "o" + style, c="#1f77b4")
                low.plot(x, t[f"{k} mdl control"], "s" + style, c="#ff7f0e")
        top.plot(x, t["majority"], ":", c="grey", label="majority")
        top.set_title(label, fontsize=11)
        mid.axhline(0, c="grey", lw=0.8)
        low.axhline(1, c="grey", lw=0.8, ls=":")
        low.set_xlabel("layer l (0: embeddings)")
    axes[0, 0].set_ylabel("test accuracy")
    axes[1, 0].set_ylabel("selectivity")
    axes[2, 0].set_ylabel("MDL compression\n(bits uniform / online)")
    handles = [h for ax in axes[:2, 0] for h in ax.get_legend_handles_labels()[0]]
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=9, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    return fig


MARK = "background:#ffe9a8"
CELL = "padding:2px 6px;text-align:right;"


def _table(t: Mapping[str, Sequence[float]], kind: str, layer: int) -> str:
    rows = [f"{kind} {row}" for row in ("task", "control", "selectivity", "mdl task", "mdl control")]
    rows.insert(3, "majority")
    head = "".join(
        f"<th style='padding:2px 6px;{'background:#ffe9a8' if i == layer else ''}'>{i}</th>"
        for i in range(len(t["majority"]))
    )
    body = []
    for name in (r for r in rows if r in t):
        cells = "".join(
            f"<td style='{CELL}{MARK if i == layer else ''}'>{v:.2f}</td>" for i, v in enumerate(t[name])
        )
        body.append(f"<tr><th style='text-align:left;padding:2px 6px'>{html.escape(name)}</th>{cells}</tr>")
    style = "border-collapse:collapse;font-size:13px"
    return f"<table style='{style}'><tr><th>layer</th>{head}</tr>{''.join(body)}</table>"


def probing_panel(tables: Tables) -> Panel:
    """Label, probe and layer → the accuracies at that layer as bars and the numbers by layer."""
    if not isinstance(tables, Mapping) or not tables:
        raise TypeError("tables must be a non-empty dict: label → by_layer.study(...) table")
    first = next(iter(tables.values()))
    label = widgets.Dropdown(options=list(tables), description="label")
    kind = widgets.ToggleButtons(options=[k for k in PROBES if f"{k} task" in first], description="probe")
    layer = widgets.IntSlider(value=0, min=0, max=len(first["majority"]) - 1, description="layer")

    def render() -> str:
        t, k, l_ = tables[label.value], kind.value, layer.value
        values = [t[f"{k} task"][l_], t[f"{k} control"][l_], t["majority"][l_]]
        bars = svg_bars(
            values, ["task", "control", "majority"], f"{label.value}, {k} probe, layer {l_}", True, 1.0
        )
        return bars + _table(t, k, l_)

    return Panel(
        {"label": label, "probe": kind, "layer": layer}, render, rows=[["label", "probe"], ["layer"]]
    )


def head_table_html(result: Mapping[str, Mapping[str, object]], n_head: int, top: int = 3) -> str:
    """Per kind of target, the ``top`` heads by share / baseline, with share, baseline and Voita's "top"."""
    if not isinstance(result, Mapping) or not result:
        raise TypeError("result must be a non-empty dict: kind → heads.head_shares(...) entry")
    _checks.integer("top", top, 1)
    n_head = _checks.integer("n_head", n_head, 1)
    rows = []
    for kind, r in result.items():
        share, top_share = np.asarray(r["share"]), np.asarray(r["top"])
        base = np.asarray(r["uniform"] if kind in ("previous", "next") else r["expected"])
        if int(np.asarray(r["queries"])) == 0:
            rows.append(
                f"<tr><td>{kind}</td><td colspan=5>no query has such a target "
                "(a causal head cannot see it)</td></tr>"
            )
            continue
        ratio = share / np.maximum(base, 1e-9)
        for i in np.argsort(-ratio, axis=None)[:top]:
            layer, h = divmod(int(i), n_head)
            baseline = "uniform" if kind in ("previous", "next") else "position alone"
            rows.append(
                f"<tr><td>{kind}</td><td>L{layer} H{h}</td><td>{share.flat[i]:.2f}</td>"
                f"<td>{base.flat[i]:.2f} ({baseline})</td><td>{ratio.flat[i]:.1f}×</td>"
                f"<td>{top_share.flat[i]:.2f}</td></tr>"
            )
    head = "<tr><th>target</th><th>head</th><th>share</th><th>expected</th><th>ratio</th><th>top</th></tr>"
    return f"<table style='font-size:13px'>{head}{''.join(rows)}</table>"
