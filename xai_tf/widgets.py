"""The ipywidgets panels the lessons use. A bad input shows a short message, never a traceback.

Panels draw SVG (``xai_tf.viz.svg_*``) into an ``HTML`` widget: a redraw takes milliseconds, so
sliders answer at once, where re-rendering a matplotlib figure takes a few hundred.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable

import ipywidgets as widgets
import torch
from torch import Tensor

from xai_tf import attention as att
from xai_tf import attribution as attr
from xai_tf import viz
from xai_tf import wordlevel as wl
from xai_tf.decoding import beam_search, filtered_probs, generate, top_next_tokens
from xai_tf.lens import logit_lens_top
from xai_tf.models.hub import LoadedModel


def _render_on_change(
    controls: list[widgets.ValueWidget], render: Callable[[], str]
) -> tuple[widgets.HTML, widgets.HTML]:
    """Show ``render()``'s markup now and whenever a control changes; errors go to a message."""
    message, view = widgets.HTML(), widgets.HTML()

    def redraw(_change: object = None) -> None:
        try:
            view.value, message.value = render(), ""
        except Exception as err:  # a student sees a short message, never a traceback
            text = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
            message.value = f"<span style='color:#b00'>⚠ {html.escape(text)}</span>"
            view.value = ""

    for control in controls:
        control.observe(redraw, "value")
    redraw()
    return message, view


def _row(*svgs: str) -> str:
    return "<div style='display:flex;flex-wrap:wrap;gap:12px'>" + "".join(svgs) + "</div>"


def next_token_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", k: int = 10) -> widgets.VBox:
    """Type a prompt, see the k most likely next tokens as a bar chart."""
    text = _prompt_box(prompt)
    k_slider = widgets.IntSlider(value=k, min=1, max=30, description="top k", continuous_update=False)

    def render() -> str:
        ids, probs = top_next_tokens(lm.model, lm.encode(text.value), k_slider.value)
        labels = [repr(t) for t in lm.token_strings(ids.tolist())]
        return viz.svg_bars(probs.tolist(), labels, title="probability of the next token", horizontal=True)

    message, view = _render_on_change([text, k_slider], render)
    return widgets.VBox([text, k_slider, message, view])


def _prompt_box(prompt: str) -> widgets.Textarea:
    return widgets.Textarea(
        value=prompt, description="prompt", continuous_update=False, layout=widgets.Layout(width="60%")
    )


def head_pattern_panel(lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light") -> widgets.VBox:
    """Lesson 04: a prompt, a layer and a head; see that head's attention pattern A[query, key]."""
    config = lm.model.config
    text = _prompt_box(prompt)
    layer = widgets.IntSlider(value=0, min=0, max=config.n_layer - 1, description="layer")
    head = widgets.IntSlider(value=0, min=0, max=config.n_head - 1, description="head")

    def render() -> str:
        ids = lm.encode(text.value)
        with torch.no_grad():
            _, cache = lm.model.run_with_cache(ids)
        labels = _labels(lm.token_strings(ids))
        A = cache["attn", layer.value][0, head.value]
        return viz.svg_heatmap(A, labels, title=f"layer {layer.value}, head {head.value}: A[query, key]")

    message, view = _render_on_change([text, layer, head], render)
    return widgets.VBox([text, widgets.HBox([layer, head]), message, view])


def logit_lens_panel(
    lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light", k: int = 5
) -> widgets.VBox:
    """Lesson 04: the logit lens as a table — per layer, the top-k next-token guesses."""
    text = _prompt_box(prompt)
    k_slider = widgets.IntSlider(value=k, min=1, max=10, description="top k")

    def render() -> str:
        ids, probs = logit_lens_top(lm.model, lm.encode(text.value), k_slider.value)
        rows = ["embedding", *(f"after block {i}" for i in range(len(ids) - 1))]
        ranked = [
            list(zip(lm.token_strings(i.tolist()), p.tolist(), strict=True))
            for i, p in zip(ids, probs, strict=True)
        ]
        return viz.html_ranked_table(rows, ranked, title="next-token guesses, layer by layer (logit lens)")

    message, view = _render_on_change([text, k_slider], render)
    return widgets.VBox([text, k_slider, message, view])


def decoding_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", n_bars: int = 12) -> widgets.VBox:
    """Lesson 05: temperature, top-k (0 = off), top-p (1 = off) and beam width (1 = sample); the
    next-token distribution before and after filtering, and the generated text. "generate again"
    draws with the next seed."""
    text = _prompt_box(prompt)
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
            logits = lm.model(ids)[0, -1]
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
        top = max(float(before[shown].max()), float(after[shown].max()))
        vmax = min(1.0, math.ceil(top * 1.1 * 10) / 10)  # one scale for both, tall enough to read
        return (
            _row(
                viz.svg_bars(before[shown].tolist(), labels, title="softmax(z / τ)", vmax=vmax),
                viz.svg_bars(
                    after[shown].tolist(), labels, title="after top-k / top-p, renormalised", vmax=vmax
                ),
            )
            + f"<p><i>{how}</i></p><pre style='white-space:pre-wrap;font-size:14px'>{shown_text}</pre>"
        )

    message, view = _render_on_change([text, tau, top_k, top_p, beam, length, seed], render)
    controls = widgets.VBox([widgets.HBox([tau, top_k, top_p]), widgets.HBox([beam, length, seed, again])])
    return widgets.VBox([text, controls, message, view])


EXPLANATIONS = ("IG", "G-avg", "G-L1", "G-L2", "gradient × input", "leave-one-out")


def attribution_panel(
    lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light through yonder"
) -> widgets.VBox:
    """Lesson 06: choose the target among the top next tokens, the method, the baseline and the
    number of steps; see the prompt highlighted and, for IG, F(x), F(x') and the delta."""
    text = _prompt_box(prompt)
    target = widgets.Dropdown(description="target")
    method = widgets.Dropdown(options=EXPLANATIONS, description="method")
    baselines = {
        "token 0": "token0",
        "zeros": "zeros",
        "end-of-text": lm.tokenizer.eot_token,
        "space": lm.tokenizer.encode(" ")[0],
    }
    baseline = widgets.Dropdown(options=list(baselines), description="baseline")
    quadrature = widgets.Dropdown(options=attr.METHODS, description="integral")
    steps = widgets.IntSlider(value=50, min=2, max=300, description="steps m")

    def update_targets(_change: object = None) -> None:
        try:
            ids, probs = top_next_tokens(lm.model, lm.encode(text.value), 8)
        except ValueError:
            return  # the panel's message explains the bad prompt
        labels = lm.token_strings(ids.tolist())
        options = [(f"{t!r} p={p:.2f}", int(i)) for t, p, i in zip(labels, probs.tolist(), ids, strict=True)]
        keep = target.value if target.value in ids.tolist() else options[0][1]
        target.options, target.value = options, keep

    text.observe(update_targets, "value")
    update_targets()

    def render() -> str:
        ids = lm.encode(text.value)
        tokens = lm.token_strings(ids)
        if method.value == "IG":
            r = attr.integrated_gradients(
                lm, ids, target.value, baselines[baseline.value], steps.value, quadrature.value, batch_size=10
            )
            scores = r.token_scores
            info = (
                f"F(x) = {r.f_input:.3f}, F(x') = {r.f_baseline:.3f}, "
                f"Σ IG = {float(r.token_scores.sum()):.3f}, "
                f"<b>delta = {r.delta:+.4f}</b> ({100 * r.relative_delta:.2f}% of F(x) − F(x'))"
            )
        elif method.value == "leave-one-out":
            scores, info = (
                attr.leave_one_out(lm, ids, target.value, baselines["space"]),
                "token replaced by a space",
            )
        else:
            g, E = attr.embedding_gradients(lm, ids, target.value)
            aggregation = {"G-avg": "avg", "G-L1": "l1", "G-L2": "l2"}.get(method.value)
            scores = (
                attr.gradient_times_input(g, E)
                if aggregation is None
                else attr.gradient_saliency(g, aggregation)
            )
            info = "gradients at the input only: no baseline, no completeness"
        title = f"{method.value} for the logit of {lm.token_strings([target.value])[0]!r}"
        return viz.html_token_scores(tokens, scores.tolist(), title) + f"<p>{info}</p>"

    message, view = _render_on_change([text, target, method, baseline, quadrature, steps], render)
    return widgets.VBox(
        [text, widgets.HBox([target, method]), widgets.HBox([baseline, quadrature, steps]), message, view]
    )


AGGREGATIONS = ("one head", "mean of heads", "max of heads", "rollout", "flow")


def word_attention_panel(
    lm: LoadedModel, prompt: str = "ROMEO.\nBut soft, what light through yonder window breaks?"
) -> widgets.VBox:
    """Lesson 07: token or word level; one head of one layer, the mean or max of a layer's heads,
    or rollout / flow across all layers."""
    text = _prompt_box(prompt)
    with torch.no_grad():
        n_layer, n_head = lm.model.run_with_cache(lm.encode("a"))[1].stack("attn").shape[:2]
    layer = widgets.IntSlider(value=0, min=0, max=n_layer - 1, description="layer")
    head = widgets.IntSlider(value=0, min=0, max=n_head - 1, description="head")
    level = widgets.ToggleButtons(options=["tokens", "words"], description="level")
    how = widgets.Dropdown(options=AGGREGATIONS, description="show")

    def render() -> str:
        ids = lm.encode(text.value)
        with torch.no_grad():
            attentions = lm.model.run_with_cache(ids)[1].stack("attn")[:, 0]  # [layers, heads, T, T]
        tokens, groups, words = wl.words_of(lm, ids)
        if how.value == "one head":
            A, what = attentions[layer.value, head.value], f"layer {layer.value}, head {head.value}"
        elif how.value in ("mean of heads", "max of heads"):
            A = wl.aggregate_heads(attentions, how.value.split()[0])[layer.value]
            what = f"layer {layer.value}, {how.value}"
        elif how.value == "rollout":
            A, what = wl.attention_rollout(attentions), "rollout over all layers"
        else:
            A, what = wl.attention_flow(attentions, normalize=True), "flow over all layers (rows normalised)"
        if level.value == "words":
            A, labels = wl.word_attention(A, groups), words
            if how.value == "max of heads":
                what += " (rows no longer sum to 1)"
        else:
            labels = tokens
        return viz.svg_heatmap(A, _labels(labels), title=f"{what}, {level.value}")

    message, view = _render_on_change([text, layer, head, level, how], render)
    return widgets.VBox([text, widgets.HBox([how, level]), widgets.HBox([layer, head]), message, view])


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

    def render() -> str:
        A = att.softmax(score_fns[score.value](Q, K) / tau.value)
        p = A[query.value]
        title = f"p for query {labels[query.value]}, H = {att.entropy(p):.2f} nats"
        return _row(viz.svg_bars(p.tolist(), labels, title=title), viz.svg_heatmap(A, labels, title="A"))

    message, view = _render_on_change([query, score, tau], render)
    return widgets.VBox([widgets.HBox([query, score, tau]), message, view])


def mask_explorer(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, tokens: list[str]) -> widgets.VBox:
    """Lesson 02: switch between no mask, the causal mask and a padding mask (the sentence is
    shorter than the batch: the last positions are padding) and see A change."""
    labels = _labels(tokens)
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

    message, view = _render_on_change([kind, length], render)
    return widgets.VBox([kind, length, message, view])


def flavors_panel(z: Tensor, labels: list[str]) -> widgets.VBox:
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
        return _row(
            *(
                viz.svg_bars(p.tolist(), labels, title=f"{name}: support {att.support_size(p)}/{len(p)}")
                for name, p in maps.items()
            )
        )

    message, view = _render_on_change([alpha, lam, tau], render)
    return widgets.VBox([widgets.HBox([alpha, lam, tau]), message, view])
