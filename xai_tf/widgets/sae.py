"""Lesson 10's panels: the feature browser (search features by a token, sort by density; a
feature's label, top contexts, activation histogram and logit effects) and steering (clamp a
feature to a multiple of its largest code and generate, clean text beside clamped text)."""

from __future__ import annotations

import html

import ipywidgets as widgets
import torch
from torch import Tensor

from xai_tf import _cancel, _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.sae import browse, steer
from xai_tf.sae.model import SparseAutoencoder
from xai_tf.viz.svg import html_ranked_table, svg_bars
from xai_tf.widgets._panel import Panel, needs, prompt_box, side_by_side

ORDERS = ("densest first", "rarest first (alive)", "by index")


def _order(p: Tensor, how: str) -> list[int]:
    if how == "by index":
        return list(range(len(p)))
    alive = (p > 0).nonzero().flatten()
    return alive[p[alive].argsort(descending=how == "densest first")].tolist()


def _per_feature(name: str, values: object, sae: SparseAutoencoder) -> Tensor:
    """One finite number per feature of ``sae`` (densities, largest codes)."""
    values = _checks.real_tensor(name, values, 1)
    if len(values) != sae.config.F:
        raise ValueError(
            f"{name} must hold one value per feature of the SAE ({sae.config.F}), got {len(values)}"
        )
    return values


def _histogram(values: Tensor, bins: int = 12) -> str:
    """The nonzero f_j as a bar chart of counts per bin."""
    values = values[values > 0]
    if len(values) == 0:
        return ""
    counts = torch.histc(values, bins, 0, float(values.max()))
    width = float(values.max()) / bins
    labels = [f"{(i + 0.5) * width:.2f}" for i in range(bins)]
    return svg_bars(counts.tolist(), labels, title=f"f_j > 0 on {len(values)} tokens")


def feature_browser(
    lm: LoadedModel, sae: SparseAutoencoder, H: Tensor, ids: Tensor, p: Tensor, k: int = 8
) -> Panel:
    """Browse the features of ``sae`` on the windows ``ids [n, T]`` (``H`` their scaled activations,
    ``p`` the densities): a token (e.g. " thou") lists the features that fire most on it; picking an
    order clears the token and lists every feature by density."""
    p = _per_feature("p", p, sae)
    token = widgets.Text(value="", description="token", continuous_update=False, placeholder=" thou")
    order = widgets.Dropdown(options=ORDERS, value=ORDERS[0], description="order")
    feature = widgets.Dropdown(options=_order(p, ORDERS[0])[:200], description="feature")

    def search() -> list[int]:
        return [j for j, _ in browse.features_for_token(lm, sae, H, ids, token.value, k=20)]

    def refill() -> None:
        try:
            feature.options = search() if token.value else _order(p, order.value)[:200]
        except ValueError:
            feature.options = []  # render() repeats the search and shows its one-line message
        if feature.value is None and feature.options:  # ipywidgets leaves None after an empty list
            feature.value = feature.options[0]

    def reorder() -> None:
        token.value = ""  # an order lists every feature; a token search ranks by activation on it
        refill()

    def render() -> str:
        if token.value and not feature.options:
            search()
        j = feature.value
        contexts = browse.top_contexts(lm, sae, H, ids, j, k)
        up, down = browse.logit_effects(lm, sae, j, 6)
        head = f"<b>feature {j}</b>: {html.escape(browse.label(contexts))} · density {float(p[j]):.4f}"
        table = html_ranked_table(["boosts", "suppresses"], [up, down], title="logit effects W_U W^dec_j")
        return (
            head
            + browse.contexts_html(contexts)
            + side_by_side(_histogram(browse.feature_values(sae, H, j).flatten()), table)
        )

    return Panel(
        {"token": token, "order": order, "feature": feature},
        render,
        rows=[["token", "order", "feature"]],
        updates={"token": refill, "order": reorder},
    )


@needs("causal", "generation")
def steering_panel(
    lm: LoadedModel, sae: SparseAutoencoder, max_codes: Tensor, prompt: str = "ROMEO.\n", j: int = 0
) -> Panel:
    """Pick a feature and a clamp factor (a multiple of the feature's largest code); see the clean
    continuation beside the clamped one (same seed, 30 tokens). The clean text depends on the prompt
    only, so a change of feature or factor generates the clamped text alone; a render that a newer
    change has made stale stops at its next generated token (the panel shows "computing…")."""
    max_codes = _per_feature("max_codes", max_codes, sae)
    feature = widgets.BoundedIntText(value=j, min=0, max=10**6, description="feature")
    factor = widgets.FloatSlider(value=5.0, min=-10, max=10, step=0.5, description="clamp × max")
    box = prompt_box(prompt)
    clean: dict[str, str] = {}  # the last prompt's clean continuation

    def render() -> str:
        text, j = box.value, sae.feature(feature.value)  # read once: the browser may change them meanwhile
        code, clamp = float(max_codes[j]), factor.value
        if text not in clean:
            generated = steer.generate_clamped(lm, sae, text, j, None, code, on_step=_cancel.checkpoint)
            clean.clear()
            clean[text] = generated
        texts = {
            "clean": clean[text],
            f"feature {j} clamped to {clamp:g} × {code:.2f}": steer.generate_clamped(
                lm, sae, text, j, clamp, code, on_step=_cancel.checkpoint
            ),
        }
        cells = "".join(
            f"<div style='flex:1;min-width:280px'><b>{html.escape(name)}</b>"
            f"<pre style='white-space:pre-wrap'>{html.escape(text + continuation)}</pre></div>"
            for name, continuation in texts.items()
        )
        return f"<div style='display:flex;gap:16px'>{cells}</div>"

    return Panel(
        {"feature": feature, "factor": factor, "prompt": box},
        render,
        rows=[["feature", "factor"], ["prompt"]],
        slow=True,
    )
