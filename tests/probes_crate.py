"""Bad-input probes for lesson 13 (white-box transformers, ``xai_tf.crate``), collected by
``test_bad_inputs.py``. Tokens are columns: Y is [..., d, T]."""

from functools import cache

import torch
from probe_kit import NAN, TE, VE, tiny, z

from xai_tf import seeds
from xai_tf.crate import denoise, ista, mixture, model, mssa, rate, study
from xai_tf.crate.model import Classifier
from xai_tf.widgets import crate as crate_w


@cache
def crate_model() -> Classifier:
    with seeds.seeded(0):
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
        "xai_tf.crate.model.attention_stack",
        lambda: model.attention_stack(crate_model(), z(2, 24, 5), "post-ln"),
        VE,
        "form must be one of",
    ),
    (
        "xai_tf.crate.rate.gaussian_rate_distortion",
        lambda: rate.gaussian_rate_distortion(z(2, 3, 4).double()),
        VE,
        "Y must be one token matrix",
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
        "Y has NaN or ±inf entries",
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
        r"steps must be an integer in 1\.\.10000, got 0",
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
    (
        "xai_tf.crate.study.test_set",
        lambda: study.test_set(0),
        VE,
        r"n must be an integer in 1\.\.100000, got 0",
    ),
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
    # rate: dtypes, sizes, pairs
    ("xai_tf.crate.rate.alpha", lambda: rate.alpha(0, 10, 0.5), VE, "d must be an integer ≥ 1, got 0"),
    (
        "xai_tf.crate.rate.coding_rate",
        lambda: rate.coding_rate(z(3, 4).long()),
        TE,
        "Y must be a floating-point tensor",
    ),
    ("xai_tf.crate.rate.coding_rate", lambda: rate.coding_rate([[1.0, 2.0]]), TE, "Y must be a torch.Tensor"),
    (
        "xai_tf.crate.rate.coding_rate",
        lambda: rate.coding_rate(torch.zeros(3, 0)),
        VE,
        r"Y must be \[\.\.\., d, T\]",
    ),
    (
        "xai_tf.crate.rate.coding_rate",
        lambda: rate.coding_rate(z(3, 4), eps="0.5"),
        TE,
        "eps must be a finite number",
    ),
    (
        "xai_tf.crate.rate.project",
        lambda: rate.project(z(6, 4).double(), crate_u().long()),
        TE,
        "U must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.rate.project",
        lambda: rate.project(z(6, 4), crate_u()),
        TE,
        "Y and U must share dtype and device",
    ),
    (
        "xai_tf.crate.rate.compression_rate",
        lambda: rate.compression_rate(z(6, 4).double(), [[1.0]]),
        TE,
        "U must be a torch.Tensor",
    ),
    (
        "xai_tf.crate.rate.sparse_rate_reduction",
        lambda: rate.sparse_rate_reduction(z(2, 6, 3).double(), crate_u()),
        VE,
        r"Y must be one token matrix \[d, T\]",
    ),
    # mixture: dtype arguments and sizes
    (
        "xai_tf.crate.mixture.random_bases",
        lambda: mixture.random_bases(4, 2, 2, dtype=torch.int64),
        TE,
        "dtype must be a floating dtype",
    ),
    (
        "xai_tf.crate.mixture.random_bases",
        lambda: mixture.random_bases(4, 2, 2, dtype="float64"),
        TE,
        "dtype must be a floating dtype",
    ),
    (
        "xai_tf.crate.mixture.random_bases",
        lambda: mixture.random_bases(10**6, 1, 10**5),
        VE,
        r"random_bases\(d = 1000000, K·r = 100000\) needs",
    ),
    (
        "xai_tf.crate.mixture.random_bases",
        lambda: mixture.random_bases(4, 1, 2, seed=-1),
        VE,
        "seed must be an integer ≥ 0",
    ),
    ("xai_tf.crate.mixture.random_bases", lambda: mixture.random_bases(4, 3, 2), VE, "need K·r ≤ d"),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u(), 10**10),
        VE,
        r"sample_tokens\(T = 10000000000\) needs",
    ),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u(), 5, weights=[0.5, 0.5]),
        VE,
        "weights must be a tensor of K = 2 probabilities",
    ),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u(), 5, weights=torch.tensor([NAN, 1.0])),
        VE,
        "weights must be a tensor of K = 2 probabilities",
    ),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u().long(), 5),
        TE,
        "U must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.mixture.sample_tokens",
        lambda: mixture.sample_tokens(crate_u(), 2.5),
        TE,
        "T must be an integer",
    ),
    # mssa
    ("xai_tf.crate.mssa.satt", lambda: mssa.satt(z(6, 3), crate_u()), TE, "Y and U must share dtype"),
    (
        "xai_tf.crate.mssa.mssa_step",
        lambda: mssa.mssa_step(z(5, 3).double(), crate_u(), 0.5, 0.1),
        VE,
        "U has d = 6 rows",
    ),
    (
        "xai_tf.crate.mssa.step_errors",
        lambda: mssa.step_errors(z(6, 3).double(), crate_u(), "0.5", 0.1),
        TE,
        "eps must be a finite number",
    ),
    # ista: sizes, divergence named by the argument, float steps
    (
        "xai_tf.crate.ista.prox_nonneg_l1",
        lambda: ista.prox_nonneg_l1(torch.full((2, 2), NAN), 0.5),
        VE,
        "V has NaN or ±inf",
    ),
    (
        "xai_tf.crate.ista.ista_step",
        lambda: ista.ista_step(z(4, 5), z(4, 4), X=z(4, 4)),
        VE,
        r"X must have the shape of Z \(4, 5\)",
    ),
    (
        "xai_tf.crate.ista.ista_step",
        lambda: ista.ista_step(z(4, 5).long(), z(4, 4)),
        TE,
        "Z must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.ista.ista_step",
        lambda: ista.ista_step(z(4, 5).double(), z(4, 4)),
        TE,
        "Z and D must share dtype and device",
    ),
    (
        "xai_tf.crate.ista.ista",
        lambda: ista.ista(z(4, 5), z(4, 4), steps=10**7),
        VE,
        r"steps must be an integer in 1\.\.10000, got 10000000",
    ),
    (
        "xai_tf.crate.ista.ista",
        lambda: ista.ista(z(4, 5), z(4, 4), steps=1.5),
        TE,
        "steps must be an integer",
    ),
    (
        "xai_tf.crate.ista.ista",
        lambda: ista.ista(*ista.toy_signal()[:2], eta=50.0, steps=300),
        VE,
        r"eta = 50 is too large: ISTA is guaranteed to converge for η < 2/‖D‖₂²",
    ),
    (
        "xai_tf.crate.ista.sparsity",
        lambda: ista.sparsity(torch.zeros(3, 0)),
        VE,
        r"Z must be \[\.\.\., d, T\]",
    ),
    (
        "xai_tf.crate.ista.toy_signal",
        lambda: ista.toy_signal(d=10**6),
        VE,
        r"toy_signal\(d = 1000000\) needs",
    ),
    ("xai_tf.crate.ista.toy_signal", lambda: ista.toy_signal(seed="0"), TE, "seed must be an integer"),
    # denoise
    (
        "xai_tf.crate.denoise.posterior_mean",
        lambda: denoise.posterior_mean(z(6, 3), crate_u(), 0.5),
        TE,
        "x and U must share dtype",
    ),
    (
        "xai_tf.crate.denoise.monte_carlo_mean",
        lambda: denoise.monte_carlo_mean(z(6, 3).double(), crate_u(), 0.5, n=10**11),
        VE,
        r"monte_carlo_mean\(n = 100000000000\) needs",
    ),
    (
        "xai_tf.crate.denoise.monte_carlo_mean",
        lambda: denoise.monte_carlo_mean(z(6, 3).double(), crate_u(), 0.5, n=1.5),
        TE,
        "n must be an integer",
    ),
    (
        "xai_tf.crate.denoise.denoising_errors",
        lambda: denoise.denoising_errors(crate_u(), 0.5, T=10**10),
        VE,
        r"sample_tokens\(T = 10000000000\) needs",
    ),
    # study: the trainer, sizes, pairs of tokens and their labels
    (
        "xai_tf.crate.study.subspace_task",
        lambda: study.subspace_task(crate_u(), 10**9),
        VE,
        r"n must be an integer in 1\.\.100000",
    ),
    (
        "xai_tf.crate.study.subspace_task",
        lambda: study.subspace_task(crate_u(), 3, sigma=-1.0),
        VE,
        "sigma must be a finite number ≥ 0",
    ),
    (
        "xai_tf.crate.study.subspace_task",
        lambda: study.subspace_task(crate_u().long(), 3),
        TE,
        "U must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", options=study.OPTIONS.replace(steps=0)),
        VE,
        r"steps must be an integer in 1\.\.100000, got 0",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", options=study.OPTIONS.replace(steps=2, batch_size=0)),
        VE,
        r"batch_size must be an integer in 1\.\.",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", options=study.OPTIONS.replace(steps=2, batch_size=-1)),
        VE,
        r"batch_size must be an integer in 1\.\.",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", n_train=10**9, options=study.OPTIONS.replace(steps=2)),
        VE,
        r"n_train must be an integer in 1\.\.100000",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", options=study.OPTIONS.replace(steps=2, lr=1e8)),
        VE,
        r"lr must be a finite number in \(0, 1\]",
    ),
    (
        "xai_tf.crate.study.train",
        lambda: study.train("crate", options=study.OPTIONS.replace(steps=2, seed=1.5)),
        TE,
        "seed must be an integer",
    ),
    (
        "xai_tf.crate.study.test_set",
        lambda: study.test_set(10**9),
        VE,
        r"n must be an integer in 1\.\.100000",
    ),
    (
        "xai_tf.crate.study.accuracy",
        lambda: study.accuracy(crate_model(), z(3, 24, 12), torch.zeros(1, dtype=torch.long)),
        VE,
        "3 sequences but 1 classes",
    ),
    (
        "xai_tf.crate.study.accuracy",
        lambda: study.accuracy(crate_model(), z(3, 24, 12).long(), torch.zeros(3, dtype=torch.long)),
        TE,
        "Y must be a floating-point tensor",
    ),
    (
        "xai_tf.crate.study.accuracy",
        lambda: study.accuracy(crate_model(), z(3, 24, 12), torch.zeros(3)),
        TE,
        "classes must hold integer",
    ),
    (
        "xai_tf.crate.study.grouped_rate",
        lambda: study.grouped_rate(z(5, 12).double(), torch.zeros(12)),
        TE,
        "components must hold integer",
    ),
    (
        "xai_tf.crate.study.grouped_rate",
        lambda: study.grouped_rate(z(5, 12).double(), [0] * 12),
        TE,
        "components must be a torch.Tensor",
    ),
    (
        "xai_tf.crate.study.layer_measures",
        lambda: study.layer_measures(crate_model(), z(2, 24, 12), torch.zeros(2, 11, dtype=torch.long)),
        VE,
        r"components must be \[B, T\] = \(2, 12\), one per token of Y, got \(2, 11\)",
    ),
    (
        "xai_tf.crate.study.energy_rule_accuracy",
        lambda: study.energy_rule_accuracy(crate_u(24, 4, 4), z(3, 24, 12), torch.zeros(2, dtype=torch.long)),
        VE,
        "3 sequences but 2 classes",
    ),
    (
        "xai_tf.crate.study.dictionary_gaps",
        lambda: study.dictionary_gaps(Classifier("standard", 8, 2, 2, 1, 2)),
        VE,
        "dictionary_gaps needs a CRATE model",
    ),
    # the panels, given what they cannot show
    (
        "xai_tf.widgets.crate.layer_panel",
        lambda: crate_w.layer_panel(
            crate_model(), z(2, 24, 12), torch.zeros(2, 12, dtype=torch.long), n_tokens=0
        ),
        VE,
        "n_tokens must be an integer",
    ),
    (
        "xai_tf.widgets.crate.layer_panel",
        lambda: crate_w.layer_panel(
            crate_model(), z(2, 24, 12), torch.zeros(2, 12, dtype=torch.long), U=2 * crate_u(24, 4, 4)
        ),
        VE,
        "U must have orthonormal columns",
    ),
    (
        "xai_tf.widgets.crate.layer_panel",
        lambda: crate_w.layer_panel(crate_model(), z(2, 24, 12), torch.zeros(2, 11, dtype=torch.long)),
        VE,
        r"components must be \[B, T\] = \(2, 12\)",
    ),
    (
        "xai_tf.widgets.crate.ista_panel",
        lambda: crate_w.ista_panel(steps=301),
        VE,
        r"steps must be an integer in 1\.\.300",
    ),
    (
        "xai_tf.widgets.crate.ista_panel",
        lambda: crate_w.ista_panel(seed=-1),
        VE,
        "seed must be an integer ≥ 0",
    ),
]

#: Inputs with a documented answer rather than an error: (name, call, the answer).
VALUES = [
    (  # half precision: computed in float32 (``_checks.compute_dtype``), returned in float32
        "xai_tf.crate.rate.coding_rate",
        lambda: (
            abs(float(rate.coding_rate(z(6, 9).half())) - float(rate.coding_rate(z(6, 9).half().double())))
            < 1e-4
        ),
        True,
    ),
    ("xai_tf.crate.rate.coding_rate", lambda: rate.coding_rate(z(6, 9).half()).dtype, torch.float32),
    (  # ∇R through the smaller Gram matrix: 2 × 10⁵ tokens need a 2 × 2 inverse, not 10⁵ × 10⁵
        "xai_tf.crate.rate.coding_rate_grad",
        lambda: tuple(rate.coding_rate_grad(z(2, 100_000).double()).shape),
        (2, 100_000),
    ),
    (  # the dtype rule: a trained module converts its input once to its parameters' dtype
        "xai_tf.crate.study.accuracy",
        lambda: (
            study.accuracy(crate_model(), z(3, 24, 12).double(), torch.zeros(3, dtype=torch.long))
            == study.accuracy(crate_model(), z(3, 24, 12), torch.zeros(3, dtype=torch.long))
        ),
        True,
    ),
    (
        "xai_tf.crate.study.layer_measures",
        lambda: (
            study.layer_measures(crate_model(), z(2, 24, 12).double(), torch.zeros(2, 12, dtype=torch.long))
            == study.layer_measures(crate_model(), z(2, 24, 12), torch.zeros(2, 12, dtype=torch.long))
        ),
        True,
    ),
    (  # a float64 basis draws float32 tokens (the models' dtype), as the lesson's float64 U does
        "xai_tf.crate.study.subspace_task",
        lambda: study.subspace_task(crate_u(), 3)[0].dtype,
        torch.float32,
    ),
]

CHECKERS = {
    "xai_tf.exercises.crate.check_coding_rate": "is None: did you forget",
    "xai_tf.exercises.crate.check_ista_step": "is None: did you forget",
    "xai_tf.exercises.crate.check_compression_rate": "is None: did you forget",
    "xai_tf.exercises.crate.check_satt": "is None: did you forget",
    "xai_tf.exercises.crate.check_grouped_rate": "is None: did you forget",
    "xai_tf.exercises.crate.check_soft_threshold": "is None: did you forget",
    "xai_tf.exercises.crate.check_posterior_mean": "is None: did you forget",
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


RAISES += [  # issue 44 §2: scales that turned into NaN, ZeroDivisionError or OverflowError
    (
        "xai_tf.crate.rate.coding_rate",
        lambda: rate.coding_rate(z(4, 6), eps=1e-200),
        VE,
        r"eps must keep Tε² above 0 in floating point \(α = d/\(Tε²\) finite\), got eps = 1e-200",
    ),
    (
        "xai_tf.crate.rate.alpha",
        lambda: rate.alpha(4, 6, 1e-160),
        VE,
        "eps must keep Tε² above 0",
    ),
    (
        "xai_tf.crate.denoise.posterior_mean",
        lambda: denoise.posterior_mean(z(6, 5).double(), crate_u(), 1e160),
        VE,
        r"sigma must keep 2σ²\(1 \+ σ²\) a positive finite number \(about 1e-150\.\.1e75\), got 1e\+160",
    ),
    (
        "xai_tf.crate.denoise.notes_step",
        lambda: denoise.notes_step(z(6, 5).double(), crate_u(), 1e-200),
        VE,
        r"sigma must keep 2σ²\(1 \+ σ²\) a positive finite number",
    ),
    (
        "xai_tf.crate.denoise.denoising_errors",
        lambda: denoise.denoising_errors(crate_u(), 1e160, T=4),
        VE,
        r"sigma must keep 2σ²\(1 \+ σ²\) a positive finite number",
    ),
    (
        "xai_tf.crate.denoise.monte_carlo_mean",
        lambda: denoise.monte_carlo_mean(z(6, 5).double(), crate_u(), 1e-170, n=10),
        VE,
        r"sigma must keep 2σ²\(1 \+ σ²\) a positive finite number",
    ),
]


def outside_u() -> torch.Tensor:
    """Tokens [6, 5] with no component in any subspace of ``crate_u()`` (projected onto the complement)."""
    Q = torch.linalg.qr(torch.cat(list(crate_u()), -1))[0]
    Y = z(6, 5).to(Q.dtype)
    return Y - Q @ (Q.mT @ Y)


RAISES += [  # issue 44 §2, "all-zero tokens": step_errors' relative errors were 0/0 = NaN
    (
        "xai_tf.crate.mssa.step_errors",
        lambda: mssa.step_errors(torch.zeros(6, 5, dtype=crate_u().dtype), crate_u(), 0.5, 0.1),
        VE,
        r"Y gives an exact update of 0 \(its tokens are all zero, or have no component in the subspaces U\)",
    ),
    (
        "xai_tf.crate.mssa.step_errors",
        lambda: mssa.step_errors(outside_u(), crate_u(), 0.5, 0.1),
        VE,
        r"Y gives an exact update of 0 .*: the relative errors ‖Δ − Δ_G‖ / ‖Δ_G‖ are 0/0",
    ),
]

RAISES += [  # rate.bases is public (lesson 13's panel checks U with it; it was crate._common's)
    ("xai_tf.crate.rate.bases", lambda: rate.bases(z(4, 3)), VE, r"U must be \[K, d, r\]"),
    ("xai_tf.crate.rate.bases", lambda: rate.bases(z(1, 4, 5)), VE, "r ≤ d, got r = 5 > d = 4"),
    (
        "xai_tf.crate.rate.bases",
        lambda: rate.bases(z(1, 4, 2), d=3),
        VE,
        "U has d = 4 rows but the tokens have d = 3",
    ),
    (
        "xai_tf.crate.rate.bases",
        lambda: rate.bases(torch.ones(1, 4, 2), orthonormal=True),
        VE,
        "U must have orthonormal columns",
    ),
    ("xai_tf.crate.rate.bases", lambda: rate.bases([[[1.0]]]), TE, "U must be a torch.Tensor"),
]
