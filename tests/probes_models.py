"""Bad-input probes for the model registry every lesson loads from (``xai_tf.models``: the hub,
the loaded-model protocol, GPT2Config), collected by ``test_bad_inputs.py``."""

from probe_kit import TE, VE, lm

import xai_tf
from xai_tf.models import GPT2Config, as_model, causal, summary

EXEMPT: dict = {}


RAISES = [
    # models
    ("xai_tf.models.hub.load_model", lambda: xai_tf.load_model("gtp2"), VE, "unknown model 'gtp2'"),
    (
        "xai_tf.models.loaded.as_model",
        lambda: as_model("gpt2"),
        TE,
        "model must be a model from xai_tf.load_model",
    ),
    ("xai_tf.models.loaded.causal", lambda: causal(lm(), 3), TE, "task must be a string"),
    (
        "xai_tf.models.summary.module_tree",
        lambda: summary.module_tree(lm(), max_depth=-1),
        VE,
        "max_depth must be an integer",
    ),
    (
        "xai_tf.models.summary.format_tree",
        lambda: summary.format_tree([("h", 1)]),
        TE,
        "rows must be a list of ModuleRow",
    ),
    # tasks
    (
        "xai_tf.models.gpt2_config.GPT2Config",
        lambda: GPT2Config(n_embd=10, n_head=3),
        VE,
        "n_embd=10 must be divisible by n_head=3",
    ),
    (
        "xai_tf.models.gpt2_config.GPT2Config",
        lambda: GPT2Config(gelu="relu"),
        VE,
        "gelu 'relu' is not supported",
    ),
]


CHECKERS: dict = {}


PANELS: dict = {}
