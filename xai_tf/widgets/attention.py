"""Panels of lessons 01–03: the attention explorer, the mask explorer, the attention flavours."""

from __future__ import annotations

import ipywidgets as widgets
import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf import seeds, viz
from xai_tf.widgets._panel import Panel, position_labels, side_by_side


def attention_explorer(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, tokens: list[str], seed: int = 0
) -> Panel:
    """Lesson 01: pick a query, a score function and a temperature τ; see p = softmax(z / τ) for
    that query and the whole matrix A. Bilinear and additive scores use seeded random weights."""
    g = seeds.generator(seed)
    d_att, h = W_q.size(0), 16  # W_q [d_att, d_e]: Q = X W_qᵀ
    W = torch.randn(d_att, d_att, generator=g) / d_att**0.5
    W1, W2 = torch.randn(h, d_att, generator=g) / d_att**0.5, torch.randn(h, d_att, generator=g) / d_att**0.5
    v = torch.randn(h, generator=g)
    score_fns = {
        "scaled dot  kᵀq/√d": att.scaled_dot_scores,
        "dot  kᵀq": att.dot_scores,
        "bilinear  kᵀWq": lambda Q, K: att.bilinear_scores(Q, K, W),
        "additive  vᵀtanh(W₁k+W₂q)": lambda Q, K: att.additive_scores(Q, K, W1, W2, v),
    }
    labels = position_labels(tokens)
    query = widgets.Dropdown(options=list(zip(labels, range(len(labels)), strict=True)), description="query")
    score = widgets.Dropdown(options=list(score_fns), description="score")
    tau = widgets.FloatLogSlider(value=1.0, base=10, min=-1.5, max=1.5, step=0.05, description="τ")

    def render() -> str:
        A = att.softmax(score_fns[score.value](X @ W_q.T, X @ W_k.T) / tau.value)
        p = A[query.value]
        title = f"p for query {labels[query.value]}, H = {att.entropy(p):.2f} nats"
        return side_by_side(
            viz.svg_bars(p.tolist(), labels, title=title), viz.svg_heatmap(A, labels, title="A")
        )

    return Panel({"query": query, "score": score, "tau": tau}, render, rows=[["query", "score", "tau"]])


def mask_explorer(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, tokens: list[str]) -> Panel:
    """Lesson 02: switch between no mask, the causal mask and a padding mask (the sentence is
    shorter than the batch: the last positions are padding) and see A change."""
    labels = position_labels(tokens)
    T = len(tokens)
    kind = widgets.ToggleButtons(
        options=["none", "causal", "padding", "causal + padding"], description="mask"
    )
    length = widgets.IntSlider(value=T - 2, min=0, max=T, description="real tokens")

    def render() -> str:
        mask = torch.ones(T, T, dtype=torch.bool)
        if "causal" in kind.value:
            mask &= att.causal_mask(T)
        if "padding" in kind.value:
            mask &= att.padding_mask([length.value], T)[0]
        _, A = att.self_attention(X, W_q, W_k, W_v, mask=mask)
        return viz.svg_heatmap(A, labels, title=f"A with mask: {kind.value} (rows that see nothing are 0)")

    return Panel({"mask": kind, "length": length}, render)


def flavors_panel(z: Tensor, labels: list[str]) -> Panel:
    """Lesson 03: the same scores through softmax, α-entmax, sparsemax and fusedmax; sliders for
    α, λ and a temperature τ (maps are applied to z / τ)."""
    alpha = widgets.FloatSlider(value=1.5, min=1.0, max=2.0, step=0.05, description="α (entmax)")
    lam = widgets.FloatSlider(value=0.2, min=0.0, max=2.0, step=0.05, description="λ (fusedmax)")
    tau = widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05, description="τ")

    def render() -> str:
        s = z / tau.value
        maps = {
            "softmax": att.softmax(s),
            f"{alpha.value:.2f}-entmax": att.entmax(s, alpha.value),
            "sparsemax": att.sparsemax(s),
            f"fusedmax λ={lam.value:.2f}": att.fusedmax(s, lam.value),
        }
        vmax = max(float(p.max()) for p in maps.values())  # one scale for the four charts
        return side_by_side(
            *(
                viz.svg_bars(p.tolist(), labels, f"{name}: support {att.support_size(p)}/{len(p)}", vmax=vmax)
                for name, p in maps.items()
            )
        )

    return Panel({"alpha": alpha, "lam": lam, "tau": tau}, render, rows=[["alpha", "lam", "tau"]])
