"""xai_tf.transformer.logits (lesson 00): the next-token distribution, the top k, surprisal and perplexity,
against numpy and torch's cross-entropy."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from xai_tf.transformer import logits as lg


def _text(T=6, D=11, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(T, D, generator=g, dtype=torch.float64) * 3, torch.randint(0, D, (T,), generator=g)


def test_last_position_probs_is_the_softmax_of_the_last_row():
    z, _ = _text()
    e = np.exp(z[-1].numpy())
    np.testing.assert_allclose(lg.last_position_probs(z).numpy(), e / e.sum(), rtol=1e-12)


def test_top_tokens_are_the_k_largest_most_likely_first():
    z, _ = _text()
    p = lg.last_position_probs(z)
    ids, values = lg.top_tokens(p, 4)
    order = sorted(range(len(p)), key=lambda v: -float(p[v]))[:4]
    assert ids.tolist() == order
    np.testing.assert_allclose(values.numpy(), p.numpy()[order], rtol=0)


def test_surprisal_is_torchs_cross_entropy_of_the_shifted_text():
    z, ids = _text()
    want = F.cross_entropy(z[:-1], ids[1:], reduction="none")
    torch.testing.assert_close(lg.surprisal(z, ids), want, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(lg.perplexity(z, ids), want.mean().exp(), rtol=1e-12, atol=0)


def test_uniform_logits_have_perplexity_D():
    _, ids = _text(D=11)
    assert lg.perplexity(torch.zeros(6, 11), ids).item() == pytest.approx(11, rel=1e-6)


def test_shifting_every_logit_changes_no_probability():
    z, _ = _text()
    torch.testing.assert_close(
        lg.last_position_probs(z + 5), lg.last_position_probs(z), rtol=1e-12, atol=1e-14
    )
