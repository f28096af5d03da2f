"""Shared fixtures. Tests never touch the network: the Hugging Face hub is put in offline mode
before anything imports huggingface_hub."""

import os
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.pop(
    "XAI_TF_MODEL", None
)  # "auto" means the default model in every test (test_load_directory sets it)

import pytest  # noqa: E402
import torch  # noqa: E402
import transformers  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402

import xai_tf  # noqa: E402

transformers.logging.set_verbosity_error()


def random_hf_gpt2(seed: int = 0, **sizes) -> transformers.GPT2LMHeadModel:
    """A randomly initialised Hugging Face GPT-2 with eager attention, in eval mode."""
    torch.manual_seed(seed)
    config = transformers.GPT2Config(attn_implementation="eager", **sizes)
    return transformers.GPT2LMHeadModel(config).eval()


def save_word_tokenizer(directory: Path, n: int) -> None:
    """A ``tokenizer.json`` of ``n`` words "w0".."w{n-1}" split at whitespace, beside a checkpoint whose
    vocabulary has ``n`` ids (its ids are what the tests feed; the words only make it a tokenizer)."""
    tokenizer = Tokenizer(models.WordLevel({f"w{i}": i for i in range(n)}, unk_token="w0"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.save(str(directory / "tokenizer.json"))


@pytest.fixture(scope="session")
def bundled() -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare")


@pytest.fixture(scope="session")
def minilm() -> xai_tf.LoadedModel:
    return xai_tf.load_model("minilm")


#: Every claim test (``@pytest.mark.claims``, seeds from ``tests/claims.py``) runs once at the default
#: seeds and once more with every seed shifted past them, as on another machine. The numerics matrix
#: (``scripts/numerics_matrix.py``) narrows this with ``XAI_TF_CLAIM_OFFSETS`` (comma-separated).
CLAIM_OFFSETS = tuple(int(o) for o in os.environ.get("XAI_TF_CLAIM_OFFSETS", "0,5").split(","))


@pytest.fixture(autouse=True)
def claim_offset(request, monkeypatch):
    """The XAI_TF_SEED_OFFSET a claim test runs under (None for other tests: the environment's)."""
    offset = getattr(request, "param", None)
    if offset is not None:
        monkeypatch.setenv("XAI_TF_SEED_OFFSET", str(offset))
    return offset


def pytest_collection_modifyitems(items):
    """Every claim test is rounding-sensitive: ``make test-numerics`` runs it under the whole matrix."""
    for item in items:
        if item.get_closest_marker("claims"):
            item.add_marker(pytest.mark.numerics)


def pytest_generate_tests(metafunc):
    if metafunc.definition.get_closest_marker("claims"):
        metafunc.parametrize("claim_offset", CLAIM_OFFSETS, indirect=True, ids=lambda o: f"offset{o}")
