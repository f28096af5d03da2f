"""Decoding lesson 16's encoder–decoders: greedy, beam search with a length penalty, and the gap
between teacher forcing and free running (exposure bias).

- **Greedy**: y_i = argmax_y p(y | y_<i, x), until <eos> or ``max_length`` words.
- **Beam search** of width β keeps the β best prefixes by log-probability; a prefix that emits <eos>
  is finished. Finished translations are ranked by log p(y | x) / lp(y) with the length penalty of
  Wu et al. (2016), lp(y) = ((5 + |y|)/6)^α (α = 0: raw log-probability, which favours short
  output). With β at least the number of prefixes it can meet, the search is exhaustive.
- **Exposure bias** (Bengio et al. 2015; Ranzato et al. 2016): trained under teacher forcing, the
  decoder reads the gold y_{i−1}; at test time it reads its own guess, so one mistake feeds the next.
  ``position_accuracy`` measures word accuracy per target position both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.seq2seq import data
from xai_tf.seq2seq.model import Seq2Seq

BOS_ID, EOS_ID = 1, 2
StepFn = Callable[[Tensor, Tensor], tuple[Tensor, Tensor]]


def encode_sources(
    model: Seq2Seq, corpus: data.Corpus, sources: Sequence[Sequence[str]]
) -> tuple[Tensor, Tensor]:
    """``(ids [batch, |x|], mask)``: ``sources`` (sentences, each a list of source words) as padded ids
    of ``corpus``'s source vocabulary on ``model``'s device, and mask = ids ≠ 0 (the padding)."""
    if not isinstance(sources, list | tuple) or not sources:
        raise TypeError("sources must be a non-empty list of sentences, each a list of words")
    return _encode(model, corpus, sources, [f"sources[{k}]" for k in range(len(sources))])


def _encode(
    model: Seq2Seq, corpus: data.Corpus, sources: Sequence[Sequence[str]], names: list[str]
) -> tuple[Tensor, Tensor]:
    """``encode_sources`` with each refusal naming the caller's argument (``source``, ``pairs[2].source``)."""
    _check_model(model)
    data._check_corpus(corpus)
    ids = data._pad([corpus.source_vocab.encode(s, name=n) for s, n in zip(sources, names, strict=True)])
    ids = ids.to(_device(model))
    return ids, ids != 0


def _check_model(model: object) -> Seq2Seq:
    """``model`` if it is a ``Seq2Seq``, else a TypeError that names it."""
    if not isinstance(model, Seq2Seq):
        raise TypeError(f"model must be a Seq2Seq, got {type(model).__name__}")
    return model


def _checked(model: object, corpus: object, pairs: object) -> list[data.Pair]:
    """The three arguments of a helper that scores ``pairs`` checked, each refusal naming its argument."""
    _check_model(model)
    data._check_corpus(corpus)
    return data._check_pairs(pairs)


def _device(model: Seq2Seq) -> torch.device:
    return next(model.parameters()).device


def _on(b: data.Batch, device: torch.device) -> data.Batch:
    return data.Batch(*(t.to(device) for t in b))


@torch.no_grad()
def greedy(
    model: Seq2Seq, corpus: data.Corpus, sources: Sequence[Sequence[str]], max_length: int = 80
) -> tuple[list[list[str]], list[Tensor | None]]:
    """Greedy translations of ``sources`` (lists of words), each at most ``max_length`` words, and, per
    sentence, its attention α [|y|+1, S] (the last row is the step after the last word: <eos>'s, or the
    step cut off at ``max_length``; None without attention)."""
    max_length = _checks.integer("max_length", max_length, 1, 500)
    source, mask = encode_sources(model, corpus, sources)
    h, s, keys, c = model.encode(source, mask)
    y = torch.full((len(sources),), BOS_ID, dtype=torch.long, device=source.device)
    out, alphas = [], []
    done = torch.zeros(len(sources), dtype=torch.bool, device=source.device)
    for _ in range(max_length + 1):
        logits, s, alpha = model.step(y, s, h, keys, c, mask)
        y = logits.argmax(-1)
        out.append(y)
        alphas.append(alpha)
        done |= y == EOS_ID
        if done.all():
            break
    ids = torch.stack(out, 1)
    words, attention = [], []
    for b in range(len(sources)):
        w = corpus.target_vocab.decode(ids[b])[:max_length]
        words.append(w)
        rows = len(w) + 1
        n = len(sources[b])
        attention.append(None if alphas[0] is None else torch.stack([a[b, :n] for a in alphas[:rows]]))  # type: ignore[index]
    return words, attention


def length_penalty(length: int, alpha: float) -> float:
    """lp(y) = ((5 + |y|)/6)^α (Wu et al. 2016); |y| counts the words and <eos>."""
    length, alpha = _checks.integer("length", length, 1), _checks.real("alpha", alpha, 0.0, 10.0)
    return ((5 + length) / 6) ** alpha


def beam_search(
    step: StepFn, state: Tensor, beam: int, max_length: int, alpha: float = 0.0
) -> tuple[list[int], float]:
    """The best finished sequence (ids, ending in <eos> = 2) and its score log p / lp, by beam search of
    width ``beam`` over ``step(tokens [K], states [K, …]) → (log-probs [K, V], states)`` from one start
    ``state`` [1, …] after <bos> = 1.

    At each step every live prefix's <eos> extension becomes a finished candidate, and the ``beam``
    best other extensions stay live. The search stops when no finished candidate can be beaten: a live
    prefix's log-probability only falls as it grows and lp grows with length (α ≥ 0), so no extension
    of it can score above log p(prefix) / lp(max_length). Sequences are at most ``max_length`` long,
    <eos> included."""
    beam = _checks.integer("beam", beam, 1, 1_000)
    max_length = _checks.integer("max_length", max_length, 1, 500)
    _checks.real("alpha", alpha, 0.0, 10.0)
    if not callable(step):
        raise TypeError(
            f"step must be a function (tokens, states) → (log-probs, states), got {type(step).__name__}"
        )
    if not isinstance(state, Tensor) or state.dim() == 0 or state.size(0) != 1:
        shape = tuple(state.shape) if isinstance(state, Tensor) else type(state).__name__
        raise ValueError(f"state must be one start state, a tensor [1, …], got {shape}")
    prefixes: list[list[int]] = [[]]
    scores = torch.zeros(1, dtype=torch.float64, device=state.device)
    tokens = torch.tensor([BOS_ID], device=state.device)
    finished: list[tuple[float, list[int]]] = []
    for length in range(1, max_length + 1):
        logp, state = step(tokens, state)
        total = scores[:, None] + logp.double()  # [K, V]
        for k in range(total.size(0)):
            finished.append((float(total[k, EOS_ID]) / length_penalty(length, alpha), [*prefixes[k], EOS_ID]))
        total[:, EOS_ID] = -torch.inf
        flat = torch.argsort(total.flatten(), descending=True, stable=True)[:beam]
        live = [divmod(int(f), total.size(1)) for f in flat if torch.isfinite(total.flatten()[f])]
        if not live or length == max_length:
            break
        prefixes = [[*prefixes[k], y] for k, y in live]
        scores = torch.stack([total[k, y] for k, y in live])
        tokens = torch.tensor([y for _, y in live], device=state.device)
        state = state[torch.tensor([k for k, _ in live], device=state.device)]
        best = max(f[0] for f in finished)
        if best >= float(scores.max()) / length_penalty(max_length, alpha):
            break
    score, seq = max(finished, key=lambda f: f[0])
    return seq, score


@torch.no_grad()
def beam_translate(
    model: Seq2Seq,
    corpus: data.Corpus,
    source: Sequence[str],
    beam: int = 5,
    alpha: float = 0.0,
    max_length: int = 80,
) -> list[str]:
    """The beam-search translation of one source sentence (a list of words)."""
    ids, mask = _encode(model, corpus, [source], ["source"])
    h, s0, keys, c = model.encode(ids, mask)

    def step(tokens: Tensor, s: Tensor) -> tuple[Tensor, Tensor]:
        K = tokens.size(0)
        k = None if keys is None else keys.expand(K, -1, -1)
        logits, s_new, _ = model.step(tokens, s, h.expand(K, -1, -1), k, c.expand(K, -1), mask.expand(K, -1))
        return torch.log_softmax(logits, -1), s_new

    best, _ = beam_search(step, s0, beam, max_length, alpha)
    return corpus.target_vocab.decode(best)


@torch.no_grad()
def position_accuracy(
    model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]
) -> tuple[Tensor, Tensor, Tensor]:
    """Word accuracy per target position i (0-based, <eos> excluded) under teacher forcing (the gold
    y_<i read) and free running (greedy, its own y_<i read: a missing word counts as wrong), and the
    number of references long enough to have position i."""
    pairs = _checked(model, corpus, pairs)
    b = _on(data.batch(pairs, corpus), _device(model))
    logits, _ = model(b.source, b.source_mask, b.target_in)
    gold = b.target_out
    words = gold > EOS_ID
    forced = ((logits.argmax(-1) == gold) & words).sum(0).double()
    hyps, _ = greedy(model, corpus, [p.source for p in pairs])
    free = torch.zeros(gold.size(1), dtype=torch.float64, device=gold.device)
    for h, p in zip(hyps, pairs, strict=True):
        for i, w in enumerate(p.target):
            free[i] += i < len(h) and h[i] == w
    n = words.sum(0).double()
    keep = n > 0
    return forced[keep] / n[keep], free[keep] / n[keep], n[keep]


@torch.no_grad()
def log_prob(model: Seq2Seq, corpus: data.Corpus, source: Sequence[str], target: Sequence[str]) -> float:
    """log p(y | x) = Σ_i log p(y_i | y_<i, x) of the ``target`` words followed by <eos>, given ``source``
    (an empty ``target`` is the translation that stops at once)."""
    ids, mask = _encode(model, corpus, [source], ["source"])
    if isinstance(target, list | tuple) and not target:
        y: list[int] = []  # an empty translation is <eos> alone
    else:
        y = corpus.target_vocab.encode(target, name="target")  # an empty translation is <eos> alone
    logits, _ = model(ids, mask, torch.tensor([[BOS_ID, *y]], device=ids.device))
    gold = torch.tensor([*y, EOS_ID], device=ids.device)[:, None]
    return float(torch.log_softmax(logits[0], -1).gather(1, gold).sum())
