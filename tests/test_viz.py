"""The figures of xai_tf.viz: the offline bertviz wrapper (no script fetched, the libraries inline), the
matplotlib plots against the data they were given, the SVG heatmap's raster and vector paths."""

import base64
import io
import re

import numpy as np
import pytest
import seaborn as sns
import torch
from PIL import Image

from xai_tf import viz
from xai_tf.viz import bertviz_view, svg


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


def _raster_pixels(svg: str) -> np.ndarray:
    """The RGB pixels of the heatmap's one embedded PNG."""
    (uri,) = re.findall(r'href="data:image/png;base64,([^"]+)"', svg)
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(uri))).convert("RGB"))


def _vector_fills(svg: str, shape: tuple[int, int]) -> np.ndarray:
    """The fills of the heatmap's cells as RGB integers, row by row."""
    fills = re.findall(r'<rect x="\d+" y="\d+" width="\d+" height="\d+" fill="#([0-9a-f]{6})"', svg)
    return np.array([[int(f[k : k + 2], 16) for k in (0, 2, 4)] for f in fills]).reshape(*shape, 3)


def test_a_heatmap_above_fifty_tokens_is_one_image_of_the_same_colours(monkeypatch):
    """T = 60 > RASTER_ABOVE: no <rect> per cell but one PNG, a pixel per cell, whose colours are the
    vector path's fills cell by cell (the same A drawn with the raster switched off); values below 0 and
    above 1 are clipped alike."""
    A = np.random.default_rng(0).uniform(-0.2, 1.2, size=(60, 60))
    A[0, :3] = [0.0, 0.5, 1.0]
    labels = [f"t{i}" for i in range(60)]
    raster = viz.svg_heatmap(A, labels)
    assert "<rect" not in raster and raster.count("<image") == 1
    assert re.search(r'<image x="\d+" y="30" width="840" height="840"', raster)  # 60 cells of 14 px
    monkeypatch.setattr(svg, "RASTER_ABOVE", 10**6)
    vector = viz.svg_heatmap(A, labels)
    assert vector.count("<rect") == 60 * 60
    pixels = _raster_pixels(raster)
    assert pixels.shape == (60, 60, 3)
    np.testing.assert_array_equal(pixels, _vector_fills(vector, (60, 60)))
    # the ends of the ramp as seaborn's rocket_r colour map gives them, clipped outside [0, 1]
    rocket = sns.color_palette("rocket_r", as_cmap=True)
    for i, j in np.ndindex(2, 60):
        expected = (np.asarray(rocket(min(max(A[i, j], 0.0), 1.0))[:3]) * 255).astype(int)
        np.testing.assert_array_equal(pixels[i, j], expected)


def test_the_raster_starts_above_fifty_tokens():
    assert "<image" not in viz.svg_heatmap(np.eye(50), [str(i) for i in range(50)])
    assert "<image" in viz.svg_heatmap(np.eye(51), [str(i) for i in range(51)])
    assert "<image" in viz.svg_heatmap(np.ones((51, 3)), [str(i) for i in range(51)], ["a", "b", "c"])
