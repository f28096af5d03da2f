"""What every bad-input probe table (each lesson's ``probes_<topic>.py``, collected by
``test_bad_inputs.py``) uses: the bundled model, a tiny random GPT-2, seeded tensors, and short names for
the two errors."""

from functools import cache

import torch
from conftest import random_hf_gpt2

import xai_tf
from xai_tf.models import GPT2


@cache
def lm() -> xai_tf.LoadedModel:
    return xai_tf.load_model("shakespeare")


@cache
def tiny() -> GPT2:
    return GPT2.from_hf(random_hf_gpt2(0, vocab_size=50, n_positions=16, n_embd=16, n_layer=2, n_head=2))


def z(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


NAN = float("nan")
VE, TE = ValueError, TypeError
