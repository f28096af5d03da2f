import ipywidgets as widgets
import pytest

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
    import torch

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
