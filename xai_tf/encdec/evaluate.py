"""Greedy translation, accuracy and cross-attention alignments of lesson 17's models.

Greedy decoding: ŷ_t = argmax_w p(w | x, ŷ_{<t}) until <eos> or ``max_extra`` words past the source's
length (each sentence's own length: a sentence decodes the same alone or in a batch). The encoder
runs once (its output does not depend on the target); the decoder reruns on the whole prefix at each
step (no cache: the lesson's sentences are short). The encoder-only model has no steps: one forward
pass gives every slot's logits z_j, ŷ_j = argmax_w z_j(w), and its translation is ŷ_1 ŷ_2 … cut at the
first <eos> (and at S + ``max_extra`` words, the others' budget).

Confidence: the top probability max_w p(w) at each scored position and whether its argmax is right —
for the decoders y_1 … y_T <eos> under teacher forcing (p(· | x, y_{<t})), for the encoder-only model
its slots 1 … T+1 (words and the first <eos>; p(· | x) alone, no target word in its input).

Cross-attention as alignment (Garg et al. 2019): under teacher forcing, the decoder position that
predicts target word i (its input is y_{i−1}) attends over the source with α^{l,h}_{i,·} for layer l and
head h; its argmax gives one link (i, argmax_j α_ij) per target word (``xai_tf.seq2seq.metrics``).
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.encdec.model import DecoderOnly, EncoderOnly, Seq2SeqTransformer, scored_targets
from xai_tf.seq2seq import data, metrics

Model = Seq2SeqTransformer | DecoderOnly | EncoderOnly
MODELS = (Seq2SeqTransformer, DecoderOnly, EncoderOnly)


def _model(model: object, kinds: tuple[type, ...] = (Seq2SeqTransformer,)) -> Any:
    if not isinstance(model, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise TypeError(f"model must be a {names}, got {type(model).__name__}")
    return model


def _batch(model: Model, pairs: list[data.Pair], corpus: data.Corpus) -> data.Batch:
    """``data.batch`` of the pairs (made on the CPU) moved to the model's device."""
    device = next(model.parameters()).device
    return data.Batch(*(t.to(device) for t in data.batch(pairs, corpus)))


def _sources(pairs: list[data.Pair], corpus: data.Corpus) -> Tensor:
    """The pairs' source ids, padded with 0: ``[B, S]`` (their targets may be empty)."""
    pairs, corpus = data._check_pairs(pairs), data._check_corpus(corpus)
    return data._pad(data._source_ids(pairs, corpus))


MAX_BINS = 10_000  # expected_calibration_error's most bins: more than any test set can fill
CHUNK = 64  # sentences decoded at once: memory stays ~100 MB whatever the number of pairs


def greedy(model: Model, pairs: list[data.Pair], corpus: data.Corpus, max_extra: int = 8) -> list[list[str]]:
    """Greedy translations (word lists) of the pairs' sources, ``CHUNK`` sentences of similar length at a
    time (a batch stops when its longest sentence does: half the work of chunks in the given order on
    lesson 17's test split, the same translations), in the order of ``pairs``."""
    model = _model(model, MODELS).eval()
    max_extra = _checks.integer("max_extra", max_extra, 0, 64)
    _sources(pairs, corpus)  # checks every pair first
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i].source))
    out: list[list[str]] = [[] for _ in pairs]
    for k in range(0, len(pairs), CHUNK):
        chunk = order[k : k + CHUNK]
        for i, words in zip(chunk, _greedy(model, [pairs[i] for i in chunk], corpus, max_extra), strict=True):
            out[i] = words
    return out


@torch.no_grad()
def _greedy(model: Model, pairs: list[data.Pair], corpus: data.Corpus, max_extra: int) -> list[list[str]]:
    source = _sources(pairs, corpus).to(next(model.parameters()).device)
    visible = source != 0
    if isinstance(model, EncoderOnly):
        words = model(source, visible)[0].argmax(-1)[:, : source.size(1) + max_extra]
        budget = visible.sum(1, keepdim=True) + min(max_extra, model.extra)  # past it: padding slots
        cut = words.masked_fill(torch.arange(words.size(1), device=words.device) >= budget, 2)
        return [corpus.target_vocab.decode(row.tolist()) for row in cut]
    if isinstance(model, Seq2SeqTransformer):
        memory = model.encode(source, visible)
        step = lambda ids: model.decode(memory, visible, ids)[0]  # noqa: E731
    else:
        step = lambda ids: model(source, visible, ids)[0]  # noqa: E731
    out = source.new_ones(len(pairs), 1)  # <bos>
    done = torch.zeros_like(visible[:, 0])
    limit = visible.sum(1) + max_extra  # each sentence's own budget, whatever the batch
    for t in range(source.size(1) + max_extra):
        logits = step(out)
        word = logits[:, -1].argmax(-1).masked_fill(done, 0)
        out = torch.cat([out, word[:, None]], dim=1)
        done |= (word == 2) | (t + 1 >= limit)
        if done.all():
            break
    return [corpus.target_vocab.decode(row[1:].tolist()) for row in out]


def exact_match(model: Model, pairs: list[data.Pair], corpus: data.Corpus) -> float:
    """The share of ``pairs`` greedy decoding translates word for word right."""
    return metrics.exact_match(greedy(model, pairs, corpus), [p.target for p in pairs])


@torch.no_grad()
def cross_attention(model: Seq2SeqTransformer, pairs: list[data.Pair], corpus: data.Corpus) -> Tensor:
    """Teacher-forced cross-attention ``[N, B, H, T+1, S]`` (row i predicts target word i)."""
    b = _batch(_model(model), pairs, corpus)
    return model.eval()(b.source, b.source_mask, b.target_in)[1].cross


def alignment_error_rates(model: Seq2SeqTransformer, pairs: list[data.Pair], corpus: data.Corpus) -> Tensor:
    """AER ``[N, H + 1]`` of argmax cross-attention against the gold links, per layer and head; the
    last column is the average of the layer's heads."""
    A = cross_attention(model, pairs, corpus)
    A = torch.cat([A, A.mean(2, keepdim=True)], dim=2)
    gold = [p.links for p in pairs]
    out = A.new_empty(A.size(0), A.size(2))
    for layer in range(A.size(0)):
        for head in range(A.size(2)):
            found = [
                metrics.argmax_links(A[layer, k, head], len(p.target), len(p.source))
                for k, p in enumerate(pairs)
            ]
            out[layer, head] = metrics.alignment_error_rate(found, gold)
    return out


@torch.no_grad()
def confidence(model: Model, pairs: list[data.Pair], corpus: data.Corpus) -> tuple[Tensor, Tensor]:
    """Under teacher forcing, for every target word (and <eos>): the model's top probability max_w p(w)
    and whether its argmax is right, two flat tensors."""
    b = _batch(_model(model, MODELS), pairs, corpus)
    probs = model.eval()(b.source, b.source_mask, b.target_in)[0].softmax(-1)
    want = scored_targets(model, b.source_mask, b.target_out)
    last = (b.target_out != 0).sum(1, keepdim=True)  # T_b + 1: the words and the first <eos>
    keep = torch.arange(want.size(1), device=want.device) < last
    top, word = probs.max(-1)
    return top[keep], (word == want)[keep]


def expected_calibration_error(top: Tensor, right: Tensor, bins: int = 10) -> float:
    """ECE = Σ_b (n_b / n) |acc(b) − conf(b)| over ``bins`` equal-width bins of the top probability
    (Guo et al. 2017): 0 when the model is right exactly as often as it says. ``top`` holds
    probabilities in [0, 1] (logits or NaN are refused by name)."""
    top, right = _checks.real_tensor("top", top), _checks.tensor("right", right)
    if bool(((top < 0) | (top > 1)).any()):
        raise ValueError(
            f"top must hold probabilities in [0, 1] (the top softmax probability, not a logit), got "
            f"values from {float(top.min()):.4g} to {float(top.max()):.4g}"
        )
    bins = _checks.integer("bins", bins, 1, MAX_BINS)
    if top.shape != right.shape or top.dim() != 1 or not len(top):
        raise ValueError(
            "top and right must be two non-empty 1-D tensors of one length, "
            f"got {tuple(top.shape)} and {tuple(right.shape)}"
        )
    which = (top * bins).long().clamp(max=bins - 1)
    ece = 0.0
    for k in range(bins):
        inside = which == k
        if inside.any():
            ece += inside.float().mean().item() * abs(
                right[inside].float().mean().item() - top[inside].mean().item()
            )
    return ece
