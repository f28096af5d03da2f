"""Shared fixtures. Tests never touch the network: the Hugging Face hub is put in offline mode
before anything imports huggingface_hub."""

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402

import xai_tf  # noqa: E402

transformers.logging.set_verbosity_error()


def random_hf_gpt2(seed: int = 0, **sizes) -> transformers.GPT2LMHeadModel:
    """A randomly initialised Hugging Face GPT-2 with eager attention, in eval mode."""
    torch.manual_seed(seed)
    config = transformers.GPT2Config(attn_implementation="eager", **sizes)
    return transformers.GPT2LMHeadModel(config).eval()


@pytest.fixture(scope="session")
def bundled() -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare")


@pytest.fixture(scope="session")
def minilm() -> xai_tf.LoadedModel:
    return xai_tf.load_model("minilm")
