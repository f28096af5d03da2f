import pytest
import torch
from conftest import random_hf_gpt2

from xai_tf.decoding import generate, greedy, next_token_probs, top_next_tokens
from xai_tf.models import GPT2


@pytest.fixture(scope="module")
def pair():
    hf = random_hf_gpt2(0, vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2)
    return hf, GPT2.from_hf(hf)


def test_next_token_probs_is_softmax_of_the_last_logits(pair):
    hf, ours = pair
    ids = [3, 1, 4, 1, 5]
    with torch.no_grad():
        want = hf(torch.tensor([ids])).logits[0, -1].softmax(-1)
    torch.testing.assert_close(next_token_probs(ours, ids), want, atol=1e-6, rtol=1e-5)
    top_ids, top_p = top_next_tokens(ours, ids, 5)
    assert top_ids.tolist() == want.argsort(descending=True)[:5].tolist()
    assert (top_p[:-1] >= top_p[1:]).all()


@pytest.mark.parametrize("k", [0, 101])
def test_top_k_out_of_range(pair, k):
    with pytest.raises(ValueError, match=r"k must lie in 1..100"):
        top_next_tokens(pair[1], [1, 2], k)


def test_sampling_is_seeded_and_top_1_is_greedy(pair):
    _, ours = pair
    a = generate(ours, [1, 2, 3], 15, seed=7)
    assert a == generate(ours, [1, 2, 3], 15, seed=7) and len(a) == 18
    assert generate(ours, [1, 2, 3], 15, top_k=1, seed=1) == greedy(ours, [1, 2, 3], 15)
    assert len(generate(ours, [1], 40, seed=0)) == 41  # longer than the context: cropped, not an error


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(temperature=0), "temperature must be > 0"),
        (dict(temperature=-1.0), "temperature must be > 0"),
        (dict(top_k=0), r"top_k must lie in 1..100"),
        (dict(max_new_tokens=-1), "max_new_tokens must be ≥ 0"),
    ],
)
def test_bad_sampling_arguments(pair, kwargs, message):
    args = dict(max_new_tokens=3) | kwargs
    with pytest.raises(ValueError, match=message):
        generate(pair[1], [1, 2], **args)
