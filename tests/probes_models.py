"""Bad-input probes for the model registry every lesson loads from (``xai_tf.models``: the hub,
the loaded-model protocol, GPT2Config), collected by ``test_bad_inputs.py``."""

from functools import cache
from pathlib import Path

import torch
from probe_kit import TE, VE, lm

import xai_tf
from xai_tf.models import GPT2Config, Sizes, as_model, causal, summary
from xai_tf.models.architecture import check_embeddings, check_token_ids
from xai_tf.models.hub import lesson_model

EXEMPT: dict[str, str] = {}


@cache
def _llama() -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare_llama")


SIZES = Sizes(
    n_layer=1, n_head=1, d_model=4, n_ctx=8, vocab_size=10, n_kv_head=1, d_head=4, d_mlp=16, gated=False
)


RAISES = [
    (
        "xai_tf.models.architecture.check_token_ids",
        lambda: check_token_ids([], SIZES, torch.device("cpu")),
        VE,
        "input_ids is empty",
    ),
    (
        "xai_tf.models.architecture.check_token_ids",
        lambda: check_token_ids([1, 2, 3], SIZES, torch.device("cpu"), start=6),
        VE,
        r"the prompt has 3 tokens after 6 cached ones but the context holds 1..8",
    ),
    (
        "xai_tf.models.architecture.check_token_ids",
        lambda: check_token_ids([1, 10], SIZES, torch.device("cpu")),
        VE,
        r"input_ids must lie in 0..9",
    ),
    (
        "xai_tf.models.architecture.check_embeddings",
        lambda: check_embeddings(torch.zeros(1, 9, 4), SIZES),
        VE,
        r"token_embeddings must be \[batch, T, 4\] with T in 1..8, got \(1, 9, 4\)",
    ),
    (  # through GPT2.readout, the protocol's; position T wrapped round to 0
        "xai_tf.models.gpt2.GPT2",
        lambda: lm().model.readout(torch.zeros(1, 3, lm().model.sizes.d_model), 3),
        VE,
        r"position must be an integer in -3..2, got 3",
    ),
    (
        "xai_tf.models.gpt2.GPT2",
        lambda: lm().model.readout(torch.zeros(1, 3, lm().model.sizes.d_model), -4),
        VE,
        r"position must be an integer in -3..2, got -4",
    ),
    (
        "xai_tf.models.llama.Llama",
        lambda: _llama().model.readout(torch.zeros(1, 3, _llama().model.sizes.d_model), 3),
        VE,
        r"position must be an integer in -3..2, got 3",
    ),
    # models
    ("xai_tf.models.hub.load_model", lambda: xai_tf.load_model("gtp2"), VE, "unknown model 'gtp2'"),
    ("xai_tf.models.hub.lesson_model", lambda: lesson_model(None), TE, "default must be a model name"),
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

# issue 43: load_model(None) was a raw TypeError from pathlib, a missing device torch's RuntimeError
LOAD = "xai_tf.models.hub.load_model"
RAISES += [
    (
        LOAD,
        lambda: xai_tf.load_model(None),
        TE,
        r"name must be a model name \(auto, shakespeare, shakespeare_llama, gpt2",
    ),
    (LOAD, lambda: xai_tf.load_model(2), TE, r"or a directory path, got 2: leave it out for 'auto'"),
    (LOAD, lambda: xai_tf.load_model(Path("/nonexistent/gpt2")), VE, "unknown model '/nonexistent/gpt2'"),
    (LOAD, lambda: xai_tf.load_model("shakespeare", device=None), TE, "device must be 'cpu', 'cuda'"),
    (LOAD, lambda: xai_tf.load_model("shakespeare", device="gpu"), VE, "device 'gpu' is not a torch device"),
]
if not torch.cuda.is_available():
    RAISES.append(
        (
            LOAD,
            lambda: xai_tf.load_model("shakespeare", device="cuda"),
            VE,
            "device 'cuda' is not available on this machine, which has 'cpu'",
        )
    )


# Issue 58: a prompt that is not a str is named as such, not called "empty".
RAISES += [
    (
        "xai_tf.models.loaded.LoadedModel",
        lambda: lm().encode(["to be"]),
        TE,
        "prompt must be a str, the text to encode; got list",
    ),
]
