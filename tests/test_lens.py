import pytest
import torch
from conftest import random_hf_gpt2

from xai_tf.explain.lens import logit_lens, logit_lens_top
from xai_tf.models import GPT2


@pytest.fixture(scope="module", params=[True, False], ids=["tied", "untied"])
def pair(request):
    """GPT-2's tied unembedding, and a checkpoint with its own lm_head (W_U ≠ W_E)."""
    hf = random_hf_gpt2(
        1, vocab_size=80, n_positions=24, n_embd=48, n_layer=3, n_head=4, tie_word_embeddings=request.param
    )
    return hf, GPT2.from_hf(hf)


@pytest.mark.parametrize("position", [-1, 0, 4])
def test_logit_lens_matches_transformers_hidden_states(pair, position):
    """transformers' hidden_states[l] is the stream entering block l (l < L); its last entry has
    already been through ln_f, so only the lm_head is applied to it."""
    hf, ours = pair
    ids = [5, 9, 2, 77, 31, 8]
    with torch.no_grad():
        states = hf(torch.tensor([ids]), output_hidden_states=True).hidden_states
        want = [hf.lm_head(hf.transformer.ln_f(h[0, position])) for h in states[:-1]]
        want.append(hf.lm_head(states[-1][0, position]))
    got = logit_lens(ours, ids, position)
    assert got.shape == (4, 80)
    torch.testing.assert_close(got, torch.stack(want), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got[-1], ours(ids)[0, position])


def test_logit_lens_top_ranks_each_layer(pair):
    ids, probs = logit_lens_top(pair[1], [1, 2, 3], k=4)
    assert ids.shape == probs.shape == (4, 4) and (probs[:, :-1] >= probs[:, 1:]).all()
    full = logit_lens(pair[1], [1, 2, 3]).softmax(-1)
    torch.testing.assert_close(probs, full.gather(1, ids))


@pytest.mark.parametrize(("position", "k"), [(3, 5), (-4, 5), (0, 0), (0, 81)])
def test_bad_lens_arguments(pair, position, k):
    with pytest.raises(ValueError, match=r"position in -3..2|k must be an integer in 1..80"):
        logit_lens_top(pair[1], [1, 2, 3], k=k, position=position)
