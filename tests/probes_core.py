"""Bad-input probes for the root modules every lesson leans on (``xai_tf.artifacts``,
``xai_tf.timing``) and the one training loop (``xai_tf.training``), collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf import artifacts, timing, training

EXEMPT: dict = {}


RAISES = [
    # tasks
    (
        "xai_tf.training.fit",
        lambda: training.fit([], lambda k: z(1).sum(), training.TrainOptions(3, 0.1)),
        VE,
        "parameters is empty: nothing to train",
    ),
    (
        "xai_tf.training.fit",
        lambda: training.fit(
            [torch.nn.Parameter(z(2))],
            lambda k: torch.tensor(NAN, requires_grad=True),
            training.TrainOptions(3, 0.1),
        ),
        VE,
        "the loss became nan at step 0: training diverged; choose a smaller lr",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(10**6, 0.1),
        VE,
        "steps must be an integer in 1..100000",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, NAN),
        VE,
        r"lr must be a finite number in \(0, 1\], got nan",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 1e8),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1, batch_size=0),
        VE,
        "batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1, seed=1.5),
        TE,
        "seed must be an integer ≥ 0, got 1.5",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(0, 0.1),
        VE,
        "steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.0),
        VE,
        r"lr must be a finite number in \(0, 1\], got 0",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1, batch_size=2.5),
        TE,
        "batch_size must be an integer in 1..1000000, got 2.5",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1, seed=-1),
        VE,
        "seed must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1).replace(steps=10**6),
        VE,
        "steps must be an integer in 1..100000, got 1000000",
    ),
    (
        "xai_tf.training.TrainOptions",
        lambda: training.TrainOptions(5, 0.1).replace(batch=8),
        TE,
        r"changes must name fields of TrainOptions, got \['batch'\]",
    ),
    (
        "xai_tf.training.checked_options",
        lambda: training.checked_options({"steps": 5, "lr": 0.1}),
        TE,
        "options must be a TrainOptions, got dict",
    ),
    (
        "xai_tf.training.fit",
        lambda: training.fit([torch.nn.Parameter(z(2))], lambda k: z(1).sum(), 3),
        TE,
        "options must be a TrainOptions, got int",
    ),
    (
        "xai_tf.training.fixed_batch_size",
        lambda: training.fixed_batch_size(training.TrainOptions(5, 0.1)),
        VE,
        "options.batch_size must be an integer for this trainer, got None",
    ),
    (
        "xai_tf.training.fixed_batch_size",
        lambda: training.fixed_batch_size(None),
        TE,
        "options must be a TrainOptions, got NoneType",
    ),
    (
        "xai_tf.timing.median_seconds",
        lambda: timing.median_seconds(print, repeats=0),
        VE,
        "repeats must be an integer in 1..1000, got 0",
    ),
    (
        "xai_tf.timing.interleaved_seconds",
        lambda: timing.interleaved_seconds({"a": 3}),
        TE,
        "fns must map names to functions",
    ),
    (
        "xai_tf.timing.interleaved_times",
        lambda: timing.interleaved_times({}, 3),
        TE,
        "fns must map names to functions",
    ),
    ("xai_tf.artifacts.fingerprint", lambda: artifacts.fingerprint(), VE, "modules is empty"),
    (
        "xai_tf.artifacts.script_fingerprint",
        lambda: artifacts.script_fingerprint(artifacts.Path(__file__), (), {}),
        VE,
        "modules is empty",
    ),
    (
        "xai_tf.artifacts.script_fingerprint",
        lambda: artifacts.script_fingerprint(artifacts.Path("/nonexistent.py"), ("xai_tf.seeds",), {}),
        VE,
        "script must be the path of an existing Python file, got PosixPath.'/nonexistent.py'.",
    ),
    (
        "xai_tf.artifacts.script_fingerprint",
        lambda: artifacts.script_fingerprint(
            artifacts.Path(__file__), ("xai_tf.seeds",), {}, inputs=(artifacts.Path("/nonexistent.bin"),)
        ),
        VE,
        "inputs must be a tuple of paths of existing files",
    ),
    (
        "xai_tf.artifacts.import_graph",
        lambda: artifacts.import_graph("torch"),
        VE,
        "modules must be dotted names inside xai_tf, got 'torch'",
    ),
    (
        "xai_tf.training.minibatches",
        lambda: training.minibatches(0, 4, 0),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
]


CHECKERS: dict = {}


PANELS: dict = {}
