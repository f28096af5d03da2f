"""Bad-input probes for lesson 09 (toy tasks: histogram, bounded Dyck, the solvable model), collected by
``test_bad_inputs.py``. The panels get a tiny random model of each kind and a bad string typed in."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.exercises import toytasks as ex_toy
from xai_tf.tasks import dyck, dyck_model, histogram, solvable, toytasks
from xai_tf.widgets import toytasks as toy_panels

EXEMPT = {
    "xai_tf.tasks.toytasks.fingerprint": "no arguments",
    "xai_tf.tasks.toytasks.load_toytasks": "no arguments",
}


RAISES = [
    (
        "xai_tf.tasks.histogram.histogram_labels",
        lambda: histogram.histogram_labels([1, 2]),
        TE,
        "x must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.tasks.histogram.count_probability",
        lambda: histogram.count_probability(11),
        VE,
        "c must be an integer in 1..10, got 11",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(0),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.histogram.block_mask",
        lambda: histogram.block_mask(z(2, 4), 2, "both"),
        VE,
        "block must be 'semantic' or 'positional', got 'both'",
    ),
    (
        "xai_tf.tasks.histogram.off_block_share",
        lambda: histogram.off_block_share(None, "semantic"),
        TE,
        "model must be a HistogramModel, got NoneType",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram("both", options=histogram.OPTIONS.replace(steps=1)),
        VE,
        "start must be 'semantic' or 'positional', got 'both'",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(z(2, 3, 3), torch.zeros(2, 4, dtype=torch.long)),
        VE,
        r"A must be \[..., L, L\] for x \[..., L\]",
    ),
    (
        "xai_tf.tasks.histogram.accuracy_by_count",
        lambda: histogram.accuracy_by_count("model", torch.zeros(1, 10), torch.zeros(1, 10)),
        TE,
        "model must be a HistogramModel, got str",
    ),
    (
        "xai_tf.tasks.histogram.histogram_accuracy",
        lambda: histogram.histogram_accuracy(None, torch.zeros(1, 10), torch.zeros(1, 10)),
        TE,
        "model must be a HistogramModel, got NoneType",
    ),
    (
        "xai_tf.tasks.dyck.parse_dyck",
        lambda: dyck.parse_dyck(["(", ")"]),
        TE,
        "s must be a string of brackets",
    ),
    ("xai_tf.tasks.dyck.sample_dyck", lambda: dyck.sample_dyck(2, N=5), VE, "N must be even"),
    ("xai_tf.tasks.dyck.corrupt", lambda: dyck.corrupt(""), VE, "s must be a non-empty string of brackets"),
    ("xai_tf.tasks.dyck.encode_dyck", lambda: dyck.encode_dyck(["(a)"]), VE, "'a' is not a bracket"),
    (
        "xai_tf.tasks.dyck.next_close_targets",
        lambda: dyck.next_close_targets(["()", "(("]),
        VE,
        r"strings\[1\] = '\(\(' is not in Dyck_\{2,4\}",
    ),
    (
        "xai_tf.tasks.dyck_model.stack_share",
        lambda: dyck_model.stack_share(z(1, 2, 2, 5, 5), torch.full((1, 5), -1)),
        VE,
        "top has no position with a non-empty stack",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(away=-1.0, options=dyck_model.OPTIONS.replace(steps=1)),
        VE,
        "away must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.tasks.dyck_model.dyck_accuracy",
        lambda: dyck_model.dyck_accuracy(None, ["()"]),
        TE,
        "model must be a DyckModel, got NoneType",
    ),
    (
        "xai_tf.tasks.solvable.solvable_data",
        lambda: solvable.solvable_data(4, 8, omega=1.5),
        VE,
        r"omega must be a finite number in \[0, 1\], got 1.5",
    ),
    (
        "xai_tf.tasks.solvable.student",
        lambda: solvable.student(z(3), z(4, 2, 5)),
        VE,
        r"Q must be \[d\] and x \[n, L, d\]",
    ),
    (
        "xai_tf.tasks.solvable.solvable_loss",
        lambda: solvable.solvable_loss(z(5), z(4, 2, 5), z(4, 2, 3)),
        VE,
        r"y must have the shape of x \(4, 2, 5\)",
    ),
    (
        "xai_tf.tasks.solvable.fit_solvable",
        lambda: solvable.fit_solvable("both", z(4, 2, 5), z(4, 2, 5), z(5)),
        VE,
        "start must be 'positional' or 'semantic', got 'both'",
    ),
    (
        "xai_tf.tasks.solvable.alpha_sweep",
        lambda: solvable.alpha_sweep([]),
        VE,
        "alphas must be a non-empty list",
    ),
    (
        "xai_tf.tasks.solvable.crossing",
        lambda: solvable.crossing([0.5, 1.0], [1.0], [1.0, 2.0]),
        VE,
        "2 alphas but 1 values of a",
    ),
    (
        "xai_tf.tasks.solvable.replica_theta",
        lambda: solvable.replica_theta(0.6, sigma=0.0),
        VE,
        "sigma must be a finite number > 0, got 0",
    ),
    (
        "xai_tf.tasks.toytasks.encode_letters",
        lambda: toytasks.encode_letters("DATAIAIAIZ"),
        VE,
        "'Z' not in the alphabet: tokens must be letters of 'ABCDEFGHILMNORT'",
    ),
]


LONG = torch.long


def _x(*shape: int) -> torch.Tensor:
    return torch.randint(15, shape, generator=torch.Generator().manual_seed(0))


RAISES += [
    (
        "xai_tf.tasks.histogram.histogram_labels",
        lambda: histogram.histogram_labels(z(2, 10)),
        TE,
        "x must be an integer tensor",
    ),
    (
        "xai_tf.tasks.histogram.count_probability",
        lambda: histogram.count_probability(2, L=1.5),
        TE,
        "L must be an integer in 1..64",
    ),
    (
        "xai_tf.tasks.histogram.count_probability",
        lambda: histogram.count_probability(2, L=10**6),
        VE,
        "L must be an integer in 1..64, got 1000000",
    ),
    (
        "xai_tf.tasks.histogram.count_probability",
        lambda: histogram.count_probability(2, T=0),
        VE,
        "T must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(10**9),
        VE,
        r"needs [\d.]+ GiB, more than .* free on cpu: choose n ≤ \d+",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(4, L=65),
        VE,
        "L must be an integer in 1..64, got 65",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(4, T=1.5),
        TE,
        r"T must be an integer in 1..1000, got 1.5",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(4, seed=-1),
        VE,
        "seed must be an integer",
    ),
    (
        "xai_tf.tasks.histogram.histogram_data",
        lambda: histogram.histogram_data(4, seed="0"),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.tasks.histogram.block_mask",
        lambda: histogram.block_mask([[1.0]], 1, "semantic"),
        TE,
        "W must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.tasks.histogram.block_mask",
        lambda: histogram.block_mask(z(2, 4), 9, "semantic"),
        VE,
        "d_tok must be an integer in 0..4, got 9",
    ),
    (
        "xai_tf.tasks.histogram.block_mask",
        lambda: histogram.block_mask(z(4), 2, "semantic"),
        VE,
        r"W must have 2 dimensions, got shape \(4,\)",
    ),
    (
        "xai_tf.tasks.histogram.off_block_share",
        lambda: histogram.off_block_share(histogram.HistogramModel(), "both"),
        VE,
        "block must be 'semantic' or 'positional', got 'both'",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=-5)),
        VE,
        r"steps must be an integer in 1..100000, got -5",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=1, batch_size=0)),
        VE,
        r"batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=1, lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\], got 100000000",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=1, lr=float("nan"))),
        VE,
        r"lr must be a finite number in \(0, 1\], got nan",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(n_train=0, options=histogram.OPTIONS.replace(steps=1)),
        VE,
        r"n_train must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(n_train=10**9, options=histogram.OPTIONS.replace(steps=1)),
        VE,
        r"n_train must be an integer in 1..1000000, got 1000000000",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(options=histogram.OPTIONS.replace(steps=1, seed=1.5)),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(
            n_train=8, init="model", options=histogram.OPTIONS.replace(steps=1)
        ),
        TE,
        "init must be a HistogramModel or None, got str",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(
            n_train=8, init=histogram.HistogramModel(T=5), options=histogram.OPTIONS.replace(steps=1)
        ),
        VE,
        r"init must be a HistogramModel of the trained sizes \(T = 15, L = 10",
    ),
    (
        "xai_tf.tasks.histogram.train_histogram",
        lambda: histogram.train_histogram(
            n_train=8, restrict="yes", options=histogram.OPTIONS.replace(steps=1)
        ),
        TE,
        "restrict must be True or False, got 'yes'",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(torch.full((1, 4, 4), NAN), torch.zeros(1, 4, dtype=LONG)),
        VE,
        "A has NaN or ±inf entries",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(torch.ones(1, 4, 4, dtype=LONG), torch.zeros(1, 4, dtype=LONG)),
        TE,
        "A must be a floating-point tensor",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(z(1, 4, 4).softmax(-1), torch.zeros(1, 4)),
        TE,
        "x must be an integer tensor of tokens",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(torch.eye(4)[None], torch.zeros(1, 4, dtype=LONG)),
        VE,
        "A gives no attention to other positions",
    ),
    (
        "xai_tf.tasks.histogram.same_token_share",
        lambda: histogram.same_token_share(torch.full((1, 4, 4), 0.25), torch.arange(4)[None]),
        VE,
        "x has no repeated token",
    ),
    (
        "xai_tf.tasks.histogram.accuracy_by_count",
        lambda: histogram.accuracy_by_count(histogram.HistogramModel(), _x(3, 10), _x(2, 10)),
        VE,
        r"x is \(3, 10\) but y is \(2, 10\)",
    ),
    (
        "xai_tf.tasks.histogram.accuracy_by_count",
        lambda: histogram.accuracy_by_count(
            histogram.HistogramModel(), torch.full((1, 10), 99), torch.ones(1, 10, dtype=LONG)
        ),
        VE,
        r"x must be token ids in 0..14 \(the model's vocabulary\), got 99",
    ),
    (
        "xai_tf.tasks.histogram.accuracy_by_count",
        lambda: histogram.accuracy_by_count(histogram.HistogramModel(), _x(1, 10), torch.full((1, 10), 0.5)),
        TE,
        r"y must be integer counts in 1..10",
    ),
    (
        "xai_tf.tasks.histogram.histogram_accuracy",
        lambda: histogram.histogram_accuracy(histogram.HistogramModel(), _x(3, 10), _x(3, 9)),
        VE,
        r"x is \(3, 10\) but y is \(3, 9\)",
    ),
    (
        "xai_tf.tasks.histogram.histogram_accuracy",
        lambda: histogram.histogram_accuracy(histogram.HistogramModel(), _x(2, 10), torch.full((2, 10), 11)),
        VE,
        r"y must be integer counts in 1..10, got 11",
    ),
    (
        "xai_tf.tasks.histogram.histogram_accuracy",
        lambda: histogram.histogram_accuracy(histogram.HistogramModel(), _x(2, 10).float(), _x(2, 10)),
        TE,
        r"x must hold integer token ids in 0..14",
    ),
    (
        "xai_tf.tasks.dyck.parse_dyck",
        lambda: dyck.parse_dyck("()", k=5),
        VE,
        r"k must be an integer in 1..4, got 5",
    ),
    (
        "xai_tf.tasks.dyck.parse_dyck",
        lambda: dyck.parse_dyck("()", D=0),
        VE,
        r"D must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.dyck.sample_dyck",
        lambda: dyck.sample_dyck(2, N=10**9),
        VE,
        r"N must be an integer in 2..5000000, got 1000000000",
    ),
    (
        "xai_tf.tasks.dyck.sample_dyck",
        lambda: dyck.sample_dyck(10**9),
        VE,
        r"n must be an integer in 1..5000000, got 1000000000",
    ),
    (
        "xai_tf.tasks.dyck.sample_dyck",
        lambda: dyck.sample_dyck(0),
        VE,
        r"n must be an integer in 1..5000000, got 0",
    ),
    ("xai_tf.tasks.dyck.sample_dyck", lambda: dyck.sample_dyck(2, seed=-1), VE, "seed must be an integer"),
    (
        "xai_tf.tasks.dyck.sample_dyck",
        lambda: dyck.sample_dyck(2, k=0),
        VE,
        r"k must be an integer in 1..4, got 0",
    ),
    (
        "xai_tf.tasks.dyck.corrupt",
        lambda: dyck.corrupt(5),
        TE,
        "s must be a non-empty string of brackets, got int",
    ),
    ("xai_tf.tasks.dyck.corrupt", lambda: dyck.corrupt("(a)"), VE, "'a' is not a bracket: the alphabet is"),
    (
        "xai_tf.tasks.dyck.encode_dyck",
        lambda: dyck.encode_dyck("()"),
        TE,
        "strings must be a list of strings, got one str",
    ),
    ("xai_tf.tasks.dyck.encode_dyck", lambda: dyck.encode_dyck([]), VE, "strings is empty"),
    (
        "xai_tf.tasks.dyck.encode_dyck",
        lambda: dyck.encode_dyck(["()", "(())"]),
        VE,
        "strings must all have one length, got lengths 2 and 4",
    ),
    (
        "xai_tf.tasks.dyck.encode_dyck",
        lambda: dyck.encode_dyck([1, 2]),
        TE,
        "strings must be a list of strings, got list",
    ),
    (
        "xai_tf.tasks.dyck.next_close_targets",
        lambda: dyck.next_close_targets("()"),
        TE,
        "strings must be a list of strings, got one str",
    ),
    ("xai_tf.tasks.dyck.next_close_targets", lambda: dyck.next_close_targets([]), VE, "strings is empty"),
    (
        "xai_tf.tasks.dyck.next_close_targets",
        lambda: dyck.next_close_targets(["()", "(())"]),
        VE,
        "strings must all have one length, got lengths 2 and 4",
    ),
    (
        "xai_tf.tasks.dyck_model.stack_share",
        lambda: dyck_model.stack_share(torch.full((1, 2, 2, 3, 3), NAN), torch.zeros(1, 3, dtype=LONG)),
        VE,
        "A has NaN or ±inf entries",
    ),
    (
        "xai_tf.tasks.dyck_model.stack_share",
        lambda: dyck_model.stack_share(z(1, 2, 2, 3, 3), torch.zeros(1, 3)),
        TE,
        r"top must hold integer positions in -1..2",
    ),
    (
        "xai_tf.tasks.dyck_model.stack_share",
        lambda: dyck_model.stack_share(z(1, 2, 2, 3, 3), torch.full((1, 3), 7)),
        VE,
        r"top must be positions in -1..2 \(−1: an empty stack\), got 7",
    ),
    (
        "xai_tf.tasks.dyck_model.stack_share",
        lambda: dyck_model.stack_share(z(2, 2, 3, 3), torch.zeros(1, 3, dtype=LONG)),
        VE,
        r"A must be \[B, n_layer, n_head, T, T\]",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(options=dyck_model.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(options=dyck_model.OPTIONS.replace(steps=1, batch_size=0)),
        VE,
        r"batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(N=10**9, options=dyck_model.OPTIONS.replace(steps=1)),
        VE,
        r"N must be an integer in 2..4096, got 1000000000",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(n_train=10**9, options=dyck_model.OPTIONS.replace(steps=1)),
        VE,
        r"n_train must be an integer in 1..416666, got 1000000000",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(n_train=0, options=dyck_model.OPTIONS.replace(steps=1)),
        VE,
        r"n_train must be an integer in 1..416666, got 0",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(options=dyck_model.OPTIONS.replace(steps=1, lr=2.0)),
        VE,
        r"lr must be a finite number in \(0, 1\], got 2",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(options=dyck_model.OPTIONS.replace(steps=1, seed=1.5)),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.tasks.dyck_model.train_dyck",
        lambda: dyck_model.train_dyck(D=0, options=dyck_model.OPTIONS.replace(steps=1)),
        VE,
        r"D must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.dyck_model.dyck_accuracy",
        lambda: dyck_model.dyck_accuracy(dyck_model.DyckModel(), "()"),
        TE,
        "strings must be a list of strings, got one str",
    ),
    (
        "xai_tf.tasks.dyck_model.dyck_accuracy",
        lambda: dyck_model.dyck_accuracy(dyck_model.DyckModel(T_max=4), ["()()()"]),
        VE,
        "strings must be at most T_max = 4 brackets",
    ),
    (
        "xai_tf.tasks.solvable.replica_theta",
        lambda: solvable.replica_theta("a"),
        TE,
        "theta must be a number",
    ),
    (
        "xai_tf.tasks.solvable.solvable_data",
        lambda: solvable.solvable_data(10**9, 100),
        VE,
        r"needs [\d.]+ GiB, more than .* free on cpu: choose n · d ≤ \d+",
    ),
    (
        "xai_tf.tasks.solvable.solvable_data",
        lambda: solvable.solvable_data(4, 0),
        VE,
        r"d must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.solvable.solvable_data",
        lambda: solvable.solvable_data(4, 8, seed=-1),
        VE,
        "seed must be an integer",
    ),
    (
        "xai_tf.tasks.solvable.student",
        lambda: solvable.student(z(5), torch.ones(4, 2, 5, dtype=LONG)),
        TE,
        "x must be a floating-point tensor",
    ),
    (
        "xai_tf.tasks.solvable.student",
        lambda: solvable.student(torch.full((5,), NAN), z(4, 2, 5)),
        VE,
        "Q has NaN or ±inf entries",
    ),
    (
        "xai_tf.tasks.solvable.solvable_loss",
        lambda: solvable.solvable_loss(z(5), z(4, 2, 5), z(4, 2, 5), lam=-1.0),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.tasks.solvable.solvable_loss",
        lambda: solvable.solvable_loss(z(5), z(4, 2, 5), z(4, 2, 5), lam=NAN),
        VE,
        "lam must be a finite number ≥ 0, got nan",
    ),
    (
        "xai_tf.tasks.solvable.solvable_loss",
        lambda: solvable.solvable_loss(z(5), z(4, 2, 5), torch.full((4, 2, 5), NAN)),
        VE,
        "y has NaN or ±inf entries",
    ),
    (
        "xai_tf.tasks.solvable.fit_solvable",
        lambda: solvable.fit_solvable(
            "semantic", z(4, 2, 5), z(4, 2, 5), z(5), options=solvable.OPTIONS.replace(steps=0)
        ),
        VE,
        r"steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.tasks.solvable.fit_solvable",
        lambda: solvable.fit_solvable(
            "semantic", z(4, 2, 5), z(4, 2, 5), z(5), options=solvable.OPTIONS.replace(lr=5.0)
        ),
        VE,
        r"lr must be a finite number in \(0, 1\], got 5",
    ),
    (
        "xai_tf.tasks.solvable.fit_solvable",
        lambda: solvable.fit_solvable("semantic", z(4, 2, 5), z(4, 2, 5), z(3)),
        VE,
        r"Q_star must be \[d\] = \[5\] for x \(4, 2, 5\), got \(3,\)",
    ),
    (
        "xai_tf.tasks.solvable.alpha_sweep",
        lambda: solvable.alpha_sweep([1.0], seeds=0),
        VE,
        r"seeds must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.tasks.solvable.alpha_sweep",
        lambda: solvable.alpha_sweep([NAN]),
        VE,
        r"alphas\[0\] must be a finite number > 0, got nan",
    ),
    (
        "xai_tf.tasks.solvable.alpha_sweep",
        lambda: solvable.alpha_sweep([1.0], d=10**6),
        VE,
        r"needs [\d.]+ GiB, more than .* free on cpu: choose n · d ≤ \d+",
    ),
    (
        "xai_tf.tasks.solvable.alpha_sweep",
        lambda: solvable.alpha_sweep([1.0], d=4, options=solvable.OPTIONS.replace(steps=10**7)),
        VE,
        r"steps must be an integer in 1..100000, got 10000000",
    ),
    (
        "xai_tf.tasks.solvable.crossing",
        lambda: solvable.crossing([0.5, 1.0], [NAN, 1.0], [1.0, 2.0]),
        VE,
        r"a\[0\] must be a finite number, got nan",
    ),
    (
        "xai_tf.tasks.toytasks.encode_letters",
        lambda: toytasks.encode_letters("DATA", L=-1),
        VE,
        r"L must be an integer in 1..64, got -1",
    ),
    (
        "xai_tf.tasks.toytasks.encode_letters",
        lambda: toytasks.encode_letters("DATA"),
        VE,
        "type exactly 10 letters, got 4",
    ),
    (
        "xai_tf.tasks.toytasks.encode_letters",
        lambda: toytasks.encode_letters(5),
        TE,
        "text must be a string of letters, got int",
    ),
    (
        "xai_tf.exercises.toytasks.tied_attention",
        lambda: ex_toy.tied_attention(torch.ones(3, 5), torch.ones(2, 4)),
        VE,
        r"E must be \[\.\.\., L, d_e\] and W \[d_att, d_e\] with one d_e, got \(3, 5\) and \(2, 4\)",
    ),
    (
        "xai_tf.exercises.toytasks.tied_attention",
        lambda: ex_toy.tied_attention(torch.ones(3, 5, dtype=torch.long), torch.ones(2, 5)),
        TE,
        "E must be a floating-point tensor",
    ),
    (
        "xai_tf.exercises.toytasks.stack_tops",
        lambda: ex_toy.stack_tops("(]"),
        VE,
        r"s must be a valid Dyck string of \(\)\[\], got '\(\]': position 1",
    ),
]


CHECKERS = {
    "xai_tf.exercises.toytasks.check_histogram_labels": (
        r"y for x = \[3, 0, 11, 0, 8, 0, 8, 0, 8, 0\] is None"
    ),
    "xai_tf.exercises.toytasks.check_stack_tops": "returned None: did you forget",
    "xai_tf.exercises.toytasks.check_tied_attention": "A is None: did you forget",
    "xai_tf.exercises.toytasks.check_same_token_share": "returned None: did you forget",
    "xai_tf.exercises.toytasks.check_crossing": "returned None for a − b = .* did you forget",
    "xai_tf.exercises.toytasks.check_stack_share": "stack share is None: did you forget",
}


PANELS = {
    "xai_tf.widgets.toytasks.histogram_panel": (
        lambda: toy_panels.histogram_panel({"random": histogram.HistogramModel()}),
        "text",
        "DATAIAIAIZ",
    ),
    "xai_tf.widgets.toytasks.dyck_panel": (
        lambda: toy_panels.dyck_panel({"random": dyck_model.DyckModel()}),
        "text",
        "(]",
    ),
}


def _one_self(n: int = 4) -> torch.Tensor:
    """Attention where position 0 looks only at itself and the others spread evenly."""
    A = torch.full((1, n, n), 1 / n)
    A[0, 0] = torch.eye(n)[0]
    return A


#: Documented values at the edges (name, call, check of the result): run by test_toytasks.py.
VALUES = [
    (
        "histogram_labels of no tokens is empty",
        lambda: histogram.histogram_labels(torch.zeros(2, 0, dtype=LONG)),
        lambda y: y.shape == (2, 0),
    ),
    ("count_probability(1, L=1) = 1", lambda: histogram.count_probability(1, L=1), lambda p: p == 1.0),
    (
        "same_token_share leaves out a position that attends only to itself",
        lambda: histogram.same_token_share(_one_self(), torch.zeros(1, 4, dtype=LONG)),
        lambda s: abs(s - 1.0) < 1e-12,
    ),
    (
        "student follows float64 data with a float32 Q",
        lambda: solvable.student(z(5), z(4, 2, 5).double()),
        lambda f: f.dtype == torch.float64,
    ),
    (
        "crossing of equal curves is the first alpha",
        lambda: solvable.crossing([0.5, 1.0], [1.0, 2.0], [1.0, 2.0]),
        lambda a: a == 0.5,
    ),
]


def _panel_line(panel, control, value) -> tuple[str, str]:
    panel[control].value = value
    msg = panel.message.value
    ok = "⚠" in msg and panel.view.value == "" and "Error:" not in msg
    return ("clear" if ok else "misleading" if "⚠" in msg else "silent wrong"), msg[:120]


def _two_then_one():
    panel = toy_panels.dyck_panel({"two": dyck_model.DyckModel(), "one": dyck_model.DyckModel(n_head=1)})
    panel["head"].value = 2
    return panel


PANEL_EXTRA = [
    (
        "histogram_panel, 9 letters",
        lambda: _panel_line(
            toy_panels.histogram_panel({"random": histogram.HistogramModel()}), "text", "DATAIAIAI"
        ),
    ),
    (
        "dyck_panel, 26 brackets",
        lambda: _panel_line(toy_panels.dyck_panel({"random": dyck_model.DyckModel()}), "text", "()" * 13),
    ),
    (
        "dyck_panel, a one-head model after a two-head one",
        lambda: _panel_line(_two_then_one(), "model", "one"),
    ),
]
