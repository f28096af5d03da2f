"""Plots for the lessons (seaborn/matplotlib), sized to read on a projector."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import seaborn as sns
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
