"""Bad-input probes for ``xai_tf.seeds`` (the one seed rule every lesson uses), collected by
``test_bad_inputs.py``."""

import os
import re

import numpy as np
import torch
from probe_kit import TE, VE

from xai_tf import seeds

EXEMPT: dict = {}

RAISES = [
    ("xai_tf.seeds.effective", lambda: seeds.effective(-1), VE, "seed must be an integer ≥ 0, got -1"),
    ("xai_tf.seeds.generator", lambda: seeds.generator(1.5), TE, "seed must be an integer ≥ 0, got 1.5"),
    ("xai_tf.seeds.numpy_rng", lambda: seeds.numpy_rng("0"), TE, "seed must be an integer ≥ 0, got '0'"),
    (
        "xai_tf.seeds.seeded",
        lambda: seeds.seeded(None).__enter__(),
        TE,
        "seed must be an integer ≥ 0, got None",
    ),
    (
        "xai_tf.seeds.manual_seed",
        lambda: seeds.manual_seed(True),
        TE,
        "seed must be an integer ≥ 0, got True",
    ),
]


def _offset(value: str, call=seeds.offset):
    """``call()`` with XAI_TF_SEED_OFFSET set to ``value`` (restored after)."""

    def run():
        old = os.environ.get(seeds.VARIABLE)
        os.environ[seeds.VARIABLE] = value
        try:
            return call()
        finally:
            os.environ.pop(seeds.VARIABLE) if old is None else os.environ.__setitem__(seeds.VARIABLE, old)

    return run


# issue 43: (name, call, error, message, the class of failure it probes).
ISSUE_43 = [
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(-2),
        VE,
        "seed must be an integer ≥ 0, got -2",
        "clear",
    ),
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(np.float64(1.0)),
        TE,
        "seed must be an integer ≥ 0",
        "clear",
    ),
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(torch.tensor(1)),
        TE,
        "seed must be an integer ≥ 0",
        "clear",
    ),
    (
        "xai_tf.seeds.effective",
        lambda: seeds.effective("1"),
        TE,
        "seed must be an integer ≥ 0, got '1'",
        "clear",
    ),
    (
        "xai_tf.seeds.effective",
        lambda: seeds.effective(None, "data_seed"),
        TE,
        "data_seed must be an integer ≥ 0, got None",
        "clear",
    ),
    (
        "xai_tf.seeds.effective",
        _offset("1.5", lambda: seeds.effective(0)),
        VE,
        "XAI_TF_SEED_OFFSET must be an integer (e.g. 3), got '1.5'",
        "clear",
    ),
    (
        "xai_tf.seeds.offset",
        _offset("x"),
        VE,
        "XAI_TF_SEED_OFFSET must be an integer (e.g. 3), got 'x'",
        "clear",
    ),
    ("xai_tf.seeds.offset", _offset("1e3"), VE, "XAI_TF_SEED_OFFSET must be an integer", "clear"),
    (
        "xai_tf.seeds.numpy_rng",
        lambda: seeds.numpy_rng(-1),
        VE,
        "seed must be an integer ≥ 0, got -1",
        "clear",
    ),
    (
        "xai_tf.seeds.numpy_rng",
        lambda: seeds.numpy_rng(True),
        TE,
        "seed must be an integer ≥ 0, got True",
        "clear",
    ),
    (
        "xai_tf.seeds.seeded",
        lambda: seeds.seeded(-4).__enter__(),
        VE,
        "seed must be an integer ≥ 0, got -4",
        "clear",
    ),
    (
        "xai_tf.seeds.seeded",
        lambda: seeds.seeded("a").__enter__(),
        TE,
        "seed must be an integer ≥ 0, got 'a'",
        "clear",
    ),
    (
        "xai_tf.seeds.manual_seed",
        lambda: seeds.manual_seed(-5),
        VE,
        "seed must be an integer ≥ 0, got -5",
        "clear",
    ),
    (
        "xai_tf.seeds.manual_seed",
        lambda: seeds.manual_seed(2.0),
        TE,
        "seed must be an integer ≥ 0, got 2.0",
        "clear",
    ),
]
# a device this machine lacks (torch's RuntimeError named neither the argument nor what is available)
MISSING = next(
    (
        d
        for d, have in (("cuda", torch.cuda.is_available()), ("mps", torch.backends.mps.is_available()))
        if not have
    ),
    None,
)
ISSUE_43 += [
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(0, device="gpu"),
        VE,
        "device 'gpu' is not a torch device",
        "raw",
    ),
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(0, device=None),
        TE,
        "device must be 'cpu', 'cuda'",
        "raw",
    ),
    (
        "xai_tf.seeds.generator",
        lambda: seeds.generator(0, device=0.5),
        TE,
        "device must be 'cpu', 'cuda'",
        "raw",
    ),
]
if MISSING is not None:
    ISSUE_43.append(
        (
            "xai_tf.seeds.generator",
            lambda: seeds.generator(0, device=MISSING),
            VE,
            f"device {MISSING!r} is not available on this machine, which has 'cpu'",
            "raw",
        )
    )
if torch.cuda.device_count() < 8:
    ISSUE_43.append(
        (
            "xai_tf.seeds.generator",
            lambda: seeds.generator(0, device=torch.device("cuda", 7)),
            VE,
            "device device(type='cuda', index=7) is not available on this machine",
            "raw",
        )
    )
RAISES += [row[:4] for row in ISSUE_43]
RAISES = [(name, call, error, re.escape(message)) for name, call, error, message in RAISES]

CHECKERS: dict = {}
PANELS: dict = {}
