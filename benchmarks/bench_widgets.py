"""How fast each lesson widget answers one control change: the computation and the SVG markup sent
to the browser (drawing an SVG of this size in the browser takes a few milliseconds more), median
over several changes.

    python benchmarks/bench_widgets.py
"""

from __future__ import annotations

import statistics
import time

import torch
from timing import median_seconds

import xai_tf
from xai_tf import viz
from xai_tf.widgets.attention import attention_explorer, flavors_panel, mask_explorer
from xai_tf.widgets.next_token import next_token_panel


def time_changes(control, values) -> float:
    times = []
    for value in values:
        start = time.perf_counter()
        control.value = value
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    g = torch.Generator().manual_seed(0)
    X, W = torch.randn(6, 8, generator=g), [torch.randn(4, 8, generator=g) for _ in range(3)]  # [d_att, d_e]
    tokens = ["5", "0", "3", "3", "7", "9"]
    panels = {
        "00 next tokens (k slider)": (
            next_token_panel(xai_tf.load_model("shakespeare")),
            "k",
            list(range(5, 15)),
        ),
        "01 attention explorer (τ)": (
            attention_explorer(X, *W, tokens),
            "tau",
            [0.5, 1.0, 2.0, 4.0] * 2,
        ),
        "02 mask explorer (length)": (
            mask_explorer(X, *W, tokens),
            "length",
            [1, 2, 3, 4, 5, 6] + [2, 3],
        ),
        "03 flavours (α)": (
            flavors_panel(torch.randn(8, generator=g), list("01234567")),
            "alpha",
            [1.1, 1.3, 1.5, 1.7, 1.9, 1.2, 1.4, 1.6],
        ),
    }
    print("median time per control change (computation + SVG markup):")
    for name, (panel, control, values) in panels.items():
        print(f"  {name:28s} {time_changes(panel[control], values) * 1e3:6.0f} ms")
    print("viz.svg_heatmap of a T × T attention map (the markup of every widget's heatmap), median of 7:")
    for T in (24, 96):
        A, labels = torch.rand(T, T, generator=g).softmax(-1), [f"token {i}" for i in range(T)]
        seconds = median_seconds({"heatmap": lambda A=A, labels=labels: viz.svg_heatmap(A, labels)}, 7)
        print(f"  T = {T:3d}{'':21s} {seconds['heatmap'] * 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
