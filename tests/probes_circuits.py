"""Bad-input probes for lesson 15 (circuits, ``xai_tf.circuits``), collected by ``test_bad_inputs.py``."""

import re

import torch
from probe_kit import TE, VE, lm, tiny, z

from xai_tf.circuits import (
    ablation,
    attribution,
    composition,
    induction,
    induction_training,
    ioi,
    metrics,
    patching,
    shipped,
)
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
        "xai_tf.circuits.attribution.attribution_patching",
        lambda: attribution.attribution_patching(lm(), _ids(1, 2), _ids(1, 3), "ld"),
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
        lambda: induction_training.train_induction(steps=0),
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

RAISES = [(name, call, error, re.escape(message)) for name, call, error, message in RAISES]

CHECKERS = {"xai_tf.exercises.circuits.check_induction_scores": "induction score is None"}

PANELS = {
    "xai_tf.widgets.circuits.patching_panel": (
        lambda: circuits_widgets.patching_panel(
            lm(), "Enter Romeo and", "Enter Hamlet and", " Juliet", " Romeo"
        ),
        "corrupted",
        "Enter Hamlet and Juliet",
    ),
}
