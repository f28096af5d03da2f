"""Lesson 20's panel: one prompt, several methods of the registry side by side, each with its cost and
completeness gap."""

from __future__ import annotations

import html

import ipywidgets as widgets
import torch

from xai_tf import _cancel, viz
from xai_tf.explain import gradcam as gc
from xai_tf.explain import properties as pr
from xai_tf.explain.registry import ATTRIBUTIONS, REGISTRY
from xai_tf.models.loaded import LoadedModel
from xai_tf.widgets._panel import Panel, needs, prompt_box

#: The longest prompt the panel explains (the sampled methods cost hundreds of forward passes).
MAX_TOKENS = 32
#: The methods that draw samples or enumerate coalitions: the panel shows "computing…" while they run.
SAMPLED = ("smoothgrad", "vargrad", "deeplift-shap", "lime", "kernel-shap", "shapley", "contrastive", "IG")


@needs("causal", "attribution to the token embeddings")
def attribution_map_panel(lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what") -> Panel:
    """Pick methods (several at once); each draws the prompt's token scores for the logit of the most
    likely next token, with the passes it took, the seconds, and Σ scores − (F(x) − F(x′))."""
    text = prompt_box(prompt)
    methods = widgets.SelectMultiple(
        options=list(ATTRIBUTIONS),
        value=("gradient × input", "occlusion", "deeplift"),
        rows=6,
        description="methods",
    )
    samples = widgets.IntSlider(value=100, min=10, max=1000, step=10, description="samples")
    noise = widgets.FloatSlider(value=0.15, min=0.01, max=1.0, step=0.01, description="noise scale")
    window = widgets.IntSlider(value=2, min=1, max=8, description="window")
    layer = widgets.IntSlider(
        value=gc.default_layer(lm.model.sizes.n_layer),
        min=0,
        max=lm.model.sizes.n_layer - 1,
        description="Grad-CAM layer",
    )

    known: dict[str, tuple[int, float]] = {}  # the prompt's target and F(x) − F(x′), once per prompt

    def render() -> str:
        ids = lm.encode(text.value)
        if len(ids) > MAX_TOKENS:
            raise ValueError(
                f"this panel explains prompts of up to {MAX_TOKENS} tokens, this one has {len(ids)}"
            )
        if not methods.value:
            raise ValueError("pick at least one method")
        if text.value not in known:
            with torch.no_grad():
                predicted = int(lm.model(ids)[0, -1].argmax())
            known.clear()
            known[text.value] = predicted, pr.output_difference(lm, ids, predicted)
        target, difference = known[text.value]
        tokens = lm.token_strings(ids)
        options = {"n_samples": samples.value, "noise_scale": noise.value, "window": window.value}
        parts = [f"<p>explaining the logit of {html.escape(repr(lm.token_strings([target])[0]))}</p>"]
        for name in methods.value:
            _cancel.checkpoint()  # a newer change abandons the methods not yet run
            found, cost = pr.explain_with_cost(name, lm, ids, target, layer=layer.value, **options)
            gap, rel = pr.completeness_gap(lm, ids, target, found.scores, difference=difference)
            parts.append(viz.html_token_scores(tokens, found.scores.tolist(), name))
            passes = f"{cost.forward} sequences forward, {cost.backward} backward"
            gaps = f"Σ − (F(x) − F(x')) = {gap:+.3f} ({100 * rel:.0f}%)"
            reads = REGISTRY.find(name).reads_text
            parts.append(f"<p style='margin:0'>{reads}; {passes}, {1000 * cost.seconds:.0f} ms; {gaps}</p>")
        return "".join(parts)

    controls = {"text": text, "methods": methods, "samples": samples, "noise": noise, "window": window}
    controls["layer"] = layer
    rows = [["text"], ["methods"], ["samples", "noise"], ["window", "layer"]]
    return Panel(controls, render, rows, slow=True)
