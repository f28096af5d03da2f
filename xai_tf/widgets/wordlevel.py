"""Lesson 07's panel: attention of one head, of a layer's heads, or across layers, by token or word."""

from __future__ import annotations

import ipywidgets as widgets
import torch

from xai_tf import viz
from xai_tf.explain import wordlevel as wl
from xai_tf.explain.registry import AGGREGATIONS
from xai_tf.models.loaded import LoadedModel
from xai_tf.widgets._panel import Panel, position_labels, prompt_box


def word_attention_panel(
    lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light through yonder window breaks?"
) -> Panel:
    """Token or word level; one head of one layer, the mean or max of a layer's heads, or rollout /
    flow across all layers (any model)."""
    text = prompt_box(prompt)
    layer = widgets.IntSlider(value=0, min=0, max=lm.n_layer - 1, description="layer")
    head = widgets.IntSlider(value=0, min=0, max=lm.n_head - 1, description="head")
    level = widgets.ToggleButtons(options=["tokens", "words"], description="level")
    how = widgets.Dropdown(options=list(AGGREGATIONS), description="show")

    def render() -> str:
        tokens, groups, words, attentions = wl.attention_of(lm, text.value)
        A, what = AGGREGATIONS[how.value](attentions, layer.value, head.value)
        if level.value == "words":
            A, labels = wl.word_attention(A, groups), words
            if not torch.allclose(A.sum(-1), torch.ones(len(A), dtype=A.dtype), atol=1e-4):
                what += " (rows no longer sum to 1)"  # a max of heads: word attention sums its rows
        else:
            labels = tokens
        return viz.svg_heatmap(A, position_labels(labels), title=f"{what}, {level.value}")

    controls = {"text": text, "how": how, "level": level, "layer": layer, "head": head}
    return Panel(controls, render, rows=[["text"], ["how", "level"], ["layer", "head"]], slow=True)
