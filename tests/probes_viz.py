"""Bad-input probes for the figures (``xai_tf.viz``: plots, SVG/HTML tables and the offline
bertviz view), collected by ``test_bad_inputs.py``."""

from probe_kit import TE, VE, z

from xai_tf import viz
from xai_tf.viz.source import show_source

EXEMPT = {
    "xai_tf.viz.plots.lesson_style": "no arguments",
}


RAISES = [
    ("xai_tf.viz.source.show_source", lambda: show_source(3), TE, "obj must be a module, class or function"),
    ("xai_tf.viz.source.show_source", lambda: show_source(len), VE, "obj must come from xai_tf"),
    # figures
    (
        "xai_tf.viz.arrays.host_array",
        lambda: viz.host_array(["a", "b"]),
        VE,
        "the values to draw must be numbers",
    ),
    (
        "xai_tf.viz.bertviz_offline.bertviz_view",
        lambda: viz.bertviz_view(z(1, 1, 2, 2), ["a", "b"], kind="tree"),
        VE,
        "kind must be 'head' or 'model'",
    ),
    (
        "xai_tf.viz.plots.plot_next_tokens",
        lambda: viz.plot_next_tokens(["a", "b"], [0.5]),
        VE,
        "2 tokens but 1 probabilities",
    ),
    (
        "xai_tf.viz.plots.plot_attention",
        lambda: viz.plot_attention(z(2, 3), ["a", "b"]),
        VE,
        r"A is \(2, 3\) but there are 2 row and 2 column labels",
    ),
    ("xai_tf.viz.plots.plot_weights", lambda: viz.plot_weights(z(3), ["a"]), VE, "3 weights but 1 labels"),
    (
        "xai_tf.viz.plots.plot_heads",
        lambda: viz.plot_heads(z(2, 3), ["a", "b", "c"]),
        VE,
        r"A must be \[heads, T, T\]",
    ),
    (
        "xai_tf.viz.plots.plot_token_scores",
        lambda: viz.plot_token_scores(["a"], z(2)),
        VE,
        "1 tokens but 2 scores",
    ),
    (
        "xai_tf.viz.plots.plot_head_grid",
        lambda: viz.plot_head_grid(z(2, 3, 3), list("abc")),
        VE,
        r"attentions must be \[layers, heads, T, T\]",
    ),
    ("xai_tf.viz.svg.svg_bars", lambda: viz.svg_bars([0.1, 0.2], ["a"]), VE, "2 values but 1 labels"),
    (
        "xai_tf.viz.svg.svg_heatmap",
        lambda: viz.svg_heatmap(z(2, 2), ["a"]),
        VE,
        r"A is \(2, 2\) but there are 1 row and 1 column labels",
    ),
    (
        "xai_tf.viz.svg.svg_heatmap",
        lambda: viz.svg_heatmap(z(2, 2), ["a", "b"], outline=[0, 2]),
        VE,
        r"outline must give one column in -1\.\.1 \(-1: none\) for each of the 2 rows, got \[0, 2\]",
    ),
    (
        "xai_tf.viz.svg.svg_heatmap",
        lambda: viz.svg_heatmap(z(2, 2), ["a", "b"], outline=[0]),
        VE,
        "for each of the 2 rows",
    ),
    (
        "xai_tf.viz.svg.html_ranked_table",
        lambda: viz.html_ranked_table(["a", "b"], [[("x", 0.5)]]),
        VE,
        "2 rows but 1 ranked lists",
    ),
    (
        "xai_tf.viz.svg.html_rows",
        lambda: viz.html_rows({"id": "ig"}),
        TE,
        "rows must be a non-empty list of dicts, got dict",
    ),
    (
        "xai_tf.viz.svg.html_rows",
        lambda: viz.html_rows([{"id": "ig"}, {"label": "IG"}]),
        VE,
        r"rows must all have the keys \['id'\], in that order",
    ),
    (
        "xai_tf.viz.svg.html_token_scores",
        lambda: viz.html_token_scores(["a"], [0.1, 0.2]),
        VE,
        "1 tokens but 2 scores",
    ),
]


CHECKERS: dict = {}


PANELS: dict = {}
