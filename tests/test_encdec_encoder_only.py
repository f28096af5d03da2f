"""Lesson 17's encoder-only translator (``model.EncoderOnly``): who sees whom, that the target is never
read, the slots' targets, greedy decoding and confidence on the slots, and a tiny overfit."""

import pytest
import torch

from xai_tf.encdec import evaluate, runs
from xai_tf.encdec.model import EncoderOnly, scored_targets
from xai_tf.encdec.training import Settings, train
from xai_tf.seq2seq import data


@pytest.fixture(scope="module")
def corpus():
    return data.make_corpus(0)


@pytest.fixture(scope="module")
def model(corpus):
    return runs.build("encoder_only", corpus, 0).eval()


def _pairs(corpus):
    """A short and a long test sentence (the short one is padded in their batch)."""
    return [corpus.test[0], max(corpus.test[:20], key=lambda p: len(p.source))]


def test_shapes_and_every_slot_sees_every_real_position(model, corpus):
    pairs = _pairs(corpus)
    b = data.batch(pairs, corpus)
    S = b.source.size(1)
    logits, maps = model(b.source, b.source_mask)
    L = S + 8  # the longer sentence's slots
    assert logits.shape == (2, L, len(corpus.target_vocab))
    assert maps.shape == (4, 2, 4, S + L, S + L)
    short_S = len(pairs[0].source)
    real = torch.zeros(S + L, dtype=torch.bool)
    real[:short_S] = True
    real[S : S + short_S + 8] = True
    # no causal mask anywhere: every query (source word or slot) gives weight to every real key ...
    assert (maps[:, 1] > 0).all() and (maps[:, 0][..., real] > 0).all()
    # ... and none to padding (the short sentence's padded source words and slots past S + 8)
    assert (maps[:, 0][..., ~real] == 0).all()


def test_a_sentence_translates_the_same_alone_and_padded_in_a_batch(model, corpus):
    pairs = _pairs(corpus)
    b = data.batch(pairs, corpus)
    together = model(b.source, b.source_mask)[0][0, : len(pairs[0].source) + 8]
    one = data.batch(pairs[:1], corpus)
    alone = model(one.source, one.source_mask)[0][0]
    assert alone.shape == together.shape and torch.allclose(alone, together, atol=1e-5)


def test_the_target_is_never_read(model, corpus):
    """The slots' logits are the same with the decoders' target_in, without it, and with it scrambled;
    changing one source word moves every slot."""
    b = data.batch(_pairs(corpus), corpus)
    base = model(b.source, b.source_mask)[0]
    scrambled = b.target_in.flip(1)
    assert torch.equal(model(b.source, b.source_mask, b.target_in)[0], base)
    assert torch.equal(model(b.source, b.source_mask, scrambled)[0], base)
    src = b.source.clone()
    src[1, 0] = 9 if src[1, 0] != 9 else 10
    assert (model(src, b.source_mask)[0][1] - base[1]).abs().amax(-1).min() > 1e-4


def test_slot_targets_by_hand():
    """Sources of 2 and 1 words, k = 2: 4 and 3 slots; words, then <eos> (2) in every later slot, 0 past."""
    m = EncoderOnly(10, 10, d_e=8, n_heads=2, n_layers=1, d_ff=8, extra=2)
    source_mask = torch.tensor([[True, True], [True, False]])
    target_out = torch.tensor([[5, 6, 2], [7, 2, 0]])
    assert m.slot_targets(source_mask, target_out).tolist() == [[5, 6, 2, 2], [7, 2, 2, 0]]
    full = torch.tensor([[5, 6, 7, 8, 2], [7, 2, 0, 0, 0]])  # 4 words in 4 slots: no room for <eos>, fits
    assert m.slot_targets(source_mask, full).tolist() == [[5, 6, 7, 8], [7, 2, 2, 0]]
    with pytest.raises(ValueError, match=r"target_out\[1\] has 4 words but its sentence has only 3 slots"):
        m.slot_targets(source_mask, full.flip(0))
    assert torch.equal(scored_targets(torch.nn.Linear(2, 2), source_mask, target_out), target_out)


def test_every_target_of_the_corpus_fits_its_slots(corpus):
    longest = max(len(p.target) - len(p.source) for p in corpus.train + corpus.dev + corpus.test)
    assert longest < 8  # T ≤ S + 7: every target and its <eos> fit in S + 8 slots


def test_greedy_is_the_argmax_of_each_slot_cut_at_eos(model, corpus):
    pairs = _pairs(corpus)
    got = evaluate.greedy(model, pairs, corpus)
    for pair, words in zip(pairs, got, strict=True):
        one = data.batch([pair], corpus)
        ids = model(one.source, one.source_mask)[0][0].argmax(-1).tolist()
        cut = ids.index(2) if 2 in ids else len(ids)
        assert words == [corpus.target_vocab.words[i] for i in ids[:cut] if i > 1]
    short = evaluate.greedy(model, pairs, corpus, max_extra=0)
    assert all(len(w) <= len(p.source) for w, p in zip(short, pairs, strict=True))


@pytest.mark.numerics
def test_confidence_scores_the_words_and_the_first_eos(model, corpus):
    pairs = _pairs(corpus)
    top, right = evaluate.confidence(model, pairs, corpus)
    assert len(top) == len(right) == sum(len(p.target) + 1 for p in pairs)
    one = data.batch(pairs[:1], corpus)
    probs = model(one.source, one.source_mask)[0][0].softmax(-1)
    want = corpus.target_vocab.encode(pairs[0].target) + [2]
    n = len(want)
    assert torch.allclose(top[:n], probs[:n].max(-1).values)
    assert right[:n].tolist() == [int(probs[j].argmax()) == w for j, w in enumerate(want)]


def test_measure_has_no_aer_for_the_encoder_only_model(model, corpus):
    out = runs.measure(model, corpus.test[:3], corpus)
    assert "aer" not in out and 0 <= out["exact"] <= 1 and 0 <= out["ece"] <= 1


def test_a_few_pairs_are_learnt_to_exact_match(corpus):
    """Four short training pairs, 200 steps of the common recipe on a small encoder-only model."""
    pairs = [p for p in corpus.train if len(p.source) <= 6][:4]
    tiny = data.Corpus(pairs, pairs, pairs, corpus.source_vocab, corpus.target_vocab)
    torch.manual_seed(0)
    m = EncoderOnly(
        len(corpus.source_vocab), len(corpus.target_vocab), d_e=32, n_heads=2, n_layers=2, d_ff=64
    )
    assert evaluate.exact_match(m, pairs, tiny) == 0
    train(m, tiny, Settings(steps=200, batch_size=4, lr=3e-3, warmup=10), seed=0)
    assert evaluate.exact_match(m, pairs, tiny) == 1
