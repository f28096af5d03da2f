"""Lesson 00's panel: a prompt and the k most likely next tokens."""

from __future__ import annotations

import ipywidgets as widgets

from xai_tf import viz
from xai_tf.models.loaded import LoadedModel
from xai_tf.transformer.decoding import top_next_tokens
from xai_tf.widgets._panel import Panel, needs, prompt_box


@needs("causal", "next-token prediction")
def next_token_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", k: int = 10) -> Panel:
    """Type a prompt, see the k most likely next tokens as a bar chart."""
    text = prompt_box(prompt)
    k_slider = widgets.IntSlider(value=k, min=1, max=30, description="top k", continuous_update=False)

    def render() -> str:
        ids, probs = top_next_tokens(lm, lm.encode(text.value), k_slider.value)
        labels = [repr(t) for t in lm.token_strings(ids.tolist())]
        return viz.svg_bars(probs.tolist(), labels, title="probability of the next token", horizontal=True)

    return Panel({"text": text, "k": k_slider}, render)
