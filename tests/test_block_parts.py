"""Lesson 04's pre-LN block, parameter count and SwiGLU (issue 54's exercises in sections 4, 7 and 11.3),
each against Hugging Face transformers: its ``GPT2Block`` (eager attention), the parameters of a
``GPT2LMHeadModel`` built offline from a ``GPT2Config``, and its ``LlamaMLP``."""

import pytest
import torch
import transformers
from transformers.models.gpt2.modeling_gpt2 import GPT2Block
from transformers.models.llama.modeling_llama import LlamaMLP

from xai_tf.models import CONFIGS, GPT2Config
from xai_tf.models.gpt2 import GPT2
from xai_tf.transformer.blocks import parameter_counts
from xai_tf.transformer.modern import swiglu
from xai_tf.transformer.parameter_count import gpt2_parameter_count
from xai_tf.transformer.pre_ln import pre_ln_block


def test_pre_ln_block_is_hugging_faces_gpt2_block():
    """Block 0 of a random GPT-2 run by Hugging Face, against the two residual updates on its own sub-layers
    (eval mode: dropout off)."""
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_embd=32, n_head=4, n_layer=1, attn_implementation="eager")
    block = GPT2Block(config, layer_idx=0).eval()
    for ln in (block.ln_1, block.ln_2):  # away from γ = 1, β = 0, so that swapping them would show
        torch.nn.init.normal_(ln.weight, 1.0, 0.3)
        torch.nn.init.normal_(ln.bias, 0.0, 0.3)
    f = torch.randn(2, 7, 32)
    with torch.no_grad():
        want = block(f)
        want = want[0] if isinstance(want, tuple) else want
        got = pre_ln_block(f, block.ln_1, lambda u: block.attn(u)[0], block.ln_2, block.mlp)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("D", "n_ctx", "d_e", "L"), [(97, 16, 8, 2), (300, 64, 48, 3), (50_257, 24, 16, 1)])
def test_parameter_count_is_what_a_hugging_face_gpt2_holds(D, n_ctx, d_e, L):
    """``parameters()`` lists the tied W_e once, as the formula counts it."""
    config = transformers.GPT2Config(vocab_size=D, n_positions=n_ctx, n_embd=d_e, n_layer=L, n_head=4)
    model = transformers.GPT2LMHeadModel(config)
    assert model.lm_head.weight is model.transformer.wte.weight
    assert gpt2_parameter_count(D, n_ctx, d_e, L) == sum(p.numel() for p in model.parameters())
    ours = GPT2(GPT2Config(vocab_size=D, n_ctx=n_ctx, n_embd=d_e, n_layer=L, n_head=4))
    assert gpt2_parameter_count(D, n_ctx, d_e, L) == sum(p.numel() for p in ours.parameters())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_parameter_count_of_the_four_sizes_is_the_count_by_part(name):
    c = CONFIGS[name]
    assert gpt2_parameter_count(c.vocab_size, c.n_ctx, c.n_embd, c.n_layer) == parameter_counts(c)["total"]


def test_gpt2_small_has_124_439_808_parameters():
    assert gpt2_parameter_count(50_257, 1024, 768, 12) == 124_439_808


def test_swiglu_is_hugging_faces_llama_mlp():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        hidden_size=16, intermediate_size=40, num_attention_heads=4, num_key_value_heads=4, hidden_act="silu"
    )
    mlp = LlamaMLP(config)
    u = torch.randn(3, 5, 16)
    with torch.no_grad():
        want = mlp(u)
        got = swiglu(u, mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj.weight)
    torch.testing.assert_close(got, want)
