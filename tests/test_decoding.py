import copy
import itertools
from types import SimpleNamespace

import pytest
import torch
from conftest import random_hf_gpt2
from scipy.stats import chisquare

from xai_tf import LoadedModel, timing
from xai_tf.models import GPT2, KVCache
from xai_tf.transformer.decoding import (
    beam_search,
    continuation_log_prob,
    filtered_probs,
    generate,
    greedy,
    next_token_probs,
    sample_next_token,
    top_k_filter,
    top_next_tokens,
    top_p_filter,
)
from xai_tf.transformer.decoding_cost import decoding_seconds, positions_computed


@pytest.fixture(scope="module")
def pair():
    hf = random_hf_gpt2(0, vocab_size=100, n_positions=32, n_embd=32, n_layer=2, n_head=2)
    return hf, GPT2.from_hf(hf)


@pytest.mark.numerics
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
    with pytest.raises(ValueError, match=r"k must be an integer in 1..100"):
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
        (dict(temperature=0), "temperature must be a finite number > 0"),
        (dict(temperature=-1.0), "temperature must be a finite number > 0"),
        (dict(top_k=0), r"top_k must be an integer in 1..100"),
        (dict(top_p=0.0), r"top_p must be a finite number in \(0, 1\]"),
        (dict(max_new_tokens=-1), "max_new_tokens must be an integer ≥ 0"),
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
        (top_k_filter, 0, r"k must be an integer in 1..4"),
        (top_k_filter, 5, r"k must be an integer in 1..4"),
        (top_p_filter, 0.0, r"p must be a finite number in \(0, 1\]"),
        (top_p_filter, 1.5, r"p must be a finite number in \(0, 1\]"),
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


def test_cached_logits_equal_a_full_recompute(pair):
    """Prefill 5 tokens, then 3 at once (a causal mask over cached + new keys), then one at a time."""
    hf, ours = pair
    ids = torch.randint(0, 100, (2, 20), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        want = hf(ids).logits
        cache = KVCache()
        chunks = [ours(ids[:, :5], kv_cache=cache), ours(ids[:, 5:8], kv_cache=cache)]
        chunks += [ours(ids[:, t : t + 1], kv_cache=cache) for t in range(8, 20)]
    assert len(cache) == 20
    torch.testing.assert_close(torch.cat(chunks, dim=1), want, atol=1e-5, rtol=0)


def test_the_cache_refuses_to_outgrow_the_context(pair):
    cache = KVCache()
    pair[1](list(range(30)), kv_cache=cache)
    with pytest.raises(ValueError, match=r"3 tokens after 30 cached ones but the context holds 1..32"):
        pair[1]([1, 2, 3], kv_cache=cache)


@pytest.mark.parametrize("new_tokens", [10, 45])  # 45: the text outgrows the 32-token context
def test_cached_decoding_equals_full_recompute(pair, new_tokens):
    _, ours = pair
    for seed in range(3):
        args = dict(max_new_tokens=new_tokens, temperature=0.8, top_p=0.9, seed=seed)
        assert generate(ours, [1, 2, 3], **args) == generate(ours, [1, 2, 3], **args, use_cache=False)
    assert greedy(ours, [4, 5], new_tokens) == greedy(ours, [4, 5], new_tokens, use_cache=False)


def _tiny(eot: int) -> LoadedModel:
    """A random 6-token model whose tokenizer says token ``eot`` ends the text."""
    model = GPT2.from_hf(random_hf_gpt2(6, vocab_size=6, n_positions=16, n_embd=16, n_layer=2, n_head=2))
    with torch.no_grad():  # sharper distributions: here greedy, narrow and wide beams disagree
        model.wte.weight.mul_(2)
    return LoadedModel(model, SimpleNamespace(eot_token=eot), "tiny")


def _log_p(model: GPT2, prompt: list[int], continuation: tuple[int, ...]) -> float:
    with torch.no_grad():
        logits = model(prompt + list(continuation))[0].log_softmax(-1)
    return sum(float(logits[len(prompt) - 1 + i, t]) for i, t in enumerate(continuation))


@pytest.mark.parametrize("length_penalty", [0.0, 1.0, 2.0])
def test_a_wide_beam_finds_the_brute_force_best(length_penalty):
    """Every text of up to 4 new tokens over a 6-token vocabulary — those that stop at the first
    end-of-text (token 0) and those of full length — scored by log p / n^α; 6³ = 216 beams hold all."""
    lm, prompt, n = _tiny(eot=0), [1, 2], 4
    texts = [c[: c.index(0) + 1] if 0 in c else c for c in itertools.product(range(6), repeat=n)]
    scored = {c: _log_p(lm.model, prompt, c) / len(c) ** length_penalty for c in set(texts)}
    best = max(scored, key=scored.get)
    runner_up = sorted(scored.values())[-2]
    assert scored[best] - runner_up > 1e-4  # the optimum is unique, so the comparison is exact
    found = beam_search(lm, prompt, beam_width=216, max_new_tokens=n, length_penalty=length_penalty)
    assert found == prompt + list(best)


def test_a_narrow_beam_can_miss_the_best_and_length_penalty_matters():
    lm, prompt = _tiny(eot=0), [1, 2]
    wide = [beam_search(lm, prompt, 216, 4, length_penalty=a) for a in (0.0, 1.0)]
    assert len(wide[0]) < len(wide[1])  # α = 0 prefers stopping at once; α = 1 a longer text
    assert all(beam_search(lm, prompt, b, 4, length_penalty=1.0) != wide[1] for b in (1, 2))


@pytest.mark.parametrize("eot", [0, 5, None])
def test_beam_width_1_is_greedy(pair, eot):
    if eot is None:
        model, prompt = pair[1], [7, 8, 9]
    else:
        model, prompt = _tiny(eot), [1, 2]
    assert beam_search(model, prompt, 1, 12) == greedy(model, prompt, 12)


def test_decoding_stops_at_end_of_text():
    lm = _tiny(eot=99)
    free = greedy(lm, [1, 2], 12)
    stop = free[4]  # pretend that this token ends the text
    lm.tokenizer.eot_token = stop
    assert greedy(lm, [1, 2], 12) == free[: free.index(stop, 2) + 1]
    assert greedy(lm, [1, 2], 12, stop_at_eot=False) == free
    assert generate(lm, [1, 2], 12, seed=0)[-1] == stop or len(generate(lm, [1, 2], 12, seed=0)) == 14


def test_beam_search_agrees_with_transformers(pair):
    """Without an end-of-text token every hypothesis has the same length; transformers' beam
    search then returns the beam of highest log-probability, as ours does."""
    hf, ours = pair
    prompt = [5, 6, 7]
    with torch.no_grad():
        want = hf.generate(
            torch.tensor([prompt]),
            num_beams=4,
            max_new_tokens=8,
            do_sample=False,
            eos_token_id=None,
            pad_token_id=0,
            early_stopping=False,
            length_penalty=1.0,
        )[0].tolist()
    assert beam_search(ours, prompt, 4, 8) == want


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(beam_width=0), "beam_width must be an integer ≥ 1"),
        (dict(max_new_tokens=31), r"max_new_tokens must lie in 0..29"),
        (dict(max_new_tokens=-2), "max_new_tokens must be an integer ≥ 0"),
        (dict(input_ids=[]), "input_ids is empty"),
    ],
)
def test_bad_beam_arguments(pair, kwargs, message):
    args = dict(input_ids=[1, 2, 3], beam_width=2, max_new_tokens=4) | kwargs
    with pytest.raises(ValueError, match=message):
        beam_search(pair[1], **args)


def test_decoders_refuse_what_is_not_a_model():
    not_a_model = SimpleNamespace()  # neither a model handle nor a GPT2 (encoders: tests/test_loaded.py)
    with pytest.raises(TypeError, match="model must be a model from xai_tf.load_model.*got SimpleNamespace"):
        greedy(not_a_model, [1], 3)


def test_continuation_log_prob_matches_transformers_loss(pair):
    """transformers' loss is the mean negative log-likelihood of tokens 2..T; mask the prompt with -100."""
    hf, ours = pair
    ids = [5, 6, 7, 8, 9, 10]
    labels = torch.tensor([[-100, -100, -100, 8, 9, 10]])
    with torch.no_grad():
        mean_nll = hf(torch.tensor([ids]), labels=labels).loss
    assert continuation_log_prob(ours, ids, 3) == pytest.approx(-3 * float(mean_nll), abs=1e-4)
    with pytest.raises(ValueError, match=r"prompt_length must be an integer in 1..6, got 0"):
        continuation_log_prob(ours, ids, 0)


def test_cached_logits_of_the_bundled_model(bundled):
    """In float64 the cached path equals a full recompute to 1e-10: the algorithm is exact. In
    float32 the two sum in different orders; the difference stays within 1e-5 of the largest logit
    (measured: 2.1e-5 absolute on logits up to 16.7, i.e. 1.2e-6 relative; float64: 4e-14)."""
    text = greedy(bundled, bundled.encode("ROMEO.\nBut soft, what light"), 30)
    for model, bound in [(bundled.model, 1e-5), (copy.deepcopy(bundled.model).double(), 1e-10)]:
        with torch.no_grad():
            full = model(text)[0]
            cache = KVCache()
            steps = [model(text[:10], kv_cache=cache)[0]] + [model([t], kv_cache=cache)[0] for t in text[10:]]
        assert (torch.cat(steps) - full).abs().max() <= bound * full.abs().max()


@pytest.mark.parametrize(
    "decode",
    [
        lambda m, ids: greedy(m, ids, 3),
        lambda m, ids: generate(m, ids, 3, seed=0),
        lambda m, ids: beam_search(m, ids, 2, 3),
        lambda m, ids: continuation_log_prob(m, ids, 1),
    ],
)
def test_decoders_refuse_a_batch_instead_of_using_its_first_prompt(pair, decode):
    _, ours = pair
    with pytest.raises(
        ValueError, match=r"input_ids must be one prompt, \[T\] or \[1, T\], got shape \(2, 2\)"
    ):
        decode(ours, [[1, 2], [3, 4]])
    decode(ours, [[1, 2]])  # a batch of one is one prompt


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(temperature=float("nan")), "temperature must be a finite number > 0, got nan"),
        (dict(temperature=float("inf")), "temperature must be a finite number > 0, got inf"),
        (dict(top_p=float("nan")), r"top_p must be a finite number in \(0, 1\], got nan"),
        (dict(top_k=2.5), r"top_k must be an integer in 1..100, got 2.5"),
        (dict(top_k=True), r"top_k must be an integer in 1..100, got True"),
    ],
)
def test_nan_and_non_integers_fail_the_range_checks(pair, kwargs, message):
    _, ours = pair
    with pytest.raises((ValueError, TypeError), match=message):
        generate(ours, [1, 2], 3, **kwargs)


def test_beam_search_refuses_a_nan_length_penalty(pair):
    _, ours = pair
    with pytest.raises(ValueError, match="length_penalty must be a finite number, got nan"):
        beam_search(ours, [1, 2], 2, 3, length_penalty=float("nan"))


def test_a_denormal_temperature_is_greedy_not_nan(pair):
    """τ = 1e-45 used to overflow z / τ to ±inf and hand NaN probabilities to torch.multinomial."""
    _, ours = pair
    z = ours([1, 2, 3])[0, -1].detach()
    probs = filtered_probs(z, 1e-45)
    assert torch.equal(probs, torch.nn.functional.one_hot(z.argmax(), z.numel()).float())
    assert generate(ours, [1, 2, 3], 5, temperature=1e-45) == greedy(ours, [1, 2, 3], 5)


@pytest.mark.parametrize("bad", [float("inf"), float("nan")])
@pytest.mark.parametrize("fn", [lambda z: top_p_filter(z, 0.9), lambda z: top_k_filter(z, 2)])
def test_filters_refuse_inf_and_nan_logits(fn, bad):
    z = torch.tensor([1.0, bad, 0.0, -1.0])
    with pytest.raises(ValueError, match=r"logits has \+inf or NaN scores: use −inf to mask a position"):
        fn(z)


def test_filters_keep_minus_inf_as_removed():
    z = torch.tensor([1.0, float("-inf"), 0.5, -1.0])
    assert torch.isneginf(top_p_filter(z, 0.99)[1]) and torch.isneginf(top_k_filter(z, 3)[1])


@pytest.mark.parametrize("use_cache", [True, False])
@pytest.mark.parametrize(("prompt_length", "new_tokens"), [(5, 1), (5, 10), (5, 40), (32, 3)])
def test_positions_computed_counts_what_the_decoder_feeds_the_model(
    pair, use_cache, prompt_length, new_tokens
):
    """Counted by a hook on the model's forward: every position fed, prompt and steps (n_ctx = 32)."""
    _, ours = pair
    fed = []
    handle = ours.register_forward_pre_hook(lambda _m, args: fed.append(torch.as_tensor(args[0]).size(-1)))
    try:
        greedy(ours, list(range(1, prompt_length + 1)), new_tokens, stop_at_eot=False, use_cache=use_cache)
    finally:
        handle.remove()
    assert positions_computed(prompt_length, new_tokens, 32, use_cache) == sum(fed)


@pytest.mark.parametrize("use_cache", [True, False])
def test_decoding_seconds_is_the_median_of_the_runs_after_a_warm_up(pair, monkeypatch, use_cache):
    """On a fake clock that advances c_r seconds for each position the model reads in run r (c = 100 in
    the warm-up, then 1, 9, 2): the model decodes 1 + repeats times and the answer is the median run,
    2 × the positions one run reads (positions_computed), not the mean (4×) nor the warm-up's."""
    _, ours = pair
    clock, fed, cost = {"now": 0.0}, [], [100.0, 1.0, 9.0, 2.0]

    def read(_module, args):
        fed.append(torch.as_tensor(args[0]).size(-1))
        clock["now"] += fed[-1] * cost[(len(fed) - 1) // 4]  # 4 new tokens: 4 forward passes a run

    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock["now"])
    handle = ours.register_forward_pre_hook(read)
    try:
        seconds = decoding_seconds(ours, [1, 2, 3], 4, use_cache=use_cache, repeats=3)
    finally:
        handle.remove()
    assert len(fed) == 4 * 4
    assert seconds == 2 * positions_computed(3, 4, 32, use_cache)
    with pytest.raises(ValueError, match="repeats must be an integer ≥ 1, got 0"):
        decoding_seconds(ours, [1, 2, 3], 4, use_cache=True, repeats=0)
