"""SVG and HTML drawing for the widgets of every lesson: markup strings the browser draws at once.

Widgets redraw on every slider move; building an SVG string takes well under a millisecond and
the browser draws it at once, where a matplotlib figure costs 100-400 ms to render to PNG here.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Mapping, Sequence

import numpy as np
import seaborn as sns
from PIL import Image

from xai_tf import _checks
from xai_tf.viz.arrays import host_array

_RAMP = sns.color_palette("rocket_r", as_cmap=True)
_HEX2 = np.array([f"{i:02x}" for i in range(256)])


#: Above this many rows or columns a heatmap's cells are one raster image, a pixel per cell scaled up
#: without smoothing, instead of one ``<rect>`` each (T² of them: 9216 at T = 96).
RASTER_ABOVE = 50


def _rgb(values: float | np.ndarray) -> np.ndarray:
    """The ramp's colour of each value (clipped to [0, 1]) as 0..255 integers ``[..., 3]``."""
    return (np.asarray(_RAMP(np.clip(values, 0.0, 1.0)))[..., :3] * 255).astype(np.uint8)


def _hex(values: float | np.ndarray) -> np.ndarray:
    """The ramp's colour of each value (clipped to [0, 1]) as "#rrggbb" strings, in one numpy pass."""
    rgb = _rgb(values)
    return np.char.add(
        "#", np.char.add(np.char.add(_HEX2[rgb[..., 0]], _HEX2[rgb[..., 1]]), _HEX2[rgb[..., 2]])
    )


def _text(x: float, y: float, s: str, size: int = 13, anchor: str = "middle", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
        f'font-family="sans-serif"{extra}>{html.escape(s)}</text>'
    )


def _nice_ceiling(top: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10^k at or above ``top`` (1 for nothing to show): a scale whose
    tallest bar fills most of the chart and whose gridlines fall on round numbers."""
    if not top > 0:
        return 1.0
    k = math.floor(math.log10(top))
    return next(m * 10.0**k for m in (1, 2, 2.5, 5, 10) if m * 10.0**k >= top * (1 - 1e-9))


def svg_bars(
    values: Sequence[float],
    labels: Sequence[str],
    title: str = "",
    horizontal: bool = False,
    vmax: float | None = None,
) -> str:
    """A bar chart as an SVG string; exact zeros are marked with a grey ×. The scale reaches ``vmax``
    (default: the largest value; pass the same to charts that are compared) rounded up to a round
    number, so the tallest bar fills most of the chart."""
    _checks.same_length("the bar chart", "values", values, "labels", labels)
    values = [float(v) for v in values]
    vmax = _nice_ceiling(max(values, default=0.0) if vmax is None else vmax)
    n, bar, gap, label_room, top = len(values), 26, 8, 90, 28
    parts, size = [], (0, 0)
    if horizontal:
        length = 380
        size = (label_room + length + 60, top + n * (bar + gap))
        for i, (v, lab) in enumerate(zip(values, labels, strict=True)):
            y: float = top + i * (bar + gap)
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
    return _svg(size[0], size[1], title, parts)


def _svg(width: float, height: float, title: str, parts: list[str]) -> str:
    """Wrap the drawing with its title, left-aligned and never wider than the picture."""
    width = max(width, 10 + 8 * len(title))
    head = _text(4, 18, title, size=14, anchor="start", font_weight="bold")
    size = f'width="{width:.0f}" height="{height:.0f}"'
    return f'<svg xmlns="http://www.w3.org/2000/svg" {size}>{head}{"".join(parts)}</svg>'


def _short(label: str, n: int = 18) -> str:
    return label if len(label) <= n else label[: n - 1] + "…"


def _cells_vector(
    A: np.ndarray, left: int, top: int, cell: int, rows: list[str], cols: list[str]
) -> list[str]:
    """One ``<rect>`` per cell, its value on hover (and printed while a cell is 30 px or more)."""
    parts, fills = [], _hex(A)
    for i, row in enumerate(A.tolist()):
        for j, v in enumerate(row):
            x, y = left + j * cell, top + i * cell
            parts.append(
                f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{fills[i, j]}" stroke="#fff">'
                f"<title>{rows[i]} → {cols[j]}: {v:.3f}</title></rect>"
            )
            if cell >= 30:
                parts.append(
                    _text(
                        x + cell / 2, y + cell * 0.62, f"{v:.2f}", size=11, fill="#fff" if v > 0.5 else "#222"
                    )
                )
    return parts


def _cells_raster(A: np.ndarray, left: int, top: int, cell: int) -> list[str]:
    """The cells as one PNG (a pixel per cell, the same colours as ``_cells_vector``), drawn
    ``cell`` px a pixel without smoothing."""
    png = io.BytesIO()
    Image.fromarray(_rgb(A), "RGB").save(png, format="PNG")
    uri = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")
    width, height = cell * A.shape[1], cell * A.shape[0]
    return [
        f'<image x="{left}" y="{top}" width="{width}" height="{height}" preserveAspectRatio="none" '
        f'style="image-rendering:pixelated" href="{uri}"/>'
    ]


def svg_heatmap(
    A,
    rows: Sequence[str],
    cols: Sequence[str] | None = None,
    title: str = "",
    outline: Sequence[int] | None = None,
) -> str:
    """An attention matrix as an SVG string: row i = query, column j = key, darker = more weight.
    Cells shrink so that the grid stays about 720 px wide (numbers are printed while a cell is
    30 px or more; hover a cell for its value); column labels are written at a slant. Above
    ``RASTER_ABOVE`` rows or columns the cells are one image of the same colours (no hover values).
    ``outline``: one column per row (−1: none) whose cell (i, outline[i]) is boxed in blue."""
    A = host_array(A)
    cols = rows if cols is None else cols
    _checks.matrix_labels(A, rows, cols)
    boxed = _outline(outline, len(rows), len(cols))
    rows, cols = [_short(r) for r in rows], [_short(c) for c in cols]
    cell = int(min(40, max(14, 720 / max(len(cols), 1))))
    font = min(12, int(cell * 0.75))
    left = 12 + 7 * max((len(r) for r in rows), default=1)
    top, bottom = 30, 14 + 6 * max((len(c) for c in cols), default=1)
    if max(A.shape) > RASTER_ABOVE:
        parts = _cells_raster(A, left, top, cell)
    else:
        parts = _cells_vector(
            A, left, top, cell, [html.escape(r) for r in rows], [html.escape(c) for c in cols]
        )
    for i, row in enumerate(rows):
        parts.append(_text(left - 6, top + i * cell + cell * 0.62, row, size=font, anchor="end"))
    parts += [
        f'<rect x="{left + j * cell + 1.5}" y="{top + i * cell + 1.5}" width="{cell - 3}" '
        f'height="{cell - 3}" fill="none" stroke="#1f77b4" stroke-width="3"/>'
        for i, j in enumerate(boxed)
        if j >= 0
    ]
    y_labels = top + len(A) * cell + 10
    for j, col in enumerate(cols):
        x = left + j * cell + cell / 2
        parts.append(
            _text(x, y_labels, col, size=font, anchor="end", transform=f"rotate(-60 {x:.1f} {y_labels})")
        )
    return _svg(left + cell * len(cols) + 10, y_labels + bottom, title, parts)


def _outline(outline: Sequence[int] | None, n_rows: int, n_cols: int) -> list[int]:
    """``outline`` checked: one integer in −1..n_cols − 1 per row (none given: no boxes)."""
    if outline is None:
        return []
    boxed = list(outline)
    if len(boxed) != n_rows or not all(type(j) is int and -1 <= j < n_cols for j in boxed):
        raise ValueError(
            f"outline must give one column in -1..{n_cols - 1} (-1: none) for each of the {n_rows} rows, "
            f"got {outline!r}"
        )
    return boxed


def html_ranked_table(
    rows: Sequence[str], ranked: Sequence[Sequence[tuple[str, float]]], title: str = ""
) -> str:
    """A table of ranked guesses: one row per label, cells 'token p' shaded by p (e.g. the logit
    lens: a row per layer, its top tokens)."""
    _checks.same_length("the table", "rows", rows, "ranked lists", ranked)
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


def html_rows(rows: Sequence[Mapping[str, object]], title: str = "") -> str:
    """A plain table of ``rows`` (dicts with the same keys, the columns; e.g. the method registry's
    ``table``): a list or tuple cell is joined by commas, a dict cell written ``k=v, …`` (either
    "none" when empty), any other cell as ``str``."""
    if not isinstance(rows, list | tuple) or not rows or not all(isinstance(r, Mapping) for r in rows):
        raise TypeError(f"rows must be a non-empty list of dicts, got {type(rows).__name__}")
    columns = list(rows[0])
    if any(list(r) != columns for r in rows):
        raise ValueError(f"rows must all have the keys {columns}, in that order")

    def cell(v: object) -> str:
        if isinstance(v, Mapping):
            return ", ".join(f"{k}={cell(x)}" for k, x in v.items()) or "none"
        return (", ".join(map(cell, v)) or "none") if isinstance(v, list | tuple) else html.escape(str(v))

    pad = "padding:2px 10px;text-align:left"
    head = "".join(f"<th style='{pad}'>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td style='{pad}'>{cell(r[c])}</td>" for c in columns) + "</tr>" for r in rows
    )
    caption = (
        f"<caption style='font-weight:bold;text-align:left'>{html.escape(title)}</caption>" if title else ""
    )
    return f"<table style='border-collapse:collapse'>{caption}<tr>{head}</tr>{body}</table>"


def _diverging(score: float, scale: float) -> str:
    """Red for positive, blue for negative, white at 0; |score| = scale is the full colour."""
    t = 0.0 if scale == 0 else max(-1.0, min(1.0, score / scale))
    fade = int(255 * (1 - abs(t)))
    return f"#ff{fade:02x}{fade:02x}" if t >= 0 else f"#{fade:02x}{fade:02x}ff"


def html_token_scores(tokens: Sequence[str], scores: Sequence[float], title: str = "") -> str:
    """The prompt with each token shaded by its score: red raises the explained output, blue lowers
    it, white is 0; colours are scaled to the largest |score|. The score shows on hover."""
    _checks.same_length("the highlighted text", "tokens", tokens, "scores", scores)
    scores = [float(s) for s in scores]
    scale = max((abs(s) for s in scores), default=0.0)
    spans = "".join(
        f"<span title='{s:+.4f}' style='background:{_diverging(s, scale)};padding:2px 1px;"
        f"border-radius:3px;font-family:monospace;white-space:pre'>{html.escape(t)}</span>"
        for t, s in zip(tokens, scores, strict=True)
    )
    head = f"<div style='font-weight:bold'>{html.escape(title)}</div>" if title else ""
    return f"<div style='line-height:2'>{head}{spans}</div>"
