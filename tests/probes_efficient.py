"""Bad-input probes for lesson 14's helpers and panel (``xai_tf.efficient``), collected by
``test_bad_inputs.py``: each call ends in a ValueError/TypeError naming the argument and its range.
Sizes are refused before anything is allocated; HUGE asks for more memory than any machine has."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.efficient import adaptive, chunked, compare, cost, linear, linformer, performer, positions, sparse
from xai_tf.tasks import offsets
from xai_tf.widgets import efficient as panel

HUGE = 10**7  # an n whose n × n matrix is 400 TB of float32
EXEMPT: dict = {}


def qkv(n: int = 4, d: int = 8, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, ...]:
    return tuple(z(1, n, d).to(dtype) for _ in range(3))


def with_nan() -> torch.Tensor:
    Q = z(1, 4, 8)
    Q[0, 1, 2] = NAN
    return Q


def trained() -> positions.OffsetModel:
    return positions.train_offset_model("absolute", options=positions.OPTIONS.replace(steps=1))[0]


Q, K, V = qkv()
RAISES = [
    # chunked: naive and exact chunked attention
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q.long(), K, V),
        TE,
        "Q must be a floating-point tensor",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q, z(1, 4, 6), V),
        VE,
        "Q has 8 features but K has 6",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(with_nan(), K, V),
        VE,
        "Q has NaN or inf entries",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q.double(), K, V),
        TE,
        "Q, K and V must share one dtype",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q, K, V, mask=torch.ones(4, 4)),
        TE,
        "mask must be a boolean tensor",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q, K, V, causal="yes"),
        TE,
        "causal must be True or False",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(*[z(1, 200_000, 1)] * 3),
        VE,
        r"full attention at n=200000, m=200000 \(3 score matrices\) needs 447\.0 GiB",
    ),
    (
        "xai_tf.efficient.chunked.naive_attention",
        lambda: chunked.naive_attention(Q.tolist(), K, V),
        TE,
        "Q must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.efficient.chunked.chunked_attention",
        lambda: chunked.chunked_attention(Q, K, V, chunk_size=0),
        VE,
        "chunk_size must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.chunked.chunked_attention",
        lambda: chunked.chunked_attention(Q, K, V, chunk_size=2.5),
        TE,
        "chunk_size must be an integer ≥ 1, got 2.5",
    ),
    (
        "xai_tf.efficient.chunked.chunked_attention",
        lambda: chunked.chunked_attention(Q, K, V, query_chunk_size=0),
        VE,
        "query_chunk_size must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.chunked.chunked_attention",
        lambda: chunked.chunked_attention(Q, z(1, 5, 8), V),
        VE,
        "K has 5 positions but V has 4",
    ),
    (
        "xai_tf.efficient.chunked.chunked_attention",
        lambda: chunked.chunked_attention(Q, K, V, causal=1),
        TE,
        "causal must be True or False",
    ),
    (
        "xai_tf.efficient.chunked.online_softmax_update",
        lambda: chunked.online_softmax_update(z(4, 1), z(4, 1), z(4, 8), z(4, 3), z(2, 8)),
        VE,
        r"s has 3 keys but v has 2: one value row per key",
    ),
    (
        "xai_tf.efficient.chunked.online_softmax_update",
        lambda: chunked.online_softmax_update(z(4, 1), z(4, 1), z(4, 8), z(5, 3), z(3, 8)),
        VE,
        r"one row per query \(4 in m\), got s with 5",
    ),
    # linear attention
    (
        "xai_tf.efficient.linear.elu_feature_map",
        lambda: linear.elu_feature_map(torch.ones(3, dtype=torch.long)),
        TE,
        "x must be a floating-point tensor",
    ),
    (
        "xai_tf.efficient.linear.elu_feature_map",
        lambda: linear.elu_feature_map([1.0, 2.0]),
        TE,
        "x must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.efficient.linear.linear_attention",
        lambda: linear.linear_attention(Q, K, V, chunk_size=0),
        VE,
        "chunk_size must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.linear.linear_attention",
        lambda: linear.linear_attention(Q, z(1, 6, 8), z(1, 6, 8)),
        VE,
        "causal linear attention is self-attention: Q has 4 positions but K has 6",
    ),
    (
        "xai_tf.efficient.linear.linear_attention",
        lambda: linear.linear_attention(Q, K, V, causal=None),
        TE,
        "causal must be True or False",
    ),
    (
        "xai_tf.efficient.linear.linear_attention_quadratic",
        lambda: linear.linear_attention_quadratic(*[z(1, 200_000, 1)] * 3),
        VE,
        r"needs 298\.0 GiB",
    ),
    (
        "xai_tf.efficient.linear.linear_attention_quadratic",
        lambda: linear.linear_attention_quadratic(Q, K, with_nan()),
        VE,
        "V has NaN or inf entries",
    ),
    # Linformer
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(0, 1),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(8, 9),
        VE,
        "rank must be an integer in 1..8, got 9",
    ),
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(8, 2, kind="svd"),
        VE,
        "kind must be 'pool' or 'gaussian', got 'svd'",
    ),
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(HUGE, HUGE),
        VE,
        r"Linformer's projections E, F \[10000000, 10000000\] needs .* GiB",
    ),
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(8, 2, dtype=torch.int64),
        TE,
        "dtype must be a floating-point dtype",
    ),
    (
        "xai_tf.efficient.linformer.linformer_projections",
        lambda: linformer.linformer_projections(8, 2.0),
        TE,
        "rank must be an integer in 1..8, got 2.0",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(Q, K, V),
        VE,
        r"give rank \(an integer in 1..n\) or both projections E and F",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(Q, K, V, rank=5),
        VE,
        "rank must be an integer in 1..4, got 5",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(Q, K, V, E=z(2, 4), F=z(3, 4)),
        VE,
        "E has 2 rows but F has 3",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(Q, K, V, E=z(2, 5), F=z(2, 5)),
        VE,
        r"E must be \[k, 4\]",
    ),
    # Performer
    (
        "xai_tf.efficient.performer.random_features",
        lambda: performer.random_features(0, 4),
        VE,
        "n_features must be an integer in 1..65536, got 0",
    ),
    (
        "xai_tf.efficient.performer.random_features",
        lambda: performer.random_features(4, 0),
        VE,
        "d must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.performer.random_features",
        lambda: performer.random_features(HUGE, 4),
        VE,
        "n_features must be an integer in 1..65536",
    ),
    (
        "xai_tf.efficient.performer.random_features",
        lambda: performer.random_features(4, 4, dtype=torch.int64),
        TE,
        "dtype must be a floating-point dtype",
    ),
    (
        "xai_tf.efficient.performer.random_features",
        lambda: performer.random_features(4, 4, generator=0),
        TE,
        "generator must be a torch.Generator or None",
    ),
    (
        "xai_tf.efficient.performer.positive_features",
        lambda: performer.positive_features(z(4, 8), z(3, 5)),
        VE,
        "X has 8 features but W has 5 columns",
    ),
    (
        "xai_tf.efficient.performer.positive_features",
        lambda: performer.positive_features(z(4, 8), z(3, 8), "rows"),
        VE,
        "stabilise must be None, 'row' or 'all'",
    ),
    (
        "xai_tf.efficient.performer.positive_features",
        lambda: performer.positive_features(z(4, 8).long(), z(3, 8)),
        TE,
        "X and W must be floating-point tensors",
    ),
    (
        "xai_tf.efficient.performer.positive_features",
        lambda: performer.positive_features(with_nan(), z(3, 8)),
        VE,
        "X has NaN or ±inf entries",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(Q, K, V, n_features=0),
        VE,
        "n_features must be an integer in 1..65536, got 0",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(Q * 100, K * 100, V),
        VE,
        r"the random-feature estimate underflowed: .* scale Q and K down",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(Q, K, V, W=z(3, 5)),
        VE,
        "X has 8 features but W has 5 columns",
    ),
    # sparse patterns
    (
        "xai_tf.efficient.sparse.sliding_window_mask",
        lambda: sparse.sliding_window_mask(0, 1),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.efficient.sparse.sliding_window_mask",
        lambda: sparse.sliding_window_mask(4, 5),
        VE,
        "window must be an integer in 1..4, got 5",
    ),
    (
        "xai_tf.efficient.sparse.sliding_window_mask",
        lambda: sparse.sliding_window_mask(HUGE, 3),
        VE,
        r"an n × n attention pattern at n=10000000 needs .* GiB",
    ),
    (
        "xai_tf.efficient.sparse.strided_mask",
        lambda: sparse.strided_mask(8, 0),
        VE,
        "stride must be an integer in 1..8, got 0",
    ),
    (
        "xai_tf.efficient.sparse.strided_mask",
        lambda: sparse.strided_mask(8, 2, causal="no"),
        TE,
        "causal must be True or False",
    ),
    (
        "xai_tf.efficient.sparse.sparse_transformer_mask",
        lambda: sparse.sparse_transformer_mask(HUGE, 3),
        VE,
        r"an n × n attention pattern at n=10000000 needs .* GiB",
    ),
    (
        "xai_tf.efficient.sparse.sparse_attention",
        lambda: sparse.sparse_attention(Q, K, V, None),
        VE,
        "mask is None",
    ),
    (
        "xai_tf.efficient.sparse.sparse_attention",
        lambda: sparse.sparse_attention(Q, K, V, torch.ones(3, 3, dtype=torch.bool)),
        VE,
        r"mask must broadcast to \[..., 4, 4\]",
    ),
    (
        "xai_tf.efficient.sparse.windowed_attention",
        lambda: sparse.windowed_attention(Q, K, V, 1.5),
        TE,
        "window must be an integer in 1..4, got 1.5",
    ),
    (
        "xai_tf.efficient.sparse.windowed_attention",
        lambda: sparse.windowed_attention(Q, K, V, 0),
        VE,
        "window must be an integer in 1..4, got 0",
    ),
    # cost
    ("xai_tf.efficient.cost.layer", lambda: cost.layer("attention", 8), VE, "method must be one of"),
    (
        "xai_tf.efficient.cost.layer",
        lambda: cost.layer("performer", 0),
        VE,
        "n must be an integer in 1..65536, got 0",
    ),
    (
        "xai_tf.efficient.cost.layer",
        lambda: cost.layer("performer", 8, width=0),
        VE,
        "width must be an integer in 1..8, got 0",
    ),
    (
        "xai_tf.efficient.cost.measure",
        lambda: cost.measure("chunked", HUGE),
        VE,
        "n must be an integer in 1..65536, got 10000000",
    ),
    (
        "xai_tf.efficient.cost.measure",
        lambda: cost.measure("chunked", 32, repeats=0),
        VE,
        "repeats must be an integer in 1..1000, got 0",
    ),
    (
        "xai_tf.efficient.cost.measure",
        lambda: cost.measure("self-attention", 60_000, d=1, width=1),
        VE,
        r"full attention at n=60000, m=60000 .* needs .* GiB",
    ),
    (
        "xai_tf.efficient.cost.peak_bytes",
        lambda: cost.peak_bytes(3),
        TE,
        "fn must be a function of no arguments",
    ),
    ("xai_tf.efficient.cost.fit_exponent", lambda: cost.fit_exponent([1, 2], [1]), VE, "2 ns but 1 costs"),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent([0, 1], [1, 2]),
        VE,
        "ns must be finite numbers > 0",
    ),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent([1, 2], [1, NAN]),
        VE,
        "costs must be finite numbers, got \\[1.0, nan\\]",
    ),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent([4], [1]),
        VE,
        "a slope needs at least 2 points",
    ),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent([1, 2, 4], [1, 2, 4], last=1),
        VE,
        "last must be an integer in 2..3, got 1",
    ),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent([2, 2], [1, 4]),
        VE,
        "ns must hold at least two different values",
    ),
    (
        "xai_tf.efficient.cost.fit_exponent",
        lambda: cost.fit_exponent("12", "12"),
        TE,
        "ns must be a sequence of numbers",
    ),
    (
        "xai_tf.efficient.cost.multiply_adds",
        lambda: cost.multiply_adds("LSTM", 8, d=0),
        VE,
        "d must be an integer",
    ),
    (
        "xai_tf.efficient.cost.crossover",
        lambda: cost.crossover([1, 2], [1, 2], [1]),
        VE,
        "2 ns but 1 other costs",
    ),
    (
        "xai_tf.efficient.cost.crossover",
        lambda: cost.crossover([1, 2], [1, NAN], [2, 1]),
        VE,
        "reference costs must be finite numbers",
    ),
    (
        "xai_tf.efficient.cost.crossover",
        lambda: cost.crossover([2, 1], [1, 2], [2, 1]),
        VE,
        "ns must increase",
    ),
    (
        "xai_tf.efficient.cost.relative_error",
        lambda: cost.relative_error(z(3), torch.zeros(3)),
        VE,
        "Y_ref is all zeros",
    ),
    (
        "xai_tf.efficient.cost.relative_error",
        lambda: cost.relative_error(z(3), z(4)),
        VE,
        r"Y is \(3,\) but Y_ref is \(4,\)",
    ),
    ("xai_tf.efficient.cost.connectivity", lambda: cost.connectivity("cnn", 4), VE, "kind must be one of"),
    (
        "xai_tf.efficient.cost.connectivity",
        lambda: cost.connectivity("recurrent", 10**5),
        VE,
        "n must be an integer in 1..1024, got 100000",
    ),
    (
        "xai_tf.efficient.cost.connectivity",
        lambda: cost.connectivity("convolution", 8, width=0),
        VE,
        "width must be an integer in 1..8, got 0",
    ),
    (
        "xai_tf.efficient.cost.max_path_length",
        lambda: cost.max_path_length("recurrent", 10**5),
        VE,
        "n must be an integer in 1..1024, got 100000",
    ),
    (
        "xai_tf.efficient.cost.max_path_length",
        lambda: cost.max_path_length("recurrent", 1.5),
        TE,
        "n must be an integer in 1..1024, got 1.5",
    ),
    (
        "xai_tf.efficient.cost.sequential_operations",
        lambda: cost.sequential_operations("recurrent", 10**5),
        VE,
        "n must be an integer in 1..1024, got 100000",
    ),
    # adaptive spans (entmax heads)
    (
        "xai_tf.efficient.adaptive.entmax_alpha_grad",
        lambda: adaptive.entmax_alpha_grad(z(2, 3).softmax(-1), 1.0),
        VE,
        r"alpha must be a finite number in \(1, inf\)",
    ),
    (
        "xai_tf.efficient.adaptive.entmax_alpha_grad",
        lambda: adaptive.entmax_alpha_grad(torch.ones(3, dtype=torch.long), 1.5),
        TE,
        "p must be a floating-point tensor",
    ),
    (
        "xai_tf.efficient.adaptive.entmax_alpha_grad",
        lambda: adaptive.entmax_alpha_grad(z(2, 3), 1.5),
        VE,
        "p must hold probabilities",
    ),
    (
        "xai_tf.efficient.adaptive.entmax_heads",
        lambda: adaptive.entmax_heads(z(2, 3), torch.ones(2) * 1.5),
        TE,
        r"z must be a float tensor \[\.\.\., heads, n, T\]",
    ),
    (
        "xai_tf.efficient.adaptive.entmax_heads",
        lambda: adaptive.entmax_heads(z(2, 3, 1, 4), torch.ones(2) * 1.5),
        VE,
        "alpha has 2 values but z has 3 heads: one α per head",
    ),
    (
        "xai_tf.efficient.adaptive.entmax_heads",
        lambda: adaptive.entmax_heads(z(2, 3, 1, 4), torch.ones(3)),
        VE,
        r"alpha must be > 1",
    ),
    (
        "xai_tf.efficient.adaptive.alpha_task",
        lambda: adaptive.alpha_task(0),
        VE,
        "batch must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.efficient.adaptive.alpha_task",
        lambda: adaptive.alpha_task(10**9),
        VE,
        "batch must be an integer in 1..100000",
    ),
    (
        "xai_tf.efficient.adaptive.alpha_task",
        lambda: adaptive.alpha_task(4, T=10**9),
        VE,
        "T must be an integer in 2..4096",
    ),
    (
        "xai_tf.efficient.adaptive.train_alpha_heads",
        lambda: adaptive.train_alpha_heads(options=adaptive.OPTIONS.replace(steps=0)),
        VE,
        "steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.efficient.adaptive.train_alpha_heads",
        lambda: adaptive.train_alpha_heads(options=adaptive.OPTIONS.replace(lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.efficient.adaptive.train_alpha_heads",
        lambda: adaptive.train_alpha_heads(options=adaptive.OPTIONS.replace(batch_size=0)),
        VE,
        "batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.efficient.adaptive.train_alpha_heads",
        lambda: adaptive.train_alpha_heads(options=adaptive.OPTIONS.replace(seed=-1)),
        VE,
        "seed must be an integer ≥ 0, got -1",
    ),
    # learned positions
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.train_offset_model("rotary"),
        VE,
        "positions must be 'absolute' or 'relative', got 'rotary'",
    ),
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.train_offset_model("absolute", T=3, offset=3),
        VE,
        "offset must be an integer in 1..2, got 3",
    ),
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.train_offset_model("absolute", T=10**6),
        VE,
        "T must be an integer in 2..64",
    ),
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.train_offset_model("absolute", options=positions.OPTIONS.replace(steps=-5)),
        VE,
        "steps must be an integer in 1..100000, got -5",
    ),
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.train_offset_model("absolute", options=positions.OPTIONS.replace(lr=1e6)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.efficient.positions.offset_accuracy",
        lambda: positions.offset_accuracy(None, 8),
        TE,
        "model must be an OffsetModel",
    ),
    (
        "xai_tf.efficient.positions.offset_accuracy",
        lambda: positions.offset_accuracy(trained(), 8, offset=8),
        VE,
        "offset must be an integer in 1..7, got 8",
    ),
    (
        "xai_tf.efficient.positions.offset_accuracy",
        lambda: positions.offset_accuracy(trained(), 8, n=10**9),
        VE,
        "n must be an integer in 1..100000",
    ),
    (
        "xai_tf.efficient.positions.offset_accuracy",
        lambda: positions.offset_accuracy(trained(), 10**6),
        VE,
        "T must be an integer in 2..64",
    ),
    # the approximations compared
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.0),
        VE,
        "sigma must be",
    ),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.5, n=8, knobs=[16]),
        VE,
        "knobs must be an integer in 1..8, got 16",
    ),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.5, n=HUGE),
        VE,
        "n must be an integer in 1..4096",
    ),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.5, n=8, knobs=[], window=2),
        VE,
        "knobs is empty",
    ),
    (
        "xai_tf.efficient.compare.approximation_errors",
        lambda: compare.approximation_errors(0.5, n=8, knobs=[2], feature_draws=10**6, window=2),
        VE,
        "feature_draws must be an integer in 1..100",
    ),
    (
        "xai_tf.efficient.cost.multiply_adds",
        lambda: cost.multiply_adds("GRU", 8),
        VE,
        "kind must be 'self-attention' or 'LSTM', got 'GRU'",
    ),
    ("xai_tf.efficient.cost.multiply_adds", lambda: cost.multiply_adds("LSTM", 0), VE, "n must be"),
    ("xai_tf.efficient.cost.multiply_adds", lambda: cost.multiply_adds("LSTM", 8, d=1.5), TE, "d must be"),
    # the panel
    (
        "xai_tf.widgets.efficient.efficiency_panel",
        lambda: panel.efficiency_panel(max_n=10**7),
        VE,
        "max_n must be an integer in 16..8192",
    ),
    (
        "xai_tf.widgets.efficient.efficiency_panel",
        lambda: panel.efficiency_panel(d=0),
        VE,
        "d must be an integer in 1..256, got 0",
    ),
    (
        "xai_tf.widgets.efficient.efficiency_panel",
        lambda: panel.efficiency_panel(scale=NAN),
        VE,
        "scale must be a finite number > 0",
    ),
]

RAISES += [  # moved from test_bad_inputs.py
    (
        "xai_tf.tasks.offsets.offset_batch",
        lambda: offsets.offset_batch(2, 3, offset=3),
        VE,
        "T must be an integer ≥ 4, got 3",
    ),
]


CHECKERS = {
    "xai_tf.exercises.efficient.check_online_softmax_update": "returned None: did you forget",
    "xai_tf.exercises.efficient.check_sliding_window_mask": "returned None: did you forget",
    "xai_tf.exercises.efficient.check_fit_exponent": "the exponent is None: did you forget",
    "xai_tf.exercises.efficient.check_linear_attention": "out is None: did you forget",
    "xai_tf.exercises.efficient.check_entmax_alpha_grad": "is None: did you forget",
}


def short_panel() -> object:
    """The panel at n = 16 (its boxes are capped at max_n, so only a width above n is left to mistype)."""
    built = panel.efficiency_panel(max_n=64)
    built["n"].value = 16
    return built


PANELS = {"xai_tf.widgets.efficient.efficiency_panel": (short_panel, "width", 40)}


RAISES += [  # issue 44 §2: the bad-input classes that still got through, lesson 14's helpers
    # a negative clip of the relative positions (OffsetModel is a class: listed under its trainer)
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.OffsetModel("relative", clip=-1),
        VE,
        "clip must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.efficient.positions.train_offset_model",
        lambda: positions.OffsetModel("relative", clip=2.5),
        TE,
        "clip must be an integer",
    ),
]
F64 = torch.float64
RAISES += [  # issue 44 §2, the rest: float32 and float64 operands mixed (no silent promotion), and Q, K so
    # large that float32 scores overflow (a softmax or a ratio of infinities returned NaN without a word)
    (
        "xai_tf.efficient.performer.positive_features",
        lambda: performer.positive_features(z(4, 8), z(3, 8).to(F64)),
        TE,
        r"W and X must share dtype and device, got torch.float64 on cpu and torch.float32 on cpu",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(*qkv(), W=z(16, 8).to(F64)),
        TE,
        r"W and X must share dtype and device, got torch.float64",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(*qkv(dtype=F64), W=z(16, 8)),
        TE,
        r"W and X must share dtype and device, got torch.float32",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(*qkv(), E=z(2, 4).to(F64), F=z(2, 4).to(F64)),
        TE,
        r"E and Q must share dtype and device, got torch.float64 on cpu and torch.float32 on cpu",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(*qkv(), E=z(2, 4), F=z(2, 4).to(F64)),
        TE,
        r"F and Q must share dtype and device",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(*qkv(dtype=F64), rank=2, E=z(2, 4), F=z(2, 4)),
        TE,
        r"E and Q must share dtype and device, got torch.float32",
    ),
    (
        "xai_tf.efficient.linformer.linformer_attention",
        lambda: linformer.linformer_attention(*(x * 1e20 for x in qkv()), rank=2),
        VE,
        r"the scores Q \(E K\)ᵀ / √d_att overflow torch.float32 .*: Q and K are too large",
    ),
    (
        "xai_tf.efficient.linear.linear_attention",
        lambda: linear.linear_attention(*(x * 1e20 for x in qkv())),
        VE,
        r"overflow torch.float32 .*: Q and K are too large; scale them down or compute in float64",
    ),
    (
        "xai_tf.efficient.linear.linear_attention",
        lambda: linear.linear_attention(*(x * 1e20 for x in qkv()), causal=False),
        VE,
        r"overflow torch.float32",
    ),
    (
        "xai_tf.efficient.linear.linear_attention_quadratic",
        lambda: linear.linear_attention_quadratic(*(x * 1e20 for x in qkv())),
        VE,
        r"overflow torch.float32",
    ),
    (
        "xai_tf.efficient.performer.performer_attention",
        lambda: performer.performer_attention(*(x * 1e20 for x in qkv())),
        VE,
        r"the random-feature estimate underflowed: Q and K are so large \(max ‖q‖ = \d\.\d+e\+20\)",
    ),
]
