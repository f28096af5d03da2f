"""Bad-input probes for lesson 09 (toy tasks: histogram, bounded Dyck, the solvable model), collected by
``test_bad_inputs.py``. The panels get a tiny random model of each kind and a bad string typed in."""

import torch
from probe_kit import TE, VE, z

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
        lambda: histogram.train_histogram("both", steps=1),
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
        lambda: dyck_model.train_dyck(away=-1.0, steps=1),
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


CHECKERS = {
    "xai_tf.exercises.toytasks.check_histogram_labels": (
        r"y for x = \[3, 0, 11, 0, 8, 0, 8, 0, 8, 0\] is None"
    ),
    "xai_tf.exercises.toytasks.check_stack_tops": "returned None: did you forget",
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
