"""One sentence's word losses under teacher forcing and free running (lesson 16, §5).

For target position i (0-based; the last position is <eos>) with decoder logits z_i over the target
vocabulary, the cross-entropy of the reference word y_i is

    ℓ_i = −log softmax(z_i)_{y_i} = −z_{i, y_i} + log Σ_w exp z_{i, w}.

Teacher forcing takes z_i from the reference prefix y_<i, free running from the model's own greedy prefix
ŷ_<i (``exposure`` averages the same losses over a split).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.seq2seq import data
from xai_tf.seq2seq.decoding import _device, _on
from xai_tf.seq2seq.model import Seq2Seq


def word_losses(logits: Tensor, targets: Tensor) -> Tensor:
    """ℓ_i = −log softmax(z_i)_{y_i} ``[T]`` from the logits z ``[T, V]`` and the reference ids y ``[T]``."""
    z, y = _checks.tensor("logits", logits), _checks.tensor("targets", targets)
    if z.dim() != 2 or not z.is_floating_point() or z.numel() == 0:
        raise ValueError(f"logits must be float [T, V], got {z.dtype} {tuple(z.shape)}")
    if y.shape != z.shape[:1] or y.dtype != torch.long or (y < 0).any() or (y >= z.size(1)).any():
        raise ValueError(
            f"targets must be {z.size(0)} ids in 0..{z.size(1) - 1}, got {y.dtype} {tuple(y.shape)}"
        )
    return -torch.log_softmax(z, -1).gather(1, y[:, None])[:, 0]


@torch.no_grad()
def pair_logits(model: Seq2Seq, corpus: data.Corpus, pair: data.Pair) -> tuple[Tensor, Tensor, Tensor]:
    """``(teacher-forced logits [T+1, V], free-running logits [T+1, V], reference ids y_1 … y_T <eos> [T+1])``
    of one pair; free running reads its own greedy word back at every step, for as many steps as the
    reference has (as ``exposure.token_losses``)."""
    if not isinstance(model, Seq2Seq):
        raise TypeError(f"model must be a Seq2Seq, got {type(model).__name__}")
    b = _on(data.batch([pair], corpus), _device(model))
    forced, _ = model(b.source, b.source_mask, b.target_in)
    h, s, keys, c = model.encode(b.source, b.source_mask)
    y, free = b.target_in[:, 0], []
    for _ in range(b.target_out.size(1)):
        logits, s, _ = model.step(y, s, h, keys, c, b.source_mask)
        free.append(logits[0])
        y = logits.argmax(-1)
    return forced[0], torch.stack(free), b.target_out[0]
