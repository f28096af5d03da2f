"""The one seed rule (``xai_tf.seeds``): XAI_TF_SEED_OFFSET shifts every seed, bad seeds are refused by
name, and no helper reseeds the caller's global generator."""

import numpy as np
import pytest
import torch

from xai_tf import seeds
from xai_tf.cbm import models as cbm_models
from xai_tf.tasks import cues, histogram, recurrent


def test_the_offset_is_a_shift_of_every_seed(monkeypatch):
    monkeypatch.setenv(seeds.VARIABLE, "3")
    shifted = histogram.histogram_data(50, seed=5)
    shifted_words = cues.cue_sentences(20, seed=5)
    monkeypatch.setenv(seeds.VARIABLE, "0")
    assert all(torch.equal(a, b) for a, b in zip(shifted, histogram.histogram_data(50, seed=8), strict=True))
    assert not torch.equal(shifted[0], histogram.histogram_data(50, seed=5)[0])
    assert shifted_words == cues.cue_sentences(20, seed=8)


def test_effective_seed_wraps_modulo_two_to_the_32(monkeypatch):
    monkeypatch.setenv(seeds.VARIABLE, "-1")
    assert seeds.effective(0) == 2**32 - 1
    monkeypatch.setenv(seeds.VARIABLE, "2")
    assert seeds.effective(2**32 - 1) == 1
    assert torch.equal(
        torch.rand(3, generator=seeds.generator(5)), torch.rand(3, generator=seeds.generator(5))
    )
    assert np.array_equal(seeds.numpy_rng(5).permutation(9), np.random.default_rng(7).permutation(9))


def test_unset_or_empty_offset_is_zero(monkeypatch):
    monkeypatch.delenv(seeds.VARIABLE, raising=False)
    assert seeds.offset() == 0 and seeds.effective(41) == 41
    monkeypatch.setenv(seeds.VARIABLE, " ")
    assert seeds.offset() == 0


def test_a_bad_offset_names_the_variable(monkeypatch):
    monkeypatch.setenv(seeds.VARIABLE, "three")
    with pytest.raises(ValueError, match="XAI_TF_SEED_OFFSET must be an integer"):
        seeds.generator(0)


@pytest.mark.parametrize("bad", [1.5, "0", None, True, -1])
def test_bad_seeds_are_refused_by_name(bad):
    with pytest.raises((TypeError, ValueError), match=r"seed must be an integer ≥ 0"):
        seeds.generator(bad)
    with pytest.raises((TypeError, ValueError), match=r"seed must be an integer ≥ 0"):
        histogram.histogram_data(5, seed=bad)


def test_seeded_restores_the_callers_generator():
    torch.manual_seed(123)
    expected = torch.rand(4)
    torch.manual_seed(123)
    with seeds.seeded(7):
        inside = torch.rand(2)
    assert torch.equal(torch.rand(4), expected)
    with seeds.seeded(7):
        assert torch.equal(torch.rand(2), inside)


def test_trainers_and_initialisers_leave_the_global_generator_alone():
    data = cues.cue_sentences(40, seed=0)
    torch.manual_seed(0)
    state = torch.get_rng_state()
    recurrent.train_attention_classifier(data, len(cues.VOCAB), options=recurrent.OPTIONS.replace(steps=2))
    histogram.train_histogram(n_train=64, options=histogram.OPTIONS.replace(steps=2))
    cbm_models.mlp(3, 2, seed=4)
    assert torch.equal(torch.get_rng_state(), state)
