"""Loading a Hugging Face checkpoint directory by its ``model_type`` (GPT-2, Llama, Mistral, Qwen2), with
the tokenizer it ships: what ``xai_tf.load_model(directory)`` and ``load_model("gpt2")`` (a directory of
the Hugging Face cache) run.

A directory holds ``config.json``, its weights as safetensors (one ``model.safetensors``, or shards
``model-0000i-of-0000n.safetensors`` listed in ``model.safetensors.index.json``) and its tokenizer:
GPT-2's vocabulary of 50,257 tokens is tiktoken's GPT-2 encoding (``tokenization.gpt2``, offline), any
other is the directory's ``tokenizer.json`` (``tokenizer_json.JSONTokenizer``; Llama and Mistral's open
every text with their beginning-of-sequence token). Weights are read from safetensors only (never
unpickled), one tensor at a time, and mapped by name onto our modules. ``LOADERS`` is the table of what
each ``model_type`` becomes; a new family adds one row. Every refusal is a ValueError that names the
directory and the file, option or tensor at fault.

    lm = load_directory("path/to/dir")      # a LoadedModel: a GPT2 or Llama in eval mode + its tokenizer
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from safetensors import safe_open
from torch import Tensor

from xai_tf.models import tokenization
from xai_tf.models.architecture import Architecture
from xai_tf.models.gpt2 import GPT2, GPT2Config
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.models.loaded import LoadedModel
from xai_tf.models.tokenizer_json import JSONTokenizer

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

CONFIG = "config.json"
WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
TOKENIZER = "tokenizer.json"


@dataclass(frozen=True)
class Loader:
    """How one ``model_type`` loads: its config.json read into our config, then our module built from
    the config and the ``(name, tensor)`` pairs of the checkpoint."""

    config: Callable[[Mapping[str, Any]], Any]
    build: Callable[[Any, Iterator[tuple[str, Tensor]]], Architecture]


#: What each Hugging Face ``model_type`` becomes (each family's biases: ``llama_config.BIASES``).
LOADERS: dict[str, Loader] = {
    "gpt2": Loader(GPT2Config.from_hf, partial(GPT2.from_state_dict, hf_layout=True)),
    "llama": Loader(LlamaConfig.from_hf, Llama.from_state_dict),
    "mistral": Loader(LlamaConfig.from_hf, Llama.from_state_dict),
    "qwen2": Loader(LlamaConfig.from_hf, Llama.from_state_dict),
}


def load_directory(directory: str | Path, name: str | None = None) -> LoadedModel:
    """The model of the Hugging Face checkpoint ``directory`` in eval mode with its tokenizer, named
    ``name`` (the directory's name when None); a ValueError naming the directory if it is not one, its
    ``model_type`` or an option is not supported, or its tensors do not fit its config."""
    if not isinstance(directory, (str, Path)):
        raise TypeError(f"directory must be a path to a checkpoint directory, got {type(directory).__name__}")
    root = Path(directory)
    if not (root / CONFIG).is_file():
        raise ValueError(f"directory {str(root)!r} is not a checkpoint: it has no {CONFIG}")
    try:
        hf = json.loads((root / CONFIG).read_text())
    except json.JSONDecodeError as err:
        raise ValueError(f"directory {str(root)!r}: {CONFIG} is not valid JSON ({err})") from err
    if not isinstance(hf, dict):
        raise ValueError(
            f"directory {str(root)!r}: {CONFIG} must hold a JSON object, got {type(hf).__name__}"
        )
    model_type = hf.get("model_type")
    if model_type not in LOADERS:
        raise ValueError(
            f"directory {str(root)!r}: {CONFIG} describes model_type {model_type!r}, which is not supported: "
            f"use one of {sorted(LOADERS)}"
        )
    loader, files = LOADERS[model_type], _weight_files(root)
    try:
        model = loader.build(loader.config(hf), _tensors(files))
    except KeyError as err:
        raise ValueError(f"directory {str(root)!r}: {CONFIG} lacks the key {err}") from err
    except ValueError as err:
        raise ValueError(f"directory {str(root)!r}: {err}") from err
    tokenizer = _tokenizer(root, model_type, model.sizes.vocab_size, hf.get("eos_token_id"))
    return LoadedModel(model, tokenizer, name or root.name)


def _tokenizer(root: Path, model_type: str, n_vocab: int, eos: int | list[int] | None) -> Any:
    """GPT-2's tiktoken encoding for GPT-2's vocabulary, else the directory's ``tokenizer.json``."""
    gpt2 = tokenization.gpt2()
    if model_type == "gpt2" and n_vocab == gpt2.n_vocab:
        return gpt2
    if not (root / TOKENIZER).is_file():
        gpt2_vocab = f"GPT-2's vocabulary of {gpt2.n_vocab} tokens or " if model_type == "gpt2" else ""
        raise ValueError(
            f"directory {str(root)!r} has no {TOKENIZER}: a vocabulary of {n_vocab} tokens needs "
            f"{gpt2_vocab}the tokenizer saved with the model (tokenizer.save_pretrained(directory))"
        )
    eot = eos[0] if isinstance(eos, list) and eos else eos  # several: decoding stops at the first
    try:
        return JSONTokenizer.from_file(root / TOKENIZER, n_vocab, eot if isinstance(eot, int) else None)
    except ValueError as err:
        raise ValueError(f"directory {str(root)!r}: {err}") from err


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


def _tensors(paths: Iterable[Path | Traversable]) -> Iterator[tuple[str, Tensor]]:
    """The ``(name, tensor)`` pairs of safetensors files, read one at a time (the one reader of weights:
    checkpoint directories here, the bundled models in ``hub.py``)."""
    for path in paths:
        with safe_open(str(path), framework="pt") as f:
            for name in f.keys():
                yield name, f.get_tensor(name)
