"""Matplotlib/seaborn figures for the lessons (00–07 and on), sized to read on a projector.

Importing this module changes no global style; a lesson calls ``lesson_style()`` once at the top.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns
from matplotlib.axes import Axes

from xai_tf import _checks
from xai_tf.viz.arrays import host_array

ROCKET = sns.color_palette("rocket_r", as_cmap=True)


def lesson_style() -> None:
    """The lessons' look: seaborn's white grid, fonts a little larger than notebook default."""
    sns.set_theme(context="notebook", style="whitegrid", font_scale=1.1)


def plot_next_tokens(tokens: Sequence[str], probs: Sequence[float], ax: Axes | None = None) -> Axes:
    """Horizontal bars: each candidate next token (quoted, so spaces show) and its probability."""
    _checks.same_length("the bar chart", "tokens", tokens, "probabilities", probs)
    ax = ax or plt.subplots(figsize=(7, 0.35 * len(tokens) + 1))[1]
    labels = [repr(t) for t in tokens]
    sns.barplot(x=[float(p) for p in probs], y=labels, hue=labels, ax=ax, palette="crest", legend=False)
    right = min(1.0, 1.3 * max((float(p) for p in probs), default=1.0)) or 1.0  # room for the numbers
    ax.set(xlabel="probability of being the next token", ylabel="", xlim=(0, right))
    for y, p in enumerate(probs):
        ax.text(float(p) + 0.01 * right, y, f"{float(p):.3f}", va="center")
    return ax


def plot_attention(
    A,
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str = "",
    annotate: bool | None = None,
    colorbar: bool = False,
) -> Axes:
    """Heatmap of an attention matrix: row s = query s, column t = key t (the lecture's letters),
    colour = A_st in [0, 1]
    (the scale drawn beside it with ``colorbar=True``)."""
    A = host_array(A)
    cols = rows if cols is None else cols
    _checks.matrix_labels(A, rows, cols)
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
        cbar=colorbar,
        cbar_kws={"shrink": 0.8, "label": "weight"},
        linewidths=0.5,
        annot_kws={"fontsize": 9},
    )
    ax.set(xlabel="key t (attended to)", ylabel="query s", title=title)
    ax.tick_params(axis="y", rotation=0)
    return ax


def plot_weights(p, labels: Sequence[str], ax: Axes | None = None, title: str = "") -> Axes:
    """Bars of one attention distribution p over positions; exact zeros are marked with a grey ×."""
    p = host_array(p)
    _checks.same_length("the bar chart", "weights", p, "labels", labels)
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
    A = host_array(A)
    if A.ndim != 3 or A.shape[1:] != (len(labels), len(labels)):
        raise ValueError(f"A must be [heads, T, T] with T = {len(labels)} labels, got {A.shape}")
    fig, axes = plt.subplots(1, len(A), figsize=(3.2 * len(A), 3.4), squeeze=False)
    for h, ax in enumerate(axes[0]):
        plot_attention(A[h], labels, ax=ax, title=f"head {h}", annotate=False)
        if h:
            ax.set(ylabel="", yticklabels=[])
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_token_scores(tokens: Sequence[str], scores, ax: Axes | None = None, title: str = "") -> Axes:
    """Signed bars of per-token scores: red raises the explained output, blue lowers it."""
    scores = host_array(scores)
    _checks.same_length("the bar chart", "tokens", tokens, "scores", scores)
    ax = ax or plt.subplots(figsize=(0.5 * len(tokens) + 2, 3))[1]
    ax.bar(range(len(scores)), scores, color=np.where(scores >= 0, "#c0392b", "#2c6fbb"))
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(range(len(scores)), list(tokens), rotation=60)
    ax.set(title=title, ylabel="score")
    return ax


def plot_head_grid(attentions, labels: Sequence[str], title: str = "") -> plt.Figure:
    """Every head's attention as an image: a grid of layers (rows) × heads (columns), [L, H, T, T].

    Drawn with ``imshow`` (seaborn's colour map): 144 seaborn heatmaps of GPT-2 took 128 s to draw."""
    attentions = host_array(attentions)
    if attentions.ndim != 4:
        raise ValueError(f"attentions must be [layers, heads, T, T], got {attentions.shape}")
    L, H = attentions.shape[:2]
    fig, axes = plt.subplots(L, H, figsize=(1.9 * H + 1, 1.9 * L + 0.6), squeeze=False)
    for (layer, head), ax in np.ndenumerate(axes):
        ax.imshow(attentions[layer, head], cmap=ROCKET, vmin=0, vmax=1, interpolation="nearest")
        ax.set(xticks=[], yticks=[])
        ax.spines[:].set_visible(False)
        if layer == 0:
            ax.set_title(f"head {head}", fontsize=10)
        if head == 0:
            ax.set_ylabel(f"layer {layer}", fontsize=10)
    fig.suptitle(title or f"attention of every head ({len(labels)} tokens, query rows × key columns)")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / fig.get_figheight()))  # room for the title
    return fig
