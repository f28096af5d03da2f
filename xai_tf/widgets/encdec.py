"""Lesson 17's figures and panel. The panel: a sentence, its greedy translation, and the cross-attention
of one layer and head (or the heads' mean) with the gold links outlined.

Pick a test sentence by number, or type a source sentence (then there are no gold links to draw: the
grammar's links exist only for the pairs it generated). Each change decodes once and draws once. An
unknown word, an empty or over-long sentence, or a sentence of the target language shows as one line.
"""

from __future__ import annotations

import html
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from torch import Tensor

from xai_tf import _cancel, _checks
from xai_tf.encdec import analysis, beam, beam_sweep, evaluate
from xai_tf.encdec.model import Seq2SeqTransformer
from xai_tf.seq2seq import data, metrics
from xai_tf.widgets._panel import Panel

CELL = 22


def _label(x: float, y: float, text: str, extra: str = "") -> str:
    return f'<text x="{x}" y="{y}" font-size="12" text-anchor="end"{extra}>{html.escape(text)}</text>'


def svg_alignment(
    A: np.ndarray, rows: list[str], cols: list[str], gold: set[tuple[int, int]], title: str
) -> str:
    """Cross-attention ``A [target, source]`` as grey cells (darker = more weight), gold links outlined in
    red, each row's argmax dotted."""
    rows, cols = _checks.strings("rows", rows), _checks.strings("cols", cols)
    if not isinstance(title, str):
        raise TypeError(f"title must be a str, got {type(title).__name__}")
    if not isinstance(gold, set | frozenset):
        raise TypeError(f"gold must be a set of (target, source) links, got {type(gold).__name__}")
    _checks.matrix_labels(A, rows, cols)
    left, top = 12 + 7 * max(map(len, rows)), 34
    parts = [f'<text x="4" y="18" font-size="14" font-weight="bold">{html.escape(title)}</text>']
    for i, row in enumerate(A):
        for j, v in enumerate(row):
            shade, linked = int(255 * (1 - float(v))), (i, j) in gold
            stroke = 'stroke="#d00" stroke-width="2.5"' if linked else 'stroke="#eee"'
            parts.append(
                f'<rect x="{left + j * CELL}" y="{top + i * CELL}" width="{CELL}" height="{CELL}" '
                f'fill="rgb({shade},{shade},{shade})" {stroke}>'
                f"<title>{html.escape(rows[i])} → {html.escape(cols[j])}: {v:.2f}</title></rect>"
            )
        best = int(row.argmax())
        cx, cy = left + best * CELL + CELL / 2, top + i * CELL + CELL / 2
        parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="#36c"/>')
        parts.append(_label(left - 5, top + i * CELL + 15, rows[i]))
    base = top + len(rows) * CELL + 8
    for k, col in enumerate(cols):
        x = left + k * CELL + CELL / 2
        parts.append(_label(x, base, col, f' transform="rotate(-60 {x} {base})"'))
    width, height = left + CELL * len(cols) + 10, base + 7 * max(map(len, cols)) + 10
    size = f'width="{max(width, 8 * len(title))}" height="{height}"'
    return f'<svg xmlns="http://www.w3.org/2000/svg" {size}>{"".join(parts)}</svg>'


def cross_attention_panel(model: Seq2SeqTransformer, corpus: data.Corpus, index: int = 0) -> Panel:
    """The panel of the module's docstring for a trained ``model`` on ``corpus`` (``index``: the test
    sentence shown first)."""
    if not isinstance(model, Seq2SeqTransformer):
        raise TypeError(f"model must be a Seq2SeqTransformer, got {type(model).__name__}")
    if not isinstance(corpus, data.Corpus):
        raise TypeError(f"corpus must be a Corpus (shipped.corpus()), got {type(corpus).__name__}")
    index = _checks.integer("index", index, 0, len(corpus.test) - 1)  # the box would clamp it silently
    n_layers, n_heads = len(model.core.decoder), model.core.n_heads
    controls = {
        "sentence": widgets.BoundedIntText(
            value=index, min=0, max=len(corpus.test) - 1, description="test sentence"
        ),
        "text": widgets.Text(
            value="", description="or type", continuous_update=False, layout=widgets.Layout(width="60%")
        ),
        "layer": widgets.Dropdown(options=list(range(n_layers)), value=n_layers - 1, description="layer"),
        "head": widgets.Dropdown(options=[*range(n_heads), "mean"], value="mean", description="head"),
    }

    def render() -> str:
        typed = controls["text"].value.strip()
        if typed:
            source = data.tokenize(typed)
            corpus.source_vocab.encode(source)  # refuses unknown words, empty or over-long sentences
            pair, gold = data.Pair(source, [], set()), set()
        else:
            pair = corpus.test[controls["sentence"].value]
            gold = pair.links
        translation = evaluate.greedy(model, [pair], corpus)[0]
        target = pair.target if not typed else translation
        if not target:
            raise ValueError("the model translated this sentence to nothing: there is no attention to show")
        shown = data.Pair(pair.source, target, gold)
        A = evaluate.cross_attention(model, [shown], corpus)[controls["layer"].value, 0]
        A = A.mean(0) if controls["head"].value == "mean" else A[controls["head"].value]
        A = A[: len(target), : len(pair.source)]
        head = controls["head"].value
        lines = [
            f"<b>source</b>: {html.escape(' '.join(pair.source))}",
            f"<b>greedy</b>: {html.escape(' '.join(translation))}",
        ]
        if not typed:
            found = metrics.argmax_links(A, len(target), len(pair.source))
            aer = metrics.alignment_error_rate([found], [gold])
            lines += [
                f"<b>gold</b>: {html.escape(' '.join(pair.target))}",
                f"AER of this map's argmax here: {aer:.2f}",
            ]
        title = f"cross-attention, layer {controls['layer'].value}, head {head}"
        title += " (rows: target words, red: gold links)"
        with torch.no_grad():
            picture = svg_alignment(A.numpy(), target, pair.source, gold, title)
        return "<br>".join(lines) + "<br>" + picture

    return Panel(controls, render, rows=[["sentence", "text"], ["layer", "head"]])


def beam_panel(model: evaluate.Model, corpus: data.Corpus, index: int = 0) -> Panel:
    """Greedy against beam search of width β with length penalty α on one sentence (a test sentence, or a
    typed source sentence): both translations, their log p(Y | X), the reference's, and the search's time.
    A wide beam on a long sentence can take about a second: the panel shows "computing…", caps β at 10,
    and abandons a search that a newer change of a control has made stale at its next decoding step."""
    model = evaluate._model(model, (Seq2SeqTransformer, evaluate.DecoderOnly))
    corpus = data._check_corpus(corpus)
    index = _checks.integer("index", index, 0, len(corpus.test) - 1)  # the box would clamp it silently
    controls = {
        "sentence": widgets.BoundedIntText(
            value=index, min=0, max=len(corpus.test) - 1, description="test sentence"
        ),
        "text": widgets.Text(
            value="", description="or type", continuous_update=False, layout=widgets.Layout(width="60%")
        ),
        "beam": widgets.IntSlider(
            value=5, min=1, max=10, description="beam width β", continuous_update=False
        ),
        "alpha": widgets.FloatSlider(
            value=1.0, min=0.0, max=3.0, step=0.2, description="length penalty α", continuous_update=False
        ),
    }

    def render() -> str:
        typed = controls["text"].value.strip()
        pair = (
            data.Pair(data.tokenize(typed), [], set()) if typed else corpus.test[controls["sentence"].value]
        )
        ids = corpus.source_vocab.encode(pair.source)  # refuses unknown words, empty or over-long sentences
        greedy = evaluate.greedy(model, [pair], corpus)[0]
        start, width, alpha = time.perf_counter(), controls["beam"].value, controls["alpha"].value
        best = beam.translate(model, corpus, pair.source, width, alpha, on_step=_cancel.checkpoint)
        ms = 1000 * (time.perf_counter() - start)
        rows = [
            ("greedy", greedy),
            (f"beam β = {width}, α = {alpha:g}", best),
        ]
        rows += [] if typed else [("reference", pair.target)]
        lines = [f"<b>source</b>: {html.escape(' '.join(pair.source))}"]
        for label, words in rows:
            logp = beam_sweep.log_prob(model, ids, corpus.target_vocab.encode(words) if words else [])
            mark = "" if typed else (" ✓" if words == pair.target else " ✗")
            lines.append(
                f"<b>{label}</b>: {html.escape(' '.join(words))}{mark} "
                f"(log p = {logp:.2f}, {len(words)} words)"
            )
        lines.append(f"<span style='color:#666'>beam search took {ms:.0f} ms</span>")
        return "<br>".join(lines)

    return Panel(controls, render, rows=[["sentence", "text"], ["beam", "alpha"]], slow=True)


def plot_family_masks(S: int, T: int) -> plt.Figure:
    """The three families' masks over [source; target] side by side (dark = may attend)."""
    S, T = _checks.integer("S", S, 1, 64), _checks.integer("T", T, 1, 64)
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    labels = [f"x{i + 1}" for i in range(S)] + [f"y{i}" for i in range(T)]
    for ax, family in zip(axes, analysis.FAMILIES, strict=True):
        ax.imshow(analysis.family_mask(family, S, T).numpy(), cmap="Greys", vmin=0, vmax=1.4)
        ax.set_title(f"{family}: {analysis.attention_scores(family, S, T)} scores")
        ax.set_xticks(range(S + T), labels, fontsize=8)
        ax.set_yticks(range(S + T), labels, fontsize=8)
        ax.axhline(S - 0.5, color="#d00", lw=1)
        ax.axvline(S - 0.5, color="#d00", lw=1)
        ax.set_xlabel("key (attended to)")
    axes[0].set_ylabel("query (attending)")
    fig.tight_layout()
    return fig


def plot_aer_table(aer: Tensor, title: str, ax: Axes | None = None) -> Axes:
    """AER ``[layers, heads + 1]`` (last column: the heads' mean) as a table of cells, lower = better."""
    if _checks.tensor("aer", aer).dim() != 2 or aer.size(1) < 2:
        raise ValueError(f"aer must be [layers, heads + 1] (alignment_error_rates), got {tuple(aer.shape)}")
    ax = ax or plt.subplots(figsize=(5, 2.4))[1]
    values = aer.numpy()
    ax.imshow(values, cmap="viridis_r", vmin=0, vmax=1)
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="w" if v > 0.5 else "k", fontsize=10)
    heads = values.shape[1] - 1
    ax.set_xticks(range(heads + 1), [*map(str, range(heads)), "mean"])
    ax.set_yticks(range(values.shape[0]), [f"layer {i}" for i in range(values.shape[0])])
    ax.set_xlabel("decoder cross-attention head")
    ax.set_title(title)
    return ax


def plot_gradient_norms(norms: dict[str, Tensor]) -> plt.Figure:
    """‖∂L/∂θ_l‖ by block for each order (``{"post-LN": [2, N], "pre-LN": [2, N]}``)."""
    if (
        not isinstance(norms, dict)
        or not norms
        or any(_checks.tensor("norms", n).dim() != 2 for n in norms.values())
    ):
        raise ValueError("norms must be a non-empty dict of [2, N] tensors (analysis.gradient_norms)")
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.4), sharey=True)
    for ax, (row, stack) in zip(axes, enumerate(("encoder", "decoder")), strict=True):
        for label, n in norms.items():
            ax.plot(range(1, n.size(1) + 1), n[row].numpy(), "o-", label=label)
        ax.set_title(f"{stack} blocks at initialisation")
        ax.set_xlabel("block (1 = nearest the input)")
    axes[0].set_ylabel("gradient norm")
    axes[0].legend()
    fig.tight_layout()
    return fig


def plot_by_length(rows: dict[str, list], ax: Axes | None = None) -> Axes:
    """Exact match by source length (``{label: metrics.by_length rows}``)."""
    if not isinstance(rows, dict) or not rows or not all(isinstance(r, list) and r for r in rows.values()):
        raise ValueError("rows must be a non-empty dict {label: metrics.by_length(...) rows}")
    ax = ax or plt.subplots(figsize=(7, 3.4))[1]
    for label, r in rows.items():
        ax.plot([f"{x[0]}–{x[1]}" for x in r], [x[3] for x in r], "o-", label=label)
    ax.set_xlabel("source length (words)")
    ax.set_ylabel("exact match")
    ax.set_ylim(0, 1.02)
    ax.legend()
    return ax


SPANS = {"exact": 0.05, "bleu": 3.0}


def plot_beam_sweep(tables: dict[str, dict[tuple[int, float], dict]]) -> plt.Figure:
    """Exact match and BLEU against the length penalty α, one line per beam width β and a dashed line at
    greedy's score, one column per model (``{name: beam_sweep.table(name)}``; greedy is key (0, 0.0))."""
    if not isinstance(tables, dict) or not tables or not all((0, 0.0) in t for t in tables.values()):
        raise ValueError("tables must be a non-empty dict {name: beam_sweep.table(name)} with greedy's row")
    fig, axes = plt.subplots(2, len(tables), figsize=(4 * len(tables), 5.6), sharex=True, squeeze=False)
    for col, (name, table) in enumerate(tables.items()):
        for row, (metric, label) in enumerate((("exact", "exact match"), ("bleu", "BLEU"))):
            ax, greedy, span = axes[row, col], table[(0, 0.0)][metric], SPANS[metric]
            ax.axhline(greedy, color="grey", ls="--", label="greedy")
            for k, width in enumerate(sorted({b for b, _ in table if b > 0})):
                alphas = sorted(a for b, a in table if b == width)
                values = [table[(width, a)][metric] for a in alphas]
                style = "s" if len(alphas) == 1 else ("o-", "x--")[k % 2]
                ax.plot(alphas, values, style, ms=8, label=f"beam β = {width}")
            ax.set_ylim(greedy - span, greedy + span)  # one scale for every model: small gaps look small
            ax.set_title(f"{name}: {label} (greedy ± {span:g})")
            ax.set_ylabel(label if col == 0 else "")
            ax.set_xlabel("length penalty α" if row == 1 else "")
    axes[0, 0].legend(fontsize=9)
    fig.tight_layout()
    return fig


def plot_draws(values: dict[str, np.ndarray], ylabel: str, ax: Axes | None = None) -> Axes:
    """One column per variant (``{name: one number per draw}``): every draw a dot, the median a bar."""
    if not isinstance(values, dict) or not values or not all(np.size(v) for v in values.values()):
        raise ValueError("values must be a non-empty dict {variant: one number per draw}")
    ax = ax or plt.subplots(figsize=(7, 3.2))[1]
    rng = np.random.default_rng(0)  # horizontal jitter only, so that equal values stay visible
    for k, v in enumerate(values.values()):
        v = np.asarray(v, dtype=float)
        ax.scatter(k + rng.uniform(-0.15, 0.15, v.size), v, s=12, alpha=0.7)
        ax.hlines(np.median(v), k - 0.3, k + 0.3, color="black")
    # one name part a line, so that long variant names do not run into each other
    labels = [f"{n.replace('_', chr(10))}\n({np.size(v)} draws)" for n, v in values.items()]
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_ylabel(ylabel)
    return ax
