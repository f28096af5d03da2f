"""Lesson 13's panels: token representations of a trained CRATE (or standard transformer) layer by
layer, projected on each head's subspace; and the ISTA step on a toy sparse signal (η, λ, steps)."""

from __future__ import annotations

import html

import ipywidgets as widgets
import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.crate import ista, rate, study
from xai_tf.crate.model import Classifier
from xai_tf.viz import svg_bars, svg_heatmap
from xai_tf.widgets._panel import Panel, side_by_side

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def _scatter(points: Tensor, groups: Tensor, title: str, size: int = 190) -> str:
    """Points ``[N, 2]`` in [−1, 1]² as dots coloured by group, in a square with axes."""
    half, top = size / 2, 24
    parts = [
        f'<text x="4" y="16" font-size="13" font-family="sans-serif" font-weight="bold">'
        f"{html.escape(title)}</text>",
        f'<rect x="0" y="{top}" width="{size}" height="{size}" fill="none" stroke="#888"/>',
        f'<line x1="{half}" y1="{top}" x2="{half}" y2="{top + size}" stroke="#ddd"/>',
        f'<line x1="0" y1="{top + half}" x2="{size}" y2="{top + half}" stroke="#ddd"/>',
    ]
    for (x, y), g in zip(points.tolist(), groups.tolist(), strict=True):
        cx, cy = half + x * (half - 4), top + half - y * (half - 4)
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="2.2" fill="{COLOURS[g % len(COLOURS)]}" opacity="0.6"/>'
        )
    box = f'width="{size + 2}" height="{size + top + 2}"'
    return f'<svg xmlns="http://www.w3.org/2000/svg" {box}>{"".join(parts)}</svg>'


def layer_panel(
    model: Classifier, Y: Tensor, components: Tensor, U: Tensor | None = None, n_tokens: int = 480
) -> Panel:
    """Pick a depth ℓ (0 = the input): each token of Z^ℓ (unit norm) projected on the first two
    directions of each head's subspace (block ℓ's, the last block's for the output; or, with ``U``
    given and chosen, the true subspaces U_k), coloured by its true mixture component; and the mean
    energy ‖U_kᵀz‖² per component and subspace."""
    if not isinstance(model, Classifier):
        raise TypeError(f"model must be an xai_tf.crate.model.Classifier, got {type(model).__name__}")
    n_tokens = _checks.integer("n_tokens", n_tokens, 1)
    if U is not None:
        U = rate.bases(U, model.d, orthonormal=True)
    Y = _checks.tensor("Y", Y)
    components = _checks.tensor("components", components)
    if Y.dim() == 3 and components.shape != (Y.size(0), Y.size(-1)):
        raise ValueError(
            f"components must be [B, T] = {(Y.size(0), Y.size(-1))}, one per token of Y, "
            f"got {tuple(components.shape)}"
        )
    if components.is_floating_point() or components.is_complex() or components.dtype == torch.bool:
        raise TypeError(f"components must hold integer component labels 0, 1, …, got {components.dtype}")
    if components.numel() == 0 or int(components.min()) < 0:
        raise ValueError("components must hold at least one label, each an integer ≥ 0")
    comps = components.reshape(-1)[:n_tokens]
    K = int(components.max()) + 1
    n_layers = len(model.blocks)
    depths: list[Tensor] = []  # Y and every block's output, computed at the first redraw

    depth = widgets.IntSlider(value=0, min=0, max=n_layers, description="depth ℓ", continuous_update=False)
    options = ["the block's heads"] + ([] if U is None else ["the true subspaces U_k"])
    basis = widgets.Dropdown(options=options, value=options[0], description="project on")

    def render() -> str:
        ell = depth.value
        if not depths:
            with torch.no_grad():
                depths.extend([Y] + [s["out"] for s in model.trace(Y)])  # raises for a bad Y
        Z = study.unit_tokens(depths[ell])[:, :n_tokens].float()
        if basis.value == options[0] or U is None:
            bases = model.block(min(ell, n_layers - 1)).value_bases()
        else:
            bases = U.float()
        coords = bases.mT @ Z  # [K_heads, r, N]
        name = "head" if basis.value == options[0] else "subspace"
        plots = [
            _scatter(coords[k, :2].mT, comps, f"{name} {k}: (u₁ᵀz, u₂ᵀz)") for k in range(coords.size(0))
        ]
        energy = (coords**2).sum(1)  # [K_heads, N]
        table = torch.stack([energy[:, comps == c].mean(-1) for c in range(K)])  # [component, head]
        heat = svg_heatmap(
            table.numpy(),
            [f"component {c}" for c in range(K)],
            [f"{name} {k}" for k in range(coords.size(0))],
            title=f"mean ‖U_kᵀz‖² at depth {ell} ({model.kind})",
        )
        legend = " ".join(
            f"<span style='color:{COLOURS[c % len(COLOURS)]}'>● component {c}</span>" for c in range(K)
        )
        return f"<div style='font-size:13px'>{legend}</div>" + side_by_side(*plots, heat)

    return Panel({"depth": depth, "basis": basis}, render, rows=[["depth", "basis"]])


def ista_panel(steps: int = 1, seed: int = 0) -> Panel:
    """η, λ and the number of ISTA steps (from X = z, as CRATE starts; ``steps`` at first) on
    ``ista.toy_signal``: the code X, its share of zeros, ‖z − DX‖/‖z‖, and ‖X − x*‖/‖x*‖."""
    z, D, x_true = ista.toy_signal(seed=seed)
    limit = 2 / torch.linalg.matrix_norm(D, ord=2).item() ** 2
    eta = widgets.FloatLogSlider(value=0.1, base=10, min=-2, max=0.5, step=0.05, description="η")
    lam = widgets.FloatSlider(value=0.1, min=0.0, max=1.0, step=0.01, description="λ")
    count = widgets.IntSlider(
        value=_checks.integer("steps", steps, 1, 300), min=1, max=300, description="steps"
    )

    def render() -> str:
        X = ista.ista(z, D, eta.value, lam.value, count.value)  # refuses η ≥ 2/‖D‖₂² for > 1 step
        s = ista.sparsity(X)
        fit = float(torch.linalg.vector_norm(z - D @ X) / torch.linalg.vector_norm(z))
        err = float(torch.linalg.vector_norm(X - x_true) / torch.linalg.vector_norm(x_true))
        labels = [str(i) for i in range(len(z))]
        top = max(float(X.max()), float(x_true.max()))
        text = (
            f"<p style='font-size:14px'>zeros: {s['zeros']:.0%} of X (x* has "
            f"{int((x_true == 0).sum())} of {len(z)}); ‖z − DX‖/‖z‖ = {fit:.3f}; ‖X − x*‖/‖x*‖ = {err:.3f}; "
            f"ISTA is guaranteed to converge for η < 2/‖D‖₂² = {limit:.3g}</p>"
        )
        return text + side_by_side(
            svg_bars(x_true.ravel().tolist(), labels, "true code x*", vmax=top),
            svg_bars(X.ravel().tolist(), labels, f"X after {count.value} step(s)", vmax=top),
        )

    return Panel({"eta": eta, "lam": lam, "steps": count}, render, rows=[["eta", "lam", "steps"]])
