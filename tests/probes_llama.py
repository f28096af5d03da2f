"""Bad-input probes for the Llama-family model and the checkpoint loader (``xai_tf.models.llama``,
``llama_config``, ``checkpoints``), collected by ``test_bad_inputs.py``."""

import tempfile
from pathlib import Path

from probe_kit import TE, VE, z

from xai_tf.models.checkpoints import load_directory
from xai_tf.models.llama_config import LlamaConfig
from xai_tf.models.rope import rotary, rotation

EXEMPT: dict = {}

RAISES = [
    (
        "xai_tf.models.rope.rotation",
        lambda: rotation(7, 1e4, 2),
        VE,
        r"x must be \[..., T, d_h\] with d_h even",
    ),
    (
        "xai_tf.models.rope.rotary",
        lambda: rotary(z(1, 2, 5, 7), z(5).long(), 1e4),
        VE,
        r"x must be \[..., T, d_h\] with d_h even and positions \[T\], got \(1, 2, 5, 7\) and \(5,\)",
    ),
    (
        "xai_tf.models.rope.rotary",
        lambda: rotary(z(1, 2, 5, 8), z(4).long(), 1e4),
        VE,
        "positions",
    ),
    ("xai_tf.models.rope.rotary", lambda: rotary(z(1, 2, 5, 8), z(5).long(), 0.0), VE, "theta must be"),
    (
        "xai_tf.models.llama_config.LlamaConfig",
        lambda: LlamaConfig(n_head=4, n_kv_head=3),
        VE,
        "n_kv_head=3 must divide n_head=4",
    ),
    (
        "xai_tf.models.llama_config.LlamaConfig",
        lambda: LlamaConfig(n_embd=10, n_head=4, n_kv_head=4),
        VE,
        "n_embd=10 must be divisible by n_head=4",
    ),
    (
        "xai_tf.models.llama_config.LlamaConfig",
        lambda: LlamaConfig(n_head=4, n_kv_head=4, head_dim=5),
        VE,
        "the head size 5 must be even",
    ),
    ("xai_tf.models.checkpoints.load_directory", lambda: load_directory(3), TE, "directory must be a path"),
    (
        "xai_tf.models.checkpoints.load_directory",
        lambda: load_directory("/nonexistent"),
        VE,
        "'/nonexistent' is not a checkpoint: it has no config.json",
    ),
]

CHECKERS: dict = {}

PANELS: dict = {}


def _directory_with_config(text: str) -> str:
    root = Path(tempfile.mkdtemp(prefix="probe_checkpoint_"))
    (root / "config.json").write_text(text)
    return str(root)


# Issue 58: a config.json that is not a JSON object is named, not met by .get on a list.
RAISES += [
    (
        "xai_tf.models.checkpoints.load_directory",
        lambda: load_directory(_directory_with_config("[1, 2]")),
        VE,
        "config.json must hold a JSON object, got list",
    ),
]
