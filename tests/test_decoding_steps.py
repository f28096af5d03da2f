"""Lesson 05's decoding steps (``xai_tf.transformer.decoding_steps``) against independent references:
numpy for the greedy step, the inverse-CDF draw and the cache append, a brute-force enumeration for the
beam step, and the library's own ``beam_search`` and ``KVCache`` for the steps run in a loop."""

import math

import numpy as np
import pytest
import torch
from conftest import random_hf_gpt2

from xai_tf.models import GPT2, KVCache
from xai_tf.transformer import decoding_steps as steps
from xai_tf.transformer.decoding import beam_search


@pytest.fixture(scope="module")
def tiny():
    return GPT2.from_hf(
        random_hf_gpt2(0, vocab_size=40, n_positions=32, n_embd=16, n_layer=2, n_head=2)
    ).eval()


def test_greedy_step_is_numpys_argmax_with_ties_to_the_lower_id():
    z = torch.randn(4, 9, generator=torch.Generator().manual_seed(0)).round()  # rounding makes ties
    assert np.array_equal(steps.greedy_step(z).numpy(), np.argmax(z.numpy(), axis=-1))
    assert int(steps.greedy_step(torch.tensor([0.0, 2.0, 2.0]))) == 1


def test_a_draw_by_the_inverse_cdf_is_numpys_searchsorted():
    gen = torch.Generator().manual_seed(1)
    probs = torch.softmax(torch.randn(50, 30, generator=gen, dtype=torch.float64) * 2, -1)
    u = torch.rand(50, generator=gen, dtype=torch.float64)
    want = [
        np.searchsorted(np.cumsum(p), x, side="right") for p, x in zip(probs.numpy(), u.numpy(), strict=True)
    ]
    assert steps.sample_by_inverse_cdf(probs, u).tolist() == want


def test_evenly_spaced_draws_hit_each_token_in_proportion_to_its_probability():
    """u on a grid of N points: token v is drawn for the points in an interval of length p_v, so its
    count is N p_v to within one point; a token of probability 0 is never drawn, even at u → 1."""
    p = torch.tensor([0.1, 0.0, 0.25, 0.4, 0.25, 0.0], dtype=torch.float64)
    N = 10_000
    u = (torch.arange(N, dtype=torch.float64) + 0.5) / N
    counts = torch.bincount(steps.sample_by_inverse_cdf(p.expand(N, -1), u), minlength=len(p))
    assert ((counts - N * p).abs() <= 1).all() and counts[1] == counts[5] == 0
    assert int(steps.sample_by_inverse_cdf(torch.tensor([0.3, 0.3, 0.3, 0.0]), torch.tensor(0.95))) == 2


def test_beam_step_is_the_brute_force_best_of_all_extensions():
    gen = torch.Generator().manual_seed(2)
    log_p, logits = torch.tensor([-0.3, -1.1, -2.5]), torch.randn(3, 6, generator=gen) * 2
    table = sorted(
        (
            (float(log_p[b]) + float(logits[b].double().log_softmax(-1)[v]), b, v)
            for b in range(3)
            for v in range(6)
        ),
        reverse=True,
    )[:5]
    rows, tokens, new = steps.beam_step(log_p, logits, 5)
    assert list(zip(rows.tolist(), tokens.tolist(), strict=True)) == [(b, v) for _, b, v in table]
    np.testing.assert_allclose(new.numpy(), [s for s, _, _ in table], rtol=1e-6)


def test_beam_steps_and_the_length_penalty_run_in_a_loop_give_beam_search(tiny):
    """Without end-of-text, beam_search is beam_step repeated (the cache following the kept rows) and the
    best of s = log p / n^α at the end."""
    prompt, width, n_new = torch.tensor([3, 1, 4]), 3, 6
    with torch.no_grad():
        cache = KVCache()
        logits = tiny(prompt, kv_cache=cache)[:, -1]
        beams, log_p = prompt.new_empty(1, 0), logits.new_zeros(1)
        for n in range(1, n_new + 1):
            rows, tokens, log_p = steps.beam_step(log_p, logits, width)
            beams = torch.cat([beams[rows], tokens[:, None]], 1)
            if n < n_new:
                cache.select(rows)
                logits = tiny(tokens[:, None], kv_cache=cache)[:, -1]
    for alpha in (0.0, 1.0):
        s = steps.length_penalised(log_p, torch.full_like(rows, n_new), alpha)
        best = prompt.tolist() + beams[int(s.argmax())].tolist()
        assert best == beam_search(tiny, prompt, width, n_new, length_penalty=alpha, stop_at_eot=False)


def test_the_length_penalty_is_log_p_over_n_to_the_alpha():
    log_p, n = torch.tensor([-3.0, -10.0]), torch.tensor([2, 8])
    for alpha in (0.0, 0.7, 1.0):
        want = [-3.0 / 2**alpha, -10.0 / 8**alpha]
        assert steps.length_penalised(log_p, n, alpha).tolist() == pytest.approx(want, rel=1e-6)
    # α = 0 prefers the shorter text, α = 1 the longer one (per-token −1.5 versus −1.25)
    assert [int(steps.length_penalised(log_p, n, a).argmax()) for a in (0.0, 1.0)] == [0, 1]
    assert math.isclose(steps.length_penalised(log_p, n, 1.0)[1].item(), -1.25)


def test_append_kv_is_numpys_concatenate_along_the_positions():
    gen = torch.Generator().manual_seed(3)
    past_k, past_v, k, v = (torch.randn(2, 3, t, 4, generator=gen) for t in (5, 5, 2, 2))
    K, V = steps.append_kv(past_k, past_v, k, v)
    assert np.array_equal(K.numpy(), np.concatenate([past_k.numpy(), k.numpy()], axis=2))
    assert np.array_equal(V.numpy(), np.concatenate([past_v.numpy(), v.numpy()], axis=2))


def _decode_stepwise(model, ids, cache):
    """The logits of ``ids`` fed as its first 3 tokens, then one token per step through ``cache``."""
    with torch.no_grad():
        out = [model(ids[:3], kv_cache=cache)[0]] + [
            model(ids[t : t + 1], kv_cache=cache)[0] for t in range(3, len(ids))
        ]
    return torch.cat(out)


def test_a_model_decodes_through_the_append_it_is_given(tiny):
    ids = torch.tensor([5, 2, 7, 1, 9, 3])
    with torch.no_grad():
        full = tiny(ids)[0]
    cache = steps.KVCacheWith(steps.append_kv)
    same = _decode_stepwise(tiny, ids, cache)
    assert torch.equal(same, _decode_stepwise(tiny, ids, KVCache())) and len(cache) == len(ids)
    torch.testing.assert_close(same, full, atol=1e-5, rtol=1e-5)
    forgetful = _decode_stepwise(tiny, ids, steps.KVCacheWith(lambda pk, pv, k, v: (k, v)))
    assert not torch.allclose(forgetful[3:], full[3:], atol=1e-3)  # the model really appends with it
    with pytest.raises(TypeError, match="append must be a function"):
        steps.KVCacheWith(None)
