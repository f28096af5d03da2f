"""Lesson 18's panel and figures: six attention maps of one score vector side by side, and a document
with both levels of hierarchical attention shaded.

``maps_panel(scores)``: choose a sentence (its decoder scores e_ij from lesson 16's additive model,
``bias.forced_scores``) and an output word i; the row θ = e_i· − max_j e_ij + offset goes through
softmax, sparsemax, fusedmax (λ), independent sigmoids, the CRF (contiguity bonus b on z_{j−1} = z_j = 1)
and SparseMAP; the view is one heat map (rows: maps; columns: source words; gold links marked ✓)
and each map's support and number of runs.

``document_view(words, alpha, beta, key)``: each sentence a row of shaded words (word weights α), its
sentence weight β as a bar on the left.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
import torch

from xai_tf import _checks
from xai_tf.seq2seq import data
from xai_tf.structured import bias, compare
from xai_tf.viz.svg import svg_heatmap
from xai_tf.widgets._panel import Panel


def _summary(maps: dict[str, torch.Tensor]) -> str:
    rows = "".join(
        f"<tr><td>{name}</td><td>{int((a > 1e-3).sum())}</td><td>{int(bias.runs(a))}</td>"
        f"<td>{float(a.sum()):.2f}</td></tr>"
        for name, a in maps.items()
    )
    head = "<tr><th>map</th><th>support (α > 10⁻³)</th><th>runs</th><th>Σ α</th></tr>"
    return f"<table style='font-size:13px'>{head}{rows}</table>"


def maps_panel(scores: Sequence[torch.Tensor], pairs: Sequence[data.Pair]) -> Panel:
    """The six maps of one decoder step's scores (see the module's docstring)."""
    if not isinstance(scores, list | tuple) or not all(isinstance(e, torch.Tensor) for e in scores):
        raise TypeError("scores must be a list of tensors [|y|, |x|] (bias.forced_scores), one per pair")
    if not isinstance(pairs, list | tuple) or not pairs or len(scores) != len(pairs):
        raise ValueError("scores and pairs must be non-empty and of one length (bias.forced_scores)")
    pairs = data._check_pairs(pairs)
    options = [(" ".join(p.source), k) for k, p in enumerate(pairs)]
    controls = {
        "sentence": widgets.Dropdown(options=options, value=0, description="sentence"),
        "word": widgets.IntSlider(value=0, min=0, max=len(pairs[0].target) - 1, description="output word i"),
        "offset": widgets.FloatSlider(value=1.0, min=-3.0, max=3.0, step=0.25, description="offset"),
        "bonus": widgets.FloatSlider(value=0.5, min=-3.0, max=5.0, step=0.25, description="bonus b (CRF)"),
        "lam": widgets.FloatSlider(value=0.5, min=0.0, max=3.0, step=0.1, description="λ (fusedmax)"),
    }

    def refill() -> None:
        slider = controls["word"]
        slider.max = len(pairs[controls["sentence"].value].target) - 1
        slider.value = min(slider.value, slider.max)

    def render() -> str:
        k, i = controls["sentence"].value, controls["word"].value
        pair, e = pairs[k], scores[k][i].double()
        theta = e - e.max() + controls["offset"].value
        a = compare.contiguity_transition(controls["bonus"].value)
        maps = compare.side_by_side(theta, a, controls["lam"].value)
        gold = {j for ii, j in pair.links if ii == i}
        cols = [f"{w} ✓" if j in gold else w for j, w in enumerate(pair.source)]
        grid = np.stack([m.numpy() for m in maps.values()])
        title = f"output word {i}: {html.escape(pair.target[i])}"
        return f"{svg_heatmap(grid, list(maps), cols, title)}{_summary(maps)}"

    rows = [["sentence"], ["word", "offset"], ["bonus", "lam"]]
    return Panel(controls, render, rows=rows, updates={"sentence": refill})


def document_view(
    words: Sequence[Sequence[str]], alpha: torch.Tensor, beta: torch.Tensor, key: int | None = None
) -> str:
    """One document as HTML: sentence i's weight β_i as a bar, its words shaded by α_it; the sentence
    ``key`` (the one that holds both key words) marked ◀."""
    if (
        not isinstance(words, list | tuple)
        or not words
        or not all(isinstance(s, list | tuple) for s in words)
    ):
        raise TypeError("words must be a non-empty list of sentences, each a list of words")
    words = [_checks.strings(f"words[{i}]", s) for i, s in enumerate(words)]
    alpha, beta = _checks.real_tensor("alpha", alpha, dims=2), _checks.real_tensor("beta", beta, dims=1)
    if key is not None:
        _checks.integer("key", key, 0, len(words) - 1)
    a, b = np.asarray(alpha.detach().cpu(), dtype=float), np.asarray(beta.detach().cpu(), dtype=float)
    if a.shape != (len(words), len(words[0])) or b.shape != (len(words),):
        raise ValueError(f"alpha must be [{len(words)}, {len(words[0])}] and beta [{len(words)}]")
    rows = []
    for i, sentence in enumerate(words):
        bar = (
            f"<span style='display:inline-block;width:{120 * b[i]:.0f}px;height:10px;"
            "background:#d62728'></span>"
        )
        cells = " ".join(
            f"<span style='background:rgba(31,119,180,{a[i, t]:.2f});padding:1px 3px;"
            f"color:{'white' if a[i, t] > 0.5 else 'black'}'>{html.escape(w)}</span>"
            for t, w in enumerate(sentence)
        )
        mark = " ◀ key sentence" if key == i else ""
        rows.append(f"<tr><td style='width:130px'>{bar}</td><td>β={b[i]:.2f}</td><td>{cells}{mark}</td></tr>")
    legend = "<small>red bar: sentence weight β<sub>i</sub>; blue shade: word weight α<sub>it</sub></small>"
    return f"<table style='font-size:14px'>{''.join(rows)}</table>{legend}"
