"""Lesson 16's exposure bias in loss (``xai_tf.seq2seq.exposure``): the teacher-forced losses against
``torch.nn.functional.cross_entropy`` on one forward pass, the free-running losses against a forward pass
over greedy's own words, and the identity ℓ^FR = ℓ^TF wherever greedy's prefix is the reference's."""

import pytest
import torch
import torch.nn.functional as F

from xai_tf.seq2seq import data, decoding, exposure, shipped


@pytest.fixture(scope="module")
def corpus():
    return data.make_corpus(0)


@pytest.fixture(scope="module")
def losses(corpus):
    return exposure.token_losses(shipped.model("dot"), corpus, corpus.test[:60])


def test_teacher_forced_loss_is_cross_entropy(corpus, losses):
    b = data.batch(corpus.test[:60], corpus)
    with torch.no_grad():
        logits, _ = shipped.model("dot")(b.source, b.source_mask, b.target_in)
    ce = F.cross_entropy(logits.double().transpose(1, 2), b.target_out, reduction="none")
    forced, _, words, _ = losses
    assert torch.allclose(forced[words], ce[words], atol=1e-6)


def test_free_running_loss_reads_greedys_own_words(corpus, losses):
    model, pairs = shipped.model("dot"), corpus.test[:60]
    hyps, _ = decoding.greedy(model, corpus, [p.source for p in pairs])
    _, free, words, _ = losses
    checked = 0
    for k, (p, h) in enumerate(zip(pairs, hyps, strict=True)):
        T = len(p.target)
        if len(h) < T - 1 or T < 2:
            continue  # greedy stopped before the reference's length: its later inputs are not in h
        src = torch.tensor([corpus.source_vocab.encode(p.source)])
        inputs = torch.tensor([[1, *corpus.target_vocab.encode(h[: T - 1])]])
        with torch.no_grad():
            logits, _ = model(src, src != 0, inputs)
        want = F.cross_entropy(
            logits[0].double(), torch.tensor(corpus.target_vocab.encode(p.target)), reduction="none"
        )
        assert torch.allclose(free[k, :T], want, atol=1e-6)
        checked += 1
    assert checked >= 30


def test_the_losses_agree_until_greedy_leaves_the_reference(losses):
    forced, free, words, diverged = losses
    same = words & ~diverged
    assert same.sum() > 100 and (words & diverged).sum() > 10  # both kinds present in these 60 pairs
    assert torch.allclose(free[same], forced[same], atol=1e-9)
    assert not diverged[:, 0].any()  # position 0 reads <bos> both ways


def test_position_loss_averages_over_references_with_a_word_there(corpus, losses):
    forced, free, words, diverged = losses
    pl = exposure.position_loss(shipped.model("dot"), corpus, corpus.test[:60])
    assert pl.n.tolist() == [int(words[:, i].sum()) for i in range(len(pl.n))]
    for i in (0, 5, len(pl.n) - 1):
        assert float(pl.free[i]) == pytest.approx(float(free[words[:, i], i].mean()))
        assert float(pl.forced[i]) == pytest.approx(float(forced[words[:, i], i].mean()))
        assert float(pl.diverged[i]) == pytest.approx(float(diverged[words[:, i], i].double().mean()))
