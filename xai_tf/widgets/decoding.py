"""Lesson 05's panel: temperature, top-k, top-p and beam width, with the text they produce."""

from __future__ import annotations

import html

import ipywidgets as widgets
import torch

from xai_tf import viz
from xai_tf.models.loaded import LoadedModel
from xai_tf.transformer.decoding import beam_search, filtered_probs, generate
from xai_tf.widgets._panel import Panel, needs, prompt_box, side_by_side


@needs("causal", "decoding")
def decoding_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", n_bars: int = 12) -> Panel:
    """Temperature, top-k (0 = off), top-p (1 = off) and beam width (1 = sample); the next-token
    distribution before and after filtering, and the generated text. "generate again" draws with
    the next seed."""
    text = prompt_box(prompt)
    tau = widgets.FloatLogSlider(value=1.0, base=10, min=-1, max=0.7, step=0.05, description="τ")
    top_k = widgets.IntSlider(value=0, min=0, max=50, description="top k (0 off)")
    top_p = widgets.FloatSlider(value=1.0, min=0.05, max=1.0, step=0.05, description="top p")
    beam = widgets.IntSlider(value=1, min=1, max=8, description="beam width")
    length = widgets.IntSlider(value=40, min=1, max=120, description="new tokens")
    seed = widgets.IntText(value=0, description="seed", layout=widgets.Layout(width="160px"))
    again = widgets.Button(description="generate again", icon="refresh")
    again.on_click(lambda _button: setattr(seed, "value", seed.value + 1))

    def render() -> str:
        ids = lm.encode(text.value)
        k, p = top_k.value or None, (top_p.value if top_p.value < 1 else None)
        with torch.no_grad():
            logits = lm(ids)[0, -1]
        before = filtered_probs(logits, tau.value)
        after = filtered_probs(logits, tau.value, k, p)
        shown = before.argsort(descending=True)[:n_bars].tolist()
        labels = [repr(t)[1:-1] for t in lm.token_strings(shown)]
        if beam.value > 1:
            out = beam_search(lm, ids, beam.value, min(length.value, lm.n_ctx - len(ids)))
            how = f"beam search, width {beam.value} (ignores τ, k, p)"
        else:
            out = generate(lm, ids, length.value, tau.value, k, p, seed=seed.value)
            how = f"sampling, seed {seed.value}"
        continuation = html.escape(lm.tokenizer.decode(out[len(ids) :]))
        shown_text = f"<b>{html.escape(text.value)}</b>{continuation}"
        vmax = max(float(before[shown].max()), float(after[shown].max()))  # one scale for both
        charts = side_by_side(
            viz.svg_bars(before[shown].tolist(), labels, title="softmax(z / τ)", vmax=vmax),
            viz.svg_bars(after[shown].tolist(), labels, title="after top-k / top-p, renormalised", vmax=vmax),
        )
        return (
            charts + f"<p><i>{how}</i></p><pre style='white-space:pre-wrap;font-size:14px'>{shown_text}</pre>"
        )

    controls = {"text": text, "tau": tau, "top_k": top_k, "top_p": top_p}
    controls |= {"beam": beam, "length": length, "seed": seed, "again": again}
    rows = [["text"], ["tau", "top_k", "top_p"], ["beam", "length", "seed", "again"]]
    return Panel(controls, render, rows, slow=True)
