"""Kobayashi et al.'s norm-based reading (``xai_tf.explain.norm_based``, lesson 07) against brute force in
float64 from Hugging Face's own modules: α from ``output_attentions``, the values v_j = x_j W^V + b^V from
a forward hook on the value projection, W^O_h sliced from the output projection's weight, and
‖α_ij f(x_j)‖ computed entry by entry in numpy. GPT-2, BERT and a grouped-query Llama, each with every
bias drawn at random (Hugging Face initialises them to 0, which would hide a forgotten b^V)."""

import copy

import numpy as np
import pytest
import torch
import transformers
from conftest import random_hf_gpt2
from references import tiny_bert

from xai_tf.explain import norm_based as nb
from xai_tf.models import GPT2, BertEncoder, LoadedModel
from xai_tf.models.llama import Llama


def _random_biases(hf: torch.nn.Module) -> torch.nn.Module:
    gen = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for name, p in hf.named_parameters():
            if name.endswith("bias"):
                p.copy_(torch.randn(p.shape, generator=gen, dtype=p.dtype))
    return hf.double()


def _brute_force(attn: np.ndarray, v: np.ndarray, W_O: np.ndarray) -> np.ndarray:
    """‖α_ij f(x_j)‖ with f(x_j) = v_j W^O_h, one entry at a time: attn [H, T, T], v [H, T, d_h],
    W_O [H, d_h, d]."""
    H, T, _ = attn.shape
    out = np.zeros((H, T, T))
    for h in range(H):
        for i in range(T):
            for j in range(T):
                out[h, i, j] = np.linalg.norm(attn[h, i, j] * (v[h, j] @ W_O[h]))
    return out


def _values_hook(store: list, H_kv: int, d_h: int):
    def hook(_module, _inputs, output):
        T = output.size(1)
        store.append(output[0, :, -H_kv * d_h :].reshape(T, H_kv, d_h).transpose(0, 1).numpy())

    return hook


def _gpt2():
    hf = _random_biases(random_hf_gpt2(1, vocab_size=80, n_positions=32, n_embd=24, n_layer=2, n_head=3))
    d, H = 24, 3
    d_h = d // H
    values: list = []
    for block in hf.transformer.h:  # c_attn's output is [q | k | v]; v is the last d columns
        block.attn.c_attn.register_forward_hook(_values_hook(values, H, d_h))
    # Conv1D computes x W + b with W [in, out]: head h's W^O is rows h d_h .. (h + 1) d_h
    W_O = [b.attn.c_proj.weight.detach().view(H, d_h, d).numpy() for b in hf.transformer.h]
    ours = LoadedModel(GPT2.from_hf(hf).double(), None, "tiny-gpt2")
    return hf, ours, values, W_O, H


def _bert():
    hf = _random_biases(tiny_bert())
    d, H = 32, 4
    d_h = d // H
    values: list = []
    for layer in hf.encoder.layer:
        layer.attention.self.value.register_forward_hook(_values_hook(values, H, d_h))
    # nn.Linear computes x Wᵀ + b with W [out, in]: head h's W^O is W[:, h d_h .. (h + 1) d_h]ᵀ
    W_O = [
        layer.attention.output.dense.weight.detach().T.reshape(H, d_h, d).numpy()
        for layer in hf.encoder.layer
    ]
    return hf, LoadedModel(BertEncoder(hf), None, "tiny-bert"), values, W_O, H


def _llama():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=48,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
        attention_bias=True,
        tie_word_embeddings=False,
        attn_implementation="eager",
    )
    hf = _random_biases(transformers.LlamaForCausalLM(config).eval())
    d, H, H_kv, d_h = 32, 4, 2, 8
    values: list = []
    for layer in hf.model.layers:
        layer.self_attn.v_proj.register_forward_hook(_values_hook(values, H_kv, d_h))
    W_O = [layer.self_attn.o_proj.weight.detach().T.reshape(H, d_h, d).numpy() for layer in hf.model.layers]
    return hf, LoadedModel(Llama.from_hf(hf).double(), None, "tiny-llama"), values, W_O, H


@pytest.mark.parametrize("build", [_gpt2, _bert, _llama], ids=["gpt2", "bert", "llama-gqa"])
def test_norms_match_brute_force_from_hugging_face(build):
    hf, ours, values, W_O, H = build()
    ids = torch.randint(0, 50, (1, 9), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        attentions = hf(ids, output_attentions=True).attentions
    result = nb.norm_based(ours, ids[0])
    assert result.norms.dtype == torch.float64
    for layer, attn in enumerate(attentions):
        alpha = attn[0].numpy()
        v = np.repeat(values[layer], H // values[layer].shape[0], axis=0)  # a key/value head per query head
        want = _brute_force(alpha, v, W_O[layer])
        # 1e-6, not float64's 1e-12: Hugging Face's Llama keeps RoPE's frequencies in float32 (3e-8 in α)
        assert np.abs(result.attn[layer].numpy() - alpha).max() <= 1e-6
        assert np.abs(result.norms[layer].numpy() - want).max() <= 1e-6 * (1 + np.abs(want).max())
        f_norms = np.linalg.norm(v @ W_O[layer], axis=-1)
        assert np.abs(result.f_norms[layer].numpy() - f_norms).max() <= 1e-6 * (1 + f_norms.max())


def test_the_hooks_read_the_protocols_head_weights_on_the_bundled_model(bundled):
    """A causal model's W^O comes from ``CausalLM.head_weights(l).W_O``, an encoder's from the hooks: on the
    bundled model both give the same matrices (the brute-force test covers each path on its own)."""
    W_O = nb.hook_projections(bundled)
    assert torch.equal(
        nb.output_projections(bundled),
        torch.stack([bundled.model.head_weights(layer).W_O for layer in range(bundled.n_layer)]),
    )
    for layer in range(bundled.n_layer):
        want = bundled.model.head_weights(layer).W_O
        assert (W_O[layer] - want).abs().max() <= 1e-5 * (1 + want.abs().max())


def test_the_bundled_model_in_float32_agrees_with_its_float64_copy_to_1e5(bundled):
    """The lesson's precision: the bundled model as loaded (float32) against a float64 copy of it."""
    ids = bundled.encode("ROMEO.\nBut soft, what light through yonder window breaks?")
    lm64 = LoadedModel(copy.deepcopy(bundled.model).double(), None, "bundled-float64")
    got, want = nb.norm_based(bundled, ids), nb.norm_based(lm64, ids)
    assert got.norms.dtype == torch.float32 and want.norms.dtype == torch.float64
    assert (got.norms.double() - want.norms).abs().max() <= 1e-5 * (1 + want.norms.abs().max())


def test_weighted_norms_follow_the_formula_and_the_layer_output():
    """Σ_h Σ_j α_ij f_h(x_j) + b^O is the attention output (hook ``attn_out``), and ‖·‖ of each term is
    ``weighted_norms``: the decomposition the reading rests on, on a random GPT-2."""
    hf, ours, values, W_O, H = _gpt2()
    ids = torch.tensor([[3, 17, 42, 5, 9, 11]])
    _, cache = ours.run_with_cache(ids)
    W = nb.output_projections(ours)
    for layer in range(2):
        attn, v = cache["attn", layer][0], cache["v", layer][0]
        terms = attn[..., None] * (v @ W[layer])[:, None, :, :]  # α_ij f_h(x_j) [H, T, T, d]
        bias = hf.transformer.h[layer].attn.c_proj.bias.detach()
        assert (terms.sum((0, 2)) + bias - cache["attn_out", layer][0]).abs().max() <= 1e-10
        got = nb.weighted_norms(attn, v, W[layer])
        assert (got - terms.norm(dim=-1)).abs().max() <= 1e-10


def test_column_share_of_attention_is_the_attention_to_those_tokens():
    gen = torch.Generator().manual_seed(0)
    attn = torch.randn(2, 3, 5, 5, generator=gen, dtype=torch.float64).softmax(-1)
    assert torch.allclose(nb.column_share(attn, [0, 4]), attn[..., [0, 4]].sum(-1).mean(-1))
    norms = attn * torch.rand(2, 3, 1, 5, generator=gen, dtype=torch.float64)
    rows = [norms[..., i, [1]].sum(-1) / norms[..., i, :].sum(-1) for i in range(5)]
    by_hand = torch.stack(rows, -1).mean(-1)
    assert torch.allclose(nb.column_share(norms, [1]), by_hand)
