"""Figures for the lessons: ``plots`` (matplotlib/seaborn, for cells), ``svg`` (markup for fast
widget redraws), ``bertviz_offline`` (bertviz's views without a CDN), ``arrays`` (a tensor on any
device as the numpy array they draw). Re-exported here, so a lesson writes
``from xai_tf import viz; viz.plot_attention(...)``.
"""

from xai_tf.viz.arrays import host_array
from xai_tf.viz.bertviz_offline import bertviz_view
from xai_tf.viz.plots import (
    lesson_style,
    plot_attention,
    plot_head_grid,
    plot_heads,
    plot_next_tokens,
    plot_token_scores,
    plot_weights,
)
from xai_tf.viz.svg import (
    html_ranked_table,
    html_rows,
    html_token_scores,
    svg_bars,
    svg_heatmap,
)

__all__ = [
    "bertviz_view",
    "host_array",
    "html_ranked_table",
    "html_rows",
    "html_token_scores",
    "lesson_style",
    "plot_attention",
    "plot_head_grid",
    "plot_heads",
    "plot_next_tokens",
    "plot_token_scores",
    "plot_weights",
    "svg_bars",
    "svg_heatmap",
]
