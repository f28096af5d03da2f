"""The offline bertviz wrapper: no script is fetched, the libraries are inline, the view is bertviz's."""

import re

import pytest
import torch

from xai_tf import viz
from xai_tf.viz import bertviz_view


@pytest.mark.parametrize("kind", ["head", "model"])
def test_bertviz_view_fetches_nothing(kind):
    html = bertviz_view(torch.rand(2, 3, 4, 4).softmax(-1), ["a", "b", "c", "d"], kind).data
    assert not re.search(r"<script[^>]+src=", html)
    assert "https://d3js.org v5.7.0" in html and "jQuery v3" in html
    assert re.search(r'<div id="bertviz-[0-9a-f]+"', html)
    assert html.count("</script>") == 1  # the libraries' own "</script" strings are escaped


def test_bertviz_view_checks_shapes():
    with pytest.raises(ValueError, match=r"attentions must be \[layers, heads, 3, 3\]"):
        bertviz_view(torch.rand(2, 4, 4), ["a", "b", "c"])
    with pytest.raises(ValueError, match="kind must be 'head' or 'model'"):
        bertviz_view(torch.rand(1, 1, 2, 2), ["a", "b"], "neuron")


def test_plot_attention_draws_its_scale_on_request():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    viz.plot_attention([[1.0, 0.0], [0.4, 0.6]], ["a", "b"], ax=ax, colorbar=True)
    assert len(fig.axes) == 2 and fig.axes[1].get_ylabel() == "weight"
    plt.close(fig)


def test_next_token_bars_scale_to_the_largest_probability():
    ax = viz.plot_next_tokens(["a", "b"], [0.095, 0.01])
    assert 0.095 < ax.get_xlim()[1] <= 0.2  # a 0.095 bar is most of the axis, not a sliver of [0, 1]
