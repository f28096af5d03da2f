"""Lesson 16's figures and panel: attention maps with the gold alignment drawn on them, scores by
source length over draws, and a panel that translates a sentence word by word.

``translation_panel(models, corpus)``: choose a test sentence or type one; choose a model; the
translation appears word by word, each output word with its attention row over the source (a heat map
row), the source word it attends to most, and — for a sentence of the corpus — its gold source words
and the reference. An unknown word, an empty or over-long sentence, or a sentence in the target
language shows as one line.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes

from xai_tf import _checks
from xai_tf.seq2seq import data, decoding
from xai_tf.seq2seq.model import Seq2Seq
from xai_tf.viz.svg import svg_heatmap
from xai_tf.widgets._panel import Panel


def plot_alignment(
    attention: torch.Tensor, source: Sequence[str], target: Sequence[str], links: set[tuple[int, int]],
    ax: Axes | None = None, title: str = "", argmax: bool = True,
) -> Axes:  # fmt: skip
    """α [target, source] as a heat map, gold links as green squares, argmax attention as white dots
    (``argmax`` False: no dots, for a picture of the gold links alone)."""
    source, target = _checks.strings("source", source), _checks.strings("target", target)
    if not isinstance(links, set | frozenset):
        raise TypeError(f"links must be a set of (target, source) pairs, got {type(links).__name__}")
    a = _checks.real_tensor("attention", attention, dims=2).detach().cpu().numpy()
    if a.shape != (len(target), len(source)):
        raise ValueError(f"attention must be [{len(target)}, {len(source)}] (target × source), got {a.shape}")
    ax = ax or plt.gca()
    ax.imshow(a, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    for i, j in links:
        ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="#2ca02c", lw=2))
    if argmax:
        ax.scatter(a.argmax(1), np.arange(len(target)), s=14, c="white", edgecolors="black", linewidths=0.5)
    ax.set_xticks(range(len(source)), source, rotation=60, ha="right", fontsize=9)
    ax.set_yticks(range(len(target)), target, fontsize=9)
    ax.set_title(title, fontsize=10)
    return ax


def plot_by_length(
    curves: Mapping[str, tuple[Sequence[str], np.ndarray]], ylabel: str, ax: Axes | None = None
) -> Axes:
    """One line per model: the median over draws per length bucket, a band from the worst to the best
    draw."""
    if not isinstance(curves, Mapping) or not curves:
        raise TypeError("curves must be a non-empty dict of name → (bucket labels, values [draws, buckets])")
    ax = ax or plt.gca()
    for name, (labels, values) in curves.items():
        x = np.arange(len(labels))
        ax.plot(x, np.median(values, 0), marker="o", label=f"{name} ({len(values)} draws)")
        ax.fill_between(x, values.min(0), values.max(0), alpha=0.2)
        ax.set_xticks(x, labels)
    ax.set_xlabel("source length (words)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=9)
    return ax


def _row(words: Sequence[str], weights: torch.Tensor, gold: list[int]) -> str:
    cells = []
    for j, (w, a) in enumerate(zip(words, weights.tolist(), strict=True)):
        border = "2px solid #2ca02c" if j in gold else "1px solid #ddd"
        shade = f"rgba(31,119,180,{a:.2f})"
        colour = "white" if a > 0.5 else "black"
        cells.append(
            f"<span style='background:{shade};color:{colour};border:{border};padding:1px 3px'>"
            f"{html.escape(w)}</span>"
        )
    return " ".join(cells)


def _translate(model: Seq2Seq, corpus: data.Corpus, text: str) -> str:
    words = data.tokenize(text)
    corpus.source_vocab.encode(words)  # the one-line refusals: unknown, empty, too long, wrong side
    pair = next((p for p in (*corpus.test, *corpus.dev, *corpus.train) if p.source == words), None)
    hyp, attention = decoding.greedy(model, corpus, [words])
    out = [f"<b>translation:</b> {html.escape(' '.join(hyp[0]))}"]
    if pair is not None:
        verdict = "exact" if hyp[0] == pair.target else "differs"
        out.append(f"<b>reference:</b> {html.escape(' '.join(pair.target))} ({verdict})")
    alpha = attention[0]
    if alpha is None:
        out.append("<i>this model has no attention: every word reads the same context vector c</i>")
        return "<br>".join(out)
    rows = []
    for i, y in enumerate([*hyp[0], "<eos>"]):
        gold = (
            sorted(j for ii, j in pair.links if ii == i) if pair is not None and hyp[0] == pair.target else []
        )
        rows.append(
            f"<tr><td style='padding-right:8px'><b>{html.escape(y)}</b></td>"
            f"<td>{_row(words, alpha[i], gold)}</td></tr>"
        )
    out.append("<table>" + "".join(rows) + "</table>")
    out.append(
        "<small>shade = α<sub>ij</sub>; green border = gold link "
        "(shown where the translation equals the reference)</small>"
    )
    out.append(
        svg_heatmap(alpha.cpu().numpy(), [*hyp[0], "<eos>"], words, "attention α (rows: output words)")
    )
    return "<br>".join(out)


def translation_panel(models: Mapping[str, Seq2Seq], corpus: data.Corpus, choices: int = 12) -> Panel:
    """Translate a chosen or typed source sentence with a chosen model (see the module's docstring)."""
    if not models or not all(isinstance(m, Seq2Seq) for m in models.values()):
        raise TypeError("models must be a non-empty dict of name → Seq2Seq")
    if not isinstance(corpus, data.Corpus):
        raise TypeError(f"corpus must be a Corpus (make_corpus), got {type(corpus).__name__}")
    choices = _checks.integer("choices", choices, 1, 1000)
    examples = [" ".join(p.source) for p in corpus.test[:choices]]
    pick = widgets.Dropdown(
        options=examples, value=examples[0], description="test sentence", layout={"width": "95%"}
    )
    text = widgets.Text(
        value=examples[0], description="source", layout={"width": "95%"}, continuous_update=False
    )
    model = widgets.Dropdown(options=list(models), value=list(models)[-1], description="model")

    def render() -> str:
        return _translate(models[model.value], corpus, text.value)

    def copy() -> None:
        text.value = pick.value

    return Panel(
        {"pick": pick, "text": text, "model": model},
        render,
        rows=[["pick"], ["text"], ["model"]],
        updates={"pick": copy},
    )
