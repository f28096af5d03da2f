"""Loading a Hugging Face checkpoint directory by its ``model_type`` (GPT-2, Llama, Mistral, Qwen2).

A directory holds ``config.json`` and its weights as safetensors: one ``model.safetensors``, or shards
``model-0000i-of-0000n.safetensors`` listed in ``model.safetensors.index.json``. Weights are read from
safetensors only (never unpickled), one tensor at a time, and mapped by name onto our modules.
``LOADERS`` is the table of what each ``model_type`` becomes; a new family adds one row.

    model = load_checkpoint("path/to/dir")      # a GPT2 or Llama in eval mode
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from safetensors import safe_open
from torch import Tensor, nn

from xai_tf.models.gpt2 import GPT2, GPT2Config
from xai_tf.models.llama import Llama, LlamaConfig

WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"


@dataclass(frozen=True)
class Loader:
    """How one ``model_type`` loads: its config.json read into our config, then our module built from
    the config and the ``(name, tensor)`` pairs of the checkpoint."""

    config: Callable[[Mapping[str, Any]], Any]
    build: Callable[[Any, Iterator[tuple[str, Tensor]]], nn.Module]


#: What each Hugging Face ``model_type`` becomes (Qwen2's q, k, v always have biases, its W_O none).
LOADERS: dict[str, Loader] = {
    "gpt2": Loader(GPT2Config.from_hf, partial(GPT2.from_state_dict, hf_layout=True)),
    "llama": Loader(LlamaConfig.from_hf, Llama.from_state_dict),
    "mistral": Loader(LlamaConfig.from_hf, Llama.from_state_dict),
    "qwen2": Loader(partial(LlamaConfig.from_hf, qkv_bias=True), Llama.from_state_dict),
}


def load_checkpoint(directory: str | Path) -> nn.Module:
    """The model of a Hugging Face checkpoint ``directory`` (``config.json`` + safetensors weights) in
    eval mode; a ValueError if it is not one, or its ``model_type`` or an option is not supported."""
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path to a checkpoint directory, got {type(directory).__name__}")
    root = Path(directory)
    if not (root / "config.json").is_file():
        raise ValueError(f"directory {str(root)!r} is not a checkpoint: it has no config.json")
    hf = json.loads((root / "config.json").read_text())
    model_type = hf.get("model_type")
    if model_type not in LOADERS:
        raise ValueError(f"model_type {model_type!r} is not supported: use one of {sorted(LOADERS)}")
    loader = LOADERS[model_type]
    return loader.build(loader.config(hf), _tensors(_weight_files(root)))


def _weight_files(root: Path) -> list[Path]:
    """The safetensors files of checkpoint ``root``: its shards in index order, or ``model.safetensors``."""
    if (root / INDEX).is_file():
        weight_map = json.loads((root / INDEX).read_text())["weight_map"]
        shards = [root / name for name in dict.fromkeys(weight_map.values())]
        missing = [p.name for p in shards if not p.is_file()]
        if missing:
            raise ValueError(f"directory {str(root)!r} lacks the shards {missing} that {INDEX} lists")
        return shards
    if (root / WEIGHTS).is_file():
        return [root / WEIGHTS]
    raise ValueError(
        f"directory {str(root)!r} has no {WEIGHTS} or {INDEX} (weights load from safetensors only)"
    )


def _tensors(paths: list[Path]) -> Iterator[tuple[str, Tensor]]:
    """The ``(name, tensor)`` pairs of safetensors files, read one at a time."""
    for path in paths:
        with safe_open(str(path), framework="pt") as f:
            for name in f.keys():
                yield name, f.get_tensor(name)
