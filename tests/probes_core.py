"""Bad-input probes for the root modules every lesson leans on (``xai_tf.artifacts``,
``xai_tf.timing``) and the one training loop (``xai_tf.tasks.train``), collected by ``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf import artifacts, timing
from xai_tf.tasks import train

EXEMPT: dict = {}


RAISES = [
    # tasks
    (
        "xai_tf.tasks.train.fit",
        lambda: train.fit([torch.nn.Parameter(z(2))], lambda k: z(1).sum(), 3, NAN),
        VE,
        r"lr must be a finite number in \(0, 1\], got nan",
    ),
    (
        "xai_tf.tasks.train.fit",
        lambda: train.fit(
            [torch.nn.Parameter(z(2))], lambda k: torch.tensor(NAN, requires_grad=True), 3, 0.1
        ),
        VE,
        "the loss became nan at step 0: training diverged; choose a smaller lr",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(10**6, 0.1),
        VE,
        "steps must be an integer in 1..100000",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 1e8),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 0.1, batch_size=0),
        VE,
        "batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.tasks.train.TrainOptions",
        lambda: train.TrainOptions(5, 0.1, seed=1.5),
        TE,
        "seed must be an integer ≥ 0, got 1.5",
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
        "xai_tf.artifacts.import_graph",
        lambda: artifacts.import_graph("torch"),
        VE,
        "modules must be dotted names inside xai_tf, got 'torch'",
    ),
    (
        "xai_tf.tasks.train.minibatches",
        lambda: train.minibatches(0, 4, 0),
        VE,
        "n must be an integer ≥ 1, got 0",
    ),
]


CHECKERS: dict = {}


PANELS: dict = {}
