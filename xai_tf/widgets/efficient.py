"""Lesson 14's panel: one attention method at sequence length n — time, peak memory and error
against full softmax attention, and the attention pattern it implies (sparse patterns show their
mask: exact zeros are white)."""

from __future__ import annotations

import html

import ipywidgets as widgets
import torch
from torch import Tensor

from xai_tf import _checks, seeds, timing
from xai_tf.efficient import chunked, cost, linear, linformer, performer, sparse
from xai_tf.widgets._panel import Panel, side_by_side

SHOWN = 24  # the pattern is drawn for the first SHOWN positions

#: name → (attend(Q, K, V, width), causal): the reference is full attention with the same causality.
METHODS = {
    "full softmax (n × n)": (lambda Q, K, V, w: chunked.naive_attention(Q, K, V), False),
    "chunked, exact (online softmax)": (lambda Q, K, V, w: chunked.chunked_attention(Q, K, V, w), False),
    "sliding window (causal)": (lambda Q, K, V, w: sparse.windowed_attention(Q, K, V, w), True),
    "strided (Sparse Transformer)": (
        lambda Q, K, V, w: sparse.sparse_attention(Q, K, V, sparse.sparse_transformer_mask(Q.size(-2), w)),
        True,
    ),
    "linear, φ = elu + 1 (causal)": (lambda Q, K, V, w: linear.linear_attention(Q, K, V), True),
    "Performer (w random features)": (lambda Q, K, V, w: performer.performer_attention(Q, K, V, w), False),
    "Linformer (rank w, pooled)": (lambda Q, K, V, w: linformer.linformer_attention(Q, K, V, w), False),
}


def _svg_pattern(A: Tensor, title: str) -> str:
    """A small matrix as coloured cells (white = exactly 0), rows = queries."""
    cell, left, top = 11, 30, 28
    A = A.double()
    top_value = float(A.max()) or 1.0
    parts = [
        f'<text x="{left}" y="16" font-size="13" font-family="sans-serif" font-weight="bold">'
        f"{html.escape(title)}</text>"
    ]
    for i, row in enumerate(A.tolist()):
        for j, a in enumerate(row):
            if a != 0:
                shade = int(255 * (1 - min(max(a / top_value, 0), 1) ** 0.5))
                parts.append(
                    f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell - 1}" '
                    f'height="{cell - 1}" fill="rgb({shade},{shade},255)"/>'
                )
    size = len(A) * cell
    parts.append(f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="#444"/>')
    parts.append(
        f'<text x="{left}" y="{top + size + 14}" font-size="12" font-family="sans-serif">key j →</text>'
    )
    width, height = max(left + size + 10, 7 * len(title) + left), top + size + 22
    return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">{"".join(parts)}</svg>'


def efficiency_panel(max_n: int = 2048, d: int = 32, scale: float = 0.5, seed: int = 0) -> Panel:
    """Pick n (16..``max_n``, typed), a method and its width w (window / stride, features, rank,
    or chunk size); see time and peak memory of the method and of full attention, the relative error
    ‖Y − Y_full‖/‖Y_full‖, and the weights it implies for the first 24 positions (A = method(Q, K, I)).
    Inputs: Q, K ~ N(0, scale²), V ~ N(0, 1), seeded, d features."""
    max_n = _checks.integer("max_n", max_n, 16, 8192)
    d, scale = _checks.integer("d", d, 1, 256), _checks.positive("scale", scale)
    n_box = widgets.BoundedIntText(
        value=min(512, max_n), min=16, max=max_n, description="n", continuous_update=False
    )
    method = widgets.Dropdown(options=list(METHODS), value="sliding window (causal)", description="method")
    width = widgets.BoundedIntText(value=8, min=1, max=max_n, description="width w", continuous_update=False)

    def render() -> str:
        n = n_box.value  # the box holds 16..max_n (longer sweeps: benchmarks/bench_efficient.py)
        attend, causal = METHODS[method.value]
        g = seeds.generator(seed)
        Q, K = (torch.randn(1, n, d, generator=g) * scale for _ in range(2))
        V = torch.randn(1, n, d, generator=g)
        w = width.value
        with torch.no_grad():
            Y = attend(Q, K, V, w)  # raises the helper's one-line error for a bad w
            Y_full = chunked.naive_attention(Q, K, V, causal=causal)
            t = timing.median_seconds(lambda: attend(Q, K, V, w))
            t_full = timing.median_seconds(lambda: chunked.naive_attention(Q, K, V, causal=causal))
            mem = cost.peak_bytes(lambda: attend(Q, K, V, w))
            mem_full = cost.peak_bytes(lambda: chunked.naive_attention(Q, K, V, causal=causal))
            m = min(n, SHOWN)
            eye = torch.eye(m).unsqueeze(0)
            A = attend(Q[:, :m], K[:, :m], eye, min(w, m))[0]
        error = cost.relative_error(Y, Y_full)
        rows = [
            ("", "this method", f"full softmax{' (causal)' if causal else ''}"),
            ("time (median of 3)", f"{t * 1e3:.2f} ms", f"{t_full * 1e3:.2f} ms"),
            ("peak memory", f"{mem / 2**20:.2f} MiB", f"{mem_full / 2**20:.2f} MiB"),
            ("relative error ‖Y − Y_full‖/‖Y_full‖", f"{error:.2e}", "0"),
        ]
        table = (
            "<table style='font-size:14px;border-collapse:collapse'>"
            + "".join(
                "<tr>" + "".join(f"<td style='padding:3px 10px'>{html.escape(c)}</td>" for c in r) + "</tr>"
                for r in rows
            )
            + "</table>"
        )
        note = f"<p style='font-size:13px'>n = {n}, d = {d}, w = {w}; pattern: first {m} positions</p>"
        return side_by_side(table + note, _svg_pattern(A, f"weights A (query i ↓) — {method.value}"))

    return Panel(
        {"n": n_box, "method": method, "width": width}, render, rows=[["n", "method", "width"]], slow=True
    )
