"""Training and scoring lesson 18's structured decoders (``decoder.StructuredSeq2Seq``) on lesson 16's
task, with lesson 16's loss (teacher-forced cross-entropy), optimiser (Adam), batch size, learning rate
and sizes, in batches of one source length, on the pairs of at most ``SETTINGS["max_length"]`` source
words (``short``: 3–12 words, so that every normalizer over several seeds trains in minutes on two
cores; lesson 16 trains on 3–35 words for 1200 steps):

    L(θ) = −(1/N) Σ_n Σ_i log p_θ(y_i | y_<i, x)   over the N target words (and <eos>) of a batch.

Scores, on a list of pairs: exact match and BLEU of greedy translations (``seq2seq.metrics``); AER of
argmax attention under teacher forcing against the gold links; and what the weights look like:
``support`` the mean share of source words with α_ij > ``SUPPORT_EPS`` per target word, ``mass`` the
mean Σ_j α_ij (1 for softmax and sparsemax; free for sigmoid and the CRF).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F

from xai_tf import _checks, seeds
from xai_tf.seq2seq import data, decoding, metrics
from xai_tf.seq2seq.model import Config
from xai_tf.structured.decoder import StructuredSeq2Seq, same_length_batches
from xai_tf.training import TrainOptions, fit, fixed_batch_size, minibatches

OPTIONS = TrainOptions(steps=800, lr=0.005, batch_size=32)  # train's defaults, the shipped models'
SETTINGS: dict[str, Any] = {  # what the shipped JSON records
    "steps": OPTIONS.steps,
    "batch_size": OPTIONS.batch_size,
    "lr": OPTIONS.lr,
    "d_h": 32,
    "max_length": 12,
}
SUPPORT_EPS = 1e-3


def _checked(model: object, corpus: object, pairs: object) -> None:
    """The model, corpus and pairs of ``forced_attention`` and ``scores``, every sentence encoded once
    so that a refusal names its pair (``pairs[3].source``)."""
    if not isinstance(model, StructuredSeq2Seq):
        raise TypeError(
            f"model must be a StructuredSeq2Seq (build or shipped.model), got {type(model).__name__}"
        )
    pairs = data._check_pairs(pairs)
    data._source_ids(pairs, data._check_corpus(corpus))
    for k, p in enumerate(pairs):
        corpus.target_vocab.encode(p.target, name=f"pairs[{k}].target")  # type: ignore[attr-defined]


def short(pairs: Sequence[data.Pair], max_length: int = 12) -> list[data.Pair]:
    """The pairs whose source has at most ``max_length`` words."""
    max_length = _checks.integer("max_length", max_length, data.MIN_LENGTH, data.MAX_LENGTH)
    pairs = data._check_pairs(pairs)
    return [p for p in pairs if len(p.source) <= max_length]


def build(normalizer: str, corpus: data.Corpus, d_h: int = 32) -> StructuredSeq2Seq:
    """An untrained structured decoder for ``corpus``'s vocabularies."""
    corpus = data._check_corpus(corpus)
    c = Config(len(corpus.source_vocab), len(corpus.target_vocab), d_h=d_h, score="additive")
    return StructuredSeq2Seq(c, normalizer)


def train(
    normalizer: str, options: TrainOptions = OPTIONS, d_h: int = 32, max_length: int = 12
) -> tuple[StructuredSeq2Seq, list[float]]:
    """A structured decoder trained by Adam with ``options`` (``OPTIONS`` by default) on the pairs of
    ``data.make_corpus(0)``'s train split with at most ``max_length`` source words, in batches of
    ``options.batch_size`` pairs of one source length (seed shifted by ``XAI_TF_SEED_OFFSET``);
    returns the model (eval mode) and the loss of every step."""
    batch_size, seed = fixed_batch_size(options), options.seed
    corpus = data.make_corpus(0)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seeds.effective(seed))
        model = build(normalizer, corpus, d_h)
    batches = same_length_batches(short(corpus.train, max_length), batch_size)
    draw = minibatches(len(batches), 1, seeds.effective(seed))

    def step_loss(k: int) -> torch.Tensor:
        b = data.batch(batches[int(draw(k)[0])], corpus)
        logits, _ = model(b.source, b.source_mask, b.target_in)
        return F.cross_entropy(logits.flatten(0, 1), b.target_out.flatten(), ignore_index=0)

    losses = fit(model.parameters(), step_loss, options)
    return model.eval(), losses


def _placed_batches(pairs: Sequence[data.Pair]) -> list[tuple[list[int], list[data.Pair]]]:
    """``same_length_batches(pairs, 64)``, each batch with its pairs' places in ``pairs`` (a pair given
    twice keeps both places)."""
    places: defaultdict[int, deque[int]] = defaultdict(deque)
    for k, p in enumerate(pairs):
        places[id(p)].append(k)
    return [
        ([places[id(p)].popleft() for p in group], group) for group in same_length_batches(list(pairs), 64)
    ]


@torch.no_grad()
def forced_attention(
    model: StructuredSeq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]
) -> list[torch.Tensor]:
    """α [|y|, |x|] per pair under teacher forcing on its reference (the <eos> row left out), in the
    order of ``pairs``."""
    _checked(model, corpus, pairs)
    out: dict[int, torch.Tensor] = {}
    for places, group in _placed_batches(pairs):
        device = next(model.parameters()).device
        b = data.Batch(*(t.to(device) for t in data.batch(group, corpus)))
        _, alpha = model(b.source, b.source_mask, b.target_in)
        assert alpha is not None
        for k, (place, p) in enumerate(zip(places, group, strict=True)):
            out[place] = alpha[k, : len(p.target)]
    return [out[k] for k in range(len(pairs))]


def scores(model: StructuredSeq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> dict[str, float]:
    """Exact match, BLEU, AER, support and mass (see the module's docstring) on ``pairs``."""
    _checked(model, corpus, pairs)
    hyps: dict[int, list[str]] = {}
    for places, group in _placed_batches(pairs):
        words, _ = decoding.greedy(model, corpus, [p.source for p in group])
        hyps.update(zip(places, words, strict=True))
    h, refs = [hyps[k] for k in range(len(pairs))], [p.target for p in pairs]
    maps = forced_attention(model, corpus, pairs)
    return {
        "exact": metrics.exact_match(h, refs),
        "bleu": metrics.bleu(h, refs),
        "aer": metrics.alignment_error_rate(
            [metrics.argmax_links(a) for a in maps], [p.links for p in pairs]
        ),
        "support": float(torch.cat([(a > SUPPORT_EPS).double().mean(1) for a in maps]).mean()),
        "mass": float(torch.cat([a.sum(1).double() for a in maps]).mean()),
    }
