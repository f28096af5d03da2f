"""Bad-input probes for lesson 17 (the encoder–decoder Transformer, ``xai_tf.encdec``), collected by
``test_bad_inputs.py``."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, z
from torch import nn

from xai_tf.encdec import (
    analysis,
    beam,
    beam_sweep,
    blocks,
    evaluate,
    recipe,
    runs,
    shipped,
    stack,
    summary,
    torch_parity,
    training,
)
from xai_tf.encdec import model as encdec_model
from xai_tf.seq2seq import data
from xai_tf.widgets import encdec as encdec_widgets


@cache
def _corpus() -> data.Corpus:
    return data.make_corpus(0)


@cache
def _model():
    return runs.build("pre", _corpus(), 0).eval()


def _pairs() -> list[data.Pair]:
    return _corpus().test[:2]


RAISES = [
    (
        "xai_tf.encdec.stack.source_mask",
        lambda: stack.source_mask(torch.ones(2, 3)),
        VE,
        "src_visible must be a bool",
    ),
    (
        "xai_tf.encdec.stack.target_mask",
        lambda: stack.target_mask(torch.ones(3, dtype=torch.bool)),
        VE,
        "tgt_visible must be a bool tensor \\[batch, T\\]",
    ),
    (
        "xai_tf.encdec.torch_parity.from_torch",
        lambda: torch_parity.from_torch(nn.Linear(2, 2)),
        TE,
        "theirs must be a torch.nn.Transformer",
    ),
    (
        "xai_tf.encdec.torch_parity.from_torch",
        lambda: torch_parity.from_torch(nn.Transformer(8, 2, 1, 1, 8, batch_first=True, layer_norm_eps=0.1)),
        VE,
        "layer_norm_eps must be 1e-05 .*got 0.1",
    ),
    (
        "xai_tf.encdec.torch_parity.from_torch",
        lambda: torch_parity.from_torch(nn.Transformer(8, 2, 1, 1, 8, batch_first=True, bias=False)),
        VE,
        "bias=False is not supported",
    ),
    (
        "xai_tf.encdec.torch_parity.to_torch",
        lambda: torch_parity.to_torch(nn.Linear(2, 2), nn.Transformer(8, 2, 1, 1, 8, batch_first=True)),
        TE,
        "ours must be an EncoderDecoder",
    ),
    (
        "xai_tf.encdec.training.Settings",
        lambda: training.Settings(warmup=-1),
        VE,
        "warmup must be an integer ≥ 0",
    ),
    (
        "xai_tf.encdec.training.learning_rate",
        lambda: training.learning_rate(0, training.Settings()),
        VE,
        "step must be an integer ≥ 1",
    ),
    (
        "xai_tf.encdec.recipe.schedule",
        lambda: recipe.schedule(torch.tensor([0.0, 1.0]), 1e-3, 10),
        VE,
        r"steps must be ≥ 1 \(counted from 1\), got 0",
    ),
    (
        "xai_tf.encdec.recipe.schedule",
        lambda: recipe.schedule(torch.tensor([1.0]), 1e-3, 0),
        VE,
        "warmup must be an integer ≥ 1",
    ),
    (
        "xai_tf.encdec.recipe.smoothed_targets",
        lambda: recipe.smoothed_targets(torch.tensor([0, 5]), 5, 0.1),
        VE,
        r"y must hold word ids in 0..4, got 0..5",
    ),
    (
        "xai_tf.encdec.recipe.smoothed_targets",
        lambda: recipe.smoothed_targets(torch.tensor([0, 1]), 5, 1.5),
        VE,
        r"eps must be a finite number in \[0, 1\]",
    ),
    (
        "xai_tf.encdec.recipe.smoothed_targets",
        lambda: recipe.smoothed_targets(torch.tensor([0.0, 1.0]), 5, 0.1),
        TE,
        "y must be a 1-D integer tensor",
    ),
    (
        "xai_tf.encdec.training.loss_fn",
        lambda: training.loss_fn(z(2, 3), torch.zeros(2, 3, dtype=torch.long)),
        VE,
        "logits must be \\[B, T, D\\]",
    ),
    (
        "xai_tf.encdec.training.train",
        lambda: training.train(_model(), _corpus(), {"steps": 1}),
        TE,
        "settings must be a Settings",
    ),
    (
        "xai_tf.encdec.evaluate.greedy",
        lambda: evaluate.greedy(_model(), [], _corpus()),
        TE,
        "pairs must be a non-empty list",
    ),
    (
        "xai_tf.encdec.evaluate.exact_match",
        lambda: evaluate.exact_match(nn.Linear(2, 2), _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer or DecoderOnly",
    ),
    (
        "xai_tf.encdec.evaluate.cross_attention",
        lambda: evaluate.cross_attention(runs.build("decoder_only", _corpus()), _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer, got DecoderOnly",
    ),
    (
        "xai_tf.encdec.evaluate.alignment_error_rates",
        lambda: evaluate.alignment_error_rates(None, _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer",
    ),
    (
        "xai_tf.encdec.evaluate.confidence",
        lambda: evaluate.confidence("pre", _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer or DecoderOnly",
    ),
    (
        "xai_tf.encdec.evaluate.expected_calibration_error",
        lambda: evaluate.expected_calibration_error(torch.ones(3), torch.ones(2, dtype=torch.bool)),
        VE,
        "top and right must be two non-empty 1-D tensors",
    ),
    (
        "xai_tf.encdec.evaluate.expected_calibration_error",
        lambda: evaluate.expected_calibration_error(
            torch.tensor([2.5, -1.0]), torch.ones(2, dtype=torch.bool)
        ),
        VE,
        r"top must hold probabilities in \[0, 1\] .*not a logit.*from -1 to 2.5",
    ),
    (
        "xai_tf.encdec.evaluate.expected_calibration_error",
        lambda: evaluate.expected_calibration_error(
            torch.tensor([0.5, NAN]), torch.ones(2, dtype=torch.bool)
        ),
        VE,
        "top has NaN",
    ),
    ("xai_tf.encdec.runs.variant", lambda: runs.variant("prenorm"), VE, "name must be one of pre, post"),
    ("xai_tf.encdec.runs.build", lambda: runs.build("pre", _corpus(), -1), VE, "seed must be an integer ≥ 0"),
    ("xai_tf.encdec.runs.settings", lambda: runs.settings("pre", 0), VE, "steps must be an integer ≥ 1"),
    (
        "xai_tf.encdec.runs.word_accuracy",
        lambda: runs.word_accuracy(nn.Linear(2, 2), _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer or DecoderOnly",
    ),
    ("xai_tf.encdec.runs.run", lambda: runs.run("best"), VE, "name must be one of pre, post"),
    (
        "xai_tf.encdec.runs.measure",
        lambda: runs.measure(_model(), "the dog sings", _corpus()),
        TE,
        "pairs must be a non-empty list",
    ),
    ("xai_tf.encdec.shipped.draws", lambda: shipped.draws("rnn"), VE, "name must be one of pre, post"),
    (
        "xai_tf.encdec.shipped.model",
        lambda: shipped.model("smoothing"),
        VE,
        "name must be one of pre, post, decoder_only",
    ),
    (
        "xai_tf.encdec.analysis.family_mask",
        lambda: analysis.family_mask("encoder", 3, 2),
        VE,
        "family must be one of encoder-only",
    ),
    (
        "xai_tf.encdec.analysis.attention_scores",
        lambda: analysis.attention_scores("decoder-only", 0, 2),
        VE,
        "S must be an integer in 1..512",
    ),
    (
        "xai_tf.encdec.analysis.sequential_steps",
        lambda: analysis.sequential_steps("lstm", 3, 2, 1),
        VE,
        "kind must be 'rnn' or 'transformer'",
    ),
    (
        "xai_tf.encdec.analysis.gradient_norms",
        lambda: analysis.gradient_norms(runs.build("decoder_only", _corpus()), _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer",
    ),
    (
        "xai_tf.encdec.analysis.convolution_vs_heads",
        lambda: analysis.convolution_vs_heads(n=2),
        VE,
        "n must be an integer in 3..4096",
    ),
    (
        "xai_tf.widgets.encdec.svg_alignment",
        lambda: encdec_widgets.svg_alignment(z(2, 3).numpy(), ["a"], ["b"], set(), ""),
        VE,
        "A is \\(2, 3\\) but there are 1 row",
    ),
]

RAISES += [
    (
        "xai_tf.widgets.encdec.plot_family_masks",
        lambda: encdec_widgets.plot_family_masks(0, 3),
        VE,
        "S must be an integer in 1..64",
    ),
    (
        "xai_tf.widgets.encdec.plot_aer_table",
        lambda: encdec_widgets.plot_aer_table(z(3), ""),
        VE,
        "aer must be \\[layers, heads \\+ 1\\]",
    ),
    (
        "xai_tf.widgets.encdec.plot_gradient_norms",
        lambda: encdec_widgets.plot_gradient_norms({}),
        VE,
        "norms must be a non-empty dict",
    ),
    (
        "xai_tf.widgets.encdec.plot_by_length",
        lambda: encdec_widgets.plot_by_length({"x": []}),
        VE,
        "rows must be a non-empty dict",
    ),
]

RAISES += [
    (
        "xai_tf.encdec.beam.word_ids",
        lambda: beam.word_ids("source", [4, 2], 10),
        VE,
        "source must hold word ids in 3..9",
    ),
    (
        "xai_tf.encdec.beam.search_ids",
        lambda: beam.search_ids(_model(), [], 3),
        VE,
        "source must be a non-empty list of word ids",
    ),
    (
        "xai_tf.encdec.beam.translate",
        lambda: beam.translate(_model(), _corpus(), ["I", "am"], beam=0),
        VE,
        "beam must be an integer in 1..1000,",
    ),
    (
        "xai_tf.encdec.beam.search_ids",
        lambda: beam.search_ids(_model(), [4, 5], 3, on_step="stop"),
        TE,
        "on_step must be a function of no arguments or None, got str",
    ),
    (
        "xai_tf.encdec.beam.scores",
        lambda: beam.scores(_model(), _pairs(), _corpus(), beam=2, alpha=float("nan")),
        VE,
        "alpha must be",
    ),
    (
        "xai_tf.encdec.beam_sweep.sweep",
        lambda: beam_sweep.sweep(_model(), "pairs", _corpus()),
        TE,
        "pairs must be a non-empty list of Pairs",
    ),
    ("xai_tf.encdec.beam_sweep.table", lambda: beam_sweep.table("rnn"), VE, "name must be one of pre, post"),
    (
        "xai_tf.encdec.beam_sweep.draw_gains",
        lambda: beam_sweep.draw_gains("rnn"),
        VE,
        "name must be one of pre",
    ),
    (
        "xai_tf.encdec.beam_sweep.draw_gains",
        lambda: beam_sweep.draw_gains("pre", "aer"),
        VE,
        "key must be one of exact, bleu, length_ratio",
    ),
    (
        "xai_tf.encdec.beam_sweep.log_prob",
        lambda: beam_sweep.log_prob(_model(), [5], [2]),
        VE,
        "target must hold word ids in 3..",
    ),
    (
        "xai_tf.widgets.encdec.plot_beam_sweep",
        lambda: encdec_widgets.plot_beam_sweep({"pre": {}}),
        VE,
        "tables must be a non-empty dict",
    ),
    (
        "xai_tf.widgets.encdec.beam_panel",
        lambda: encdec_widgets.beam_panel(nn.Linear(2, 2), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer or DecoderOnly",
    ),
]

RAISES += [
    (
        "xai_tf.encdec.model.scored_targets",
        lambda: encdec_model.scored_targets(
            runs.build("encoder_only", _corpus()), torch.ones(1, 2, dtype=torch.bool), torch.full((1, 12), 5)
        ),
        VE,
        "target_out\\[0\\] has 12 words but its sentence has only 10 slots \\(L = S \\+ 8\\)",
    ),
    (
        "xai_tf.encdec.evaluate.alignment_error_rates",
        lambda: evaluate.alignment_error_rates(runs.build("encoder_only", _corpus()), _pairs(), _corpus()),
        TE,
        "model must be a Seq2SeqTransformer, got EncoderOnly",
    ),
    (
        "xai_tf.encdec.beam.translate",
        lambda: beam.translate(runs.build("encoder_only", _corpus()), _corpus(), ["the", "dog", "sings"]),
        TE,
        "model must be a Seq2SeqTransformer or DecoderOnly, got EncoderOnly",
    ),
]

RAISES += [
    (
        "xai_tf.encdec.shipped.reached",
        lambda: shipped.reached([[100, 1.0, 0.5]], 1.5),
        VE,
        "target must be a finite number in \\[0, 1\\]",
    ),
    (
        "xai_tf.encdec.shipped.reached",
        lambda: shipped.reached([0.5, 0.9], 0.9),
        TE,
        "curve must be a list of \\(step, seconds, accuracy\\) rows",
    ),
    ("xai_tf.encdec.shipped.steps_to", lambda: shipped.steps_to("rnn", 0.9), VE, "name must be one of pre"),
    (
        "xai_tf.encdec.summary.per_draw",
        lambda: summary.per_draw("pre", "aer"),
        VE,
        "key must be one of exact",
    ),
    (
        "xai_tf.encdec.summary.per_draw",
        lambda: summary.per_draw("rnn", "exact"),
        VE,
        "name must be one of pre",
    ),
    ("xai_tf.encdec.summary.paired", lambda: summary.paired("pre", "post", "loss"), VE, "key must be one of"),
    ("xai_tf.encdec.summary.late_gain", lambda: summary.late_gain("pre", 0), VE, "back must be an integer"),
    ("xai_tf.encdec.summary.late_gain", lambda: summary.late_gain("pre", 99), VE, "back must be below"),
    (
        "xai_tf.encdec.summary.by_length",
        lambda: summary.by_length("pre", "aer"),
        VE,
        "metric must be 'exact'",
    ),
    (
        "xai_tf.encdec.summary.best_layers",
        lambda: summary.best_layers("decoder_only"),
        VE,
        "variant 'decoder_only' has no cross-attention",
    ),
    (
        "xai_tf.widgets.encdec.plot_draws",
        lambda: encdec_widgets.plot_draws({}, "x"),
        VE,
        "values must be a non-empty",
    ),
]

EXEMPT = {
    "xai_tf.encdec.beam_sweep.fingerprint": "no arguments",
    "xai_tf.encdec.beam_sweep.recorded": "no arguments",
    "xai_tf.encdec.shipped.corpus": "no arguments",
    "xai_tf.encdec.shipped.fingerprint": "no arguments",
    "xai_tf.encdec.shipped.recorded": "no arguments",
}

CHECKERS = {
    "xai_tf.exercises.encdec.check_cross_attention": "returned None: did you forget to `return` it",
    **{
        f"xai_tf.exercises.encdec.check_{name}": "is None: did you forget to `return` it"
        for name in ("schedule", "smoothed_targets", "positions", "target_mask")
    },
}

PANELS = {
    "xai_tf.widgets.encdec.beam_panel": (
        lambda: encdec_widgets.beam_panel(_model(), _corpus()),
        "text",
        "vou à loja",
    ),
    "xai_tf.widgets.encdec.cross_attention_panel": (
        lambda: encdec_widgets.cross_attention_panel(_model(), _corpus()),
        "text",
        "I am going to the zorgle",
    ),
}


def _core() -> stack.EncoderDecoder:
    return stack.EncoderDecoder(d_e=8, n_heads=2, d_ff=16, n_encoder=1, n_decoder=1)


# Issue 58, one row per class of failure: masks checked against the states they mask, not themselves;
# lists for tensors; mismatched batches and widths; an index the panel's box would clamp; maxima that
# would run for minutes.
RAISES += [
    (
        "xai_tf.encdec.stack.EncoderDecoder",
        lambda: _core().encode(z(2, 5, 8), torch.ones(3, 4, dtype=torch.bool)),
        VE,
        "src_visible must be a bool tensor \\[batch, T\\] = \\[2, 5\\]",
    ),
    (
        "xai_tf.encdec.stack.source_mask",
        lambda: stack.source_mask([[True, False]]),
        TE,
        "src_visible must be a torch.Tensor",
    ),
    (
        "xai_tf.encdec.stack.EncoderDecoder",
        lambda: _core().decode(z(2, 3, 8), z(3, 5, 8)),
        VE,
        "tgt and memory must hold the same batch, got 2 and 3",
    ),
    (
        "xai_tf.encdec.stack.EncoderDecoder",
        lambda: _core().encode(z(2, 5, 6)),
        VE,
        "src must be \\[batch, length, d_e = 8\\]",
    ),
    (
        "xai_tf.encdec.model.Seq2SeqTransformer",
        lambda: _model()(
            torch.full((2, 4), 10**4), torch.ones(2, 4, dtype=torch.bool), torch.ones(2, 3).long()
        ),
        VE,
        "source must be token ids in 0..[0-9]+ \\(the model's vocabulary\\), got 10000",
    ),
    (
        "xai_tf.widgets.encdec.cross_attention_panel",
        lambda: encdec_widgets.cross_attention_panel(_model(), _corpus(), index=10**6),
        VE,
        "index must be an integer in 0..",
    ),
    (
        "xai_tf.encdec.analysis.convolution_vs_heads",
        lambda: analysis.convolution_vs_heads(64, 4096, grid=200),
        VE,
        "grid = 200 with n = 4096, d = 64 .* lower grid, n or d",
    ),
    (
        "xai_tf.encdec.beam.translate",
        lambda: beam.translate(_model(), _corpus(), _pairs()[0].source, beam=10_000),
        VE,
        "beam must be an integer in 1..1000",
    ),
]


# Issue 58 (second sweep), one row per class: a corpus that is not a Corpus; a module size of the wrong
# type (torch's "ones(): argument 'size'" before); a size whose buffer cannot fit (8 TB of smoothed
# targets); a panel index the box would clamp; target ids outside the logits' vocabulary; more bins than
# a test set can fill (ran for minutes); a title of the wrong type.
RAISES += [
    (
        "xai_tf.encdec.evaluate.greedy",
        lambda: evaluate.greedy(_model(), _pairs(), None),
        TE,
        "corpus must be a Corpus",
    ),
    (
        "xai_tf.encdec.blocks.LayerNorm",
        lambda: blocks.LayerNorm(None),
        TE,
        "d_e must be an integer ≥ 1, got None",
    ),
    (
        "xai_tf.encdec.recipe.smoothed_targets",
        lambda: recipe.smoothed_targets(torch.tensor([1]), 10**12, 0.1),
        VE,
        "n_words = 1000000000000 needs .* choose a smaller n_words",
    ),
    (
        "xai_tf.widgets.encdec.beam_panel",
        lambda: encdec_widgets.beam_panel(_model(), _corpus(), index=10**6),
        VE,
        r"index must be an integer in 0\.\.",
    ),
    (
        "xai_tf.encdec.training.loss_fn",
        lambda: training.loss_fn(z(1, 2, 5), torch.tensor([[1, 9]])),
        VE,
        r"target_out must be token ids in 0\.\.4",
    ),
    (
        "xai_tf.encdec.evaluate.expected_calibration_error",
        lambda: evaluate.expected_calibration_error(torch.rand(4), torch.ones(4, dtype=torch.bool), 10**9),
        VE,
        r"bins must be an integer in 1\.\.10000",
    ),
    (
        "xai_tf.widgets.encdec.svg_alignment",
        lambda: encdec_widgets.svg_alignment(torch.zeros(1, 1).numpy(), ["a"], ["b"], set(), None),
        TE,
        "title must be a str, got NoneType",
    ),
]
