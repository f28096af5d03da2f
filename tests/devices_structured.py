"""Device rows for lesson 18: structured attention (collected by ``test_devices.py``)."""

import copy
from collections.abc import Callable

import device_kit as kit
import torch

import xai_tf


def _structured(lm: xai_tf.LoadedModel) -> list:
    from xai_tf import structured

    theta = kit.scores(lm)[0]
    A = torch.tensor([[0.5, -0.3], [0.2, 1.0]], device=lm.device)
    return [
        structured.independent_marginals(theta),
        structured.chain_log_partition(theta, A),
        structured.chain_marginals(theta, A),
        structured.chain_marginals_autograd(theta, A),
        structured.viterbi(theta, A),
        structured.sparsemap_unstructured(theta),
        structured.sparsemap_chain(theta, A),
        *_structured_lesson(lm, theta, A),
    ]


def _structured_lesson(lm: xai_tf.LoadedModel, theta: torch.Tensor, A: torch.Tensor) -> list:
    from xai_tf.seq2seq import data
    from xai_tf.seq2seq import shipped as seq2seq_shipped
    from xai_tf.structured import bias, compare, decoder, hierarchy, shipped, training

    corpus, pairs = data.make_corpus(0), data.make_corpus(0).test[:3]
    additive = copy.deepcopy(seq2seq_shipped.model("additive")).to(lm.device)
    crf = copy.deepcopy(shipped.model("crf")).to(lm.device)
    with torch.device("cpu"), torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        han = hierarchy.Hierarchical()
    han = han.to(lm.device)
    return [
        [decoder.normalize(theta[None], name, A) for name in decoder.NORMALIZERS],
        compare.side_by_side(theta, compare.contiguity_transition(1.0)),
        compare.jacobian(theta, "crf", A),
        bias.forced_scores(additive, corpus, pairs),
        training.forced_attention(crf, corpus, pairs),
        hierarchy.accuracy(han, hierarchy.make_documents(8, 0)),
    ]


CALLS: dict[str, Callable[[xai_tf.LoadedModel], object]] = {
    "structured attention (lesson 18's helpers)": _structured,
}
