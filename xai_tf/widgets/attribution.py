"""Lesson 06's panel: explain one next-token prediction by a method picked from the registry."""

from __future__ import annotations

import ipywidgets as widgets

from xai_tf import viz
from xai_tf.explain import attribution as attr
from xai_tf.explain.registry import ATTRIBUTIONS
from xai_tf.models.loaded import LoadedModel
from xai_tf.models.tokenization import whole_characters
from xai_tf.transformer.decoding import top_next_tokens
from xai_tf.widgets._panel import Panel, needs, prompt_box

#: The longest prompt the panel explains: IG runs 2–300 forward and backward passes, each O(T²).
MAX_TOKENS = 64


@needs("causal", "attribution to the token embeddings")
def attribution_panel(lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light through yonder") -> Panel:
    """Choose the target among the top next tokens, the method, the baseline and the number of
    steps; see the prompt highlighted and, for IG, F(x), F(x') and the delta."""
    text = prompt_box(prompt)
    target = widgets.Dropdown(description="target")
    method = widgets.Dropdown(options=list(ATTRIBUTIONS), description="method")
    baselines = attr.named_baselines(lm)
    baseline = widgets.Dropdown(options=list(baselines), description="baseline")
    quadrature = widgets.Dropdown(options=attr.METHODS, value="gausslegendre", description="integral")
    steps = widgets.IntSlider(value=50, min=2, max=300, description="steps m")

    def update_targets() -> None:
        try:
            ids, probs = top_next_tokens(lm, lm.encode(text.value), 8)
        except ValueError:
            return  # the panel's message explains the bad prompt
        labels = lm.token_strings(ids.tolist())
        options = [(f"{t!r} p={p:.2f}", int(i)) for t, p, i in zip(labels, probs.tolist(), ids, strict=True)]
        keep = target.value if target.value in ids.tolist() else options[0][1]
        target.options, target.value = options, keep

    def render() -> str:
        ids = lm.encode(text.value)
        if len(ids) > MAX_TOKENS:
            raise ValueError(
                f"this panel explains prompts of up to {MAX_TOKENS} tokens, this one has {len(ids)}"
            )
        found = ATTRIBUTIONS.explain(
            method.value,
            lm,
            ids,
            target.value,
            baseline=baselines[baseline.value],
            n_steps=steps.value,
            quadrature=quadrature.value,
        )
        scores = found.scores
        title = f"{method.value} for the logit of {lm.token_strings([target.value])[0]!r}"
        labels, groups = whole_characters(lm.tokenizer, ids)  # "é" or an emoji: one label, scores summed
        summed = [float(scores[g].sum()) for g in groups]
        return viz.html_token_scores(labels, summed, title) + f"<p>{found.note}</p>"

    update_targets()
    controls = {"text": text, "target": target, "method": method}
    controls |= {"baseline": baseline, "quadrature": quadrature, "steps": steps}
    rows = [["text"], ["target", "method"], ["baseline", "quadrature", "steps"]]
    return Panel(controls, render, rows, updates={"text": update_targets}, slow=True)
