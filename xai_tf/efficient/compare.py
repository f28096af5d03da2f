"""How far each approximation of section 3 (lesson 14) is from softmax attention, on random inputs.

Q, K ∈ ℝ^{n×d} with entries σ·N(0, 1), V with entries N(0, 1) (float64, drawn with ``seed``). For an
output Y the error is ‖Y − Y_full‖_F / ‖Y_full‖_F (``cost.relative_error``) against non-causal softmax
attention Y_full for the non-causal methods (Performer with m features, averaged over ``feature_draws``
draws of W; Linformer of rank k, pooled and Gaussian; linear attention, elu + 1; uniform attention
Y_i = mean_j v_j), and against causal softmax attention for the causal sliding window of l positions,
whose bar is causal uniform attention Y_i = mean_{j ≤ i} v_j. ``outside window`` is the mean over i of
the weight causal attention puts on keys j < i − l for l = ``window``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from xai_tf import _checks, seeds
from xai_tf.efficient import chunked, linear, linformer, performer, sparse
from xai_tf.efficient.cost import relative_error


def approximation_errors(
    sigma: float,
    n: int = 512,
    d: int = 64,
    knobs: Sequence[int] = (16, 64, 256, 512),
    seed: int = 1,
    feature_draws: int = 3,
    window: int = 64,
) -> dict[str, object]:
    """The errors of the module docstring: a list over ``knobs`` (m, k or l) per method, a float for
    "uniform", "linear", "causal uniform" and "outside window". Performer's draws use seeds
    100·seed + j, j < ``feature_draws``. n ≤ 4096, d ≤ 1024: every knob recomputes float64 n × n
    attention, which beyond that takes minutes."""
    sigma = _checks.real("sigma", sigma, 0, float("inf"), open_lo=True, open_hi=True)
    n, d = _checks.integer("n", n, 1, 4096), _checks.integer("d", d, 1, 1024)
    if not knobs:
        raise ValueError(
            "knobs is empty: give the features m, ranks k or windows l to compare, e.g. (16, 64)"
        )
    knobs = [_checks.integer("knobs", k, 1, n) for k in knobs]
    draws = _checks.integer("feature_draws", feature_draws, 1, 100)
    window = _checks.integer("window", window, 1, n)
    gen = seeds.generator(seed)
    Q, K = (torch.randn(1, n, d, generator=gen, dtype=torch.float64) * sigma for _ in range(2))
    V = torch.randn(1, n, d, generator=gen, dtype=torch.float64)
    full, full_causal = chunked.naive_attention(Q, K, V), chunked.naive_attention(Q, K, V, causal=True)
    feature_seeds = [100 * seed + j for j in range(draws)]
    A = chunked.naive_attention(Q, K, torch.eye(n, dtype=torch.float64)[None], causal=True)  # weights
    return {
        "Performer (m features)": [
            float(
                np.mean(
                    [
                        relative_error(performer.performer_attention(Q, K, V, m, seed=s), full)
                        for s in feature_seeds
                    ]
                )
            )
            for m in knobs
        ],
        "Linformer, pooled (rank k)": [
            relative_error(linformer.linformer_attention(Q, K, V, k), full) for k in knobs
        ],
        "Linformer, Gaussian (rank k)": [
            relative_error(linformer.linformer_attention(Q, K, V, k, kind="gaussian"), full) for k in knobs
        ],
        "sliding window (l), causal": [
            relative_error(sparse.windowed_attention(Q, K, V, w), full_causal) for w in knobs
        ],
        "uniform": relative_error(V.mean(-2, keepdim=True).expand_as(full), full),
        "linear": relative_error(linear.linear_attention(Q, K, V, causal=False), full),
        "causal uniform": relative_error(
            V.cumsum(-2) / torch.arange(1, n + 1, dtype=V.dtype)[:, None], full_causal
        ),
        "outside window": float((A * ~sparse.sliding_window_mask(n, window)).sum(-1).mean()),
    }
