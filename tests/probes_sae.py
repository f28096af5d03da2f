"""Bad-input probes for lesson 10 (sparse autoencoders, ``xai_tf.sae``), collected by
``test_bad_inputs.py``."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.sae import activations as sae_act
from xai_tf.sae import browse as sae_browse
from xai_tf.sae import decompose as sae_decompose
from xai_tf.sae import metrics as sae_metrics
from xai_tf.sae import model as sae_model
from xai_tf.sae import penalty as sae_penalty
from xai_tf.sae import steer as sae_steer
from xai_tf.sae import superposition as sae_sup
from xai_tf.sae import training as sae_training
from xai_tf.widgets import sae as sae_widgets


@cache
def sae10() -> sae_model.SparseAutoencoder:
    """A small untrained SAE on the bundled model's stream (d = 256, F = 512) at ("resid_post", 2)."""
    return sae_model.SparseAutoencoder(sae_model.SAEConfig(d=256, F=512, lam=1.0, layer=2, scale=0.3))


RAISES = [
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss(sae10(), z(3, 256), -1.0),
        VE,
        "lam must be a finite number ≥ 0, got -1.0",
    ),
    (
        "xai_tf.sae.model.feature_activations",
        lambda: sae_model.feature_activations(sae10(), z(3, 5)),
        VE,
        "h must end in the SAE's width d = 256, got shape",
    ),
    (
        "xai_tf.sae.model.identity_sae",
        lambda: sae_model.identity_sae(0),
        VE,
        "d must be an integer ≥ 1, got 0",
    ),
    ("xai_tf.sae.model.save", lambda: sae_model.save("sae", "/tmp/x"), TE, "sae must be a SparseAutoencoder"),
    (
        "xai_tf.sae.model.load",
        lambda: sae_model.load("/nonexistent/sae"),
        VE,
        "must name an SAE saved by save",
    ),
    (
        "xai_tf.sae.activations.check_point",
        lambda: sae_act.check_point(lm(), 2, "resid"),
        VE,
        "hook must be one of",
    ),
    (
        "xai_tf.sae.activations.windows",
        lambda: sae_act.windows(lm(), ["ROMEO."], 1),
        VE,
        r"T must be an integer in 2..256, got 1",
    ),
    (
        "xai_tf.sae.activations.collect",
        lambda: sae_act.collect(lm(), torch.zeros(1, 4, dtype=torch.long), 6),
        VE,
        r"layer must be an integer in 0..5, got 6",
    ),
    (
        "xai_tf.sae.activations.norm_scale",
        lambda: sae_act.norm_scale([1.0]),
        TE,
        "H must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.sae.activations.shuffled_batches",
        lambda: sae_act.shuffled_batches(z(10, 4), 11),
        VE,
        r"batch must be an integer in 1..10, got 11",
    ),
    (
        "xai_tf.sae.training.lam_at",
        lambda: sae_training.lam_at(0, 0, 1.0),
        VE,
        "warmup must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae(iter([z(4, 4)]), sae_model.SAEConfig(d=4, F=6, lam=1.0), 1),
        VE,
        "F must be a positive multiple of d = 4",
    ),
    ("xai_tf.sae.metrics.l0", lambda: sae_metrics.l0([[1.0]]), TE, "a must be a torch.Tensor, got list"),
    ("xai_tf.sae.metrics.fvu", lambda: sae_metrics.fvu(z(4, 3), z(4, 2)), VE, "h and s must both be"),
    (
        "xai_tf.sae.metrics.density",
        lambda: sae_metrics.density(sae10(), z(8, 3)),
        VE,
        "h must end in the SAE's width d = 256",
    ),
    (
        "xai_tf.sae.metrics.summary",
        lambda: sae_metrics.summary(sae10(), "H"),
        TE,
        "h must be a torch.Tensor, got str",
    ),
    (
        "xai_tf.sae.metrics.reconstruction_hook",
        lambda: sae_metrics.reconstruction_hook(sae10(), 0.0),
        VE,
        "scale must be a finite number > 0, got 0.0",
    ),
    (
        "xai_tf.sae.metrics.ce_loss_recovered",
        lambda: sae_metrics.ce_loss_recovered(lm(), sae10(), torch.zeros(1, 4, dtype=torch.long), 9),
        VE,
        r"layer must be an integer in 0..5, got 9",
    ),
    (
        "xai_tf.sae.browse.feature_values",
        lambda: sae_browse.feature_values(sae10(), z(2, 256), 512),
        VE,
        r"feature must be an integer in 0..511, got 512",
    ),
    (
        "xai_tf.sae.browse.max_codes",
        lambda: sae_browse.max_codes(sae10(), z(2, 7)),
        VE,
        "h must end in the SAE's width",
    ),
    (
        "xai_tf.sae.browse.top_contexts",
        lambda: sae_browse.top_contexts(
            lm(), sae10(), z(1, 4, 256), torch.zeros(1, 4, dtype=torch.long), 0, k=0
        ),
        VE,
        "k must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.sae.browse.contexts_html",
        lambda: sae_browse.contexts_html("ctx"),
        TE,
        "contexts must be a list of Context",
    ),
    ("xai_tf.sae.browse.label", lambda: sae_browse.label([1, 2]), TE, "contexts must be a list of Context"),
    (
        "xai_tf.sae.browse.logit_effects",
        lambda: sae_browse.logit_effects(lm(), sae10(), -1),
        VE,
        r"feature must be an integer in 0..511, got -1",
    ),
    (
        "xai_tf.sae.browse.features_for_token",
        lambda: sae_browse.features_for_token(
            lm(), sae10(), z(1, 2, 256), torch.zeros(1, 2, dtype=torch.long), "zzqx"
        ),
        VE,
        "token 'zzqx' does not occur in these windows",
    ),
    (
        "xai_tf.sae.steer.clamp_hook",
        lambda: sae_steer.clamp_hook(sae10(), 0, NAN),
        VE,
        "value must be a finite number, got nan",
    ),
    (
        "xai_tf.sae.steer.generate_clamped",
        lambda: sae_steer.generate_clamped(lm(), sae10(), "ROMEO.", 0, float("inf"), 1.0),
        VE,
        "factor must be a finite number, got inf",
    ),
    (
        "xai_tf.sae.superposition.sparse_features",
        lambda: sae_sup.sparse_features(5, 4, 1.0, torch.Generator()),
        VE,
        r"S must be a finite number in \[0, 1\), got 1.0",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(5, 5, 0.5),
        VE,
        r"m must be an integer in 1..4, got 5",
    ),
    (
        "xai_tf.sae.superposition.represented",
        lambda: sae_sup.represented([[1.0]]),
        TE,
        "W must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.sae.superposition.recovery",
        lambda: sae_sup.recovery(z(3, 2), z(4, 5)),
        VE,
        "need the same number of rows",
    ),
    (
        "xai_tf.sae.penalty.rescale_features",
        lambda: sae_penalty.rescale_features(sae10(), 0),
        VE,
        "c must be a finite number > 0, got 0",
    ),
    (
        "xai_tf.sae.penalty.penalties",
        lambda: sae_penalty.penalties(sae10(), z(3, 4)),
        VE,
        "h must end in the SAE's width d = 256",
    ),
    (
        "xai_tf.sae.superposition.analogy",
        lambda: sae_sup.analogy(lm(), " man", " king", " woman", " princess"),
        VE,
        "d = ' princess' is 2 tokens for shakespeare: pick a one-token word",
    ),
    ("xai_tf.sae.browse.purity", lambda: sae_browse.purity([]), VE, "contexts is empty: a dead feature"),
    (
        "xai_tf.sae.browse.purities",
        lambda: sae_browse.purities(lm(), sae10(), z(1, 4, 256), torch.zeros(1, 5, dtype=torch.long)),
        VE,
        r"H \(1, 4, 256\) and ids \(1, 5\) must cover the same windows",
    ),
    (
        "xai_tf.sae.browse.labels",
        lambda: sae_browse.labels(lm(), sae10(), z(1, 4, 256), torch.zeros(1, 4, dtype=torch.long), [600]),
        VE,
        r"feature must be an integer in 0..511, got 600",
    ),
    (
        "xai_tf.sae.steer.token_share",
        lambda: sae_steer.token_share(lm(), " hast thou", " hast"),
        TE,
        "tokens must be a collection of token strings",
    ),
    (
        "xai_tf.sae.decompose.decompose",
        lambda: sae_decompose.decompose(lm(), sae10(), "A"),
        VE,
        "text must be 2 to 256 tokens for shakespeare, got 1",
    ),
    (
        "xai_tf.sae.superposition.represented_features",
        lambda: sae_sup.represented_features(z(5)),
        VE,
        r"W must be the toy model's \[m, n\] matrix, got shape \(5,\)",
    ),
    (
        "xai_tf.sae.superposition.train_toy_sae",
        lambda: sae_sup.train_toy_sae(z(5), 0.9, 10, 0.1),
        VE,
        r"W must be the toy model's \[m, n\] matrix, got shape \(5,\)",
    ),
]

CHECKERS = {
    "xai_tf.exercises.sae.check_sae_loss": "L is None",
    "xai_tf.exercises.sae.check_feature_activation": r"a_j ‖W\^dec_j‖ is None",
}

PANELS = {
    "xai_tf.widgets.sae.feature_browser": (
        lambda: sae_widgets.feature_browser(
            lm(),
            sae10(),
            z(1, 4, 256),
            torch.tensor([lm().encode("ROMEO. Thou")[:4]]),
            torch.full((512,), 0.1),
        ),
        "token",
        "zzqx",
    ),
    "xai_tf.widgets.sae.steering_panel": (
        lambda: sae_widgets.steering_panel(lm(), sae10(), torch.ones(512)),
        "feature",
        512,
    ),
}
