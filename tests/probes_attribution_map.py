"""Bad-input probes for lesson 20 (``xai_tf.explain``: smoothgrad, deeplift, perturbation, gradcam,
properties, formulas, and the registry entries of ``catalogue``; its exercises and panel), collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, lm, z

from xai_tf.explain import axioms
from xai_tf.explain import deeplift as dl
from xai_tf.explain import formulas as fo
from xai_tf.explain import gradcam as gc
from xai_tf.explain import perturbation as pt
from xai_tf.explain import properties as pr
from xai_tf.explain import smoothgrad as sg
from xai_tf.explain.registry import ATTRIBUTIONS
from xai_tf.widgets import attribution_map


class _NoBlocks(torch.nn.Module):
    """A network with scores from token embeddings but no transformer blocks (a BiLSTM's kind)."""

    def forward_embeddings(self, E):
        return E.sum(-1)


EXEMPT: dict[str, str] = {"xai_tf.explain.axioms.functionally_equal_pair": "no arguments"}

IDS = [40, 41, 42, 43, 44]
LONG = list(range(40, 52))  # 12 tokens


def F(E):
    return E.sum((-1, -2))


def g():
    return torch.Generator().manual_seed(0)


def _explain(method, ids=IDS, **options):
    return lambda: ATTRIBUTIONS.explain(method, lm(), ids, 7, **options)


RAISES = [
    (
        "xai_tf.explain.axioms.implementation_invariance",
        lambda: axioms.implementation_invariance(z(3), z(2)),
        VE,
        r"x must have shape \[2\]",
    ),
    (
        "xai_tf.explain.axioms.implementation_invariance",
        lambda: axioms.implementation_invariance(z(2), torch.tensor([0.0, NAN])),
        VE,
        "baseline has NaN",
    ),
    (
        "xai_tf.explain.axioms.implementation_invariance",
        lambda: axioms.implementation_invariance(torch.tensor([1, 2]), z(2)),
        TE,
        "x must be a floating-point tensor",
    ),
    (
        "xai_tf.explain.axioms.implementation_invariance",
        lambda: axioms.implementation_invariance(z(2), z(2), n_steps=0),
        VE,
        "n_steps must be an integer",
    ),
    (
        "xai_tf.explain.smoothgrad.noise_sigma",
        lambda: sg.noise_sigma(z(3), 0.0),
        VE,
        r"noise_scale must be .*\(0, 1\]",
    ),
    (
        "xai_tf.explain.smoothgrad.noise_sigma",
        lambda: sg.noise_sigma(z(3), NAN),
        VE,
        "noise_scale must be a finite",
    ),
    (
        "xai_tf.explain.smoothgrad.noise_sigma",
        lambda: sg.noise_sigma(z(3), "big"),
        TE,
        "noise_scale must be a number",
    ),
    (
        "xai_tf.explain.smoothgrad.noisy_gradient_moments",
        lambda: sg.noisy_gradient_moments(F, z(3, 2), z(4, 3, 3)),
        VE,
        r"noise must have shape \[N ≥ 1, 3, 2\]",
    ),
    (
        "xai_tf.explain.smoothgrad.smoothgrad",
        lambda: sg.smoothgrad(lm(), IDS, 7, n_samples=0),
        VE,
        r"n_samples must be an integer in 1\.\.2000",
    ),
    (
        "xai_tf.explain.smoothgrad.smoothgrad",
        _explain("smoothgrad", n_samples=10**6),
        VE,
        r"n_samples must be an integer in 1\.\.2000",
    ),
    (
        "xai_tf.explain.smoothgrad.smoothgrad",
        _explain("smoothgrad", noise_scale=2.0),
        VE,
        r"noise_scale must be .*\(0, 1\]",
    ),
    ("xai_tf.explain.smoothgrad.smoothgrad", _explain("vargrad", seed=-1), VE, "seed must be an integer ≥ 0"),
    (
        "xai_tf.explain.deeplift.rescale_attributions",
        lambda: dl.rescale_attributions(F, z(3, 2), z(3, 3)),
        VE,
        "baseline has shape",
    ),
    (
        "xai_tf.explain.deeplift.deeplift",
        lambda: dl.deeplift(lm(), IDS, 7, baselines=[]),
        VE,
        r"baselines must be a list of 1\.\.256",
    ),
    (
        "xai_tf.explain.deeplift.deeplift",
        lambda: dl.deeplift(lm(), IDS, 7, rescale="yes"),
        TE,
        "rescale must be",
    ),
    (
        "xai_tf.explain.deeplift.deeplift",
        _explain("deeplift-shap", n_samples=1000),
        VE,
        r"n_samples \(baselines\) must be an integer in 1\.\.256",
    ),
    (
        "xai_tf.explain.perturbation.coalition_values",
        lambda: pt.coalition_values(F, z(3, 2), z(3, 2), z(4, 2)),
        VE,
        r"coalitions must have shape \[S, 3\]",
    ),
    (
        "xai_tf.explain.perturbation.occlusion",
        lambda: pt.occlusion(F, z(3, 2), z(3, 2), window=4),
        VE,
        r"window must be an integer in 1\.\.3",
    ),
    (
        "xai_tf.explain.perturbation.occlusion",
        _explain("occlusion", window=0),
        VE,
        r"window must be an integer in 1\.\.5",
    ),
    (
        "xai_tf.explain.perturbation.occlusion",
        _explain("occlusion", stride=2.5),
        TE,
        r"stride must be an integer",
    ),
    (
        "xai_tf.explain.perturbation.weighted_linear_fit",
        lambda: pt.weighted_linear_fit(z(4, 2), z(4), z(3)),
        VE,
        "weights of shape",
    ),
    (
        "xai_tf.explain.perturbation.lime_weights",
        lambda: pt.lime_weights(z(4, 2), 0),
        VE,
        "kernel_width must be",
    ),
    (
        "xai_tf.explain.perturbation.lime_weights",
        _explain("lime", kernel_width=-1.0),
        VE,
        "kernel_width must be",
    ),
    (
        "xai_tf.explain.perturbation.lime_coalitions",
        lambda: pt.lime_coalitions(3, 1, g()),
        VE,
        r"n_samples must be an integer in 2\.\.20000",
    ),
    (
        "xai_tf.explain.perturbation.lime_coalitions",
        _explain("lime", n_samples=10**6),
        VE,
        r"n_samples must be an integer in 2\.\.20000",
    ),
    (
        "xai_tf.explain.perturbation.lime_coalitions",
        lambda: pt.lime_coalitions(0, 10, g()),
        VE,
        r"T \(tokens\) must be an integer ≥ 1",
    ),
    (
        "xai_tf.explain.perturbation.kernel_shap_coalitions",
        lambda: pt.kernel_shap_coalitions(1, 10, g()),
        VE,
        "Kernel SHAP needs at least 2 tokens",
    ),
    (
        "xai_tf.explain.perturbation.kernel_shap_coalitions",
        _explain("kernel-shap", n_samples=2),
        VE,
        r"n_samples must be an integer in 3\.\.20000",
    ),
    (
        "xai_tf.explain.perturbation.kernel_shap_weights",
        lambda: pt.kernel_shap_weights(z(4)),
        VE,
        r"coalitions must have shape \[N, T\]",
    ),
    (
        "xai_tf.explain.perturbation.shapley_weights",
        lambda: pt.shapley_weights(0),
        VE,
        r"T \(tokens\) must be an integer in 1\.\.170",
    ),
    (
        "xai_tf.explain.perturbation.all_coalitions",
        lambda: pt.all_coalitions(11),
        VE,
        r"T \(tokens for exact Shapley values\) must be an integer in 1\.\.10",
    ),
    (
        "xai_tf.explain.perturbation.all_coalitions",
        _explain("shapley", LONG),
        VE,
        "offered for prompts of up to 10 tokens, this one has 12",
    ),
    (
        "xai_tf.explain.perturbation.exact_shapley",
        lambda: pt.exact_shapley(z(7), 3),
        VE,
        r"values must have shape \[8\]",
    ),
    (
        "xai_tf.explain.gradcam.residual_and_gradient",
        _explain("grad-cam", layer=99),
        VE,
        r"layer must (lie|be an integer) in 0\.\.5, got 99",
    ),
    (
        "xai_tf.explain.gradcam.residual_and_gradient",
        lambda: gc.residual_and_gradient(lm(), IDS, 7, -1),
        VE,
        "layer must be an integer ≥ 0",
    ),
    (
        "xai_tf.explain.gradcam.default_layer",
        lambda: gc.default_layer(0),
        VE,
        "n_layer must be an integer ≥ 1",
    ),
    (
        "xai_tf.explain.gradcam.layer_of",
        lambda: gc.layer_of(_NoBlocks(), None),
        TE,
        "Grad-CAM reads a transformer's residual stream: this model has no blocks",
    ),
    (
        "xai_tf.explain.gradcam.grad_cam",
        lambda: gc.grad_cam(z(3, 2), z(3, 3)),
        VE,
        r"A and G must both have shape \[T, d_e\]",
    ),
    (
        "xai_tf.explain.gradcam.contrast_function",
        lambda: gc.contrast_function(lm(), 5, 5, 3),
        VE,
        "foil must differ from target",
    ),
    (
        "xai_tf.explain.gradcam.contrast_function",
        _explain("contrastive", foil=10**6),
        VE,
        r"foil must be an integer in 0\.\.4095, got 1000000",
    ),
    (
        "xai_tf.explain.properties.counting",
        lambda: pr.counting("gpt").__enter__(),
        TE,
        "model must be a model from xai_tf.load_model",
    ),
    (
        "xai_tf.explain.properties.explain_with_cost",
        lambda: pr.explain_with_cost("SHAP", lm(), IDS, 7),
        VE,
        "method must be one of",
    ),
    (
        "xai_tf.explain.properties.completeness_gap",
        lambda: pr.completeness_gap(lm(), IDS, 7, z(3)),
        VE,
        r"scores must have one entry per token \(5\)",
    ),
    (
        "xai_tf.explain.properties.output_difference",
        lambda: pr.output_difference(lm(), IDS, 7, baseline="nothing"),
        VE,
        "baseline must be 'token0'",
    ),
    (
        "xai_tf.explain.properties.completeness_gap",
        lambda: pr.completeness_gap(lm(), IDS, 7, torch.zeros(5), difference=NAN),
        VE,
        "difference must be a finite",
    ),
    (
        "xai_tf.explain.properties.cascading_randomisation",
        lambda: pr.cascading_randomisation(lm(), seed=-1).__enter__(),
        VE,
        r"seed must be an integer ≥ 0",
    ),
    (
        "xai_tf.explain.deeplift.deeplift_shap",
        lambda: dl.deeplift_shap(F, z(3, 2), []),
        VE,
        r"baselines must be a list of 1\.\.256",
    ),
    (
        "xai_tf.explain.deeplift.random_token_baselines",
        lambda: dl.random_token_baselines(50, 4, 0),
        VE,
        r"n_samples \(baselines\) must be an integer in 1\.\.256",
    ),
    (
        "xai_tf.explain.deeplift.linearisation_gap",
        lambda: dl.linearisation_gap(F, z(3, 2), z(2, 3, 2), [0.0]),
        VE,
        r"scale s must be .*\(0, 1\]",
    ),
    (
        "xai_tf.explain.deeplift.linearisation_gap",
        lambda: dl.linearisation_gap(F, z(3, 2), z(2, 3, 3), [1.0]),
        VE,
        r"baselines must have shape \[K, 3, 2\]",
    ),
    (
        "xai_tf.explain.properties.randomised_top_blocks",
        lambda: pr.randomised_top_blocks(lm(), 99).__enter__(),
        VE,
        r"k \(blocks randomised\) must be an integer in 0\.\.6",
    ),
    (
        "xai_tf.explain.properties.randomisation_check",
        lambda: pr.randomisation_check(lm(), IDS, 7, []),
        VE,
        "methods must be a non-empty list",
    ),
    (
        "xai_tf.explain.properties.randomisation_check",
        lambda: pr.randomisation_check(lm(), IDS, 7, ["G-L2"], progress="yes"),
        TypeError,
        "progress must be True or False",
    ),
]

RAISES += [
    (
        "xai_tf.explain.formulas.contrastive_gradient_x_input",
        lambda: fo.contrastive_gradient_x_input(z(3, 2), z(3, 2), z(3, 4)),
        VE,
        r"g_target, g_foil and E must have one shape \[T, d_e\]",
    ),
    (
        "xai_tf.explain.formulas.spearman_rho",
        lambda: fo.spearman_rho(z(4), torch.ones(4)),
        VE,
        "a and b must each hold at least 2 different values",
    ),
    (
        "xai_tf.explain.formulas.spearman_rho",
        lambda: fo.spearman_rho(z(4), z(5)),
        VE,
        r"a is \(4,\) but b is \(5,\)",
    ),
    (
        "xai_tf.explain.formulas.completeness_delta",
        lambda: fo.completeness_delta(z(3, 2), 1.0, 0.0),
        VE,
        r"scores must have 1 dimensions",
    ),
    (
        "xai_tf.explain.formulas.completeness_delta",
        lambda: fo.completeness_delta(z(3), NAN, 0.0),
        VE,
        "f_x must be a finite number",
    ),
    (
        "xai_tf.explain.formulas.rescale_multiplier",
        lambda: fo.rescale_multiplier(torch.relu, z(3), z(4)),
        VE,
        r"z is \(3,\) but z_ref is \(4,\)",
    ),
    (
        "xai_tf.explain.formulas.rescale_multiplier",
        lambda: fo.rescale_multiplier("relu", z(3), z(3)),
        TE,
        "f must be an elementwise function",
    ),
    (
        "xai_tf.explain.formulas.rescale_multiplier",
        lambda: fo.rescale_multiplier(torch.relu, torch.tensor([1, 2]), z(2)),
        TE,
        "z must be a floating-point tensor",
    ),
    (
        "xai_tf.explain.formulas.shapley_kernel",
        lambda: fo.shapley_kernel(torch.ones(4, 1)),
        VE,
        r"z must have shape \[N, T\] with T ≥ 2",
    ),
    (
        "xai_tf.explain.formulas.shapley_kernel",
        lambda: fo.shapley_kernel(torch.full((2, 3), 2)),
        VE,
        "z must hold 0 and 1 only",
    ),
    (
        "xai_tf.explain.formulas.shapley_of_game",
        lambda: fo.shapley_of_game(lambda c: c.sum(1), 11),
        VE,
        r"T \(tokens for exact Shapley values\) must be an integer in 1\.\.10",
    ),
    (
        "xai_tf.explain.formulas.shapley_of_game",
        lambda: fo.shapley_of_game(lambda c: [0.0], 2),
        TE,
        "v must return a tensor of values",
    ),
    (
        "xai_tf.explain.formulas.shapley_of_game",
        lambda: fo.shapley_of_game(3, 2),
        TE,
        "v must be a function of coalitions",
    ),
]

CHECKERS = {
    "xai_tf.exercises.attribution_map.check_exact_shapley": "is None: did you forget",
    "xai_tf.exercises.attribution_map.check_occlusion": "is None: did you forget",
    "xai_tf.exercises.attribution_measures.check_completeness_gap": "delta is None: did you forget",
    "xai_tf.exercises.attribution_measures.check_spearman": "ρ is None: did you forget",
    "xai_tf.exercises.attribution_measures.check_contrastive_gradient": "is None: did you forget",
    "xai_tf.exercises.attribution_map.check_rescale_multiplier": "is None: did you forget",
    "xai_tf.exercises.attribution_map.check_shapley_kernel": "is None: did you forget",
}

PANELS = {
    "xai_tf.widgets.attribution_map.attribution_map_panel": (
        lambda: attribution_map.attribution_map_panel(lm()),
        "text",
        "",
    ),
}


# Issue 58 (second sweep), one row per class: lists where a tensor is expected (an AttributeError
# before); NaN in a map returned as NaN scores; an index past the end wrapping round or passed through
# (a negative target read the last logit, a layer of 99 was returned as is); a generator of None drawing
# unseeded coalitions; a prompt of the wrong type (torch's "Could not infer dtype of NoneType").
RAISES += [
    (
        "xai_tf.explain.perturbation.coalition_values",
        lambda: pt.coalition_values(F, [[1.0, 2.0]], z(1, 2), torch.ones(1, 1)),
        TE,
        "E must be a torch.Tensor, got list",
    ),
    (
        "xai_tf.explain.gradcam.grad_cam",
        lambda: gc.grad_cam(torch.tensor([[NAN, 1.0]]), z(1, 2)),
        VE,
        "A has NaN",
    ),
    (
        "xai_tf.explain.gradcam.residual_and_gradient",
        lambda: gc.residual_and_gradient(lm(), IDS, -1, 1),
        VE,
        r"target must be an integer in 0\.\.",
    ),
    (
        "xai_tf.explain.gradcam.layer_of",
        lambda: gc.layer_of(lm(), 99),
        VE,
        r"layer must be an integer in 0\.\.",
    ),
    (
        "xai_tf.explain.perturbation.lime_coalitions",
        lambda: pt.lime_coalitions(4, 10, None),
        TE,
        "generator must be a torch.Generator",
    ),
    (
        "xai_tf.explain.properties.output_difference",
        lambda: pr.output_difference(lm(), None, 7),
        TE,
        "input_ids must be a list or tensor of token ids, got NoneType",
    ),
]
