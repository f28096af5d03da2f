"""Bad-input probes for lesson 16 (seq2seq with attention, ``xai_tf.seq2seq``), collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE

from xai_tf.seq2seq import attention, data, decoding, evaluate, exposure, metrics, shipped, summary, training
from xai_tf.seq2seq.model import Config, Seq2Seq
from xai_tf.widgets import seq2seq as seq2seq_widgets


def _corpus() -> data.Corpus:
    return data.make_corpus(0, 30, 5, 5)


def _none_model():
    return shipped.model("none")


def _bahdanau(**change):
    args = {
        "s_prev": torch.zeros(2, 4),
        "h": torch.zeros(2, 3, 4),
        "W_a": torch.zeros(5, 4),
        "U_a": torch.zeros(5, 4),
    }
    args["v_a"] = torch.zeros(5)
    args.update(change)
    return attention.additive_attention(**args)


EXEMPT = {
    "xai_tf.seq2seq.shipped.fingerprint": "no arguments",
    "xai_tf.seq2seq.shipped.recorded": "no arguments",
    "xai_tf.seq2seq.grammar.source_words": "no arguments",
    "xai_tf.seq2seq.grammar.target_words": "no arguments",
}

RAISES = [
    (
        "xai_tf.seq2seq.attention.scorer",
        lambda: attention.scorer("cosine", 4, 4),
        VE,
        "name must be one of dot",
    ),
    (
        "xai_tf.seq2seq.attention.additive_attention",
        lambda: _bahdanau(s_prev=torch.zeros(3, 4)),
        VE,
        "s_prev .B, d. and h .B, S, d. need one batch size",
    ),
    (
        "xai_tf.seq2seq.model.Config",
        lambda: Config(300, 300, score="cosine"),
        VE,
        "score must be None .no attention.",
    ),
    (
        "xai_tf.seq2seq.decoding.greedy",
        lambda: decoding.greedy(_none_model(), _corpus(), [["the", "zebra", "sings"]]),
        VE,
        "unknown source word.*'zebra'",
    ),
    (
        "xai_tf.seq2seq.decoding.encode_sources",
        lambda: decoding.encode_sources(_none_model(), _corpus(), []),
        TE,
        "sources must be a non-empty list of sentences, each a list of words",
    ),
    (
        "xai_tf.seq2seq.decoding.length_penalty",
        lambda: decoding.length_penalty(0, 1.0),
        VE,
        "length must be an integer",
    ),
    (
        "xai_tf.seq2seq.decoding.beam_search",
        lambda: decoding.beam_search(lambda t, s: (t, s), torch.zeros(1, 1), 0, 5),
        VE,
        "beam must be an integer in 1..1000,",
    ),
    (
        "xai_tf.seq2seq.decoding.beam_translate",
        lambda: decoding.beam_translate(_none_model(), _corpus(), ["vou", "à", "loja"]),
        VE,
        "in the target language",
    ),
    (
        "xai_tf.seq2seq.decoding.position_accuracy",
        lambda: decoding.position_accuracy(_none_model(), _corpus(), "pairs"),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    (
        "xai_tf.seq2seq.evaluate.forced_attention",
        lambda: evaluate.forced_attention(_none_model(), _corpus(), _corpus().test[:2]),
        VE,
        "has no attention",
    ),
    (
        "xai_tf.seq2seq.evaluate.attention_aer",
        lambda: evaluate.attention_aer("model", _corpus(), _corpus().test[:2]),
        TE,
        "model must be a Seq2Seq",
    ),
    (
        "xai_tf.seq2seq.evaluate.scores",
        lambda: evaluate.scores(_none_model(), _corpus(), []),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    ("xai_tf.seq2seq.shipped.model", lambda: shipped.model("luong"), VE, "name must be one of none, dot"),
    (
        "xai_tf.seq2seq.decoding.log_prob",
        lambda: decoding.log_prob(_none_model(), _corpus(), ["the", "dog", "sings"], ["o", "zebra"]),
        VE,
        "unknown target word.*'zebra'",
    ),
    ("xai_tf.seq2seq.summary.draws", lambda: summary.draws("luong"), VE, "name must be one of none"),
    (
        "xai_tf.seq2seq.summary.by_length",
        lambda: summary.by_length("none", "chrf"),
        VE,
        "metric must be 'bleu'",
    ),
    ("xai_tf.seq2seq.summary.per_draw", lambda: summary.per_draw("none", "aer"), VE, "has no attention"),
    ("xai_tf.seq2seq.summary.exposure", lambda: summary.exposure("transformer"), VE, "name must be one of"),
    ("xai_tf.seq2seq.summary.aer_curves", lambda: summary.aer_curves("none"), VE, "has no attention"),
    ("xai_tf.seq2seq.summary.beam_rows", lambda: summary.beam_rows("none", "aer"), VE, "key must be 'bleu'"),
    ("xai_tf.seq2seq.summary.beam_rows", lambda: summary.beam_rows("luong"), VE, "name must be one of none"),
    (
        "xai_tf.seq2seq.summary.disagreements",
        lambda: summary.disagreements(torch.ones(2, 2), [(0, 0)]),
        TE,
        "links must be a set",
    ),
    (
        "xai_tf.seq2seq.summary.disagreement_kinds",
        lambda: summary.disagreement_kinds([torch.ones(2, 2)], []),
        TE,
        "maps and links must be lists",
    ),
    (
        "xai_tf.seq2seq.summary.early_words",
        lambda: summary.early_words([torch.ones(2, 2)], []),
        TE,
        "maps and pairs must be lists",
    ),
    (
        "xai_tf.widgets.seq2seq.plot_alignment",
        lambda: seq2seq_widgets.plot_alignment(torch.ones(2, 2), ["a"], ["b"], set()),
        VE,
        "attention must be .1, 1.",
    ),
    (
        "xai_tf.widgets.seq2seq.plot_by_length",
        lambda: seq2seq_widgets.plot_by_length({}, "BLEU"),
        TE,
        "curves must be",
    ),
    (
        "xai_tf.widgets.seq2seq.translation_panel",
        lambda: seq2seq_widgets.translation_panel({}, _corpus()),
        TE,
        "models must be a non-empty dict",
    ),
    (
        "xai_tf.seq2seq.training.train",
        lambda: training.train(options=training.OPTIONS.replace(steps=0)),
        VE,
        "steps must be an integer in 1..100000",
    ),
    ("xai_tf.seq2seq.data.tokenize", lambda: data.tokenize(["the", "dog"]), TE, "text must be a str"),
    (
        "xai_tf.seq2seq.data.make_corpus",
        lambda: data.make_corpus(0, train=0),
        VE,
        "train must be an integer in 1..100000",
    ),
    (  # 33 lengths × 3,816 three-word sources: above it the search for new sources never ended
        "xai_tf.seq2seq.data.make_corpus",
        lambda: data.make_corpus(0, train=100_000, dev=25_000, test=929),
        VE,
        r"train \+ dev \+ test must be at most 125928 .*got 125929",
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

CHECKERS = {"xai_tf.exercises.seq2seq.check_additive_attention": "returned None"}
PANELS = {
    "xai_tf.widgets.seq2seq.translation_panel": (
        lambda: seq2seq_widgets.translation_panel({"none": _none_model()}, _corpus()),
        "text",
        "the zebra sings",
    )
}

RAISES += [
    (
        "xai_tf.seq2seq.exposure.token_losses",
        lambda: exposure.token_losses(torch.nn.Linear(2, 2), _corpus(), _corpus().test[:2]),
        TE,
        "model must be a Seq2Seq",
    ),
    (
        "xai_tf.seq2seq.exposure.position_loss",
        lambda: exposure.position_loss(_none_model(), _corpus(), []),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    (
        "xai_tf.seq2seq.exposure.mean_losses",
        lambda: exposure.mean_losses(_none_model(), "corpus", _corpus().test[:2]),
        TE,
        "corpus must be a Corpus",
    ),
]

# lesson 16's exercises (issue 54): one decoder step, written out
from xai_tf.seq2seq import step  # noqa: E402

RAISES += [
    (
        "xai_tf.seq2seq.step.additive_scores",
        lambda: step.additive_scores(
            torch.zeros(3), torch.zeros(4, 2), torch.zeros(2, 2), torch.zeros(2, 2), torch.zeros(2)
        ),
        VE,
        r"s_prev \[d\] and h \[S, d\] \(S ≥ 1\) need one width d",
    ),
    (
        "xai_tf.seq2seq.step.bilinear_scores",
        lambda: step.bilinear_scores(torch.zeros(2), torch.zeros(4, 2), torch.zeros(3, 2)),
        VE,
        r"W_a must be \[d, d\]",
    ),
    (
        "xai_tf.seq2seq.step.context_vector",
        lambda: step.context_vector(torch.zeros(3), torch.zeros(4, 2)),
        VE,
        r"e must be \[S\] with S = 4",
    ),
    (
        "xai_tf.seq2seq.step.additive_step",
        lambda: step.additive_step(
            torch.zeros(3, 2), torch.zeros(4, 2), torch.zeros(2, 2), torch.zeros(2, 2), torch.zeros(2), 0
        ),
        VE,
        r"i must be an integer in 1..3",
    ),
]
CHECKERS |= {
    "xai_tf.exercises.seq2seq.check_additive_scores": "e is None",
    "xai_tf.exercises.seq2seq.check_context_vector": "returned None",
    "xai_tf.exercises.seq2seq.check_bilinear_scores": "e is None",
    "xai_tf.exercises.seq2seq.check_aer": "returned None",
}

from xai_tf.seq2seq import word_loss  # noqa: E402

RAISES += [
    (
        "xai_tf.seq2seq.word_loss.word_losses",
        lambda: word_loss.word_losses(torch.zeros(3, 5), torch.tensor([0, 5, 1])),
        VE,
        r"targets must be 3 ids in 0..4",
    ),
    (
        "xai_tf.seq2seq.word_loss.pair_logits",
        lambda: word_loss.pair_logits("additive", None, None),
        TE,
        "model must be a Seq2Seq, got str",
    ),
]
CHECKERS |= {
    "xai_tf.exercises.seq2seq.check_word_losses": "ℓ is None",
    "xai_tf.exercises.seq2seq.check_length_penalty": "lp is None",
}


def _uniform_step(tokens: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.full((tokens.size(0), 50), -(50.0**0.5)).log_softmax(-1), state


# Issue 58: a sentence given as one string (wrapping it would make a one-word sentence); a beam width
# that would run for minutes.
RAISES += [
    (
        "xai_tf.seq2seq.data.Vocabulary",
        lambda: _corpus().source_vocab.encode("the dog sings"),
        TE,
        "words must be a list of words, got one str: split it, e.g. tokenize",
    ),
    (
        "xai_tf.seq2seq.decoding.beam_search",
        lambda: decoding.beam_search(_uniform_step, torch.zeros(1, 1), 10_000, 3),
        VE,
        "beam must be an integer in 1..1000",
    ),
]


def _rnn() -> Seq2Seq:
    return Seq2Seq(Config(30, 40)).eval()


# Issue 58: ids outside the vocabulary (or a batch unlike the source's) are named where they enter.
RAISES += [
    (
        "xai_tf.seq2seq.model.Seq2Seq",
        lambda: _rnn()(
            torch.full((2, 4), 10**4), torch.ones(2, 4, dtype=torch.bool), torch.ones(2, 3).long()
        ),
        VE,
        "source must be token ids in 0..29 \\(the model's vocabulary\\), got 10000",
    ),
    (
        "xai_tf.seq2seq.model.Seq2Seq",
        lambda: _rnn()(torch.ones(2, 4).long(), torch.ones(2, 4, dtype=torch.bool), torch.ones(3, 3).long()),
        VE,
        "target_in must be token ids \\[batch = 2, T ≥ 1\\] like source",
    ),
]


# Issue 58 (second sweep), one row per class: pairs that are not a list of Pairs; a sentence refusal that
# names the caller's argument (here a pair's empty source), not the helper's own "words"; a model that is
# not a Seq2Seq; a score function's size of 10⁹.
RAISES += [
    (
        "xai_tf.seq2seq.evaluate.forced_attention",
        lambda: evaluate.forced_attention(shipped.model("additive"), _corpus(), "pairs"),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    (
        "xai_tf.seq2seq.evaluate.scores",
        lambda: evaluate.scores(_none_model(), _corpus(), [data.Pair([], ["o", "cão", "canta"], set())]),
        VE,
        r"pairs\[0\]\.source is empty: the source sentence needs 3 to 60 words",
    ),
    (
        "xai_tf.seq2seq.decoding.position_accuracy",
        lambda: decoding.position_accuracy(None, _corpus(), _corpus().test[:2]),
        TE,
        "model must be a Seq2Seq, got NoneType",
    ),
    (
        "xai_tf.seq2seq.attention.scorer",
        lambda: attention.scorer("additive", 10**12, 4),
        VE,
        r"d must be an integer in 1\.\.8192",
    ),
]
