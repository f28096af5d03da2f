import html
import re
from collections.abc import Callable

import ipywidgets as widgets
import numpy as np
import pytest
import torch

from xai_tf import viz
from xai_tf.explain import wordlevel as wl
from xai_tf.explain.registry import AGGREGATIONS, ATTRIBUTIONS
from xai_tf.widgets._panel import Panel
from xai_tf.widgets.attention import attention_explorer, flavors_panel, mask_explorer
from xai_tf.widgets.attribution import attribution_panel
from xai_tf.widgets.blocks import head_pattern_panel, logit_lens_panel
from xai_tf.widgets.decoding import decoding_panel
from xai_tf.widgets.next_token import next_token_panel
from xai_tf.widgets.wordlevel import word_attention_panel


def _message(panel: Panel) -> str:
    return panel.message.value


def _view(panel: Panel) -> str:
    return panel.view.value


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("", "prompt is empty"),
        ("To be. " * 300, "reads at most 256"),
        (
            "ROMEO.<|endoftext|>",
            "&lt;|endoftext|&gt; is the end-of-text marker; it cannot be typed in a prompt",
        ),
    ],
)
def test_next_token_panel_shows_a_message_not_a_traceback(bundled, prompt, message):
    panel = next_token_panel(bundled)
    text = panel["text"]
    assert _message(panel) == ""
    text.value = prompt
    assert message in _message(panel)
    text.value = "ROMEO.\n"
    assert _message(panel) == ""


def test_attention_panels_update_without_messages():
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(5, 6, generator=g), [torch.randn(4, 6, generator=g) for _ in range(3)]  # [d_att, d_e]
    tokens = list("abcde")
    explorer = attention_explorer(X, *W, tokens)
    query, score, tau = explorer["query"], explorer["score"], explorer["tau"]
    for kind in score.options:
        score.value = kind
        tau.value = tau.min_value = 0.05
        query.value = 4
        assert _message(explorer) == ""
    masks = mask_explorer(X, *W, tokens)
    kind, length = masks["mask"], masks["length"]
    kind.value, length.value = "causal + padding", 0  # nothing visible anywhere: zeros, no error
    assert _message(masks) == ""
    flavors = flavors_panel(torch.randn(7, generator=g), list("0123456"))
    alpha, lam, tau = flavors["alpha"], flavors["lam"], flavors["tau"]
    alpha.value, lam.value, tau.value = 1.0, 0.0, 0.1
    alpha.value = 2.0
    assert _message(flavors) == ""


def _bar_heights(svg: str) -> list[float]:
    return [float(h) for h in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="26" height="([\d.]+)"', svg)]


def test_svg_bars_are_proportional_and_mark_zeros():
    svg = viz.svg_bars([0.5, 0.0, 0.25, 0.25], ["a", "b", "c", "d"], title="p", vmax=1.0)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert _bar_heights(svg) == [80.0, 0.0, 40.0, 40.0]  # 160 px for probability 1
    assert svg.count("×") == 1 and ">p<" in svg
    assert "&lt;pad&gt;" in viz.svg_bars([1.0], ["<pad>"])  # labels are escaped


@pytest.mark.parametrize(
    ("values", "scale"), [([0.095, 0.05], 0.1), ([0.3, 0.1], 0.5), ([0.7], 1.0), ([2.2], 2.5), ([0.0], 1.0)]
)
def test_svg_bars_scale_to_a_round_number_above_the_largest_value(values, scale):
    heights = _bar_heights(viz.svg_bars(values, [str(v) for v in values]))
    assert heights == [pytest.approx(160 * v / scale, abs=0.05) for v in values]


def test_svg_heatmap_has_one_cell_per_entry():
    A = torch.tensor([[1.0, 0.0], [0.3, 0.7]])
    svg = viz.svg_heatmap(A, ["q0", "q1"], ["k0", "k1"])
    assert svg.count('width="40" height="40"') == 4
    assert [">1.00<", ">0.00<", ">0.30<", ">0.70<"] == re.findall(r">\d\.\d\d<", svg)


def _svg_width(svg: str) -> float:
    return float(re.match(r'<svg [^>]*width="(\d+)"', svg).group(1))


def test_a_long_heatmap_fits_the_notebook_and_its_labels_do_not_collide():
    labels = [f"{i}: through" for i in range(25)]
    svg = viz.svg_heatmap(torch.rand(25, 25), labels, title="layer 3, head 2: A[query, key]")
    assert _svg_width(svg) <= 900  # JupyterLab's output area is ~1000 px wide at 1400 px
    assert svg.count("rotate(-60") == 25  # column labels slant instead of running into each other
    assert svg.count("<title>") == 25 * 25  # values on hover once cells are too small to print them


def test_a_title_longer_than_its_picture_widens_it():
    title = "A with mask: causal + padding (rows that see nothing are 0)"
    svg = viz.svg_heatmap(torch.rand(3, 3), ["a", "b", "c"], title=title)
    assert _svg_width(svg) >= 8 * len(title) and 'x="4.0" y="18.0"' in svg


def test_a_slider_at_the_end_of_its_range_says_so():
    g = torch.Generator().manual_seed(0)
    flavors = flavors_panel(torch.randn(7, generator=g), list("0123456"))
    tau = flavors["tau"]
    tau.value = 0.0  # typed: the slider clamps it to its smallest value
    assert html.unescape(flavors.note.value).endswith(
        "τ = 0.1 is the smallest value allowed (0.1 … 10)</span>"
    )
    tau.value = 2.0
    assert flavors.note.value == ""
    assert flavors["lam"].style.description_width == "initial"  # "λ (fusedmax)" is not cut


def test_next_token_panel_draws_k_bars(bundled):
    panel = next_token_panel(bundled, k=7)
    assert _view(panel).count("<rect") == 7
    panel["k"].value = 3
    assert _view(panel).count("<rect") == 3


def test_head_pattern_panel_follows_layer_and_head(bundled):
    panel = head_pattern_panel(bundled, "ROMEO.\nBut soft")
    layer, head = panel["layer"], panel["head"]
    first = _view(panel)
    layer.value, head.value = 5, 3
    assert "layer 5, head 3" in _view(panel) and _view(panel) != first
    panel["text"].value = "  "
    assert "prompt is empty" in _message(panel) and _view(panel) == ""


def test_logit_lens_panel_ends_with_the_models_prediction(bundled):
    from xai_tf.transformer.decoding import top_next_tokens

    panel = logit_lens_panel(bundled, "ROMEO.\nBut soft", k=3)
    rows = re.findall(r"<tr>(.*?)</tr>", _view(panel))
    assert len(rows) == bundled.model.config.n_layer + 1
    ids, _ = top_next_tokens(bundled, bundled.encode("ROMEO.\nBut soft"), 1)
    first_cell = re.search(r"<td[^>]*>(.*?) [\d.]+</td>", rows[-1]).group(1)
    assert first_cell == html.escape(bundled.token_strings(ids.tolist())[0])


def test_decoding_panel_filters_samples_and_searches(bundled):
    panel = decoding_panel(bundled, "ROMEO.\n")
    tau, top_k, top_p = panel["tau"], panel["top_k"], panel["top_p"]
    beam, length, seed, again = panel["beam"], panel["length"], panel["seed"], panel["again"]
    length.value = 10
    before = _view(panel)
    again.click()
    assert seed.value == 1 and _view(panel) != before and "sampling, seed 1" in _view(panel)
    top_k.value = 1
    after_chart = re.findall(r"<svg.*?</svg>", _view(panel))[1]
    assert len([h for h in _bar_heights(after_chart) if h > 0]) == 1  # top-1 keeps one bar
    beam.value = 3
    assert "beam search, width 3" in _view(panel) and _message(panel) == ""
    tau.value = tau.min
    top_p.value = 0.05
    assert _message(panel) == ""
    panel["text"].value = ""
    assert "prompt is empty" in _message(panel)


def test_attribution_panel_shows_delta_and_handles_bad_prompts(bundled):
    panel = attribution_panel(bundled, "ROMEO.\nBut soft")
    text, target, method = panel["text"], panel["target"], panel["method"]
    baseline, quadrature, steps = panel["baseline"], panel["quadrature"], panel["steps"]
    assert len(target.options) == 8 and "delta = " in _view(panel)
    assert _view(panel).count("<span title=") == len(bundled.encode("ROMEO.\nBut soft"))
    steps.value, quadrature.value, baseline.value = 10, "gausslegendre", "end-of-text"
    ids = bundled.encode("ROMEO.\nBut soft")  # one character a token: one span a token
    options = {"baseline": bundled.eot_token, "n_steps": 10, "quadrature": "gausslegendre"}
    for name in ATTRIBUTIONS:
        method.value = name
        shown = [float(x) for x in re.findall(r"<span title='([-+0-9.]+)'", _view(panel))]
        want = ATTRIBUTIONS.explain(name, bundled, ids, target.value, **options).scores
        assert _message(panel) == "" and shown == pytest.approx(want.tolist(), abs=6e-5)  # 4 decimals
    text.value = ""
    assert "prompt is empty" in _message(panel)
    text.value = "KING.\nWhat news"
    assert _message(panel) == "" and len(target.options) == 8


@pytest.mark.parametrize("name", ["shakespeare", "minilm"])
def test_word_attention_panel_every_view(name):
    import xai_tf

    lm = xai_tf.load_model(name)
    panel = word_attention_panel(lm, "But soft, what light through yonder window breaks?")
    how, level, layer, head = panel["how"], panel["level"], panel["layer"], panel["head"]
    layer.value, head.value = layer.max, head.max
    _, groups, _, attentions = wl.attention_of(lm, "But soft, what light through yonder window breaks?")
    for aggregation in AGGREGATIONS:
        A = AGGREGATIONS[aggregation](attentions, layer.value, head.value)[0]
        for lv, want in (("tokens", A), ("words", wl.word_attention(A, groups))):
            how.value, level.value = aggregation, lv
            shown = [float(v) for v in re.findall(r": ([-0-9.]+)</title>", _view(panel))]
            assert _message(panel) == "" and shown == pytest.approx(want.flatten().tolist(), abs=6e-4)
            assert ("rows no longer sum to 1" in _view(panel)) == (
                lv == "words" and aggregation == "max of heads"
            )
    assert "yonder" in _view(panel)  # word level joins the split word
    panel["text"].value = ""
    assert "prompt is empty" in _message(panel)


def test_one_prompt_change_computes_one_attribution(bundled, monkeypatch):
    calls = []
    ig = ATTRIBUTIONS["IG"]
    monkeypatch.setitem(ATTRIBUTIONS, "IG", lambda *args, **kw: calls.append(args) or ig(*args, **kw))
    panel = attribution_panel(bundled, "ROMEO.\nBut soft")
    panel["steps"].value = 4
    calls.clear()
    panel["text"].value = "KING.\nWhat news"  # refills the targets, then explains once
    assert len(calls) == 1 and calls[0][2] == panel["target"].value and _message(panel) == ""


def _panels(lm):
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(5, 6, generator=g), [torch.randn(4, 6, generator=g) for _ in range(3)]  # [d_att, d_e]
    masks = mask_explorer(X, *W, list("abcde"))
    masks["mask"].value = "padding"  # the length slider acts on the padding mask
    return {
        "next token": next_token_panel(lm),
        "attention explorer": attention_explorer(X, *W, list("abcde")),
        "mask explorer": masks,
        "flavours": flavors_panel(torch.randn(7, generator=g), list("0123456")),
        "head pattern": head_pattern_panel(lm),
        "logit lens": logit_lens_panel(lm),
        "decoding": decoding_panel(lm),
        "attribution": attribution_panel(lm, "ROMEO.\nBut soft"),
        "word attention": word_attention_panel(lm, "But soft, what light"),
    }


SLIDERS = (widgets.IntSlider, widgets.FloatSlider, widgets.FloatLogSlider)


def test_every_slider_of_every_panel_reaches_its_max(bundled):
    for name, panel in _panels(bundled).items():
        for key, slider in panel.controls.items():
            if not isinstance(slider, SLIDERS):
                continue
            log = isinstance(slider, widgets.FloatLogSlider)
            bottom, top = (
                (slider.base**slider.min, slider.base**slider.max) if log else (slider.min, slider.max)
            )
            slider.value = bottom
            before = _view(panel)
            slider.value = top
            assert _message(panel) == "", (name, key, _message(panel))
            assert _view(panel) != before, f"{name}: moving {key} from {bottom} to {top} changed nothing"


def test_long_prompts_get_a_one_line_cap_not_a_long_wait(bundled):
    from xai_tf.explain.registry import FLOW_MAX_TOKENS
    from xai_tf.widgets.attribution import MAX_TOKENS

    long_text = "But soft, what light through yonder window breaks? " * 8
    T = len(bundled.encode(long_text))
    assert T > max(MAX_TOKENS, FLOW_MAX_TOKENS)
    panel = attribution_panel(bundled, "ROMEO.\nBut soft")
    panel["text"].value = long_text
    assert f"up to {MAX_TOKENS} tokens, this one has {T}" in _message(panel) and _view(panel) == ""
    words = word_attention_panel(bundled, long_text)
    assert _message(words) == ""  # one head: any length
    words["how"].value = "flow"
    assert f"flow is offered for up to {FLOW_MAX_TOKENS} tokens, this text has {T}" in _message(words)
    words["how"].value = "rollout"
    assert _message(words) == "" and "<svg" in _view(words)


def test_attribution_panel_shows_whole_characters(bundled):
    panel = attribution_panel(bundled, "Café 🎉 naïve")
    panel["method"].value = "G-L2"
    shown = html.unescape(_view(panel))
    assert _message(panel) == "" and all(c in shown for c in "é🎉ï") and "�" not in shown


def test_heatmap_colours_are_the_ramp_of_each_clipped_value():
    from xai_tf.viz.svg import _RAMP, _hex

    values = np.array([[-0.5, 0.0, 0.25], [0.5, 0.999, 3.0]])
    by_hand = [
        "#" + "".join(f"{int(c * 255):02x}" for c in _RAMP(min(max(v, 0.0), 1.0))[:3]) for v in values.flat
    ]
    assert _hex(values).ravel().tolist() == by_hand


def _heatmap_cells(svg: str, T: int) -> torch.Tensor:
    """The matrix a heatmap draws, read back from each cell's tooltip ("i:x → j:y: value")."""
    A = torch.full((T, T), float("nan"), dtype=torch.float64)
    for i, j, value in re.findall(r"<title>(\d+):[^<]*? → (\d+):[^<]*?: ([\d.]+)</title>", svg):
        A[int(i), int(j)] = float(value)
    return A


def _by_hand(X, W_q, W_k, visible, tau=1.0):
    """softmax over the visible keys of (q·k/√d)/τ, in float64, rows that see nothing all 0."""
    Q, K = X.double() @ W_q.double().T, X.double() @ W_k.double().T
    z = (Q @ K.T / Q.size(-1) ** 0.5 / tau).masked_fill(~visible, float("-inf"))
    e = (z - z.amax(-1, keepdim=True).nan_to_num(neginf=0)).exp()
    return e / e.sum(-1, keepdim=True).clamp(min=1e-300)


def test_attention_panels_draw_the_hand_computed_weights():
    """What the lesson 01–02 panels draw (to their 3 printed decimals) is the masked softmax computed
    by hand: catches a missing √d, a mask applied to the wrong side, a temperature ignored."""
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(5, 6, generator=g), [torch.randn(4, 6, generator=g) for _ in range(3)]
    explorer = attention_explorer(X, *W, list("abcde"))
    explorer["tau"].value = 10**-0.5
    A = _by_hand(X, W[0], W[1], torch.ones(5, 5, dtype=torch.bool), tau=10**-0.5)
    assert torch.allclose(_heatmap_cells(_view(explorer), 5), A, atol=6e-4)
    masks = mask_explorer(X, *W, list("abcde"))
    masks["mask"].value, masks["length"].value = "causal + padding", 3
    visible = torch.ones(5, 5, dtype=torch.bool).tril() & (torch.arange(5) < 3)
    assert torch.allclose(_heatmap_cells(_view(masks), 5), _by_hand(X, W[0], W[1], visible), atol=6e-4)


def _wait_for(panel, view: str | Callable[[str], bool]) -> None:
    """Wait (up to 10 s) until a slow panel's worker shows ``view`` (or a view for which ``view(view)`` is
    true) with an empty message line."""
    import threading

    shown = view if callable(view) else view.__eq__
    for _ in range(1000):
        if shown(panel.view.value) and panel.message.value == "":
            return
        threading.Event().wait(0.01)


class _HeldPasses:
    """Counts the forward passes of ``module`` (a pre-hook); the pass numbered ``at`` sets ``started``
    and waits for ``release``, so a test can change a control while a render is held mid-computation."""

    def __init__(self, module: torch.nn.Module) -> None:
        import threading

        self.passes: list[int] = []
        self.at = -1
        self.started, self.release = threading.Event(), threading.Event()
        self.hook = module.register_forward_pre_hook(self._count)

    def _count(self, *_) -> None:
        self.passes.append(1)
        if len(self.passes) == self.at:
            self.started.set()
            assert self.release.wait(10)


def test_a_slow_panel_answers_the_browser_in_the_background_and_drops_stale_settings():
    """A change from the browser (ipywidgets' ``set_state``) of a slow panel renders in a worker thread:
    the message says "computing…" at once, the changes that arrive while it works are not computed one
    by one, the stale result is never shown, and the newest setting is. A change from Python renders
    at once, in the caller's thread."""
    import threading

    from xai_tf.widgets._panel import COMPUTING

    slider = widgets.IntSlider(value=0, min=0, max=10)
    started, release, rendered = threading.Event(), threading.Event(), []

    def render() -> str:
        rendered.append(slider.value)
        if slider.value == 2:  # the first browser change: held until three more arrived
            started.set()
            assert release.wait(10)
        return f"value {slider.value}"

    panel = Panel({"n": slider}, render, slow=True)
    slider.value = 1  # from Python: at once
    assert rendered == [0, 1] and panel.view.value == "value 1"
    rendered.append("built")
    slider.set_state({"value": 2})  # from the browser
    assert started.wait(10) and panel.message.value == COMPUTING and panel.view.value == "value 1"
    for v in (3, 4, 5):
        slider.set_state({"value": v})
    release.set()
    _wait_for(panel, "value 5")
    assert panel.view.value == "value 5" and panel.message.value == ""
    assert rendered == [0, 1, "built", 2, 5]  # 3 and 4 were never computed; 2's result was dropped


def test_a_stale_render_is_abandoned_at_its_next_checkpoint():
    """A slow render that calls ``_cancel.checkpoint()`` between its chunks stops at the first chunk after
    a newer change from the browser arrived (its later chunks never run, its result is never shown), and
    the newest setting is what the panel shows. A change from Python runs every chunk: outside the
    worker, checkpoint does nothing."""
    import threading

    from xai_tf import _cancel

    slider = widgets.IntSlider(value=0, min=0, max=10)
    started, release, chunks = threading.Event(), threading.Event(), []

    def render() -> str:
        v = slider.value
        for k in range(4):
            _cancel.checkpoint()
            chunks.append((v, k))
            if (v, k) == (2, 1):  # the first browser change: held in its second chunk until 3 arrived
                started.set()
                assert release.wait(10)
        return f"value {v}"

    panel = Panel({"n": slider}, render, slow=True)
    slider.value = 1
    assert chunks == [(v, k) for v in (0, 1) for k in range(4)] and panel.view.value == "value 1"
    chunks.clear()
    slider.set_state({"value": 2})
    assert started.wait(10)
    slider.set_state({"value": 3})
    release.set()
    _wait_for(panel, "value 3")
    assert panel.view.value == "value 3" and panel.message.value == ""
    assert chunks == [(2, 0), (2, 1), *((3, k) for k in range(4))]  # 2 stopped before its third chunk


def test_a_stale_beam_search_stops_at_its_next_decoding_step():
    """Lesson 17's beam panel: a search that a newer change of β from the browser has made stale stops at
    its next decoding step, and the panel then shows the newest setting. Decoder passes are counted by a
    hook on the shipped model's target embedding (greedy, the search and log p all read it): the stale
    render, held in its search's second pass, makes greedy's passes and two more; the newest render
    makes as many as the same render from Python, which runs to the end."""
    from xai_tf.encdec import beam, evaluate, shipped
    from xai_tf.widgets.encdec import beam_panel

    corpus, model = shipped.corpus(), shipped.model("pre")
    index = next(i for i, p in enumerate(corpus.test) if 8 <= len(p.source) <= 12)
    pair, gate = corpus.test[index], _HeldPasses(model.target)
    passes = gate.passes
    try:
        evaluate.greedy(model, [pair], corpus)
        n_greedy = len(passes)
        passes.clear()
        beam.translate(model, corpus, pair.source, 7, 1.0)
        assert len(passes) >= 4  # the stale search below would make more than its first two passes
        panel = beam_panel(model, corpus, index)
        passes.clear()
        panel["beam"].value = 3  # from Python: every step
        n_render, from_python = len(passes), re.sub(r"took \d+ ms", "", panel.view.value)
        panel["beam"].value = 5
        passes.clear()
        gate.at = n_greedy + 2
        panel["beam"].set_state({"value": 7})  # from the browser: the worker renders it
        assert gate.started.wait(10)
        panel["beam"].set_state({"value": 3})
        gate.release.set()
        _wait_for(panel, lambda view: "β = 3," in view)
    finally:
        gate.hook.remove()
    assert re.sub(r"took \d+ ms", "", panel.view.value) == from_python and panel.message.value == ""
    assert len(passes) == n_greedy + 2 + n_render  # β = 7 stopped after its second pass


def test_a_stale_steering_render_stops_at_its_next_token(bundled):
    """Lesson 10's steering panel: a render that a newer change of the clamp factor from the browser has
    made stale stops at its next generated token, and the panel then shows the newest setting. Forward
    passes are counted by a hook on the network: a change of the factor generates only the clamped text
    (the clean one is the prompt's, kept), 30 passes from Python; the stale render, held in its second
    pass, makes two, and the newest render as many as from Python, with the same view."""
    from pathlib import Path

    import xai_tf
    from xai_tf.sae.model import load
    from xai_tf.widgets.sae import steering_panel

    sae, _ = load(Path(xai_tf.__file__).parent / "data" / "sae_shakespeare")
    gate = _HeldPasses(bundled.model)
    passes = gate.passes
    try:
        panel = steering_panel(bundled, sae, torch.full((sae.config.F,), 2.0), j=1)
        passes.clear()
        panel["factor"].value = 2.0  # from Python: every token
        n_render, from_python = len(passes), panel.view.value
        assert n_render == 30 and "clamped to 2 ×" in from_python
        panel["factor"].value = 5.0
        passes.clear()
        gate.at = 2
        panel["factor"].set_state({"value": -3.0})  # from the browser: the worker renders it
        assert gate.started.wait(10)
        panel["factor"].set_state({"value": 2.0})
        gate.release.set()
        _wait_for(panel, lambda view: "clamped to 2 ×" in view)
    finally:
        gate.hook.remove()
    assert panel.view.value == from_python and panel.message.value == ""
    assert len(passes) == 2 + n_render  # factor −3 stopped after its second pass


def test_ig_and_coalitions_poll_between_their_batches():
    """IG's path-point batches and the perturbation methods' coalition batches each start with a
    checkpoint: made stale after the first batch, they stop there; never stale, every batch runs."""
    from xai_tf import _cancel
    from xai_tf.explain.path_integral import path_integrated_gradients
    from xai_tf.explain.perturbation import coalition_values

    x, calls = torch.ones(3, 2), []

    def F(points: torch.Tensor) -> torch.Tensor:
        calls.append(len(points))
        return points.sum((1, 2))

    runs = {
        "IG": lambda: path_integrated_gradients(F, x, torch.zeros_like(x), n_steps=8, batch_size=2),
        "coalitions": lambda: coalition_values(F, x, torch.zeros_like(x), torch.ones(8, 3), batch_size=2),
    }
    for run in runs.values():
        calls.clear()
        run()
        assert calls == [2, 2, 2, 2]
        calls.clear()
        with pytest.raises(_cancel.Abandoned), _cancel.abandon_when(lambda: len(calls) >= 1):
            run()
        assert calls == [2]
