"""Beam search with a length penalty for lesson 17's Transformers (the lecture's "other tricks").

The search is lesson 16's ``xai_tf.seq2seq.decoding.beam_search`` (model-agnostic): width β, finished
translations ranked by

    score(Y) = log p(Y | X) / lp(Y),   lp(Y) = (5 + |Y|)^α / (5 + 1)^α   (Wu et al. 2016, GNMT)

(|Y| counts the words and <eos>; α = 0 ranks by log-probability alone). Here the search's state is the
prefix itself, ids ``[K, t]`` starting with <bos>: each step reruns the decoder on the K prefixes (no
cache, as ``evaluate.greedy``) and reads the last position's log-probabilities. Padding (id 0) and <bos>
(id 1) are never proposed as words (their log-probability is set to −∞, not renormalised). A
translation may have at most ``|X| + max_extra`` words, greedy's budget, plus its <eos>.

The search keeps every step's <eos> extension as a finished candidate, so with β = 1 it follows greedy's
path and returns the best-scoring *truncation* of it (greedy's own translation when that scores best);
with β at least the number of prefixes it can meet, it is exhaustive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.encdec import evaluate
from xai_tf.encdec.model import Seq2SeqTransformer
from xai_tf.seq2seq import data, metrics
from xai_tf.seq2seq.decoding import BOS_ID, StepFn, beam_search

NOT_WORDS = (0, BOS_ID)  # padding and <bos>: never proposed


def word_ids(name: str, ids: object, vocab: int, empty: bool = False) -> list[int]:
    """``ids`` as a list of word ids in 3..vocab−1 (no padding, <bos>, <eos>); non-empty unless ``empty``."""
    vocab = _checks.integer("vocab", vocab, 4)
    if not isinstance(ids, list | tuple) or not (ids or empty):
        raise ValueError(f"{name} must be a {'' if empty else 'non-empty '}list of word ids, got {ids!r}")
    if not all(isinstance(i, int) and not isinstance(i, bool) and 3 <= i < vocab for i in ids):
        raise ValueError(
            f"{name} must hold word ids in 3..{vocab - 1} (no padding, <bos>, <eos>), got {ids!r}"
        )
    return list(ids)


def _step(model: evaluate.Model, source: Tensor, on_step: Callable[[], None] | None = None) -> StepFn:
    """step(tokens [K], fed [K, t]) → (log-probs [K, D_tgt], fed [K, t+1]) for one source ``[1, S]``;
    ``on_step()`` first, when given."""
    visible = source != 0

    def run(ids: Tensor) -> Tensor:  # logits [K, t, D_tgt] for K prefixes
        K = ids.size(0)
        return model(source.expand(K, -1), visible.expand(K, -1), ids)[0]

    if isinstance(model, Seq2SeqTransformer):  # the encoder runs once
        memory, decoder = model.encode(source, visible), model

        def run(ids: Tensor) -> Tensor:
            K = ids.size(0)
            return decoder.decode(memory.expand(K, -1, -1), visible.expand(K, -1), ids)[0]

    def step(tokens: Tensor, fed: Tensor) -> tuple[Tensor, Tensor]:
        if on_step is not None:
            on_step()
        ids = torch.cat([fed, tokens[:, None]], dim=1)  # [K, t+1], starting with <bos>
        logp = torch.log_softmax(run(ids)[:, -1].double(), -1)
        logp[:, list(NOT_WORDS)] = -torch.inf
        return logp, ids

    return step


@torch.no_grad()
def search_ids(
    model: evaluate.Model,
    source: Sequence[int],
    beam: int,
    alpha: float = 0.0,
    max_length: int = 40,
    on_step: Callable[[], None] | None = None,
) -> tuple[list[int], float]:
    """The best finished target ids (words then <eos>, at most ``max_length`` ids) for the source ids
    ``source`` and its score log p(Y | X) / lp(Y), by beam search of width ``beam``. ``on_step()``, when
    given, is called before each decoding step and its return value is ignored: it can stop the search
    by raising (a slow panel passes ``_cancel.checkpoint``), never change its result."""
    model = evaluate._model(model, (Seq2SeqTransformer, evaluate.DecoderOnly)).eval()
    if on_step is not None and not callable(on_step):
        raise TypeError(f"on_step must be a function of no arguments or None, got {type(on_step).__name__}")
    device = next(model.parameters()).device
    x = torch.tensor([word_ids("source", source, model.source.W_e.size(0))], device=device)
    start = x.new_empty(1, 0)
    return beam_search(_step(model, x, on_step), start, beam, max_length, alpha)


def translate(
    model: evaluate.Model,
    corpus: data.Corpus,
    source: Sequence[str],
    beam: int = 5,
    alpha: float = 0.0,
    max_extra: int = 8,
    on_step: Callable[[], None] | None = None,
) -> list[str]:
    """The beam-search translation (a word list) of one source sentence (a word list); ``on_step`` as in
    ``search_ids``."""
    if not isinstance(corpus, data.Corpus):
        raise TypeError(f"corpus must be a Corpus (shipped.corpus()), got {type(corpus).__name__}")
    max_extra = _checks.integer("max_extra", max_extra, 0, 64)
    ids = corpus.source_vocab.encode(source, name="source")
    best, _ = search_ids(model, ids, beam, alpha, len(ids) + max_extra + 1, on_step)
    return corpus.target_vocab.decode(best)


def scores(
    model: evaluate.Model,
    pairs: list[data.Pair],
    corpus: data.Corpus,
    beam: int,
    alpha: float = 0.0,
) -> dict[str, float]:
    """Exact match, BLEU (sacrebleu) and output/reference length of beam search (width ``beam``,
    length penalty ``alpha``) on ``pairs``; ``beam=0`` scores ``evaluate.greedy`` instead."""
    beam = _checks.integer("beam", beam, 0, 1_000)
    evaluate._sources(pairs, corpus)
    if beam == 0:
        hyp = evaluate.greedy(model, pairs, corpus)
    else:
        hyp = [translate(model, corpus, p.source, beam, alpha) for p in pairs]
    ref = [p.target for p in pairs]
    return {
        "exact": metrics.exact_match(hyp, ref),
        "bleu": metrics.bleu(hyp, ref),
        "length_ratio": sum(map(len, hyp)) / sum(map(len, ref)),
    }
