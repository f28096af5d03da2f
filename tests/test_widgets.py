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
