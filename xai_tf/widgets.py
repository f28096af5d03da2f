"""The ipywidgets panels the lessons use. A bad input shows a short message, never a traceback."""

from __future__ import annotations

import html
from collections.abc import Callable

import ipywidgets as widgets
import matplotlib.pyplot as plt

from xai_tf import viz
from xai_tf.decoding import top_next_tokens
from xai_tf.models.hub import LoadedModel


def _redraw_on_change(
    controls: list[widgets.ValueWidget], draw: Callable[[], None]
) -> tuple[widgets.HTML, widgets.Output]:
    """Call ``draw`` into an Output now and whenever a control changes; errors go to a message."""
    message, out = widgets.HTML(), widgets.Output()

    def redraw(_change: object = None) -> None:
        message.value = ""
        out.clear_output(wait=True)
        with out:
            try:
                draw()
            except ValueError as err:
                message.value = f"<span style='color:#b00'>⚠ {html.escape(str(err))}</span>"
            plt.show()

    for control in controls:
        control.observe(redraw, "value")
    redraw()
    return message, out


def next_token_panel(lm: LoadedModel, prompt: str = "ROMEO.\n", k: int = 10) -> widgets.VBox:
    """Type a prompt, see the k most likely next tokens as a bar chart."""
    text = widgets.Textarea(
        value=prompt, description="prompt", continuous_update=False, layout=widgets.Layout(width="60%")
    )
    k_slider = widgets.IntSlider(value=k, min=1, max=30, description="top k", continuous_update=False)

    def draw() -> None:
        ids, probs = top_next_tokens(lm.model, lm.encode(text.value), k_slider.value)
        viz.plot_next_tokens(lm.token_strings(ids.tolist()), probs.tolist())

    message, out = _redraw_on_change([text, k_slider], draw)
    return widgets.VBox([text, k_slider, message, out])
