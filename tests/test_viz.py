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


# The plots, checked against the data they were given: the drawn artists hold hand-computed values.


def _bars(ax, horizontal: bool = False) -> list[tuple[float, float]]:
    """(position, length) of every bar, in the order of their position on the axis."""
    bars = [
        (p.get_y() + p.get_height() / 2, p.get_width())
        if horizontal
        else (p.get_x() + p.get_width() / 2, p.get_height())
        for p in ax.patches
    ]
    return sorted(bars)


def test_plot_next_tokens_draws_one_quoted_bar_per_token_with_its_probability():
    import matplotlib.pyplot as plt

    ax = viz.plot_next_tokens([" the", "a"], [0.5, 0.2])
    assert _bars(ax, horizontal=True) == [(0.0, 0.5), (1.0, 0.2)]  # the first token on row 0
    assert [t.get_text() for t in ax.get_yticklabels()] == ["' the'", "'a'"]  # quoted: the space shows
    assert ax.get_xlim() == pytest.approx((0, 0.65))  # 1.3 × the largest probability
    assert [(t.get_text(), *t.get_position()) for t in ax.texts] == [
        ("0.500", pytest.approx(0.5 + 0.0065), 0),
        ("0.200", pytest.approx(0.2 + 0.0065), 1),
    ]
    plt.close(ax.figure)


def test_plot_attention_colours_cell_s_t_by_a_st_on_a_fixed_zero_to_one_scale():
    """Row s = query, column t = key: the drawn cell (s, t) has rocket_r's colour of A_st on [0, 1]
    (not on [min A, max A]), and the annotation in reading order is A row by row."""
    import matplotlib.pyplot as plt

    A = np.array([[0.9, 0.1, 0.0], [0.2, 0.3, 0.5], [0.0, 0.6, 0.4]])
    ax = viz.plot_attention(A, ["q0", "q1", "q2"], ["k0", "k1", "k2"])
    ax.figure.canvas.draw()
    (mesh,) = ax.collections
    rocket = sns.color_palette("rocket_r", as_cmap=True)
    np.testing.assert_allclose(mesh.get_facecolors(), rocket(A.ravel()), atol=1e-6)
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in A.ravel()]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["k0", "k1", "k2"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["q0", "q1", "q2"]
    plt.close(ax.figure)


def test_plot_weights_draws_each_weight_and_crosses_the_exact_zeros():
    import matplotlib.pyplot as plt

    ax = viz.plot_weights([0.5, 0.0, 0.3, 0.2, 0.0], list("abcde"))
    assert _bars(ax) == [(0, 0.5), (1, 0.0), (2, 0.3), (3, 0.2), (4, 0.0)]
    (crosses,) = ax.lines
    assert crosses.get_marker() == "x" and crosses.get_xdata().tolist() == [1, 4]
    assert crosses.get_ydata().tolist() == [0, 0]
    assert ax.get_ylim() == (0, 1.05)
    plt.close(ax.figure)


def test_plot_heads_draws_head_h_from_a_h():
    import matplotlib.pyplot as plt

    A = np.random.default_rng(1).dirichlet(np.ones(3), size=(2, 3))  # [heads, T, T], rows sum to 1
    fig = viz.plot_heads(A, ["x", "y", "z"], title="two heads")
    assert [ax.get_title() for ax in fig.axes] == ["head 0", "head 1"]
    for h, ax in enumerate(fig.axes):
        (mesh,) = ax.collections
        np.testing.assert_allclose(np.asarray(mesh.get_array()).reshape(3, 3), A[h])
        assert mesh.get_clim() == (0, 1)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["x", "y", "z"]
    assert fig.axes[1].get_ylabel() == "" and {t.get_text() for t in fig.axes[1].get_yticklabels()} == {""}
    assert fig.get_suptitle() == "two heads"
    plt.close(fig)


def test_plot_token_scores_draws_signed_bars_red_up_blue_down():
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    scores = [0.4, -0.25, 0.1, -0.05]
    ax = viz.plot_token_scores(["a", "b", "c", "d"], scores)
    assert _bars(ax) == [(0, 0.4), (1, -0.25), (2, 0.1), (3, -0.05)]
    red, blue = to_rgba("#c0392b"), to_rgba("#2c6fbb")
    assert [p.get_facecolor() for p in ax.patches] == [red, blue, red, blue]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c", "d"]
    plt.close(ax.figure)


def test_plot_head_grid_puts_layer_l_head_h_at_row_l_column_h():
    import matplotlib.pyplot as plt

    attentions = np.random.default_rng(2).dirichlet(np.ones(4), size=(2, 3, 4))  # [L=2, H=3, T, T]
    fig = viz.plot_head_grid(attentions, ["a", "b", "c", "d"])
    assert len(fig.axes) == 2 * 3
    for k, ax in enumerate(fig.axes):  # row-major: axes[k] is layer k // 3, head k % 3
        (image,) = ax.images
        np.testing.assert_array_equal(image.get_array(), attentions[k // 3, k % 3])
        assert image.get_clim() == (0, 1)
    assert [ax.get_title() for ax in fig.axes[:3]] == ["head 0", "head 1", "head 2"]
    assert [fig.axes[k].get_ylabel() for k in (0, 3)] == ["layer 0", "layer 1"]
    plt.close(fig)


def test_host_array_reads_a_device_tensor_only_through_the_cpu():
    from gpu_emulation import DeviceTensor

    A = torch.tensor([[0.25, 0.75], [1.0, 0.0]], requires_grad=True)
    on_device = (A * 1).as_subclass(DeviceTensor)  # a GPU tensor, emulated: numpy refuses it
    with pytest.raises(TypeError, match="cpu"):
        np.asarray(on_device.detach())
    got = viz.host_array(on_device)
    assert got.dtype == np.float64 and got.tolist() == [[0.25, 0.75], [1.0, 0.0]]
    ax = viz.plot_attention(on_device, ["a", "b"])  # and so do the figures that draw it
    assert np.allclose(ax.collections[0].get_array().reshape(2, 2), [[0.25, 0.75], [1.0, 0.0]])


def test_show_source_gives_the_modules_own_text():
    import inspect

    from xai_tf.models import gpt2
    from xai_tf.viz.source import show_source

    assert show_source(gpt2).data == inspect.getsource(gpt2).rstrip("\n")
    assert show_source(gpt2.GPT2.forward).data.lstrip().startswith("def forward(")
    assert show_source(gpt2, lines=slice(0, 3)).data.count("\n") == 2
    with pytest.raises(ValueError, match="obj must come from xai_tf"):
        show_source(inspect.getsource)
    with pytest.raises(TypeError, match="obj must be a module, class or function"):
        show_source(3)
    with pytest.raises(ValueError, match="lines must select 1..400 lines, got 0"):
        show_source(gpt2, lines=slice(5, 5))


def test_html_rows_is_one_row_per_dict_with_escaped_cells():
    rows = [
        {"id": "a<b", "reads": ("forward", "gradients"), "options": {"m": 2, "q": "x"}},
        {"id": "c", "reads": [], "options": {}},
    ]
    found = viz.html_rows(rows, "t&t")
    assert found.count("<tr>") == 3 and "<caption" in found and "t&amp;t" in found
    assert "<td style='padding:2px 10px;text-align:left'>a&lt;b</td>" in found
    assert ">forward, gradients<" in found and ">m=2, q=x<" in found
    assert found.count(">none<") == 2  # the empty list and the empty dict


def test_a_heatmap_outlines_one_cell_per_row_where_asked():
    """outline[i] = j boxes cell (i, j) in blue at that cell's place; −1 boxes nothing in row i."""
    A = np.full((3, 3), 0.5)
    drawn = viz.svg_heatmap(A, ["a", "b", "c"], outline=[0, -1, 2])
    boxes = re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" [^>]*stroke="#1f77b4"', drawn)
    assert len(boxes) == 2
    cells = re.findall(r'<rect x="(\d+)" y="(\d+)"', viz.svg_heatmap(A, ["a", "b", "c"]))
    (x0, y0), (x2, y2) = cells[0], cells[8]  # cells (0, 0) and (2, 2), row by row
    assert [(float(x), float(y)) for x, y in boxes] == [
        (int(x0) + 1.5, int(y0) + 1.5),
        (int(x2) + 1.5, int(y2) + 1.5),
    ]
    assert "#1f77b4" not in viz.svg_heatmap(A, ["a", "b", "c"])
