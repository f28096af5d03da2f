"""Bad-input probes for lesson 15 (circuits, ``xai_tf.circuits``), collected by ``test_bad_inputs.py``."""

import re

import torch
from probe_kit import NAN, TE, VE, lm, tiny, z

import xai_tf.models.loaded
from xai_tf.circuits import (
    ablation,
    attribution_patching,
    composition,
    induction,
    induction_training,
    ioi,
    limits,
    metrics,
    patching,
    shipped,
    steps,
)
from xai_tf.circuits.prompts import same_length_name
from xai_tf.widgets import circuits as circuits_widgets


def _ids(*tokens: int) -> torch.Tensor:
    return torch.tensor([list(tokens)])


def _encoder():
    import xai_tf

    return xai_tf.load_model("minilm")


def _metric() -> metrics.LogitDifference:
    return metrics.LogitDifference(1, 2, 1.0, 0.0)


RAISES = [
    (
        "xai_tf.circuits.prompts.same_length_name",
        lambda: same_length_name(lm(), "Enter Romeo and Juliet.", "Hamlet"),
        VE,
        "name must be a word of text",
    ),
    (
        "xai_tf.circuits.induction.repeated_tokens",
        lambda: induction.repeated_tokens(lm(), 1),
        VE,
        "half must be an integer in 2..128, got 1",
    ),
    (
        "xai_tf.circuits.induction.per_token_loss",
        lambda: induction.per_token_loss(lm(), _ids(1, 5000)),
        VE,
        "ids must be token ids in 0..4095 (the model's vocabulary), got 5000",
    ),
    (
        "xai_tf.circuits.induction.token_losses",
        lambda: induction.token_losses(z(1, 3, 4), _ids(1, 2)),
        VE,
        "logits must be [batch, T, vocab] and ids [batch, T]",
    ),
    (
        "xai_tf.circuits.induction.attention_patterns",
        lambda: induction.attention_patterns(_encoder(), _ids(1)),
        VE,
        "is an encoder: attention patterns of a causal model needs",
    ),
    (
        "xai_tf.circuits.induction.induction_scores",
        lambda: induction.induction_scores(z(2, 1, 2, 5, 5).softmax(-1)),
        VE,
        "even number of tokens",
    ),
    (
        "xai_tf.circuits.induction.previous_token_scores",
        lambda: induction.previous_token_scores(z(2, 5, 5)),
        VE,
        "pattern must be [layers, batch, heads, T, T]",
    ),
    (
        "xai_tf.circuits.composition.qk_ov",
        lambda: composition.qk_ov(lm(), 6, 0),
        VE,
        "layer must be an integer in 0..5, got 6",
    ),
    (
        "xai_tf.circuits.composition.k_composition",
        lambda: composition.k_composition(z(4, 4), z(4, 3)),
        VE,
        "W_QK and W_OV must be square [d, d] of one shape",
    ),
    (
        "xai_tf.circuits.composition.k_composition_baseline",
        lambda: composition.k_composition_baseline(8, 9),
        VE,
        "d_h must be an integer in 1..8, got 9",
    ),
    (
        "xai_tf.circuits.metrics.prompt_pair",
        lambda: metrics.prompt_pair(lm(), _ids(1, 2, 3), _ids(1, 2)),
        VE,
        "clean_ids has 3 tokens but corrupted_ids has 2",
    ),
    (
        "xai_tf.circuits.metrics.logit_difference_metric",
        lambda: metrics.logit_difference_metric(lm(), _ids(1, 2), _ids(1, 3), 4096, 0),
        VE,
        "correct must be an integer in 0..4095, got 4096",
    ),
    (
        "xai_tf.circuits.patching.check_request",
        lambda: patching.check_request("resid", "denoising"),
        VE,
        "component must be one of",
    ),
    (
        "xai_tf.circuits.patching.source_and_target",
        lambda: patching.source_and_target(tiny(), _ids(1, 2), _ids(1), "noising"),
        VE,
        "clean_ids has 2 tokens but corrupted_ids has 1",
    ),
    (
        "xai_tf.circuits.patching.source_run",
        lambda: patching.source_run(lm(), _ids(1, 2), _ids(1, 3), "logit difference", "resid_pre", "noising"),
        TE,
        "metric must map logits",
    ),
    (
        "xai_tf.circuits.patching.activation_patching",
        lambda: patching.activation_patching(lm(), _ids(1, 2), _ids(1, 3), _metric(), direction="both"),
        VE,
        "direction must be one of ['denoising', 'noising']",
    ),
    (
        "xai_tf.circuits.attribution_patching.attribution_patching",
        lambda: attribution_patching(lm(), _ids(1, 2), _ids(1, 3), "ld"),
        TE,
        "metric must map logits",
    ),
    (
        "xai_tf.circuits.patching.patched_top_tokens",
        lambda: patching.patched_top_tokens(lm(), _ids(1, 2), _ids(1, 3), "z", 0, 4),
        VE,
        "index must be an integer in 0..3, got 4",
    ),
    (
        "xai_tf.widgets.circuits.plot_grid",
        lambda: circuits_widgets.plot_grid(z(2, 3), ["a", "b"]),
        VE,
        "grid must be [layers, 2] for 2 columns, got (2, 3)",
    ),
    (
        "xai_tf.widgets.circuits.plot_grid",
        lambda: circuits_widgets.plot_grid(z(2, 2), ["a", "b"], signed=1),
        TE,
        "signed must be True (colours on −scale..scale) or False (0..scale), got 1",
    ),
    (
        "xai_tf.circuits.ablation.ablate_head",
        lambda: ablation.ablate_head(lm(), _ids(1, 2), 0, 4),
        VE,
        "head must be an integer in 0..3, got 4",
    ),
]

RAISES += [
    (
        "xai_tf.circuits.induction_training.RepeatData",
        lambda: induction_training.RepeatData(T=32, L_min=3, L_max=17),
        VE,
        "L_max must be an integer in 3..16, got 17",
    ),
    (
        "xai_tf.circuits.induction_training.repeat_batch",
        lambda: induction_training.repeat_batch(induction_training.RepeatData(), 1, 4, torch.Generator()),
        VE,
        "vocab must be an integer in 2..1000000, got 1",
    ),
    (
        "xai_tf.circuits.induction_training.train_induction",
        lambda: induction_training.train_induction(options=induction_training.OPTIONS.replace(steps=0)),
        VE,
        "steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(shipped.induction_model(), 17),
        VE,
        "half must be an integer in 2..16, got 17",
    ),
    (
        "xai_tf.circuits.shipped.report_ranges",
        lambda: shipped.report_ranges(shipped.induction_model(), 8, draws=0),
        VE,
        "draws must be an integer in 1..1000, got 0",
    ),
    (
        "xai_tf.circuits.shipped.report_ranges",
        lambda: shipped.report_ranges(shipped.induction_model(), 8, windows=((10, 15),)),
        VE,
        "windows must be pairs (lo, hi) of integers, 0 ≤ lo ≤ hi < 15, got (10, 15)",
    ),
    (
        "xai_tf.circuits.shipped.report_ranges",
        lambda: shipped.report_ranges(shipped.induction_model(), 8, windows=(3,)),
        VE,
        "windows must be pairs (lo, hi) of integers, 0 ≤ lo ≤ hi < 15, got 3",
    ),
    (
        "xai_tf.circuits.ioi.ioi_pairs",
        lambda: ioi.ioi_pairs(shipped.induction_model(), 2),
        VE,
        "induction-2l has no tokenizer: the indirect-object task types English prompts",
    ),
    (
        "xai_tf.circuits.ioi.ioi_head_grid",
        lambda: ioi.ioi_head_grid(lm(), 0),
        VE,
        "n must be an integer in 1..1000, got 0",
    ),
    (
        "xai_tf.circuits.ioi.top_heads",
        lambda: ioi.top_heads(z(3, 4), 13),
        VE,
        "k must be an integer in 1..12, got 13",
    ),
    (
        "xai_tf.widgets.circuits.plot_induction",
        lambda: circuits_widgets.plot_induction(z(2, 8), z(2, 4), z(2, 4), 5),
        VE,
        "loss must be [batch, 9] for half = 5, got (2, 8)",
    ),
    (
        "xai_tf.widgets.circuits.cell_grid",
        lambda: circuits_widgets.cell_grid(z(2, 3), ["a"], lambda layer, i: None),
        VE,
        "grid must be [layers, 1] for 1 columns, got (2, 3)",
    ),
]

RAISES += [
    (
        "xai_tf.circuits.induction.heads_above",
        lambda: induction.heads_above(z(2, 4), 1.5),
        VE,
        "threshold must be a finite number in [0, 1], got 1.5",
    ),
]

EXEMPT = {
    "xai_tf.circuits.ioi.gpt2_in_cache": "no arguments; reads the Hugging Face cache, downloads nothing",
    "xai_tf.circuits.shipped.fingerprint": "no arguments",
    "xai_tf.circuits.shipped.induction_model": "no arguments",
    "xai_tf.circuits.shipped.recorded": "no arguments",
}


# --- issue 43: a student's typos, the wrong tensor or dtype, sizes too big ---------------------------------
# Each row: (public name, call, error, message, the class of failure it probes: raw, silent, unbounded,
# misleading, or clear for an argument that was already checked). Tiny tensors and the tiny GPT-2
# (vocabulary 50, context 16, 2 layers × 2 heads); the size rows are refused before any allocation.
IND, MET, PAT = "xai_tf.circuits.induction.", "xai_tf.circuits.metrics.", "xai_tf.circuits.patching."
COMP, ABL, IOI = "xai_tf.circuits.composition.", "xai_tf.circuits.ablation.", "xai_tf.circuits.ioi."
ATT, WID, LIM = "xai_tf.circuits.attribution_patching.", "xai_tf.widgets.circuits.", "xai_tf.circuits.limits."
LD = MET + "LogitDifference"


def _probs(*shape: int) -> torch.Tensor:
    return z(*shape).softmax(-1)


def _metric_tiny(**kw) -> metrics.LogitDifference:
    return metrics.LogitDifference(**{"correct": 1, "wrong": 2, "clean": 1.0, "corrupted": 0.0, **kw})


def _ld_logits(logits) -> torch.Tensor:
    return _metric_tiny().raw(logits)


def _pair(*extra, **kw):
    return (tiny(), _ids(1, 2, 3), _ids(1, 4, 3), *extra)


def _no_grad_metric(logits: torch.Tensor) -> torch.Tensor:
    return _metric_tiny()(logits).detach()


def _constant_metric(logits: torch.Tensor) -> torch.Tensor:
    return torch.zeros(logits.size(0), requires_grad=True) * 1.0


def _handle() -> xai_tf.models.loaded.LoadedModel:
    return xai_tf.models.loaded.as_model(tiny())


def _uint8_ids() -> torch.Tensor:
    return torch.tensor([[1, 2, 3]], dtype=torch.uint8)


ISSUE_43 = [
    # token ids: text, ragged lists, floats, bools, other integer dtypes, out of range, empty, batch 0
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), "to be or not"),
        TE,
        "ids must be token ids, got a str",
        "raw",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [[1, 2], [3]]),
        VE,
        "ids must be [T] or [batch, T] with rows of one length",
        "raw",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [1, 2.5]),
        TE,
        "ids must hold integer token ids, got 2.5",
        "raw",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [True, False]),
        TE,
        "ids must hold integer token ids, got True",
        "silent",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), z(1, 4)),
        TE,
        "ids must hold integer token ids, got a torch.float32",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), torch.ones(1, 3, dtype=torch.bool)),
        TE,
        "ids must hold integer token ids, got a torch.bool",
        "misleading",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [1, 50]),
        VE,
        "ids must be token ids in 0..49 (the model's vocabulary), got 50",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [-1, 3]),
        VE,
        "ids must be token ids in 0..49 (the model's vocabulary), got -1",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), torch.zeros(0, 4, dtype=torch.long)),
        VE,
        "ids must hold at least one prompt of 1..16 tokens",
        "raw",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), [3]),
        VE,
        "ids must have at least 2 tokens",
        "silent",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), list(range(17))),
        VE,
        "ids must hold at least one prompt of 1..16 tokens",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), torch.zeros(1, 1, 3, dtype=torch.long)),
        VE,
        "ids must be [T] or [batch, T], got shape (1, 1, 3)",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), {1: 2}),
        TE,
        "ids must be token ids (a list or an integer tensor), got dict",
        "raw",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(None, [1, 2]),
        TE,
        "model must be a model from xai_tf.load_model",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), torch.tensor([[1, 60]], dtype=torch.int16)),
        VE,
        "ids must be token ids in 0..49",
        "misleading",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(tiny(), torch.tensor([[1, 2]], dtype=torch.uint8).float()),
        TE,
        "ids must hold integer token ids",
        "clear",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(lm(), torch.zeros(1024, 256, dtype=torch.long)),
        VE,
        "a per-token loss (1024 × 256 tokens) needs about",
        "unbounded",
    ),
    (
        IND + "per_token_loss",
        lambda: induction.per_token_loss(lm(), torch.zeros(200, 256, dtype=torch.long)),
        VE,
        "over the limit of 1 GiB: pass fewer or shorter sequences in ids",
        "unbounded",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(tiny(), "abc"),
        TE,
        "ids must be token ids, got a str",
        "raw",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(tiny(), [[1, 2, 3], [4]]),
        VE,
        "ids must be [T] or [batch, T] with rows of one length",
        "raw",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(tiny(), torch.zeros(0, 3, dtype=torch.long)),
        VE,
        "ids must hold at least one prompt",
        "raw",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(tiny(), _uint8_ids().to(torch.int16) + 60),
        VE,
        "ids must be token ids in 0..49",
        "misleading",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(tiny(), [0.5, 1.5]),
        TE,
        "ids must hold integer token ids, got 0.5",
        "raw",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(lm(), torch.zeros(1024, 256, dtype=torch.long)),
        VE,
        "attention patterns (1024 × 256 tokens) needs about",
        "unbounded",
    ),
    (
        IND + "attention_patterns",
        lambda: induction.attention_patterns(lm(), torch.zeros(32, 256, dtype=torch.long)),
        VE,
        "over the limit of 1 GiB",
        "unbounded",
    ),
    (
        IND + "repeated_tokens",
        lambda: induction.repeated_tokens(tiny(), 9),
        VE,
        "half must be an integer in 2..8, got 9",
        "clear",
    ),
    (
        IND + "repeated_tokens",
        lambda: induction.repeated_tokens(tiny(), 4, 0),
        VE,
        "batch must be an integer in 1..1024, got 0",
        "clear",
    ),
    (
        IND + "repeated_tokens",
        lambda: induction.repeated_tokens(tiny(), 4.0),
        TE,
        "half must be an integer in 2..8, got 4.0",
        "clear",
    ),
    (
        IND + "repeated_tokens",
        lambda: induction.repeated_tokens(tiny(), 4, seed=-1),
        VE,
        "seed must be an integer ≥ 0, got -1",
        "clear",
    ),
    (
        IND + "repeated_tokens",
        lambda: induction.repeated_tokens(tiny(), True),
        TE,
        "half must be an integer",
        "clear",
    ),
    # token_losses: logits without the batch axis, integer logits, NaN, ids outside the logits' vocabulary
    (
        IND + "token_losses",
        lambda: induction.token_losses(z(3, 5), _ids(1, 2, 3)),
        VE,
        "logits must be [batch, T, vocab] and ids [batch, T]",
        "clear",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses(torch.ones(1, 3, 5, dtype=torch.long), _ids(1, 2, 3)),
        TE,
        "logits must be a floating-point tensor",
        "raw",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses(z(1, 3, 5).fill_(NAN), _ids(1, 2, 3)),
        VE,
        "logits has NaN or ±inf entries",
        "silent",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses(z(1, 3, 5), _ids(1, 2, 7)),
        VE,
        "ids must be token ids in 0..4",
        "raw",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses(z(1, 3, 5), z(1, 3)),
        TE,
        "ids must hold integer token ids",
        "raw",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses(z(0, 3, 5), torch.zeros(0, 3, dtype=torch.long)),
        VE,
        "with batch ≥ 1 and T ≥ 2",
        "silent",
    ),
    (
        IND + "token_losses",
        lambda: induction.token_losses([[1.0]], _ids(1, 2)),
        TE,
        "logits must be a torch.Tensor, got list",
        "clear",
    ),
    # patterns: NaN, integer, raw scores, batch 0, wrong rank
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(
            _probs(1, 1, 2, 4, 4).masked_fill(torch.eye(4, dtype=torch.bool), NAN)
        ),
        VE,
        "pattern has NaN or ±inf entries",
        "silent",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(torch.ones(1, 1, 2, 4, 4, dtype=torch.long)),
        TE,
        "pattern must be a floating-point tensor",
        "raw",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(z(1, 1, 2, 4, 4) * 3),
        VE,
        "pass softmax(scores), not the scores",
        "silent",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(1, 0, 2, 4, 4)),
        VE,
        "at least one layer, prompt and head, got (1, 0, 2, 4, 4)",
        "silent",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(0, 1, 2, 4, 4)),
        VE,
        "at least one layer, prompt and head",
        "silent",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(1, 2, 4, 4)),
        VE,
        "pattern must be [layers, batch, heads, T, T]",
        "clear",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(1, 1, 2, 4, 3)),
        VE,
        "pattern must be [layers, batch, heads, T, T]",
        "clear",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(1, 1, 2, 4, 4) * 2),
        VE,
        "each row summing to 1",
        "silent",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(_probs(1, 1, 2, 4, 4).numpy()),
        TE,
        "pattern must be a torch.Tensor, got ndarray",
        "clear",
    ),
    (
        IND + "induction_scores",
        lambda: induction.induction_scores(-_probs(1, 1, 2, 4, 4)),
        VE,
        "entries ≥ 0",
        "silent",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(
            _probs(1, 1, 2, 5, 5).masked_fill(torch.eye(5, dtype=torch.bool), NAN)
        ),
        VE,
        "pattern has NaN or ±inf entries",
        "silent",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(torch.ones(1, 1, 1, 3, 3, dtype=torch.int32)),
        TE,
        "pattern must be a floating-point tensor",
        "raw",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(z(1, 1, 2, 5, 5)),
        VE,
        "pass softmax(scores), not the scores",
        "silent",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(_probs(1, 0, 1, 3, 3)),
        VE,
        "at least one layer, prompt and head",
        "silent",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(_probs(1, 1, 1, 1, 1)),
        VE,
        "with T ≥ 2",
        "clear",
    ),
    (
        IND + "previous_token_scores",
        lambda: induction.previous_token_scores(torch.full((1, 1, 1, 3, 3), float("inf"))),
        VE,
        "pattern has NaN or ±inf entries",
        "silent",
    ),
    # heads_above: NaN grid, wrong rank, bad threshold
    (
        IND + "heads_above",
        lambda: induction.heads_above(torch.tensor([[NAN, 0.9]]), 0.5),
        VE,
        "scores has NaN or ±inf entries",
        "silent",
    ),
    (
        IND + "heads_above",
        lambda: induction.heads_above(torch.ones(2, 2, dtype=torch.long), 0.5),
        TE,
        "scores must be a floating-point tensor",
        "silent",
    ),
    (
        IND + "heads_above",
        lambda: induction.heads_above(z(2, 2), NAN),
        VE,
        "threshold must be a finite number in [0, 1], got nan",
        "clear",
    ),
    (
        IND + "heads_above",
        lambda: induction.heads_above(z(2, 2), "0.5"),
        TE,
        "threshold must be a number in [0, 1], got '0.5'",
        "clear",
    ),
    (
        IND + "heads_above",
        lambda: induction.heads_above(z(4), 0.5),
        VE,
        "scores must be [layers, heads], got shape (4,)",
        "clear",
    ),
    (
        IND + "heads_above",
        lambda: induction.heads_above([[0.1]], 0.5),
        TE,
        "scores must be a torch.Tensor, got list",
        "clear",
    ),
    # composition: integer, mixed dtypes are promoted (documented), 1e20·I is finite, zeros, sizes
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3, dtype=torch.long), torch.eye(3)),
        TE,
        "W_QK must be a floating-point tensor",
        "raw",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3), torch.eye(3, dtype=torch.int32)),
        TE,
        "W_OV must be a floating-point tensor",
        "raw",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3).fill_diagonal_(NAN), torch.eye(3)),
        VE,
        "W_QK has NaN or ±inf entries",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3), torch.eye(3) * float("inf")),
        VE,
        "W_OV has NaN or ±inf entries",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.zeros(3, 3), torch.eye(3)),
        VE,
        "W_QK is all zeros",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3), torch.zeros(3, 3)),
        VE,
        "W_OV is all zeros",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.zeros(0, 0), torch.zeros(0, 0)),
        VE,
        "W_QK and W_OV must be square [d, d] of one shape",
        "silent",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(z(3, 4), z(3, 4)),
        VE,
        "W_QK and W_OV must be square [d, d]",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(z(3), z(3)),
        VE,
        "W_QK and W_OV must be square [d, d]",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3).tolist(), torch.eye(3)),
        TE,
        "W_QK must be a torch.Tensor, got list",
        "clear",
    ),
    (
        COMP + "k_composition",
        lambda: composition.k_composition(torch.eye(3), torch.eye(3).numpy()),
        TE,
        "W_OV must be a torch.Tensor, got ndarray",
        "clear",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(4096, 128),
        VE,
        "the K-composition baseline of 200 samples at d = 4096, d_h = 128 needs about",
        "unbounded",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(8192, 1, 100_000),
        VE,
        "over the limit of 1 GiB: use fewer samples or a smaller d",
        "unbounded",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(1024, 1024, 2000),
        VE,
        "the K-composition baseline of 2000 samples",
        "unbounded",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(8, 4, 1),
        VE,
        "samples must be an integer in 2..100000, got 1",
        "clear",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(8.0, 4),
        TE,
        "d must be an integer in 1..8192, got 8.0",
        "clear",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(8, 0),
        VE,
        "d_h must be an integer in 1..8, got 0",
        "clear",
    ),
    (
        COMP + "k_composition_baseline",
        lambda: composition.k_composition_baseline(8, 4, seed="0"),
        TE,
        "seed must be an integer ≥ 0, got '0'",
        "clear",
    ),
    (
        COMP + "qk_ov",
        lambda: composition.qk_ov(tiny(), 0, 2),
        VE,
        "head must be an integer in 0..1, got 2",
        "clear",
    ),
    (
        COMP + "qk_ov",
        lambda: composition.qk_ov(tiny(), -1, 0),
        VE,
        "layer must be an integer in 0..1, got -1",
        "clear",
    ),
    (
        COMP + "qk_ov",
        lambda: composition.qk_ov(tiny(), 0.0, 0),
        TE,
        "layer must be an integer in 0..1, got 0.0",
        "clear",
    ),
    (COMP + "qk_ov", lambda: composition.qk_ov(_encoder(), 0, 0), VE, "is an encoder", "clear"),
    (
        COMP + "qk_ov",
        lambda: composition.qk_ov(None, 0, 0),
        TE,
        "model must be a model from xai_tf.load_model",
        "clear",
    ),
    # the metric: degenerate, non-finite, the same token, ids beyond the vocabulary, logits without batch
    (
        LD,
        lambda: metrics.LogitDifference(1, 2, 0.5, 0.5),
        VE,
        "clean and corrupted are the same logit difference",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 2, 1.0, 1.0 + 1e-9),
        VE,
        "the normalised metric would divide by zero",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 2, NAN, 0.0),
        VE,
        "clean must be a finite number, got nan",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 2, 1.0, float("inf")),
        VE,
        "corrupted must be a finite number, got inf",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 1, 1.0, 0.0),
        VE,
        "correct and wrong must be different tokens, got 1 twice",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(-1, 2, 1.0, 0.0),
        VE,
        "correct must be an integer ≥ 0, got -1",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 2.0, 1.0, 0.0),
        TE,
        "wrong must be an integer ≥ 0, got 2.0",
        "silent",
    ),
    (
        LD,
        lambda: metrics.LogitDifference(1, 2, "1", 0.0),
        TE,
        "clean must be a finite number, got '1'",
        "silent",
    ),
    (
        LD,
        lambda: _ld_logits(z(1, 3, 2)),
        VE,
        "correct = 1 and wrong = 2 must be ids of the logits' vocabulary 0..1",
        "raw",
    ),
    (
        LD,
        lambda: _ld_logits(z(3, 5)),
        VE,
        "logits must be [batch, T, vocab] with batch, T ≥ 1, got (3, 5)",
        "silent",
    ),
    (
        LD,
        lambda: _ld_logits(torch.ones(1, 3, 5, dtype=torch.long)),
        TE,
        "logits must be a floating-point tensor",
        "silent",
    ),
    (LD, lambda: _ld_logits([[[0.0] * 5]]), TE, "logits must be a torch.Tensor, got list", "raw"),
    (
        LD,
        lambda: _ld_logits(z(0, 3, 5)),
        VE,
        "logits must be [batch, T, vocab] with batch, T ≥ 1, got (0, 3, 5)",
        "silent",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), _ids(1, 2, 3), _ids(1, 2, 3), 1, 2),
        VE,
        "clean_ids and corrupted_ids give the same logit difference",
        "clear",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), _ids(1, 2), _ids(1, 3), 50, 0),
        VE,
        "correct must be an integer in 0..49, got 50",
        "clear",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), _ids(1, 2), _ids(1, 3), 1, 1),
        VE,
        "correct and wrong must be different tokens",
        "clear",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), _ids(1, 2), _ids(1, 3), torch.tensor(1), 2),
        TE,
        "correct must be an integer in 0..49",
        "clear",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), "Enter", _ids(1, 3), 1, 2),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        MET + "logit_difference_metric",
        lambda: metrics.logit_difference_metric(tiny(), _ids(1, 2), [[1, 2], [3]], 1, 2),
        VE,
        "corrupted_ids must be [T] or [batch, T] with rows of one length",
        "raw",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), "Enter Romeo", "Enter Hamlet"),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), [1, 2], ["a", "b"]),
        TE,
        "corrupted_ids must hold integer token ids, got 'a'",
        "raw",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), _uint8_ids(), _ids(1, 2, 3)),
        None,
        None,
        "misleading",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), torch.tensor([[1, 2, 3]], dtype=torch.int16), _ids(1, 2)),
        VE,
        "clean_ids has 3 tokens but corrupted_ids has 2",
        "misleading",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(
            _handle(), torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, 3, dtype=torch.long)
        ),
        VE,
        "must each be one prompt, not a batch",
        "clear",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), [], [1]),
        VE,
        "clean_ids must hold at least one prompt of 1..16 tokens",
        "clear",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), [1, 2], [1, 99]),
        VE,
        "corrupted_ids must be token ids in 0..49",
        "clear",
    ),
    (
        MET + "prompt_pair",
        lambda: metrics.prompt_pair(_handle(), z(1, 2), [1, 2]),
        TE,
        "clean_ids must hold integer token ids, got a torch.float32 tensor",
        "clear",
    ),
    # patching: component as a list, direction, metrics of the wrong shape, without a gradient, from elsewhere
    (
        PAT + "check_request",
        lambda: patching.check_request(["z"], "noising"),
        TE,
        "component must be one of ['resid_pre', 'attn_out', 'mlp_out', 'z'], got list",
        "raw",
    ),
    (
        PAT + "check_request",
        lambda: patching.check_request("z", ["noising"]),
        TE,
        "direction must be one of ['denoising', 'noising'], got list",
        "clear",
    ),
    (
        PAT + "check_request",
        lambda: patching.check_request(None, "noising"),
        TE,
        "component must be one of",
        "clear",
    ),
    (
        PAT + "check_request",
        lambda: patching.check_request("Z", "noising"),
        VE,
        "component must be one of",
        "clear",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: lg[:, -1, 1].sum())),
        VE,
        "metric must map logits [batch, T, vocab] to one score per run [batch] = [1], got shape ()",
        "silent",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: lg[:, -1])),
        VE,
        "to one score per run [batch] = [1], got shape (1, 50)",
        "silent",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: 0.5)),
        TE,
        "metric must map logits [batch, T, vocab] to a float tensor [batch], got float",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: None)),
        TE,
        "metric must map logits",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: lg[:, -1, 1].long())),
        TE,
        "to a float tensor [batch], got Tensor torch.int64",
        "silent",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(lambda lg: lg[:, -1, 1] / 0)),
        VE,
        "metric gave NaN or ±inf scores",
        "silent",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(_metric_tiny(correct=60))),
        VE,
        "correct = 60 and wrong = 2 must be ids of the logits' vocabulary",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(_metric_tiny()), component=["z"]),
        TE,
        "component must be one of",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(*_pair(_metric_tiny()), direction="noise"),
        VE,
        "direction must be one of ['denoising', 'noising'], got 'noise'",
        "clear",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(tiny(), "Enter", "Exit", _metric_tiny()),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(tiny(), [1, 2], [1], _metric_tiny()),
        VE,
        "clean_ids has 2 tokens but corrupted_ids has 1",
        "clear",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(tiny(), [[1, 2], [3]], [1, 2], _metric_tiny()),
        VE,
        "clean_ids must be [T] or [batch, T] with rows of one length",
        "raw",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(
            lm(), torch.zeros(1, 256, dtype=torch.long), torch.ones(1, 256, dtype=torch.long), _metric()
        ),
        VE,
        "activation patching of resid_pre (6 × 256 × 256 tokens) needs about",
        "unbounded",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(
            lm(),
            torch.zeros(1, 256, dtype=torch.long),
            torch.ones(1, 256, dtype=torch.long),
            _metric(),
            "mlp_out",
        ),
        VE,
        "use shorter prompts in clean_ids and corrupted_ids (or attribution_patching)",
        "unbounded",
    ),
    (
        PAT + "activation_patching",
        lambda: patching.activation_patching(tiny(), _ids(1, 2, 3), _ids(1, 4, 3), "ld"),
        TE,
        "metric must map logits",
        "clear",
    ),
    (
        PAT + "source_run",
        lambda: patching.source_run(tiny(), _ids(1, 2), _ids(1, 3), lambda lg: lg.sum(), "z", "noising"),
        VE,
        "got shape ()",
        "silent",
    ),
    (
        PAT + "source_run",
        lambda: patching.source_run(tiny(), _ids(1, 2), _ids(1, 3), _metric_tiny(), "z", 1),
        TE,
        "direction must be one of",
        "clear",
    ),
    (
        PAT + "source_and_target",
        lambda: patching.source_and_target(tiny(), "a b", _ids(1, 2), "noising"),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        PAT + "patched_top_tokens",
        lambda: patching.patched_top_tokens(tiny(), _ids(1, 2, 3), _ids(1, 4, 3), ["z"], 0, 0),
        TE,
        "component must be one of",
        "raw",
    ),
    (
        PAT + "patched_top_tokens",
        lambda: patching.patched_top_tokens(tiny(), _ids(1, 2, 3), _ids(1, 4, 3), "resid_pre", 0, 3),
        VE,
        "index must be an integer in 0..2, got 3",
        "clear",
    ),
    (
        PAT + "patched_top_tokens",
        lambda: patching.patched_top_tokens(tiny(), _ids(1, 2, 3), _ids(1, 4, 3), "z", 2, 0),
        VE,
        "layer must be an integer in 0..1, got 2",
        "clear",
    ),
    (
        PAT + "patched_top_tokens",
        lambda: patching.patched_top_tokens(tiny(), _ids(1, 2, 3), _ids(1, 4, 3), "z", 0, 0, k=0),
        VE,
        "k must be an integer in 1..100, got 0",
        "clear",
    ),
    (
        PAT + "patched_top_tokens",
        lambda: patching.patched_top_tokens(tiny(), "ab", _ids(1, 4, 3), "z", 0, 0),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        PAT + "metric_values",
        lambda: patching.metric_values(lambda lg: lg.mean(), z(2, 3, 5)),
        VE,
        "to one score per run [batch] = [2], got shape ()",
        "clear",
    ),
    (
        PAT + "metric_values",
        lambda: patching.metric_values(_no_grad_metric, z(1, 3, 5), gradient=True),
        VE,
        "metric must be differentiable in the logits it is given",
        "clear",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(_no_grad_metric)),
        VE,
        "metric must be differentiable in the logits it is given",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(lambda lg: torch.tensor([float(lg[0, -1, 1])]))),
        VE,
        "metric must be differentiable",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(_constant_metric)),
        VE,
        "metric does not depend on the logits it is given",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(lambda lg: lg[:, -1, 1].sum())),
        VE,
        "got shape ()",
        "silent",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(lambda lg: lg[:, -1])),
        VE,
        "got shape (1, 50)",
        "silent",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(_metric_tiny()), component=["resid_pre"]),
        TE,
        "component must be one of",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(tiny(), "ab", "cd", _metric_tiny()),
        TE,
        "clean_ids must be token ids, got a str",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(*_pair(_metric_tiny(wrong=70))),
        VE,
        "must be ids of the logits' vocabulary 0..49",
        "raw",
    ),
    (
        ATT + "attribution_patching",
        lambda: attribution_patching(
            lm(), torch.zeros(1, 257, dtype=torch.long), torch.ones(1, 257, dtype=torch.long), _metric()
        ),
        VE,
        "clean_ids must hold at least one prompt of 1..256 tokens",
        "clear",
    ),
    # ablation
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), "abc", 0, 0),
        TE,
        "ids must be token ids, got a str",
        "raw",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), _ids(1, 2, 3), 0, 0, how=["mean"]),
        TE,
        "how must be one of ['zero', 'mean']",
        "clear",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), _ids(1, 2, 3), 0, 0, how="max"),
        VE,
        "how must be one of ['zero', 'mean'], got 'max'",
        "clear",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), [[1, 2], [3]], 0, 0),
        VE,
        "ids must be [T] or [batch, T] with rows of one length",
        "raw",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), torch.zeros(0, 3, dtype=torch.long), 0, 0),
        VE,
        "ids must hold at least one prompt",
        "raw",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), _ids(3), 0, 0),
        VE,
        "ids must have at least 2 tokens",
        "silent",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(tiny(), _ids(1, 2, 3), 2, 0),
        VE,
        "layer must be an integer in 0..1, got 2",
        "clear",
    ),
    (
        ABL + "ablate_head",
        lambda: ablation.ablate_head(lm(), torch.zeros(1024, 256, dtype=torch.long), 0, 0),
        VE,
        "ablating a head (1024 × 256 tokens) needs about",
        "unbounded",
    ),
    # the indirect-object grid and its top cells
    (
        IOI + "top_heads",
        lambda: ioi.top_heads(torch.tensor([[NAN, 0.5], [0.1, 0.2]])),
        VE,
        "grid has NaN or ±inf entries",
        "silent",
    ),
    (
        IOI + "top_heads",
        lambda: ioi.top_heads(torch.ones(2, 2, dtype=torch.long)),
        TE,
        "grid must be a floating-point tensor",
        "clear",
    ),
    (
        IOI + "top_heads",
        lambda: ioi.top_heads(z(2, 2), 0),
        VE,
        "k must be an integer in 1..4, got 0",
        "clear",
    ),
    (
        IOI + "top_heads",
        lambda: ioi.top_heads(z(4)),
        VE,
        "grid must be [layers, heads], got shape (4,)",
        "clear",
    ),
    (
        IOI + "ioi_pairs",
        lambda: ioi.ioi_pairs(lm(), 0),
        VE,
        "n must be an integer in 1..1000, got 0",
        "clear",
    ),
    (
        IOI + "ioi_pairs",
        lambda: ioi.ioi_pairs(lm(), 2, seed=-3),
        VE,
        "seed must be an integer ≥ 0, got -3",
        "clear",
    ),
    (
        IOI + "ioi_head_grid",
        lambda: ioi.ioi_head_grid(lm(), 1.5),
        TE,
        "n must be an integer in 1..1000, got 1.5",
        "clear",
    ),
    (IOI + "ioi_head_grid", lambda: ioi.ioi_head_grid(_encoder(), 2), VE, "is an encoder", "clear"),
    # the induction report and the training data
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(lm(), 128, 1024),
        VE,
        "an induction report (3 × 1024 × 256 tokens) needs about",
        "unbounded",
    ),
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(lm(), 128, 64),
        VE,
        "use a smaller batch or half",
        "unbounded",
    ),
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(lm(), 8, 0),
        VE,
        "batch must be an integer in 1..1024, got 0",
        "clear",
    ),
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(lm(), 8, seed=1.5),
        TE,
        "seed must be an integer ≥ 0, got 1.5",
        "clear",
    ),
    (
        "xai_tf.circuits.shipped.induction_report",
        lambda: shipped.induction_report(None, 8),
        TE,
        "model must be a model from xai_tf.load_model",
        "clear",
    ),
    (
        "xai_tf.circuits.induction_training.RepeatData",
        lambda: induction_training.RepeatData(T=3),
        VE,
        "T must be an integer in 4..4096, got 3",
        "clear",
    ),
    (
        "xai_tf.circuits.induction_training.RepeatData",
        lambda: induction_training.RepeatData(L_min=1),
        VE,
        "L_min must be an integer in 2..16, got 1",
        "clear",
    ),
    (
        "xai_tf.circuits.induction_training.repeat_batch",
        lambda: induction_training.repeat_batch(induction_training.RepeatData(), 32, 0, torch.Generator()),
        VE,
        "batch must be an integer in 1..100000, got 0",
        "clear",
    ),
    (
        "xai_tf.circuits.induction_training.train_induction",
        lambda: induction_training.train_induction(options=induction_training.OPTIONS.replace(lr=-1.0)),
        VE,
        "lr",
        "clear",
    ),
    # the figures: NaN cells (one NaN rescaled the colours of every real cell), columns, half
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(torch.tensor([[NAN, 0.5]]), ["a", "b"]),
        VE,
        "grid has NaN or ±inf entries",
        "silent",
    ),
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(z(2, 2), 2),
        TE,
        "columns must be a list of labels (str), got int",
        "raw",
    ),
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(z(2, 2), "ab"),
        TE,
        "columns must be a list of labels (str), got str",
        "silent",
    ),
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(z(0, 2), ["a", "b"]),
        VE,
        "grid must be [layers, 2] for 2 columns, got (0, 2)",
        "raw",
    ),
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(z(2, 2), ["a", "b"], scale=0),
        VE,
        "scale must be a finite number > 0, got 0.0",
        "clear",
    ),
    (
        WID + "plot_grid",
        lambda: circuits_widgets.plot_grid(torch.tensor([[float("inf"), 0.5]]), ["a", "b"]),
        VE,
        "grid has NaN or ±inf entries",
        "silent",
    ),
    (
        WID + "cell_grid",
        lambda: circuits_widgets.cell_grid(torch.tensor([[NAN]]), ["a"], lambda layer, i: None),
        VE,
        "grid has NaN or ±inf entries",
        "silent",
    ),
    (
        WID + "cell_grid",
        lambda: circuits_widgets.cell_grid(z(1, 1), ["a"], "choose"),
        TE,
        "choose must be a function (layer, i) → None, got str",
        "silent",
    ),
    (
        WID + "cell_grid",
        lambda: circuits_widgets.cell_grid(z(1, 1), None, lambda layer, i: None),
        TE,
        "columns must be a list of labels (str), got NoneType",
        "raw",
    ),
    (
        WID + "plot_induction",
        lambda: circuits_widgets.plot_induction(z(2, 7), z(2, 2), z(2, 2), 4.0),
        TE,
        "half must be an integer ≥ 2, got 4.0",
        "clear",
    ),
    (
        WID + "plot_induction",
        lambda: circuits_widgets.plot_induction(z(2, 7), z(2, 2), z(3, 2), 4),
        VE,
        "induction and previous must be [layers, heads] of one shape",
        "raw",
    ),
    (
        WID + "plot_induction",
        lambda: circuits_widgets.plot_induction(z(2, 7).fill_(NAN), z(2, 2), z(2, 2), 4),
        VE,
        "loss has NaN or ±inf entries",
        "silent",
    ),
    (
        WID + "plot_induction",
        lambda: circuits_widgets.plot_induction(
            z(2, 7), torch.tensor([[NAN, 0.1]]), torch.tensor([[0.1, 0.1]]), 4
        ),
        VE,
        "grid has NaN or ±inf entries",
        "silent",
    ),
    # the size rule itself
    (
        LIM + "token_ids",
        lambda: limits.token_ids(_handle(), "ids", "abc"),
        TE,
        "ids must be token ids, got a str",
        "clear",
    ),
    (
        LIM + "forward_cost",
        lambda: limits.check_forward("x", _handle(), 10**9, 16, "less"),
        VE,
        "x (1000000000 × 16 tokens) needs about",
        "clear",
    ),
    (
        LIM + "within",
        lambda: limits.within("work", 1.0, 1e13, "less"),
        VE,
        "work needs about 1.0e+13 floating-point operations, over the limit of 4e+12",
        "clear",
    ),
    (
        LIM + "check_forward",
        lambda: limits.check_forward("y", _handle(), 1, 16, "less", runs=10**9),
        VE,
        "y (1000000000 × 1 × 16 tokens) needs about",
        "clear",
    ),
]
ISSUE_43_ROWS = [row for row in ISSUE_43 if row[2] is not None]
RAISES += [row[:4] for row in ISSUE_43_ROWS]

RAISES = [(name, call, error, re.escape(message)) for name, call, error, message in RAISES]

CHECKERS = {
    "xai_tf.exercises.circuits.check_induction_scores": "induction score is None",
    "xai_tf.exercises.circuits.check_k_composition": "C_K is None",
    "xai_tf.exercises.circuits.check_mean_ablate": "z′ is None",
    "xai_tf.exercises.circuits.check_normalised_logit_difference": "m is None",
    "xai_tf.exercises.circuits.check_first_order_estimate": "estimate is None",
}

PANELS = {
    "xai_tf.widgets.circuits.patching_panel": (
        lambda: circuits_widgets.patching_panel(
            lm(), "Enter Romeo and", "Enter Hamlet and", " Juliet", " Romeo"
        ),
        "corrupted",
        "Enter Hamlet and Juliet",
    ),
}


RAISES += [  # lesson 15's single steps (xai_tf.circuits.steps)
    (
        "xai_tf.circuits.steps.mean_ablate",
        lambda: steps.mean_ablate(z(2, 3, 4), 0),
        VE,
        "z must have 4 dimensions",
    ),
    ("xai_tf.circuits.steps.mean_ablate", lambda: steps.mean_ablate(z(2, 3, 4, 2), 3), VE, "head must be"),
    (
        "xai_tf.circuits.steps.mean_ablate",
        lambda: steps.mean_ablate(z(0, 3, 4, 2), 1),
        VE,
        "at least one sequence",
    ),
    (
        "xai_tf.circuits.steps.mean_ablate",
        lambda: steps.mean_ablate([[1.0]], 0),
        TE,
        "z must be a torch.Tensor",
    ),
    (
        "xai_tf.circuits.steps.normalised_logit_difference",
        lambda: steps.normalised_logit_difference(z(1, 2, 5), 1, 1, 1.0, 0.0),
        VE,
        "correct and wrong must be different tokens",
    ),
    (
        "xai_tf.circuits.steps.normalised_logit_difference",
        lambda: steps.normalised_logit_difference(z(1, 2, 5), 1, 2, 1.0, 1.0),
        VE,
        "the normalised metric would divide by zero",
    ),
    (
        "xai_tf.circuits.steps.normalised_logit_difference",
        lambda: steps.normalised_logit_difference(z(1, 2, 5), 1, 7, 1.0, 0.0),
        VE,
        "must be ids of the logits' vocabulary",
    ),
    (
        "xai_tf.circuits.steps.first_order_estimate",
        lambda: steps.first_order_estimate(0.0, z(2, 3), z(2, 4), z(2, 3)),
        VE,
        "a_source is \\(2, 3\\) but a_target is \\(2, 4\\)",
    ),
    (
        "xai_tf.circuits.steps.first_order_estimate",
        lambda: steps.first_order_estimate(z(3), z(2, 3), z(2, 3), z(2, 3)),
        VE,
        "m_target has shape \\(3,\\): it must broadcast to the cells \\(2,\\)",
    ),
    (
        "xai_tf.circuits.steps.first_order_estimate",
        lambda: steps.first_order_estimate(NAN, z(2, 3), z(2, 3), z(2, 3)),
        VE,
        "m_target must be a finite number",
    ),
    (
        "xai_tf.circuits.steps.first_order_estimate",
        lambda: steps.first_order_estimate(0.0, z(2, 3), z(2, 3), z(2, 3).long()),
        TE,
        "grad must be a floating-point tensor",
    ),
    (
        "xai_tf.circuits.steps.first_order_estimate",
        lambda: steps.first_order_estimate(0.0, torch.tensor(1.0), torch.tensor(1.0), torch.tensor(1.0)),
        VE,
        "must have a last dim d",
    ),
]
