"""Bad-input probes for lesson 18's lesson-side helpers (collected by ``test_bad_inputs.py``): the
structural-bias measures, the six-map comparison, the structured decoders and their record, the
hierarchical document task, the panel, the figure and the checker."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.seq2seq import data
from xai_tf.structured import bias, compare, decoder, hierarchy, pooling, shipped, training
from xai_tf.widgets import structured as widgets_structured

BIAS, COMPARE, DECODER = "xai_tf.structured.bias", "xai_tf.structured.compare", "xai_tf.structured.decoder"
TRAINING, SHIPPED, HIER = (
    "xai_tf.structured.training",
    "xai_tf.structured.shipped",
    "xai_tf.structured.hierarchy",
)
WIDGETS = "xai_tf.widgets.structured"
PAIR = data.EXAMPLE

EXEMPT = {
    f"{SHIPPED}.fingerprint": "no arguments",
    f"{SHIPPED}.recorded": "no arguments",
    f"{HIER}.recorded": "no arguments",
}


def _corpus() -> data.Corpus:
    return data.make_corpus(0)


RAISES = [
    (
        "xai_tf.structured.pooling.attention_pool",
        lambda: pooling.attention_pool(z(5), z(5, 5), z(5), z(5)),
        VE,
        r"h must be \[\.\.\., T, d\]",
    ),
    (
        "xai_tf.structured.pooling.attention_pool",
        lambda: pooling.attention_pool(z(3, 4), z(4, 3), z(4), z(4)),
        VE,
        r"W must have shape \(4, 4\) for d = 4, got \(4, 3\)",
    ),
    (f"{BIAS}.monotone_share", lambda: bias.monotone_share(set()), TE, "links must be a non-empty set"),
    (f"{BIAS}.jumps", lambda: bias.jumps([(0, 1)]), TE, "links must be a non-empty set"),
    (f"{BIAS}.runs", lambda: bias.runs(z(3, 0)), VE, r"alpha must be \[..., S\] with S ≥ 1"),
    (f"{BIAS}.runs", lambda: bias.runs(torch.tensor([0.5, NAN])), VE, "alpha has NaN"),
    (f"{BIAS}.runs", lambda: bias.runs(z(4), eps=2.0), VE, r"eps must be a finite number in \[0, 1\]"),
    (f"{BIAS}.gold_mass", lambda: bias.gold_mass(z(2, 3), {(5, 0)}), VE, r"link \(5, 0\) lies outside"),
    (f"{BIAS}.gold_mass", lambda: bias.gold_mass(z(3), {(0, 0)}), VE, "alpha must have 2 dimensions"),
    (
        f"{BIAS}.forced_scores",
        lambda: bias.forced_scores(training.build("softmax", _corpus()), _corpus(), []),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    (f"{BIAS}.map_scores", lambda: bias.map_scores(z(4), "entmax"), VE, "name must be one of softmax"),
    (
        f"{BIAS}.structure_table",
        lambda: bias.structure_table([z(2, 3)], []),
        VE,
        "1 scores but 0 pairs",
    ),
    (
        f"{COMPARE}.contiguity_transition",
        lambda: compare.contiguity_transition(NAN),
        VE,
        "bonus must be a finite number",
    ),
    (f"{COMPARE}.attention_map", lambda: compare.attention_map(z(0), "crf"), VE, r"T ≥ 1"),
    (f"{COMPARE}.attention_map", lambda: compare.attention_map(z(3), "argmax"), VE, "name must be one of"),
    (
        f"{COMPARE}.attention_map",
        lambda: compare.attention_map(z(3), "crf", z(3, 3)),
        VE,
        r"transition must be \[2, 2\]",
    ),
    (f"{COMPARE}.side_by_side", lambda: compare.side_by_side(z(2, 3)), VE, "theta must have 1 dimensions"),
    (f"{COMPARE}.jacobian", lambda: compare.jacobian(torch.tensor([1.0, NAN]), "crf"), VE, "theta has NaN"),
    (f"{DECODER}.normalize", lambda: decoder.normalize(z(3), "tanh"), VE, "normalizer must be one of"),
    (f"{DECODER}.normalize", lambda: decoder.normalize(torch.arange(3), "crf"), TE, "e must be a floating"),
    (
        f"{DECODER}.same_length_batches",
        lambda: decoder.same_length_batches([PAIR], 0),
        VE,
        r"batch_size must be an integer ≥ 1",
    ),
    (f"{TRAINING}.short", lambda: training.short([PAIR], 2), VE, r"max_length must be an integer in 3..60"),
    (f"{TRAINING}.build", lambda: training.build("entmax", _corpus()), VE, "normalizer must be one of"),
    (
        f"{TRAINING}.train",
        lambda: training.train("crf", options=training.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1..100000",
    ),
    (
        f"{TRAINING}.forced_attention",
        lambda: training.forced_attention(training.build("crf", _corpus()), _corpus(), []),
        TE,
        "pairs must be a non-empty list",
    ),
    (
        f"{TRAINING}.scores",
        lambda: training.scores(training.build("crf", _corpus()), _corpus(), []),
        TE,
        "pairs must be a non-empty list",
    ),
    (f"{BIAS}.tied_max", lambda: bias.tied_max(torch.zeros(3, 0)), VE, r"S ≥ 1 positions"),
    (f"{BIAS}.tied_max", lambda: bias.tied_max(torch.tensor([1.0, NAN])), VE, "alpha has NaN"),
    (f"{SHIPPED}.model", lambda: shipped.model("entmax15"), VE, "normalizer must be one of"),
    (f"{SHIPPED}.draws", lambda: shipped.draws("softmax", "accuracy"), VE, "key must be one of"),
    (f"{HIER}.make_documents", lambda: hierarchy.make_documents(0), VE, r"n must be an integer in 1..100000"),
    (
        f"{HIER}.flatten",
        lambda: hierarchy.flatten(torch.zeros(2, 3, dtype=torch.long)),
        VE,
        r"ids must be \[B, N, L\]",
    ),
    (f"{HIER}.train", lambda: hierarchy.train("tree"), VE, "kind must be one of hierarchical, flat"),
    (f"{HIER}.train", lambda: hierarchy.train("flat", every=0), VE, r"every must be an integer in 1..200"),
    (f"{HIER}.accuracy", lambda: hierarchy.accuracy(torch.nn.Linear(2, 2), None), TE, "model must be"),
    (
        f"{HIER}.reading",
        lambda: hierarchy.reading(hierarchy.Flat(), hierarchy.make_documents(4, 0)),
        TE,
        "model must be a Hierarchical",
    ),
    (
        f"{HIER}.reading",
        lambda: hierarchy.reading(
            hierarchy.Hierarchical(),
            hierarchy.make_documents(4, 0)._replace(labels=torch.zeros(4, dtype=torch.long)),
        ),
        VE,
        "at least one positive document",
    ),
    (f"{HIER}.recorded_curves", lambda: hierarchy.recorded_curves("tree"), VE, "kind must be one of"),
    (f"{WIDGETS}.maps_panel", lambda: widgets_structured.maps_panel([], []), VE, "scores and pairs"),
    (
        f"{WIDGETS}.document_view",
        lambda: widgets_structured.document_view([["a", "b"]], z(2, 2), z(2)),
        VE,
        r"alpha must be \[1, 2\] and beta \[1\]",
    ),
]

CHECKERS = {
    "xai_tf.exercises.structured.check_chain_marginals": "returned None",
    "xai_tf.exercises.structured.check_viterbi": "returned None",
    "xai_tf.exercises.structured.check_attention_pool": "returned None",
    "xai_tf.exercises.structured.check_monotone_share": "is None: did you forget",
    "xai_tf.exercises.structured.check_log_partition": "is None: did you forget",
}
PANELS: dict = {}
