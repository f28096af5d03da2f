"""Device rows for lesson 17: the encoder–decoder Transformer (collected by ``test_devices.py``)."""

import copy
from collections.abc import Callable

import torch

import xai_tf


def _encdec(lm: xai_tf.LoadedModel) -> list:
    from xai_tf.encdec import analysis, evaluate, runs, shipped

    corpus = shipped.corpus()
    pairs = corpus.test[:3]
    model = copy.deepcopy(shipped.model("pre")).to(lm.device)
    with torch.device("cpu"):  # built here, then moved (the guarded CPU makes meta tensors by default)
        encoder_only = runs.build("encoder_only", corpus).eval().to(lm.device)
    return [
        evaluate.greedy(encoder_only, pairs, corpus),
        evaluate.confidence(encoder_only, pairs, corpus),
        evaluate.greedy(model, pairs, corpus),
        evaluate.cross_attention(model, pairs, corpus),
        evaluate.alignment_error_rates(model, pairs, corpus),
        evaluate.confidence(model, pairs, corpus),
        analysis.gradient_norms(model, pairs, corpus),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "the encoder-decoder Transformer (lesson 17)": _encdec,
}
