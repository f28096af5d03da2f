"""The ipywidgets panels the lessons use. A bad input shows a short message, never a traceback."""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf import viz
from xai_tf.decoding import top_next_tokens
from xai_tf.models.hub import LoadedModel


def _redraw_on_change(
    controls: list[widgets.ValueWidget], draw: Callable[[], None]
) -> tuple[widgets.HTML, widgets.Output]:
    """Call ``draw`` into an Output now and whenever a control changes; errors go to a message."""
    message, out = widgets.HTML(), widgets.Output()

    def redraw(_change: object = None) -> None:
        message.value = ""
        out.clear_output(wait=True)
        with out:
            try:
                draw()
            except Exception as err:  # a student sees a short message, never a traceback
                text = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
                message.value = f"<span style='color:#b00'>⚠ {html.escape(text)}</span>"
            plt.show()

    for control in controls:
        control.observe(redraw, "value")
    redraw()
    return message, out


def next_token_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", k: int = 10) -> widgets.VBox:
    """Type a prompt, see the k most likely next tokens as a bar chart."""
    text = widgets.Textarea(
        value=prompt, description="prompt", continuous_update=False, layout=widgets.Layout(width="60%")
    )
    k_slider = widgets.IntSlider(value=k, min=1, max=30, description="top k", continuous_update=False)

    def draw() -> None:
        ids, probs = top_next_tokens(lm.model, lm.encode(text.value), k_slider.value)
        viz.plot_next_tokens(lm.token_strings(ids.tolist()), probs.tolist())

    message, out = _redraw_on_change([text, k_slider], draw)
    return widgets.VBox([text, k_slider, message, out])


def _labels(tokens: list[str]) -> list[str]:
    return [f"{i}:{t}" for i, t in enumerate(tokens)]


def attention_explorer(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, tokens: list[str], seed: int = 0
) -> widgets.VBox:
    """Lesson 01: pick a query, a score function and a temperature τ; see p = softmax(z / τ) for
    that query and the whole matrix A. Bilinear and additive scores use seeded random weights."""
    g = torch.Generator().manual_seed(seed)
    d_att, h = W_q.size(1), 16
    W = torch.randn(d_att, d_att, generator=g) / d_att**0.5
    W1, W2 = torch.randn(h, d_att, generator=g) / d_att**0.5, torch.randn(h, d_att, generator=g) / d_att**0.5
    v = torch.randn(h, generator=g)
    score_fns = {
        "scaled dot  kᵀq/√d": att.scaled_dot_scores,
        "dot  kᵀq": att.dot_scores,
        "bilinear  kᵀWq": lambda Q, K: att.bilinear_scores(Q, K, W),
        "additive  vᵀtanh(W₁k+W₂q)": lambda Q, K: att.additive_scores(Q, K, W1, W2, v),
    }
    labels = _labels(tokens)
    query = widgets.Dropdown(options=list(zip(labels, range(len(labels)), strict=True)), description="query")
    score = widgets.Dropdown(options=list(score_fns), description="score")
    tau = widgets.FloatLogSlider(value=1.0, base=10, min=-1.5, max=1.5, step=0.05, description="τ")
    Q, K = X @ W_q, X @ W_k

    def draw() -> None:
        A = att.softmax(score_fns[score.value](Q, K) / tau.value)
        fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4), width_ratios=[1, 1])
        viz.plot_weights(
            A[query.value],
            labels,
            ax=left,
            title=f"p for query {labels[query.value]}   H = {att.entropy(A[query.value]):.2f} nats",
        )
        viz.plot_attention(A, labels, ax=right, title="A (every query)")
        fig.tight_layout()

    message, out = _redraw_on_change([query, score, tau], draw)
    return widgets.VBox([widgets.HBox([query, score, tau]), message, out])


def mask_explorer(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, tokens: list[str]) -> widgets.VBox:
    """Lesson 02: switch between no mask, the causal mask and a padding mask (the sentence is
    shorter than the batch: the last positions are padding) and see A change."""
    labels = _labels(tokens)
    T = len(tokens)
    kind = widgets.ToggleButtons(
        options=["none", "causal", "padding", "causal + padding"], description="mask"
    )
    length = widgets.IntSlider(value=T - 2, min=0, max=T, description="real tokens")

    def draw() -> None:
        mask = torch.ones(T, T, dtype=torch.bool)
        if "causal" in kind.value:
            mask &= att.causal_mask(T)
        if "padding" in kind.value:
            mask &= att.padding_mask([length.value], T)[0]
        _, A = att.self_attention(X, W_q, W_k, W_v, mask=mask)
        fig, ax = plt.subplots(figsize=(7, 5))
        viz.plot_attention(A, labels, ax=ax, title=f"A with mask: {kind.value}")
        ax.set_ylabel("query i   (hidden rows: every key masked → zeros)")

    message, out = _redraw_on_change([kind, length], draw)
    return widgets.VBox([kind, length, message, out])


def flavors_panel(z: Tensor, labels: list[str]) -> widgets.VBox:
    """Lesson 03: the same scores through softmax, α-entmax, sparsemax and fusedmax; sliders for
    α, λ and a temperature τ (maps are applied to z / τ)."""
    alpha = widgets.FloatSlider(value=1.5, min=1.0, max=2.0, step=0.05, description="α (entmax)")
    lam = widgets.FloatSlider(value=0.2, min=0.0, max=2.0, step=0.05, description="λ (fusedmax)")
    tau = widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=1, step=0.05, description="τ")

    def draw() -> None:
        s = z / tau.value
        maps = {
            "softmax": att.softmax(s),
            f"{alpha.value:.2f}-entmax": att.entmax(s, alpha.value),
            "sparsemax": att.sparsemax(s),
            f"fusedmax λ={lam.value:.2f}": att.fusedmax(s, lam.value),
        }
        fig, axes = plt.subplots(1, 4, figsize=(16, 3.2), sharey=True)
        for ax, (name, p) in zip(axes, maps.items(), strict=True):
            viz.plot_weights(p, labels, ax=ax, title=f"{name}\nsupport {att.support_size(p)}/{len(p)}")
        fig.tight_layout()

    message, out = _redraw_on_change([alpha, lam, tau], draw)
    return widgets.VBox([widgets.HBox([alpha, lam, tau]), message, out])
