"""Bad-input probes for lesson 10 (sparse autoencoders, ``xai_tf.sae``), collected by
``test_bad_inputs.py``."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.sae import activations as sae_act
from xai_tf.sae import browse as sae_browse
from xai_tf.sae import decompose as sae_decompose
from xai_tf.sae import formulas as sae_formulas
from xai_tf.sae import metrics as sae_metrics
from xai_tf.sae import model as sae_model
from xai_tf.sae import penalty as sae_penalty
from xai_tf.sae import steer as sae_steer
from xai_tf.sae import superposition as sae_sup
from xai_tf.sae import training as sae_training
from xai_tf.sae.model import SAEConfig
from xai_tf.training import TrainOptions
from xai_tf.widgets import sae as sae_widgets

ONE_STEP, TWO_STEPS, THREE_STEPS = (TrainOptions(n, 1e-3) for n in (1, 2, 3))


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
        lambda: sae_training.train_sae(iter([z(4, 4)]), sae_model.SAEConfig(d=4, F=6, lam=1.0), ONE_STEP),
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


def _cfg4() -> sae_model.SAEConfig:
    return sae_model.SAEConfig(d=4, F=8, lam=1.0)


def _ids(*rows: list[int]) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.long)


def _sae_trained(options=TWO_STEPS, **kwargs):
    return sae_training.train_sae(
        sae_act.shuffled_batches(z(64, 4), 16), _cfg4(), options, progress=False, **kwargs
    )


RAISES += [
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss(sae10(), torch.ones(3, 256, dtype=torch.long), 1.0),
        TE,
        r"h must be a floating-point tensor",
    ),
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss(sae10(), torch.full((3, 256), NAN), 1.0),
        VE,
        "h has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss(sae10(), [[0.0] * 256], 1.0),
        TE,
        "h must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss("sae", z(3, 256), 1.0),
        TE,
        "sae must be a SparseAutoencoder",
    ),
    (
        "xai_tf.sae.model.sae_loss",
        lambda: sae_model.sae_loss(sae10(), z(0, 256), 1.0),
        VE,
        r"h must hold at least one row \[n ≥ 1, d\]",
    ),
    (
        "xai_tf.sae.model.feature_activations",
        lambda: sae_model.feature_activations(sae10(), torch.full((2, 256), float("inf"))),
        VE,
        "h has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.model.identity_sae",
        lambda: sae_model.identity_sae(10**6),
        VE,
        r"an SAE with d = 1000000, F = 2000000 needs [\d.]+ GiB.*choose a smaller d",
    ),
    (
        "xai_tf.sae.model.identity_sae",
        lambda: sae_model.identity_sae(4, dtype=torch.int64),
        TE,
        r"dtype must be a floating dtype \(torch.float32 or torch.float64\), got torch.int64",
    ),
    (
        "xai_tf.sae.model.identity_sae",
        lambda: sae_model.identity_sae(2.5),
        TE,
        r"d must be an integer ≥ 1, got 2.5",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: _sae_trained({"steps": 2}),
        TE,
        "options must be a TrainOptions, got dict",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae([], _cfg4(), THREE_STEPS, progress=False),
        VE,
        r"batches ran out after 0 batches: steps = 3 needs 3",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae([z(8, 4)], _cfg4(), THREE_STEPS, progress=False),
        VE,
        r"batches ran out after 1 batches: steps = 3 needs 3",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae([torch.full((8, 4), NAN)], _cfg4(), ONE_STEP, progress=False),
        VE,
        r"batch 0 has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae(
            [torch.ones(8, 4, dtype=torch.long)], _cfg4(), ONE_STEP, progress=False
        ),
        TE,
        r"batch 0 must be a floating-point tensor",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae([z(8, 5)], _cfg4(), ONE_STEP, progress=False),
        VE,
        r"batch 0 has shape \(8, 5\), expected \[n ≥ 2, 4\]",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: sae_training.train_sae(5, _cfg4(), ONE_STEP, progress=False),
        TE,
        r"batches must be an iterable of tensors \[n, d\], got int",
    ),
    (
        "xai_tf.sae.training.train_sae",
        lambda: _sae_trained(warmup=0),
        VE,
        "warmup must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.sae.training.lam_at",
        lambda: sae_training.lam_at(-1, 5, 1.0),
        VE,
        "k must be an integer ≥ 0, got -1",
    ),
    (
        "xai_tf.sae.training.lam_at",
        lambda: sae_training.lam_at(0, 5, NAN),
        VE,
        "lam must be a finite number ≥ 0, got nan",
    ),
    (
        "xai_tf.sae.metrics.l0",
        lambda: sae_metrics.l0(torch.full((2, 3), NAN)),
        VE,
        "a has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.metrics.fvu",
        lambda: sae_metrics.fvu(torch.ones(4, 3), z(4, 3)),
        VE,
        r"h has no variance \(its 4 rows are equal\)",
    ),
    (
        "xai_tf.sae.metrics.fvu",
        lambda: sae_metrics.fvu(z(4, 3), torch.full((4, 3), NAN)),
        VE,
        "s has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.metrics.fvu",
        lambda: sae_metrics.fvu(torch.ones(4, 3, dtype=torch.long), z(4, 3)),
        TE,
        "h must be a floating-point tensor",
    ),
    (
        "xai_tf.sae.metrics.density",
        lambda: sae_metrics.density(sae10(), z(8, 256), chunk=0),
        VE,
        "chunk must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.sae.metrics.density",
        lambda: sae_metrics.density(sae10(), z(0, 256)),
        VE,
        r"h must hold at least one row \[n ≥ 1, d\]",
    ),
    (
        "xai_tf.sae.metrics.summary",
        lambda: sae_metrics.summary(sae10(), torch.full((4, 256), NAN)),
        VE,
        "h has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.metrics.ce_loss_recovered",
        lambda: sae_metrics.ce_loss_recovered(lm(), sae10(), _ids([1, 99999]), 2),
        VE,
        r"ids must be token ids in 0..\d+ \(the model's vocabulary\), got 99999",
    ),
    (
        "xai_tf.sae.metrics.ce_loss_recovered",
        lambda: sae_metrics.ce_loss_recovered(lm(), sae10(), _ids([1, 2]), 2, baseline="one"),
        VE,
        "baseline must be 'zero' or 'mean', got 'one'",
    ),
    (
        "xai_tf.sae.activations.collect",
        lambda: sae_act.collect(lm(), _ids([1, -3]), 2),
        VE,
        r"ids must be token ids in 0..\d+ \(the model's vocabulary\), got -3",
    ),
    (
        "xai_tf.sae.activations.collect",
        lambda: sae_act.collect(lm(), torch.zeros(1, 4), 2),
        TE,
        r"ids must hold integer token ids",
    ),
    (
        "xai_tf.sae.activations.collect",
        lambda: sae_act.collect(lm(), torch.zeros(1, 1, dtype=torch.long).expand(10**6, 10**3), 2),
        VE,
        r"needs [\d.]+ GiB.*fewer windows",
    ),
    (
        "xai_tf.sae.activations.windows",
        lambda: sae_act.windows(lm(), "ROMEO. Thou art", 2),
        TE,
        "texts must be a list of strings, got one str",
    ),
    (
        "xai_tf.sae.activations.windows",
        lambda: sae_act.windows(lm(), [], 4),
        VE,
        r"texts hold no window of T = 4 tokens",
    ),
    (
        "xai_tf.sae.activations.norm_scale",
        lambda: sae_act.norm_scale(torch.zeros(3, 4)),
        VE,
        r"H is all zero: the scale c = √d / mean ‖h‖ is undefined",
    ),
    (
        "xai_tf.sae.activations.norm_scale",
        lambda: sae_act.norm_scale(torch.full((3, 4), NAN)),
        VE,
        "H has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.activations.shuffled_batches",
        lambda: sae_act.shuffled_batches(z(0, 4), 1),
        VE,
        r"H must be rows \[n ≥ 1, d\], got shape \(0, 4\)",
    ),
    (
        "xai_tf.sae.activations.shuffled_batches",
        lambda: sae_act.shuffled_batches(z(8, 4), 2, seed=1.5),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.sae.activations.shuffled_batches",
        lambda: sae_act.shuffled_batches(torch.full((8, 4), NAN), 2),
        VE,
        "H has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.browse.feature_values",
        lambda: sae_browse.feature_values(sae10(), z(2, 256), 1.5),
        TE,
        r"feature must be an integer in 0..511, got 1.5",
    ),
    (
        "xai_tf.sae.browse.feature_values",
        lambda: sae_browse.feature_values(sae10(), torch.full((2, 256), NAN), 0),
        VE,
        "h has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.browse.top_contexts",
        lambda: sae_browse.top_contexts(lm(), sae10(), z(1, 2, 256), _ids([1, 99999]), 0),
        VE,
        r"ids must be token ids in 0..\d+ \(the model's vocabulary\), got 99999",
    ),
    (
        "xai_tf.sae.browse.features_for_token",
        lambda: sae_browse.features_for_token(lm(), sae10(), z(1, 3, 256), _ids([1, 2]), " thou"),
        VE,
        r"H \(1, 3, 256\) and ids \(1, 2\) must cover the same windows",
    ),
    (
        "xai_tf.sae.browse.logit_effects",
        lambda: sae_browse.logit_effects(lm(), sae10(), 0, k=10**6),
        VE,
        r"k must be an integer in 1..\d+, got 1000000",
    ),
    (
        "xai_tf.sae.superposition.sparse_features",
        lambda: sae_sup.sparse_features(10**6, 10**6, 0.5, torch.Generator()),
        VE,
        r"needs [\d.]+ GiB.*choose a smaller batch",
    ),
    (
        "xai_tf.sae.superposition.sparse_features",
        lambda: sae_sup.sparse_features(5, 4, 0.5, 3),
        TE,
        "generator must be a torch.Generator, got int",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(5, 2, 0.5, options=sae_sup.TOY.replace(steps=0)),
        VE,
        r"steps must be an integer in 1..100000, got 0",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(5, 2, 0.5, options=sae_sup.TOY.replace(steps=1, batch_size=0)),
        VE,
        r"batch_size must be an integer in 1..1000000, got 0",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(5, 2, 0.5, options=sae_sup.TOY.replace(steps=1, seed=1.5)),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(10**6, 2, 0.5, options=sae_sup.TOY.replace(steps=1)),
        VE,
        r"n must be an integer in 2..10000, got 1000000",
    ),
    (
        "xai_tf.sae.superposition.train_toy",
        lambda: sae_sup.train_toy(5, 2, 1.5, options=sae_sup.TOY.replace(steps=1)),
        VE,
        r"S must be a finite number in \[0, 1\), got 1.5",
    ),
    (
        "xai_tf.sae.superposition.train_toy_sae",
        lambda: sae_sup.train_toy_sae(z(2, 5), 0.9, 3, 0.1, options=sae_sup.TOY_SAE.replace(steps=1)),
        VE,
        "F must be a positive multiple of d = 2",
    ),
    (
        "xai_tf.sae.superposition.train_toy_sae",
        lambda: sae_sup.train_toy_sae(z(2, 5), 1.5, 4, 0.1, options=sae_sup.TOY_SAE.replace(steps=1)),
        VE,
        r"S must be a finite number in \[0, 1\), got 1.5",
    ),
    (
        "xai_tf.sae.superposition.train_toy_sae",
        lambda: sae_sup.train_toy_sae(z(2, 5), 0.9, 4, 0.1, options=sae_sup.TOY_SAE.replace(steps=10**7)),
        VE,
        r"steps must be an integer in 1..100000, got 10000000",
    ),
    (
        "xai_tf.sae.superposition.train_toy_sae",
        lambda: sae_sup.train_toy_sae(
            torch.full((2, 5), NAN), 0.9, 4, 0.1, options=sae_sup.TOY_SAE.replace(steps=1)
        ),
        VE,
        "W has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.superposition.represented_features",
        lambda: sae_sup.represented_features(torch.full((2, 5), NAN)),
        VE,
        "W has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.superposition.recovery",
        lambda: sae_sup.recovery(torch.zeros(3, 2), z(3, 4)),
        VE,
        r"true_directions has a zero column \(0\): its direction is undefined",
    ),
    (
        "xai_tf.sae.superposition.recovery",
        lambda: sae_sup.recovery(z(3, 2), torch.full((3, 4), NAN)),
        VE,
        "W_dec has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.superposition.analogy",
        lambda: sae_sup.analogy(lm(), " man", 5, " woman", " queen"),
        TE,
        "b must be a string, got 5",
    ),
    (
        "xai_tf.sae.penalty.penalties",
        lambda: sae_penalty.penalties(sae10(), torch.full((2, 256), NAN)),
        VE,
        "h has NaN or ±inf entries",
    ),
    (
        "xai_tf.sae.penalty.rescale_features",
        lambda: sae_penalty.rescale_features("sae", 2.0),
        TE,
        "sae must be a SparseAutoencoder",
    ),
    (
        "xai_tf.sae.steer.clamp_hook",
        lambda: sae_steer.clamp_hook(sae10(), 1.5, 1.0),
        TE,
        r"feature must be an integer in 0..511, got 1.5",
    ),
    (
        "xai_tf.sae.steer.generate_clamped",
        lambda: sae_steer.generate_clamped(lm(), sae10(), "ROMEO.", 0, 2.0, 1.0, max_new_tokens=10**6),
        VE,
        r"max_new_tokens must be an integer in 1..1000, got 1000000",
    ),
    (
        "xai_tf.sae.steer.generate_clamped",
        lambda: sae_steer.generate_clamped(lm(), sae10(), "", 0, 2.0, 1.0),
        VE,
        "prompt is empty",
    ),
    (
        "xai_tf.sae.steer.generate_clamped",
        lambda: sae_steer.generate_clamped(lm(), sae10(), "ROMEO.", 0, 2.0, 1.0, on_step="stop"),
        TE,
        "on_step must be a function of no arguments or None, got str",
    ),
    (
        "xai_tf.sae.steer.token_share",
        lambda: sae_steer.token_share(lm(), 5, [" hast"]),
        TE,
        "text must be a non-empty string, got 5",
    ),
    (
        "xai_tf.sae.decompose.decompose",
        lambda: sae_decompose.decompose(lm(), sae10(), 5),
        TE,
        "text must be a non-empty string, got 5",
    ),
]


def _float64_loss() -> bool:
    h = z(3, 256)
    return sae_model.sae_loss(sae10(), h.double(), 1.0).dtype == torch.float32


#: Documented values at the edges (name, call, check of the result): run by test_sae.py.
VALUES = [
    ("sae_loss of float64 h is computed once in the SAE's float32", _float64_loss, lambda ok: ok),
    (
        "fvu of a perfect reconstruction of a constant is refused, not inf",
        lambda: _raises(lambda: sae_metrics.fvu(torch.ones(4, 3), torch.ones(4, 3))),
        lambda err: isinstance(err, ValueError) and "no variance" in str(err),
    ),
    (
        "train_sae on float64 batches trains the float32 SAE",
        lambda: (
            sae_training.train_sae([z(16, 4).double()] * 2, _cfg4(), TWO_STEPS, progress=False)[0].W_dec.dtype
        ),
        lambda dtype: dtype == torch.float32,
    ),
    (
        "feature_values of float64 H follows the SAE's dtype",
        lambda: sae_browse.feature_values(sae10(), z(2, 256).double(), 0).dtype,
        lambda dtype: dtype == torch.float32,
    ),
    (
        "density of one row is 0 or 1 per feature",
        lambda: sae_metrics.density(sae10(), z(1, 256)),
        lambda p: bool(((p == 0) | (p == 1)).all()),
    ),
]


def _raises(call):
    try:
        call()
    except Exception as err:  # the error itself is the value checked
        return err
    return None


def _panel_line(panel, control, value) -> tuple[str, str]:
    panel[control].value = value
    msg = panel.message.value
    ok = "⚠" in msg and panel.view.value == "" and "Error:" not in msg
    return ("clear" if ok else "misleading" if "⚠" in msg else "silent wrong"), msg[:120]


PANEL_EXTRA = [
    (
        "steering_panel, feature 600 of 512",
        lambda: _panel_line(sae_widgets.steering_panel(lm(), sae10(), torch.ones(512)), "feature", 600),
    ),
    (
        "steering_panel, max_codes of another SAE",
        lambda: (
            ("clear", "")
            if _raises(lambda: sae_widgets.steering_panel(lm(), sae10(), torch.ones(3)))
            else ("silent wrong", "no error")
        ),
    ),
]


RAISES += [  # moved from test_bad_inputs.py
    (
        "xai_tf.sae.model.SAEConfig",
        lambda: SAEConfig(d=4, F=6, lam=0.1),
        VE,
        "F must be a positive multiple of d = 4",
    ),
    (
        "xai_tf.sae.model.SAEConfig",
        lambda: SAEConfig(d=0, F=6, lam=0.1),
        VE,
        "d must be an integer ≥ 1, got 0",
    ),
]


RAISES += [  # issue 44 §2, "a feature rescaled by 1e40": float32's W^dec overflowed, the penalties were NaN
    (
        "xai_tf.sae.penalty.rescale_features",
        lambda: sae_penalty.rescale_features(sae10(), 1e40),
        VE,
        r"c must lie in \[.+, .+\] for this SAE's torch.float32 weights, got 1e\+40: beyond it",
    ),
    (
        "xai_tf.sae.penalty.rescale_features",
        lambda: sae_penalty.rescale_features(sae10(), 1e-40),
        VE,
        r"c must lie in \[.+, .+\] for this SAE's torch.float32 weights, got 1e-40",
    ),
]
RAISES += [  # issue 44 §2: an analogy whose answer is one of its three cues (it would rank last)
    (
        "xai_tf.sae.superposition.analogy",
        lambda: sae_sup.analogy(lm(), " king", " king", " king", " king"),
        VE,
        "d = ' king' must differ from a, b and c: they are left out of the ranking",
    ),
    (
        "xai_tf.sae.superposition.analogy",
        lambda: sae_sup.analogy(lm(), " man", " king", " woman", " man"),
        VE,
        "d = ' man' must differ from a, b and c",
    ),
]

RAISES += [  # issue 55: lesson 10's formulas on plain weights (the exercises' references)
    (
        "xai_tf.sae.formulas.encode",
        lambda: sae_formulas.encode(z(3, 5), z(8, 4), z(8)),
        VE,
        r"h must be \[n, d\] with d = 4 \(W_enc is \[F, d\]\), got shape \(3, 5\)",
    ),
    (
        "xai_tf.sae.formulas.loss",
        lambda: sae_formulas.loss(z(3, 4), z(8, 4), z(8), z(8, 4), z(4), 0.1),
        VE,
        r"W_dec must have shape \(4, 8\) \(F = 8, d = 4\), got \(8, 4\)",
    ),
    (
        "xai_tf.sae.formulas.feature_activation",
        lambda: sae_formulas.feature_activation(z(3, 4), z(8, 4), torch.zeros(8, dtype=torch.long), z(4, 8)),
        TE,
        "b_enc must be a floating-point tensor",
    ),
    (
        "xai_tf.sae.formulas.clamp",
        lambda: sae_formulas.clamp(z(3, 4), z(8, 4), z(8), z(4, 8), 8, 1.0),
        VE,
        r"j must be an integer in 0..7, got 8",
    ),
]


CHECKERS = {
    "xai_tf.exercises.sae.check_sae_loss": "L is None",
    "xai_tf.exercises.sae.check_feature_activation": r"a_j ‖W\^dec_j‖ is None",
    "xai_tf.exercises.sae.check_sae_encode": "a is None",
    "xai_tf.exercises.sae.check_l0": "L0 is None",
    "xai_tf.exercises.sae.check_fvu": "FVU is None",
    "xai_tf.exercises.sae.check_clamp": "h′ is None",
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
