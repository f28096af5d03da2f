"""Lesson 20's methods in the one registry (``xai_tf.explain.registry``: an ASCII id, a label that is
lesson 20's name and the key of ``ATTRIBUTIONS``, what it reads, its own options), on causal language
models and lesson 06's classifier, each one call ``ATTRIBUTIONS.explain(name, model, ids, target, ...)``.

Every entry explains F (a language model's next-token logit, a classifier's class score; see
``attribution.target_function``) with token scores ``[T]``; where the method promises completeness it
carries delta = Σ scores − (F(x) − F(x′)) for its own reference x′ (each entry declares what it reads and
what it promises, ``registry.table``). The options (``baseline`` is lesson 06's IG x′, also the masking
token of the perturbation methods and DeepLIFT's reference; each method declares the ones it reads,
``ENTRIES``):

    n_samples    None (each method's default, ``DEFAULT_SAMPLES``) or the noisy copies / coalitions /
                 baselines drawn;
    noise_scale  SmoothGrad's σ as a share of the embeddings' range, in (0, 1];
    seed         the seed s of every draw (the generators take s′ = s + XAI_TF_SEED_OFFSET, ``xai_tf.seeds``);
    window, stride   occlusion's window and stride (tokens);
    kernel_width LIME's kernel width w;
    layer        Grad-CAM's residual stream h_l;
    foil         the contrastive foil (None: the runner-up token, or class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.explain import deeplift as dl
from xai_tf.explain import gradcam as gc
from xai_tf.explain import perturbation as pt
from xai_tf.explain import setting
from xai_tf.explain import smoothgrad as sg
from xai_tf.explain._inputs_only import inputs_only
from xai_tf.explain.causal import IG_OPTIONS
from xai_tf.explain.path_integral import path_integrated_gradients
from xai_tf.explain.registry import Explanation, register
from xai_tf.models.architecture import CausalLM

#: Every option's default (``baseline``, ``n_steps`` and ``quadrature`` are lesson 06's IG options).
DEFAULTS: dict[str, Any] = IG_OPTIONS | {
    "n_samples": None,
    "noise_scale": 0.15,
    "seed": 0,
    "window": 2,
    "stride": 1,
    "kernel_width": 0.25,
    "layer": None,  # Grad-CAM's: gradcam.default_layer, the middle block
    "foil": None,
}
_LINEAR = "only for linear + elementwise layers"
_NOISE = ("n_samples", "noise_scale", "seed")
DEFAULT_SAMPLES = {"smoothgrad": 50, "vargrad": 50, "deeplift-shap": 10, "lime": 300, "kernel-shap": 300}


def _explanation(scores: Tensor, delta: float = float("nan"), note: str = "") -> Explanation:
    return Explanation(scores.detach().float(), delta, 0, note)


def _samples(name: str, o: dict[str, Any]) -> int:
    n = DEFAULT_SAMPLES[name] if o["n_samples"] is None else o["n_samples"]
    return _checks.integer("n_samples", n, 1)


def _setting(model: Any, ids: Any, target: int, baseline: Any) -> tuple[Tensor, Tensor, Any]:
    module, t_ids, F = setting.explained(model, ids, target, -1, "logit")
    return (*setting.embeddings(module, t_ids, baseline), F)


def _gap(scores: Tensor, F: Any, E: Tensor, E_base: Tensor) -> tuple[float, str]:
    with torch.no_grad():
        f_x, f_b = (float(v) for v in F(torch.stack([E, E_base])))
    delta = float(scores.double().sum()) - (f_x - f_b)
    return (
        delta,
        f"F(x) − F(x') = {f_x - f_b:.3f}, Σ = {float(scores.sum()):.3f}, delta = {delta:+.4f}",
    )


def _smooth(kind: str) -> Callable[..., Any]:
    def method(model: Any, ids: Any, target: int, **o: Any) -> Any:
        mean, var, E = sg.smoothgrad(model, ids, target, _samples(kind, o), o["noise_scale"], o["seed"])
        if kind == "vargrad":
            return _explanation(var.sum(-1), note="variance of the gradient under noise (≥ 0, no sign)")
        return _explanation((mean * E).sum(-1), note="SmoothGrad × input: no baseline, no completeness")

    return method


def _deeplift(shap: bool) -> Callable[..., Any]:
    def method(model: Any, ids: Any, target: int, **o: Any) -> Any:
        if shap:
            module, t_ids, _ = setting.explained(model, ids, target, -1, "logit")
            drawn = dl.random_token_baselines(
                module.embedding.size(0), len(t_ids), _samples("deeplift-shap", o), o["seed"]
            )
            baselines = [b.to(t_ids.device) for b in drawn]
        else:
            baselines = [o["baseline"]]
        a, difference = dl.deeplift(model, ids, target, baselines)
        scores = a.sum(-1)
        delta = float(scores.double().sum()) - difference
        what = f"mean over {len(baselines)} random-token baselines" if shap else "rescale rule at GELU"
        return _explanation(
            scores, delta, f"{what}: F(x) − mean F(x') = {difference:.3f}, delta = {delta:+.4f}"
        )

    return method


def _sampled(kind: str) -> Callable[..., Any]:
    def method(model: Any, ids: Any, target: int, **o: Any) -> Any:
        E, E_base, F = _setting(model, ids, target, o["baseline"])
        g = seeds.generator(o["seed"])
        if kind == "lime":
            z = pt.lime_coalitions(len(E), _samples(kind, o), g)
            w = pt.lime_weights(z, o["kernel_width"])
        else:
            z = pt.kernel_shap_coalitions(len(E), _samples(kind, o), g)
            w = pt.kernel_shap_weights(z)
        scores = pt.weighted_linear_fit(z, pt.coalition_values(F, E, E_base, z.to(E.device)), w)
        delta, note = _gap(scores, F, E, E_base)
        return _explanation(
            scores, delta if kind == "kernel-shap" else float("nan"), f"{len(z)} coalitions; {note}"
        )

    return method


def _shapley(model: Any, ids: Any, target: int, **o: Any) -> Any:
    E, E_base, F = _setting(model, ids, target, o["baseline"])
    if len(E) > pt.MAX_EXACT_TOKENS:
        raise ValueError(
            f"exact Shapley values enumerate 2^T coalitions: offered for prompts of up to "
            f"{pt.MAX_EXACT_TOKENS} tokens, this one has {len(E)} (use kernel-shap)"
        )
    z = pt.all_coalitions(len(E)).to(E.device)
    scores = pt.exact_shapley(pt.coalition_values(F, E, E_base, z), len(E))
    delta, note = _gap(scores, F, E, E_base)
    return _explanation(scores, delta, f"all {len(z)} coalitions; {note}")


def _occlusion(model: Any, ids: Any, target: int, **o: Any) -> Any:
    E, E_base, F = _setting(model, ids, target, o["baseline"])
    scores = pt.occlusion(F, E, E_base, o["window"], o["stride"])
    return _explanation(scores, note=f"window {o['window']}, stride {o['stride']}: mean drop when masked")


def _grad_cam(model: Any, ids: Any, target: int, **o: Any) -> Any:
    layer = gc.layer_of(model, o["layer"])
    A, G = gc.residual_and_gradient(model, ids, target, layer)
    return _explanation(gc.grad_cam(A, G), note=f"residual stream after layer {layer}; ≥ 0, no baseline")


def _contrastive(model: Any, ids: Any, target: int, **o: Any) -> Any:
    module, t_ids, _ = setting.explained(model, ids, target, -1, "logit")
    foil = o["foil"]
    if foil is None:
        with torch.no_grad():
            ranked = _all_scores(module, module.embed(t_ids)[None]).argsort(descending=True).tolist()
        foil = next(k for k in ranked if k != target)
    F = gc.contrast_function(model, target, _checks.integer("foil", foil, 0), len(t_ids))
    E, E_base = setting.embeddings(module, t_ids, o["baseline"])
    batch = setting.fitting_batch(module, len(t_ids))  # path points per pass, within IG_MEMORY
    with inputs_only(cast(nn.Module, module)):  # no weight-gradient edges: less kept for the backward
        scores = path_integrated_gradients(F, E, E_base, o["n_steps"], o["quadrature"], batch).sum(-1)
    delta, note = _gap(scores, F, E, E_base)
    return _explanation(scores, delta, f"z(target) − z(foil {foil}); {note}")


def _all_scores(module: setting.Explained, E: Tensor) -> Tensor:
    """Every token's logit at the last position, LN_f(h_L)[−1] W_Uᵀ (``CausalLM.readout``: one position,
    not T × D logits), or a classifier's every class score, [D]."""
    if isinstance(module, CausalLM):
        return module.readout(E, -1)[0] @ module.unembedding.T
    return module.forward_embeddings(E)[0]


#: Each entry: (id, label (lesson 20's name, the key of ``ATTRIBUTIONS``), reads, method, its options,
#: its completeness: "no", or "yes" and up to what).
ENTRIES: tuple[tuple[str, str, str | tuple[str, ...], Callable[..., Any], tuple[str, ...], str], ...] = (
    (
        "smoothgrad",
        "smoothgrad",
        "gradients",
        _smooth("smoothgrad"),
        ("n_samples", "noise_scale", "seed"),
        "no",
    ),
    ("vargrad", "vargrad", "gradients", _smooth("vargrad"), ("n_samples", "noise_scale", "seed"), "no"),
    ("deeplift", "deeplift", "backward", _deeplift(shap=False), ("baseline",), _LINEAR),
    ("deeplift_shap", "deeplift-shap", "backward", _deeplift(shap=True), ("n_samples", "seed"), _LINEAR),
    ("lime", "lime", "forward", _sampled("lime"), ("baseline", "n_samples", "seed", "kernel_width"), "no"),
    (
        "kernel_shap",
        "kernel-shap",
        "forward",
        _sampled("kernel-shap"),
        ("baseline", "n_samples", "seed"),
        "yes, up to the 10⁶ weight",
    ),
    ("shapley", "shapley", "forward", _shapley, ("baseline",), "yes, exactly"),
    ("occlusion", "occlusion", "forward", _occlusion, ("baseline", "window", "stride"), "no"),
    ("grad_cam", "grad-cam", ("activations", "gradients"), _grad_cam, ("layer",), "no"),
    (
        "contrastive",
        "contrastive",
        "gradients",
        _contrastive,
        ("foil", "baseline", "n_steps", "quadrature"),
        "yes (of z_target − z_foil), up to the quadrature",
    ),
)


def _predicted_by_default(method: Callable[..., Explanation]) -> Callable[..., Explanation]:
    """``method`` on lesson 06's classifier, where ``target`` None means the predicted class."""

    def on_classifier(model: Any, ids: Any, target: Any, **o: Any) -> Explanation:
        if target is None:
            with torch.no_grad():
                target = int(model(model.check_input_ids(ids)).argmax())
        return method(model, ids, target, **o)

    return on_classifier


for _id, _label, _reads, _method, _options, _complete in ENTRIES:
    _declared = {k: DEFAULTS[k] for k in _options}
    register(_id, "causal", label=_label, reads=_reads, options=_declared, completeness=_complete)(_method)
    register(_id, "sequence", label=_label, reads=_reads, options=_declared, completeness=_complete)(
        _predicted_by_default(_method)
    )
