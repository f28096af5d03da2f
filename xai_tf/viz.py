"""Plots for the lessons (seaborn/matplotlib), sized to read on a projector."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
import torch
import xstatic.pkg.jquery
from bertviz import head_view, model_view
from IPython.display import HTML
from matplotlib.axes import Axes

sns.set_theme(context="notebook", style="whitegrid", font_scale=1.1)


def plot_next_tokens(tokens: Sequence[str], probs: Sequence[float], ax: Axes | None = None) -> Axes:
    """Horizontal bars: each candidate next token (quoted, so spaces show) and its probability."""
    ax = ax or plt.subplots(figsize=(7, 0.35 * len(tokens) + 1))[1]
    labels = [repr(t) for t in tokens]
    sns.barplot(x=[float(p) for p in probs], y=labels, hue=labels, ax=ax, palette="crest", legend=False)
    ax.set(xlabel="probability of being the next token", ylabel="", xlim=(0, 1))
    for y, p in enumerate(probs):
        ax.text(float(p) + 0.01, y, f"{float(p):.3f}", va="center")
    return ax


def plot_attention(
    A,
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str = "",
    annotate: bool | None = None,
) -> Axes:
    """Heatmap of an attention matrix: row i = query i, column j = key j, colour = A_ij in [0, 1]."""
    A = np.asarray(A, dtype=float)
    cols = rows if cols is None else cols
    annotate = A.size <= 100 if annotate is None else annotate
    ax = ax or plt.subplots(figsize=(0.6 * len(cols) + 2, 0.5 * len(rows) + 1.2))[1]
    sns.heatmap(
        A,
        ax=ax,
        vmin=0,
        vmax=1,
        cmap="rocket_r",
        annot=annotate,
        fmt=".2f",
        square=True,
        xticklabels=list(cols),
        yticklabels=list(rows),
        cbar=False,
        linewidths=0.5,
        annot_kws={"fontsize": 9},
    )
    ax.set(xlabel="key j (attended to)", ylabel="query i", title=title)
    ax.tick_params(axis="y", rotation=0)
    return ax


def plot_weights(p, labels: Sequence[str], ax: Axes | None = None, title: str = "") -> Axes:
    """Bars of one attention distribution p over positions; exact zeros are marked with a grey ×."""
    p = np.asarray(p, dtype=float)
    ax = ax or plt.subplots(figsize=(0.55 * len(labels) + 2, 3))[1]
    ax.bar(range(len(p)), p, color="#3b6ea8", edgecolor="#333333")
    zeros = np.flatnonzero(p == 0)
    if len(zeros):
        ax.plot(zeros, np.zeros(len(zeros)), "x", color="#999999", markersize=9, clip_on=False)
    ax.set_xticks(range(len(p)), list(labels), rotation=0)
    ax.set(ylim=(0, 1.05), ylabel="weight", title=title)
    return ax


def plot_heads(A, labels: Sequence[str], title: str = "") -> plt.Figure:
    """One heatmap per head of ``A [H, T, T]``, side by side."""
    A = np.asarray(A, dtype=float)
    fig, axes = plt.subplots(1, len(A), figsize=(3.2 * len(A), 3.4), squeeze=False)
    for h, ax in enumerate(axes[0]):
        plot_attention(A[h], labels, ax=ax, title=f"head {h}", annotate=False)
        if h:
            ax.set(ylabel="", yticklabels=[])
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- SVG for widgets
# Widgets redraw on every slider move; building an SVG string takes well under a millisecond and
# the browser draws it at once, where a matplotlib figure costs 100-400 ms to render to PNG here.

_RAMP = sns.color_palette("rocket_r", as_cmap=True)


def plot_token_scores(tokens: Sequence[str], scores, ax: Axes | None = None, title: str = "") -> Axes:
    """Signed bars of per-token scores: red raises the explained output, blue lowers it."""
    scores = np.asarray(scores, dtype=float)
    ax = ax or plt.subplots(figsize=(0.5 * len(tokens) + 2, 3))[1]
    ax.bar(range(len(scores)), scores, color=np.where(scores >= 0, "#c0392b", "#2c6fbb"))
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(range(len(scores)), list(tokens), rotation=60)
    ax.set(title=title, ylabel="score")
    return ax


def _hex(value: float) -> str:
    r, g, b, _ = _RAMP(min(max(value, 0.0), 1.0))
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def _text(x: float, y: float, s: str, size: int = 13, anchor: str = "middle", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-family="sans-serif"{extra}>{html.escape(s)}</text>'
    )


def svg_bars(
    values: Sequence[float],
    labels: Sequence[str],
    title: str = "",
    horizontal: bool = False,
    vmax: float = 1.0,
) -> str:
    """A bar chart as an SVG string (values in [0, vmax]); exact zeros are marked with a grey ×."""
    values = [float(v) for v in values]
    n, bar, gap, label_room, top = len(values), 26, 8, 90, 28
    parts, size = [], (0, 0)
    if horizontal:
        length = 380
        size = (label_room + length + 60, top + n * (bar + gap))
        for i, (v, lab) in enumerate(zip(values, labels, strict=True)):
            y = top + i * (bar + gap)
            parts.append(
                f'<rect x="{label_room}" y="{y}" width="{length * v / vmax:.1f}" height="{bar}" '
                f'fill="#3b6ea8"/>'
            )
            parts.append(_text(label_room - 6, y + bar * 0.7, lab, anchor="end"))
            parts.append(_text(label_room + length * v / vmax + 4, y + bar * 0.7, f"{v:.3f}", anchor="start"))
    else:
        height, bottom, left = 160, 30, 34
        size = (max(left + n * (bar + gap) + 10, 160), top + height + bottom)
        base = top + height
        for tick in (0.5, 1.0):  # light gridlines so that heights can be read
            y = base - height * tick
            parts.append(f'<line x1="{left - 4}" y1="{y}" x2="{size[0] - 6}" y2="{y}" stroke="#ddd"/>')
            parts.append(_text(left - 6, y + 4, f"{tick * vmax:g}", size=11, anchor="end", fill="#666"))
        for i, (v, lab) in enumerate(zip(values, labels, strict=True)):
            x = left + i * (bar + gap)
            h = height * v / vmax
            parts.append(f'<rect x="{x}" y="{base - h:.1f}" width="{bar}" height="{h:.1f}" fill="#3b6ea8"/>')
            if v == 0:
                parts.append(_text(x + bar / 2, base - 3, "×", size=15, fill="#999999"))
            parts.append(_text(x + bar / 2, base + 16, lab, size=12))
        parts.append(f'<line x1="{left - 4}" y1="{base}" x2="{size[0] - 6}" y2="{base}" stroke="#444"/>')
    parts.insert(0, _text(size[0] / 2, 18, title, size=14, font_weight="bold"))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size[0]}" height="{size[1]}">{"".join(parts)}</svg>'
    )


def svg_heatmap(A, rows: Sequence[str], cols: Sequence[str] | None = None, title: str = "") -> str:
    """An attention matrix as an SVG string: row i = query, column j = key, darker = more weight."""
    A = np.asarray(A, dtype=float)
    cols = rows if cols is None else cols
    cell, left, top = 40, 70, 30
    parts = [_text(left + cell * len(cols) / 2, 18, title, size=14, font_weight="bold")]
    for i, row in enumerate(A):
        parts.append(_text(left - 6, top + i * cell + cell * 0.62, rows[i], anchor="end"))
        for j, v in enumerate(row):
            x, y = left + j * cell, top + i * cell
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{_hex(v)}" stroke="#fff"/>'
            )
            parts.append(
                _text(x + cell / 2, y + cell * 0.62, f"{v:.2f}", size=11, fill="#fff" if v > 0.5 else "#222")
            )
    for j, col in enumerate(cols):
        parts.append(_text(left + j * cell + cell / 2, top + len(A) * cell + 16, col, size=12))
    width, height = left + cell * len(cols) + 10, top + cell * len(A) + 26
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">{"".join(parts)}</svg>'


def html_ranked_table(
    rows: Sequence[str], ranked: Sequence[Sequence[tuple[str, float]]], title: str = ""
) -> str:
    """A table of ranked guesses: one row per label, cells 'token p' shaded by p (e.g. the logit
    lens: a row per layer, its top tokens)."""
    head = (
        f"<caption style='font-weight:bold;text-align:left'>{html.escape(title)}</caption>" if title else ""
    )
    body = []
    for label, cells in zip(rows, ranked, strict=True):
        tds = "".join(
            f"<td style='background:{_hex(p)};color:{'#fff' if p > 0.5 else '#222'};padding:2px 8px;"
            f"font-family:monospace'>{html.escape(tok)} {p:.2f}</td>"
            for tok, p in cells
        )
        body.append(f"<tr><th style='text-align:right;padding-right:8px'>{html.escape(label)}</th>{tds}</tr>")
    return f"<table style='border-collapse:collapse'>{head}{''.join(body)}</table>"


def _diverging(score: float, scale: float) -> str:
    """Red for positive, blue for negative, white at 0; |score| = scale is the full colour."""
    t = 0.0 if scale == 0 else max(-1.0, min(1.0, score / scale))
    fade = int(255 * (1 - abs(t)))
    return f"#ff{fade:02x}{fade:02x}" if t >= 0 else f"#{fade:02x}{fade:02x}ff"


def html_token_scores(tokens: Sequence[str], scores: Sequence[float], title: str = "") -> str:
    """The prompt with each token shaded by its score: red raises the explained output, blue lowers
    it, white is 0; colours are scaled to the largest |score|. The score shows on hover."""
    scores = [float(s) for s in scores]
    scale = max((abs(s) for s in scores), default=0.0)
    spans = "".join(
        f"<span title='{s:+.4f}' style='background:{_diverging(s, scale)};padding:2px 1px;"
        f"border-radius:3px;font-family:monospace;white-space:pre'>{html.escape(t)}</span>"
        for t, s in zip(tokens, scores, strict=True)
    )
    head = f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else ""
    return f"<div style='line-height:2'>{head}{spans}</div>"


def plot_head_grid(attentions, labels: Sequence[str], title: str = "") -> plt.Figure:
    """Seaborn heatmaps of every head: a grid of layers (rows) × heads (columns), [L, H, T, T]."""
    attentions = np.asarray(attentions, dtype=float)
    L, H = attentions.shape[:2]
    fig, axes = plt.subplots(L, H, figsize=(1.9 * H + 1, 1.9 * L + 0.6), squeeze=False)
    for (layer, head), ax in np.ndenumerate(axes):
        sns.heatmap(attentions[layer, head], ax=ax, cmap="rocket_r", vmin=0, vmax=1, cbar=False, square=True)
        ax.set(xticks=[], yticks=[])
        if layer == 0:
            ax.set_title(f"head {head}", fontsize=10)
        if head == 0:
            ax.set_ylabel(f"layer {layer}", fontsize=10)
    fig.suptitle(title or f"attention of every head ({len(labels)} tokens, query rows × key columns)")
    fig.tight_layout()
    return fig


@cache
def _d3_and_jquery() -> str:
    """d3 v5.7.0 (the version bertviz asks for, shipped by the mpld3 package) and jQuery (the
    xstatic-jquery package), each evaluated as a CommonJS module into a local variable: no global
    is touched, nothing is fetched."""
    d3 = (files("mpld3") / "js" / "d3.v5.min.js").read_text(encoding="utf-8")
    jquery = (Path(xstatic.pkg.jquery.BASE_DIR) / "jquery.min.js").read_text(encoding="utf-8")

    def module(source: str) -> str:
        body = f"var exports = module.exports;\n{source}\n;return module.exports;"
        return f"(function (module) {{ {body} }})({{exports: {{}}}})"

    return f"var d3 = {module(d3)};\nvar jQuery = {module(jquery)};\n"


# bertviz's views call require.config(...) and requirejs(["jquery", "d3"], main); inside our
# wrapper these names are local stand-ins that hand main the two libraries loaded above.
_REQUIRE_STAND_IN = """var modules = {d3: d3, jquery: jQuery};
var require = {config: function () {}};
function requirejs(names, main) { main.apply(null, names.map(function (name) { return modules[name]; })); }
"""


def bertviz_view(attentions, tokens: Sequence[str], kind: str = "head") -> HTML:
    """bertviz's head view or model view of attentions ``[layers, heads, T, T]``, made to render
    offline and on the first run: the CDN script tags are dropped and d3 and jQuery are inlined
    from installed packages (so one view carries about 330 kB of JavaScript)."""
    views = {"head": head_view, "model": model_view}
    if kind not in views:
        raise ValueError(f"kind must be 'head' or 'model', got {kind!r}")
    attentions = torch.as_tensor(attentions)
    if attentions.dim() != 4 or attentions.shape[-2:] != (len(tokens), len(tokens)):
        raise ValueError(
            f"attentions must be [layers, heads, {len(tokens)}, {len(tokens)}], got {tuple(attentions.shape)}"
        )
    per_layer = tuple(a[None] for a in attentions)  # bertviz wants one [batch, heads, T, T] per layer
    page = views[kind](per_layer, list(tokens), html_action="return").data
    page = re.sub(r"<script src=[^>]*></script>", "", page)
    opening = '<script type="text/javascript">'
    markup, _, script = page.partition(opening)
    body = script.rsplit("</script>", 1)[0]
    wrapped = "(function () {\n" + _d3_and_jquery() + _REQUIRE_STAND_IN + body + "\n})();"
    return HTML(markup + opening + wrapped.replace("</script", "<\\/script") + "</script>")
