"""Device rows for lesson 16: seq2seq and attention (collected by ``test_devices.py``)."""

import copy
from collections.abc import Callable

import xai_tf


def _seq2seq(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.seq2seq import data, decoding, evaluate, shipped

    corpus = data.make_corpus(0)
    pairs = corpus.test[:4]
    model = copy.deepcopy(shipped.model("additive")).to(lm.device)
    return [
        decoding.greedy(model, corpus, [p.source for p in pairs]),
        decoding.beam_translate(model, corpus, pairs[1].source, beam=3, alpha=1.0),
        decoding.position_accuracy(model, corpus, pairs),
        evaluate.forced_attention(model, corpus, pairs),
        decoding.log_prob(model, corpus, pairs[0].source, pairs[0].target),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "seq2seq and attention (lesson 16)": _seq2seq,
}
