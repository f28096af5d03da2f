import re

import ipywidgets as widgets
import pytest
import torch

from xai_tf import viz
from xai_tf.widgets import next_token_panel


def _message(panel: widgets.VBox) -> str:
    return next(w for w in panel.children if isinstance(w, widgets.HTML)).value


@pytest.mark.parametrize(
    ("prompt", "message"),
    [
        ("", "prompt is empty"),
        ("To be. " * 300, "reads at most 256"),
        ("ROMEO.<|endoftext|>", "disallowed special token"),
    ],
)
def test_next_token_panel_shows_a_message_not_a_traceback(bundled, prompt, message):
    panel = next_token_panel(bundled)
    text = panel.children[0]
    assert _message(panel) == ""
    text.value = prompt
    assert message in _message(panel)
    text.value = "ROMEO.\n"
    assert _message(panel) == ""


def test_attention_panels_update_without_messages():
    from xai_tf.widgets import attention_explorer, flavors_panel, mask_explorer

    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(5, 6, generator=g), [torch.randn(6, 4, generator=g) for _ in range(3)]
    tokens = list("abcde")
    explorer = attention_explorer(X, *W, tokens)
    query, score, tau = explorer.children[0].children
    for kind in score.options:
        score.value = kind
        tau.value = tau.min_value = 0.05
        query.value = 4
        assert _message(explorer) == ""
    masks = mask_explorer(X, *W, tokens)
    kind, length = masks.children[:2]
    kind.value, length.value = "causal + padding", 0  # nothing visible anywhere: zeros, no error
    assert _message(masks) == ""
    flavors = flavors_panel(torch.randn(7, generator=g), list("0123456"))
    alpha, lam, tau = flavors.children[0].children
    alpha.value, lam.value, tau.value = 1.0, 0.0, 0.1
    alpha.value = 2.0
    assert _message(flavors) == ""


def _bar_heights(svg: str) -> list[float]:
    return [float(h) for h in re.findall(r'<rect x="[\d.]+" y="[\d.]+" width="26" height="([\d.]+)"', svg)]


def test_svg_bars_are_proportional_and_mark_zeros():
    svg = viz.svg_bars([0.5, 0.0, 0.25, 0.25], ["a", "b", "c", "d"], title="p")
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert _bar_heights(svg) == [80.0, 0.0, 40.0, 40.0]  # 160 px for probability 1
    assert svg.count("×") == 1 and ">p<" in svg
    assert "&lt;pad&gt;" in viz.svg_bars([1.0], ["<pad>"])  # labels are escaped


def test_svg_heatmap_has_one_cell_per_entry():
    A = torch.tensor([[1.0, 0.0], [0.3, 0.7]])
    svg = viz.svg_heatmap(A, ["q0", "q1"], ["k0", "k1"])
    assert svg.count('width="40" height="40"') == 4
    assert [">1.00<", ">0.00<", ">0.30<", ">0.70<"] == re.findall(r">\d\.\d\d<", svg)


def test_next_token_panel_draws_k_bars(bundled):
    panel = next_token_panel(bundled, k=7)
    view = panel.children[-1]
    assert view.value.count("<rect") == 7
    panel.children[1].value = 3
    assert view.value.count("<rect") == 3


def _view(panel: widgets.VBox) -> str:
    return [w for w in panel.children if isinstance(w, widgets.HTML)][1].value


def test_head_pattern_panel_follows_layer_and_head(bundled):
    from xai_tf.widgets import head_pattern_panel

    panel = head_pattern_panel(bundled, "ROMEO.\nBut soft")
    layer, head = panel.children[1].children
    first = _view(panel)
    layer.value, head.value = 5, 3
    assert "layer 5, head 3" in _view(panel) and _view(panel) != first
    panel.children[0].value = "  "
    assert "prompt is empty" in _message(panel) and _view(panel) == ""


def test_logit_lens_panel_ends_with_the_models_prediction(bundled):
    from xai_tf.decoding import top_next_tokens
    from xai_tf.widgets import logit_lens_panel

    panel = logit_lens_panel(bundled, "ROMEO.\nBut soft", k=3)
    rows = re.findall(r"<tr>(.*?)</tr>", _view(panel))
    assert len(rows) == bundled.model.config.n_layer + 1
    ids, _ = top_next_tokens(bundled.model, bundled.encode("ROMEO.\nBut soft"), 1)
    first_cell = re.search(r"<td[^>]*>(.*?) [\d.]+</td>", rows[-1]).group(1)
    assert first_cell == viz.html.escape(bundled.token_strings(ids.tolist())[0])


def test_decoding_panel_filters_samples_and_searches(bundled):
    from xai_tf.widgets import decoding_panel

    panel = decoding_panel(bundled, "ROMEO.\n")
    (tau, top_k, top_p), (beam, length, seed, again) = (box.children for box in panel.children[1].children)
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
    panel.children[0].value = ""
    assert "prompt is empty" in _message(panel)


def test_attribution_panel_shows_delta_and_handles_bad_prompts(bundled):
    from xai_tf.widgets import EXPLANATIONS, attribution_panel

    panel = attribution_panel(bundled, "ROMEO.\nBut soft")
    text = panel.children[0]
    target, method = panel.children[1].children
    baseline, quadrature, steps = panel.children[2].children
    assert len(target.options) == 8 and "delta = " in _view(panel)
    assert _view(panel).count("<span title=") == len(bundled.encode("ROMEO.\nBut soft"))
    steps.value, quadrature.value, baseline.value = 10, "gausslegendre", "end-of-text"
    for name in EXPLANATIONS:
        method.value = name
        assert _message(panel) == "" and "<span title=" in _view(panel)
    text.value = ""
    assert "prompt is empty" in _message(panel)
    text.value = "KING.\nWhat news"
    assert _message(panel) == "" and len(target.options) == 8


@pytest.mark.parametrize("name", ["shakespeare", "minilm"])
def test_word_attention_panel_every_view(name):
    import xai_tf
    from xai_tf.widgets import AGGREGATIONS, word_attention_panel

    lm = xai_tf.load_model(name)
    panel = word_attention_panel(lm, "But soft, what light through yonder window breaks?")
    how, level = panel.children[1].children
    layer, head = panel.children[2].children
    layer.value, head.value = layer.max, head.max
    for aggregation in AGGREGATIONS:
        for lv in ("tokens", "words"):
            how.value, level.value = aggregation, lv
            assert _message(panel) == "" and "<svg" in _view(panel)
    assert "yonder" in _view(panel)  # word level joins the split word
    panel.children[0].value = ""
    assert "prompt is empty" in _message(panel)
