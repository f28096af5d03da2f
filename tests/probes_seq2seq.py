"""Bad-input probes for lesson 16 (seq2seq with attention, ``xai_tf.seq2seq``), collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE

from xai_tf.seq2seq import data, metrics


def _corpus() -> data.Corpus:
    return data.make_corpus(0, 30, 5, 5)


EXEMPT = {
    "xai_tf.seq2seq.grammar.source_words": "no arguments",
    "xai_tf.seq2seq.grammar.target_words": "no arguments",
}

RAISES = [
    ("xai_tf.seq2seq.data.tokenize", lambda: data.tokenize(["the", "dog"]), TE, "text must be a str"),
    (
        "xai_tf.seq2seq.data.make_corpus",
        lambda: data.make_corpus(0, train=0),
        VE,
        "train must be an integer in 1..100000",
    ),
    (
        "xai_tf.seq2seq.data.batch",
        lambda: data.batch([], _corpus()),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    (
        "xai_tf.seq2seq.metrics.alignment_error_rate",
        lambda: metrics.alignment_error_rate([set()], [set()]),
        VE,
        "no link at all: AER is undefined",
    ),
    (
        "xai_tf.seq2seq.metrics.argmax_links",
        lambda: metrics.argmax_links(torch.tensor([[NAN, 1.0]])),
        VE,
        "attention",
    ),
    ("xai_tf.seq2seq.metrics.bleu", lambda: metrics.bleu([], []), VE, "hypotheses is empty"),
    (
        "xai_tf.seq2seq.metrics.exact_match",
        lambda: metrics.exact_match("vou", ["vou"]),
        TE,
        "hypotheses must be a list",
    ),
    (
        "xai_tf.seq2seq.metrics.by_length",
        lambda: metrics.by_length([["a"]], [["b"]], [["b"]], width=0),
        VE,
        "width must be an integer",
    ),
]

CHECKERS: dict[str, str] = {}
PANELS: dict[str, object] = {}
