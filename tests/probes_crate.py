"""Bad-input probes for lesson 13 (white-box transformers, ``xai_tf.crate``), collected by
``test_bad_inputs.py``. Tokens are columns: Y is [..., d, T]."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, tiny, z

from xai_tf.crate import denoise, ista, mixture, mssa, rate, study
from xai_tf.crate.model import Classifier
from xai_tf.widgets import crate as crate_w


@cache
def crate_model() -> Classifier:
    torch.manual_seed(0)
    return Classifier("crate", 24, 4, 4, 2, 4)


def crate_u(d: int = 6, K: int = 2, r: int = 2) -> torch.Tensor:
    return mixture.random_bases(d, K, r)


RAISES = [
    (
        "xai_tf.crate.rate.alpha",
        lambda: rate.alpha(4, 10, 0.0),
        VE,
        "eps must be a finite number > 0, got 0.0",
    ),
    (
        "xai_tf.crate.rate.coding_rate",
        lambda: rate.coding_rate(z(3, 4).double(), -1.0),
        VE,
        "eps must be a finite number > 0",
    ),
    (
        "xai_tf.crate.rate.coding_rate_grad",
        lambda: rate.coding_rate_grad(z(3, 4).long()),
        TE,
        "Y must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.rate.project",
        lambda: rate.project(z(5, 4).double(), crate_u()),
        VE,
        "U has d = 6 rows but the tokens have d = 5 features: they must match",
    ),
    (
        "xai_tf.crate.rate.compression_rate",
        lambda: rate.compression_rate(z(4, 5).double(), torch.zeros(2, 4, 5, dtype=torch.float64)),
        VE,
        "each U_k must be d × r with r ≤ d, got r = 5 > d = 4",
    ),
    (
        "xai_tf.crate.rate.sparse_rate_reduction",
        lambda: rate.sparse_rate_reduction(z(6, 3).double(), crate_u(), 0.5, -0.1),
        VE,
        "lam must be a finite number in",
    ),
    (
        "xai_tf.crate.rate.compression_rate_grad",
        lambda: rate.compression_rate_grad(torch.full((6, 3), NAN, dtype=torch.float64), crate_u()),
        VE,
        "Y has NaN or inf entries",
    ),
    (
        "xai_tf.crate.mixture.random_bases",
        lambda: mixture.random_bases(4, 1, 5),
        VE,
        "r must be an integer in 1..4, got 5",
    ),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u(), 5, sigma=-0.1),
        VE,
        r"sigma must be a finite number ≥ 0, got -0.1",
    ),
    (
        "xai_tf.crate.mssa.satt",
        lambda: mssa.satt(z(6, 3).double(), crate_u(), scale=0.0),
        VE,
        "scale must be a finite number > 0",
    ),
    ("xai_tf.crate.mssa.mssa", lambda: mssa.mssa(z(6, 3).double(), crate_u(7)), VE, "U has d = 7 rows"),
    (
        "xai_tf.crate.mssa.gradient_step",
        lambda: mssa.gradient_step(z(6, 3).double(), crate_u(), 0.5, 0.0),
        VE,
        "gamma must be a finite number > 0",
    ),
    (
        "xai_tf.crate.mssa.neumann_step",
        lambda: mssa.neumann_step(z(6, 3).double(), crate_u(), 0.0, 0.1),
        VE,
        "eps must be a finite number > 0",
    ),
    (
        "xai_tf.crate.mssa.mssa_step",
        lambda: mssa.mssa_step(z(6, 3).double(), crate_u(), 0.5, NAN),
        VE,
        "gamma must be a finite number > 0",
    ),
    (
        "xai_tf.crate.mssa.neumann_radius",
        lambda: mssa.neumann_radius(z(6, 3), crate_u(), 0.5),
        TE,
        "Y and U must share dtype and device",
    ),
    (
        "xai_tf.crate.mssa.step_errors",
        lambda: mssa.step_errors(z(6, 3).double(), 2 * crate_u(), 0.5, 0.1),
        VE,
        r"U must have orthonormal columns \(U_kᵀU_k = I, which this derivation assumes\)",
    ),
    (
        "xai_tf.crate.ista.prox_nonneg_l1",
        lambda: ista.prox_nonneg_l1(z(3, 2), -0.5),
        VE,
        "t must be a finite number ≥ 0",
    ),
    (
        "xai_tf.crate.ista.ista_step",
        lambda: ista.ista_step(z(4, 5), z(3, 3)),
        VE,
        "D must be a square d × d dictionary with d = 4",
    ),
    (
        "xai_tf.crate.ista.ista",
        lambda: ista.ista(z(4, 5), z(4, 4), steps=0),
        VE,
        "steps must be an integer ≥ 1, got 0",
    ),
    (
        "xai_tf.crate.ista.prox_orthogonal",
        lambda: ista.prox_orthogonal(z(3, 2), 2 * torch.eye(3), 1.0, 0.1),
        VE,
        r"D must be orthogonal \(DᵀD = I, which the lemma assumes\)",
    ),
    ("xai_tf.crate.ista.sparsity", lambda: ista.sparsity([1.0, 0.0]), TE, "Z must be a torch.Tensor"),
    (
        "xai_tf.crate.ista.toy_signal",
        lambda: ista.toy_signal(d=8, nonzeros=9),
        VE,
        "nonzeros must be an integer in 1..8, got 9",
    ),
    (
        "xai_tf.crate.denoise.posterior_mean",
        lambda: denoise.posterior_mean(z(6, 3).double(), 2 * crate_u(), 0.5),
        VE,
        "U must have orthonormal columns",
    ),
    (
        "xai_tf.crate.denoise.notes_step",
        lambda: denoise.notes_step(z(6, 3).double(), crate_u(), 0.0),
        VE,
        "sigma must be a finite number > 0",
    ),
    (
        "xai_tf.crate.denoise.monte_carlo_mean",
        lambda: denoise.monte_carlo_mean(z(2, 6, 3).double(), crate_u(), 0.5),
        VE,
        r"x must be one \[d, T\] matrix of tokens, got \(2, 6, 3\)",
    ),
    (
        "xai_tf.crate.denoise.denoising_errors",
        lambda: denoise.denoising_errors(crate_u(), 0.0),
        VE,
        "sigma must be a finite number > 0",
    ),
    (
        "xai_tf.crate.study.subspace_task",
        lambda: study.subspace_task(crate_u(), 10, p=1.5),
        VE,
        r"p must be a finite number in \[0, 1\], got 1.5",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("lstm"),
        VE,
        r"kind must be one of \('crate', 'standard'\), got 'lstm'",
    ),
    ("xai_tf.crate.study.test_set", lambda: study.test_set(0), VE, "n must be an integer ≥ 1, got 0"),
    (
        "xai_tf.crate.study.accuracy",
        lambda: study.accuracy(crate_model(), z(2, 5, 12), torch.zeros(2, dtype=torch.long)),
        VE,
        r"Y must be \[B, d, T\] with d = 24 \(tokens are columns\), got \(2, 5, 12\)",
    ),
    ("xai_tf.crate.study.unit_tokens", lambda: study.unit_tokens(z(5, 12)), VE, r"Z must be \[B, d, T\]"),
    (
        "xai_tf.crate.study.grouped_rate",
        lambda: study.grouped_rate(z(5, 12).double(), torch.zeros(11, dtype=torch.long)),
        VE,
        "Z must be \\[d, N\\] with one component per token",
    ),
    (
        "xai_tf.crate.study.layer_measures",
        lambda: study.layer_measures(crate_model(), z(2, 5, 12), torch.zeros(2, 12, dtype=torch.long)),
        VE,
        r"Y must be \[B, d, T\] with d = 24",
    ),
    (
        "xai_tf.crate.study.energy_rule_accuracy",
        lambda: study.energy_rule_accuracy(crate_u(), z(2, 5, 12), torch.zeros(2, dtype=torch.long)),
        VE,
        "U has d = 6 rows but the tokens have d = 5 features",
    ),
    (
        "xai_tf.crate.study.dictionary_gaps",
        lambda: study.dictionary_gaps(tiny()),
        TE,
        "model must be an xai_tf.crate.model.Classifier",
    ),
]

CHECKERS = {
    "xai_tf.exercises.crate.check_coding_rate": "is None: did you forget",
    "xai_tf.exercises.crate.check_ista_step": "is None: did you forget",
}

PANELS = {
    "xai_tf.widgets.crate.layer_panel": (  # tokens of 5 features for a model of width 24
        lambda: crate_w.layer_panel(crate_model(), z(2, 5, 12), torch.zeros(2, 12, dtype=torch.long)),
        None,
        None,
    ),
    "xai_tf.widgets.crate.ista_panel": (
        lambda: crate_w.ista_panel(steps=300),
        "eta",
        3.0,
    ),  # η > 2/‖D‖²: diverges
}
