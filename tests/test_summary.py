"""xai_tf.models.summary (lesson 04's architecture view) against Hugging Face's own GPT-2: the same
module names (``h.0.attn.c_attn`` …), the same parameter shapes (Hugging Face's ``Conv1D`` stores
its weight in × out, ours out × in as ``nn.Linear``: compared transposed), and a root count equal to
transformers' ``num_parameters()`` (the tied unembedding counted once)."""

import pytest
import torch
from conftest import random_hf_gpt2

from xai_tf.models import GPT2
from xai_tf.models.summary import format_tree, module_tree


@pytest.fixture(scope="module")
def pair():
    hf = random_hf_gpt2(seed=0, n_layer=2, n_head=2, n_embd=16, n_positions=24, vocab_size=50)
    return hf, GPT2.from_hf(hf)


def test_names_shapes_and_counts_match_hugging_face(pair):
    hf, ours = pair
    rows = {r.name: r for r in module_tree(ours, max_depth=4)}
    theirs = dict(hf.transformer.named_modules())
    for name in (
        "wte",
        "wpe",
        "h.0",
        "h.0.attn",
        "h.0.attn.c_attn",
        "h.0.attn.c_proj",
        "h.1.mlp.c_fc",
        "ln_f",
    ):
        want = sum(p.numel() for p in theirs[name].parameters())
        assert rows[name].count == want, name
        conv1d = type(theirs[name]).__name__ == "Conv1D"
        own = {
            k: tuple(p.shape)[::-1] if conv1d and p.dim() == 2 else tuple(p.shape)
            for k, p in theirs[name].named_parameters(recurse=False)
        }
        assert rows[name].shapes == own, name
    assert rows[""].count == hf.num_parameters()
    assert rows[""].depth == 0 and rows["h.0.attn.c_attn"].depth == 4


def test_depth_limit_and_text(pair):
    _, ours = pair
    rows = module_tree(ours, max_depth=1)
    assert max(r.depth for r in rows) == 1 and {r.name for r in rows} >= {"", "wte", "h", "ln_f"}
    text = format_tree(rows)
    assert text.splitlines()[0].startswith("(model)") and "weight [50, 16]" in text
    with pytest.raises(TypeError, match="model must be a model from xai_tf.load_model"):
        module_tree(torch.nn.Linear(2, 2))
