import pytest
import torch
from conftest import random_hf_gpt2
from scipy.stats import chisquare

from xai_tf.decoding import (
    generate,
    greedy,
    next_token_probs,
    sample_next_token,
    top_k_filter,
    top_next_tokens,
    top_p_filter,
)
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
        (dict(top_p=0.0), r"top_p must lie in \(0, 1\]"),
        (dict(max_new_tokens=-1), "max_new_tokens must be ≥ 0"),
    ],
)
def test_bad_sampling_arguments(pair, kwargs, message):
    args = dict(max_new_tokens=3) | kwargs
    with pytest.raises(ValueError, match=message):
        generate(pair[1], [1, 2], **args)


def test_top_k_keeps_exactly_k_with_ties_to_the_lower_id():
    logits = torch.tensor([[1.0, 2.0, 2.0, 2.0, 0.0], [5.0, 4.0, 3.0, 2.0, 1.0]])
    kept = top_k_filter(logits, 2)
    assert torch.isfinite(kept).sum(-1).tolist() == [2, 2]
    assert torch.isfinite(kept[0]).tolist() == [False, True, True, False, False]
    assert torch.equal(kept[1, :2], logits[1, :2]) and (kept[1, 2:] == float("-inf")).all()
    assert torch.equal(top_k_filter(logits, 5), logits)


@pytest.mark.parametrize(
    ("p", "kept"),
    [
        (1e-6, [0]),
        (0.5, [0]),
        (0.5001, [0, 1]),
        (0.8, [0, 1]),
        (0.8001, [0, 1, 2]),
        (1.0, [0, 1, 2, 3]),
    ],
)
def test_top_p_keeps_the_smallest_set_reaching_p(p, kept):
    logits = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
    out = top_p_filter(logits, p)
    assert torch.isfinite(out).nonzero().flatten().tolist() == kept
    assert torch.equal(out[kept], logits[kept])


@pytest.mark.parametrize(
    ("fn", "arg", "message"),
    [
        (top_k_filter, 0, r"k must lie in 1..4"),
        (top_k_filter, 5, r"k must lie in 1..4"),
        (top_p_filter, 0.0, r"p must lie in \(0, 1\]"),
        (top_p_filter, 1.5, r"p must lie in \(0, 1\]"),
    ],
)
def test_filter_arguments_out_of_range(fn, arg, message):
    with pytest.raises(ValueError, match=message):
        fn(torch.zeros(4), arg)


@pytest.mark.parametrize("temperature", [1.0, 0.5, 2.0])
def test_sampling_frequencies_match_the_distribution(temperature):
    """Pearson's chi-square test of 20,000 seeded draws against softmax(z / τ) (fixed seed, so the
    outcome is deterministic; a wrong distribution gives p-values far below 1e-3)."""
    logits = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
    gen = torch.Generator().manual_seed(0)
    draws = [sample_next_token(logits, temperature, generator=gen) for _ in range(20_000)]
    observed = torch.bincount(torch.tensor(draws), minlength=4).numpy()
    expected = (logits.double() / temperature).softmax(-1).numpy() * 20_000
    assert chisquare(observed, expected).pvalue > 1e-3


def test_tiny_temperature_is_greedy(pair):
    _, ours = pair
    assert generate(ours, [1, 2, 3], 10, temperature=1e-4, seed=0) == greedy(ours, [1, 2, 3], 10)
    assert len(set(generate(ours, [1, 2, 3], 1, top_p=1e-6, seed=s)[-1] for s in range(20))) == 1
