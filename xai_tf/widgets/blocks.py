"""Lesson 04's panels: one head's attention pattern, and the logit lens as a table."""

from __future__ import annotations

import ipywidgets as widgets

from xai_tf import viz
from xai_tf.explain.lens import logit_lens_top
from xai_tf.models.loaded import LoadedModel
from xai_tf.widgets._panel import Panel, needs, position_labels, prompt_box


def head_pattern_panel(lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light") -> Panel:
    """A prompt, a layer and a head; see that head's attention pattern A[query, key] (any model)."""
    text = prompt_box(prompt)
    layer = widgets.IntSlider(value=0, min=0, max=lm.n_layer - 1, description="layer")
    head = widgets.IntSlider(value=0, min=0, max=lm.n_head - 1, description="head")

    def render() -> str:
        ids = lm.encode(text.value)
        A = lm.attentions(ids)[layer.value, head.value]
        title = f"layer {layer.value}, head {head.value}: A[query, key]"
        return viz.svg_heatmap(A, position_labels(lm.token_strings(ids)), title=title)

    return Panel({"text": text, "layer": layer, "head": head}, render, rows=[["text"], ["layer", "head"]])


@needs("causal", "the logit lens")
def logit_lens_panel(lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light", k: int = 5) -> Panel:
    """The logit lens as a table — per layer, the top-k next-token guesses."""
    text = prompt_box(prompt)
    k_slider = widgets.IntSlider(value=k, min=1, max=10, description="top k")

    def render() -> str:
        ids, probs = logit_lens_top(lm, lm.encode(text.value), k_slider.value)
        rows = ["layer 0 (embedding)", *(f"layer {i + 1} (after block {i})" for i in range(len(ids) - 1))]
        ranked = [
            list(zip(lm.token_strings(i.tolist()), p.tolist(), strict=True))
            for i, p in zip(ids, probs, strict=True)
        ]
        return viz.html_ranked_table(rows, ranked, title="next-token guesses, layer by layer (logit lens)")

    return Panel({"text": text, "k": k_slider}, render)
