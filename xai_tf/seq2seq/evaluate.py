"""What lesson 16 measures on a trained encoder–decoder: translations scored by exact match and BLEU
(overall and by source length), and attention scored as an alignment.

The alignment is read under teacher forcing on the gold translation: row i of α is the attention
while predicting the reference's word y_i, so AER compares attention with the gold links of the same
words whether or not the model would have produced them. Argmax attention gives one link per target
word; AER is ``metrics.alignment_error_rate`` against the sure links.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from xai_tf.seq2seq import data, metrics
from xai_tf.seq2seq.decoding import _checked, _device, _encode, _on, greedy
from xai_tf.seq2seq.model import Seq2Seq


@torch.no_grad()
def forced_attention(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> list[torch.Tensor]:
    """α [|y|, |x|] per pair under teacher forcing on its reference (the <eos> row left out)."""
    pairs = _checked(model, corpus, pairs)
    _encode(model, corpus, [p.source for p in pairs], [f"pairs[{k}].source" for k in range(len(pairs))])
    if model.scorer is None:
        raise ValueError("this model has no attention (score=None): there is no α to read")
    b = _on(data.batch(pairs, corpus), _device(model))
    _, alpha = model(b.source, b.source_mask, b.target_in)
    assert alpha is not None
    return [alpha[k, : len(p.target), : len(p.source)] for k, p in enumerate(pairs)]


def attention_aer(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> float:
    """AER of argmax attention (teacher-forced on the references) against the gold links."""
    maps = forced_attention(model, corpus, pairs)
    return metrics.alignment_error_rate([metrics.argmax_links(a) for a in maps], [p.links for p in pairs])


def scores(
    model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair], width: int = 5
) -> dict[str, object]:
    """Greedy translations of ``pairs`` scored: exact match, BLEU, both by source length (buckets of
    ``width``), and AER for a model with attention."""
    pairs = _checked(model, corpus, pairs)
    _encode(model, corpus, [p.source for p in pairs], [f"pairs[{k}].source" for k in range(len(pairs))])
    hyps, _ = greedy(model, corpus, [p.source for p in pairs])
    refs = [p.target for p in pairs]
    out: dict[str, object] = {
        "exact": metrics.exact_match(hyps, refs),
        "bleu": metrics.bleu(hyps, refs),
        "by_length": [r._asdict() for r in metrics.by_length([p.source for p in pairs], hyps, refs, width)],
    }
    if model.scorer is not None:
        out["aer"] = attention_aer(model, corpus, pairs)
    return out
