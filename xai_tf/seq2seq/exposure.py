"""Exposure bias measured in loss: the cross-entropy of each reference word when the decoder reads the
reference's previous words (teacher forcing) and when it reads its own (free running).

For a pair (x, y) and target position i (0-based, words only):

    teacher forcing:  ℓ_i^TF  = −log p(y_i | y_<i, x)
    free running:     ℓ_i^FR  = −log p(y_i | ŷ_<i, x),   ŷ_j = argmax_w p(w | ŷ_<j, x)  (greedy)

The greedy prefix ŷ runs for as many steps as the reference has words, whatever it emits (an <eos> it
chose is read back like any word): the model's own inputs, compared with the reference word by word.
Where ŷ_<i = y_<i the two losses are the same number; the gap comes only from positions after the first
word greedy got wrong (``diverged``), so a missed or extra word also shifts every later comparison —
part of the free-running loss is misalignment, not only a worse distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import torch
from torch import Tensor

from xai_tf.seq2seq import data
from xai_tf.seq2seq.decoding import _checked, _device, _on
from xai_tf.seq2seq.model import Seq2Seq


class PositionLoss(NamedTuple):
    """Per target position i: mean ℓ^TF, mean ℓ^FR, the number of references with a word i, and the
    share of them whose greedy prefix ŷ_<i already differs from y_<i."""

    forced: Tensor
    free: Tensor
    n: Tensor
    diverged: Tensor


@torch.no_grad()
def token_losses(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> tuple[Tensor, ...]:
    """ℓ^TF and ℓ^FR ``[B, T]`` of every reference word, whether word i exists ``[B, T]``, and whether the
    greedy prefix ŷ_<i differs from y_<i ``[B, T]`` (float64, on the model's device)."""
    pairs = _checked(model, corpus, pairs)
    b = _on(data.batch(pairs, corpus), _device(model))
    gold, words = b.target_out, b.target_out > 2  # ids > 2 are words (not padding, <bos>, <eos>)
    forced_logits, _ = model(b.source, b.source_mask, b.target_in)
    forced = -torch.log_softmax(forced_logits.double(), -1).gather(2, gold[..., None])[..., 0]
    h, s, keys, c = model.encode(b.source, b.source_mask)
    y = b.target_in[:, 0]  # <bos>
    free, off = [], []
    wrong = torch.zeros_like(words[:, 0])
    for i in range(gold.size(1)):
        logits, s, _ = model.step(y, s, h, keys, c, b.source_mask)
        free.append(-torch.log_softmax(logits.double(), -1).gather(1, gold[:, i, None])[:, 0])
        off.append(wrong.clone())
        y = logits.argmax(-1)
        wrong |= y != gold[:, i]
    return forced, torch.stack(free, 1), words, torch.stack(off, 1)


def position_loss(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> PositionLoss:
    """``token_losses`` averaged per position over the references that have a word there."""
    forced, free, words, off = token_losses(model, corpus, pairs)
    n = words.sum(0)
    keep = n > 0
    w = words.double()
    mean = lambda t: ((t * w).sum(0) / n.clamp(min=1))[keep]  # noqa: E731
    return PositionLoss(mean(forced), mean(free), n[keep], mean(off.double()))


def mean_losses(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> dict[str, float]:
    """Over every reference word of ``pairs``: mean ℓ^TF ("forced"), mean ℓ^FR ("free"), the share of words
    after greedy's first wrong word ("diverged"), and both means over those words alone
    ("forced_diverged", "free_diverged"; NaN where greedy never left the reference)."""
    forced, free, words, off = token_losses(model, corpus, pairs)
    on = words & off
    out = {"forced": forced[words].mean(), "free": free[words].mean(), "diverged": on.sum() / words.sum()}
    out |= {"forced_diverged": forced[on].mean(), "free_diverged": free[on].mean()}
    return {k: float(v) for k, v in out.items()}
