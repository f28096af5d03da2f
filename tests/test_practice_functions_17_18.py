"""The library functions behind lessons 17 and 18's later exercises, each against an independent reference:
GNMT's beam score against brute-force enumeration of every output of a tiny model (the best by the score is
the wide beam's output, at the search's score), the links read off cross-attention against lesson 16's
``metrics.argmax_links`` map by map and the AER table against ``evaluate.alignment_error_rates``, and Kim et
al.'s normalised marginals against the ``crf_normalized`` decoder's map and a NumPy division."""

import itertools

import numpy as np
import pytest
import torch
from test_encdec_beam import WORDS, _log_p, _tiny

from xai_tf.encdec import alignment, beam, beam_sweep, evaluate, shipped
from xai_tf.encdec.length_penalty import beam_scores
from xai_tf.encdec.model import DecoderOnly, Seq2SeqTransformer
from xai_tf.seq2seq import metrics
from xai_tf.seq2seq.decoding import length_penalty
from xai_tf.structured.chain import chain_marginals
from xai_tf.structured.decoder import normalize
from xai_tf.structured.normalized import normalized_marginals

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")


@pytest.mark.parametrize("alpha", [0.0, 0.6, 1.0, 2.5])
def test_beam_scores_divide_by_lesson_16s_penalty(alpha):
    log_p = torch.tensor([-0.3, -4.0, -11.5, -25.0], dtype=torch.float64)
    n = torch.tensor([0, 3, 8, 20])
    want = torch.tensor(
        [float(s) / length_penalty(int(k) + 1, alpha) for s, k in zip(log_p, n, strict=True)],
        dtype=torch.float64,
    )
    assert torch.allclose(beam_scores(log_p, n, alpha), want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("kind", [Seq2SeqTransformer, DecoderOnly])
@pytest.mark.parametrize(("seed", "alpha"), [(0, 0.0), (2, 0.6), (4, 2.0)])
def test_the_best_output_by_beam_scores_is_the_wide_beams(kind, seed, alpha):
    """Every output of at most L − 1 words on a three-word vocabulary, each scored by one teacher-forced pass:
    the best by ``beam_scores`` is what an exhaustive beam returns, at the score it returns."""
    model, source, L = _tiny(kind, seed), [3, 7, 5], 4
    outputs = [list(w) for n in range(L) for w in itertools.product(WORDS, repeat=n)]
    log_p = torch.tensor([_log_p(model, source, y) for y in outputs], dtype=torch.float64)
    scores = beam_scores(log_p, torch.tensor([len(y) for y in outputs]), alpha)
    best = int(scores.argmax())
    assert float(scores.topk(2).values.diff().abs()) > 1e-6  # a clear winner: the argmax is well defined
    seq, score = beam.search_ids(model, source, beam=len(WORDS) ** L, alpha=alpha, max_length=L)
    assert seq == [*outputs[best], 2] and score == pytest.approx(float(scores[best]), abs=1e-9)


def test_argmax_sources_is_argmax_links_for_every_head_and_the_mean():
    g = torch.Generator().manual_seed(3)
    A = torch.randn(2, 3, 5, 7, generator=g).softmax(-1)
    got = alignment.argmax_sources(A)
    assert got.shape == (2, 4, 5) and got.dtype == torch.long
    for layer in range(2):
        for head in range(4):
            a = A[layer].mean(0) if head == 3 else A[layer, head]
            assert {(i, int(j)) for i, j in enumerate(got[layer, head])} == metrics.argmax_links(a)


def test_aer_table_is_the_recorded_scorings_table():
    corpus, model = shipped.corpus(), shipped.model("pre")
    pairs = corpus.test[:60]
    with torch.no_grad():
        want = evaluate.alignment_error_rates(model, pairs, corpus)
        got = alignment.aer_table(evaluate.cross_attention(model, pairs, corpus), pairs)
    assert got.shape == want.shape and torch.allclose(got, want.double(), atol=1e-6)
    other = alignment.aer_table(
        evaluate.cross_attention(model, pairs, corpus), pairs, lambda A: alignment.argmax_sources(A).flip(-1)
    )
    assert not torch.allclose(other, got)  # the table reads the links it is given


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_normalized_marginals_are_the_crf_normalized_decoders_map(seed):
    g = torch.Generator().manual_seed(seed)
    e, A = (
        2 * torch.randn(4, 7, generator=g, dtype=torch.float64),
        torch.randn(2, 2, generator=g, dtype=torch.float64),
    )
    p = chain_marginals(e, A)
    assert torch.allclose(normalized_marginals(p), normalize(e, "crf_normalized", A), atol=1e-12)
    scaled = normalized_marginals(p, 2.0)
    as_numpy = 2.0 * p.numpy() / p.numpy().sum(-1, keepdims=True)
    assert np.allclose(scaled.numpy(), as_numpy, atol=1e-12) and torch.allclose(
        scaled.sum(-1), 2 * torch.ones(4, dtype=torch.float64)
    )


def test_lesson_17s_beam_sentence_shows_the_penalty_deciding():
    """Lesson 17 §6's sentence (test pair 95, shipped 'pre'): greedy's and the two beams' outputs all differ,
    the α = 0 beam's is the shortest, and each beam's output ranks first of the three under its own α. Fixed
    weights, so one draw; the margins (here 0.09 and 0.05 in score) stand far above rounding."""
    corpus, model = shipped.corpus(), shipped.model("pre")
    x = corpus.test[95]
    ids = corpus.source_vocab.encode(x.source)
    with torch.no_grad():
        outputs = [corpus.target_vocab.encode(evaluate.greedy(model, [x], corpus)[0])]
        outputs += [beam.search_ids(model, ids, 5, a, len(ids) + 9)[0][:-1] for a in (0.0, 1.0)]
        log_p = torch.tensor([beam_sweep.log_prob(model, ids, y) for y in outputs], dtype=torch.float64)
    n_words = torch.tensor([len(y) for y in outputs])
    assert len({tuple(y) for y in outputs}) == 3 and int(n_words.argmin()) == 1
    for k, alpha in ((1, 0.0), (2, 1.0)):
        s = beam_scores(log_p, n_words, alpha)
        assert int(s.argmax()) == k and float(s[k] - s[torch.arange(3) != k].max()) > 0.01
