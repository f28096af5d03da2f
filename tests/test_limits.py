"""``circuits.limits``' cost model reads a block's sizes through the protocol (issue 41), so it is right
for a Llama-style block (grouped-query attention: W_K and W_V are d × H_kv d_h each; SwiGLU: three
d × d_mlp matrices) as well as GPT-2's (12 d²). Checked against the weights the models hold: every
matrix a token is multiplied by is a 2-D parameter, counted here by ``torch`` with no formula."""

import pytest

from xai_tf.circuits.limits import forward_cost
from xai_tf.models.gpt2 import GPT2
from xai_tf.models.gpt2_config import GPT2Config
from xai_tf.models.llama import Llama
from xai_tf.models.llama_config import LlamaConfig
from xai_tf.models.loaded import LoadedModel


def _matrices(model) -> int:
    """Entries of every 2-D parameter (a tied unembedding is one parameter, counted once)."""
    return sum(p.numel() for p in model.parameters() if p.dim() == 2)


def test_gpt2_blocks_hold_12_d_squared_weights():
    c = GPT2Config(vocab_size=50, n_ctx=16, n_embd=32, n_layer=3, n_head=4)
    model = GPT2(c)
    per_block = (_matrices(model) - c.vocab_size * c.n_embd - c.n_ctx * c.n_embd) / c.n_layer
    assert model.sizes.block_weights == per_block == 12 * c.n_embd**2


@pytest.mark.parametrize("n_kv_head", [1, 2, 4])
@pytest.mark.parametrize(("head_dim", "tied"), [(None, False), (12, True)])
def test_llama_blocks_hold_their_gqa_and_swiglu_weights(n_kv_head, head_dim, tied):
    c = LlamaConfig(
        vocab_size=50,
        n_ctx=16,
        n_embd=32,
        n_layer=2,
        n_head=4,
        n_kv_head=n_kv_head,
        head_dim=head_dim,
        d_mlp=48,
        tie_word_embeddings=tied,
    )
    model = Llama(c)
    embeddings = (1 if tied else 2) * c.vocab_size * c.n_embd  # W_E, and W_U unless tied (RoPE has none)
    per_block = (_matrices(model) - embeddings) / c.n_layer
    assert model.sizes.block_weights == per_block
    if n_kv_head < c.n_head or head_dim is not None:
        assert per_block != 12 * c.n_embd**2  # GPT-2's rule would be wrong here


@pytest.mark.parametrize(
    ("model", "embeddings"),
    [
        (GPT2(GPT2Config(vocab_size=50, n_ctx=16, n_embd=32, n_layer=2, n_head=4)), 50 * 32 + 16 * 32),
        (
            Llama(
                LlamaConfig(vocab_size=50, n_ctx=16, n_embd=32, n_layer=2, n_head=4, n_kv_head=1, d_mlp=48)
            ),
            2 * 50 * 32,
        ),
    ],
    ids=["gpt2", "llama"],
)
def test_one_token_costs_two_flop_per_block_weight_plus_attention(model, embeddings):
    """T = 1 and no logits read: each weight of each block is one multiply and one add (counted from
    the parameters), and attention's Q Kᵀ and A V add 2 H d_h each per layer; batch scales it."""
    s, lm = model.sizes, LoadedModel(model, None, "tiny")
    _, flop = forward_cost(lm, batch=1, T=1, unembedded=0)
    assert flop == 2 * (_matrices(model) - embeddings) + 4 * s.n_layer * s.n_head * s.d_head
    assert forward_cost(lm, batch=3, T=1, unembedded=0)[1] == 3 * flop
