"""Grad-CAM on a layer's residual stream, and contrastive attributions (lesson 20).

**Grad-CAM** (Selvaraju et al., 2017), the 1-D text version: the "feature maps" are the d_e channels of
layer l's residual stream A = h_l ∈ ℝ^{T×d_e} (hook point ``resid_post``), the "spatial" axis the T
positions. With G = ∂F/∂A,

    α_j = (1/T) Σ_t G_tj           (each channel's importance: its gradient averaged over the positions)
    Grad-CAM_t = ReLU(Σ_j α_j A_tj)

— Captum's ``LayerGradCam`` with ``relu_attributions=True`` on A laid out as [batch, d_e, T]. It reads
an activation *and* a gradient (model-specific), has no baseline and no completeness, and is ≥ 0. In a
causal model G_t = 0 after the explained position, which α averages in. The default layer is the middle
block, l = min(⌊L/2⌋, L − 2) (``default_layer``): Selvaraju et al. take a CNN's last convolutional layer,
but a causal model's last block feeds the explained position only, and the first blocks' states are still
close to the tokens' own embeddings.

**Contrastive** attribution (as lesson 15's metric, and Jacovi et al., 2021): explain the logit
difference F_c = z_target − z_foil — "why this token rather than that one" — by IG (Gauss–Legendre, as
lesson 06). Completeness then reads Σ IG = F_c(x) − F_c(x′), and a token common to both explanations
(raising both logits alike) drops out.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain import setting
from xai_tf.explain.path_integral import Scalar
from xai_tf.models.architecture import CausalLM
from xai_tf.models.hooks import Hooks
from xai_tf.models.loaded import LoadedModel


def residual_and_gradient(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    layer: int,
    position: int = -1,
) -> tuple[Tensor, Tensor]:
    """``(A, G)`` ``[T, d_e]``: layer ``layer``'s residual stream h_l (``resid_post``; 0..L−1) and
    ∂F/∂h_l for F the logit of ``target`` at ``position`` (a classifier: the score of class ``target``)."""
    module, ids, _ = setting.explained(model, input_ids, target, position, "logit")
    layer = _checks.integer("layer", layer, 0)  # the hooks refuse a layer past the last, naming the range
    kept: list[Tensor] = []

    def keep(h: Tensor) -> Tensor:
        kept.append(h.detach().requires_grad_(True))
        return kept[-1]

    hooks: Hooks = {("resid_post", layer): keep}
    scores = module.forward_embeddings(module.embed(ids)[None].detach(), hooks)  # type: ignore[call-arg]
    _checks.integer("target", target, 0, scores.size(-1) - 1)  # a negative index would wrap round
    F = scores[0, position, target] if scores.dim() == 3 else scores[0, target]
    (G,) = torch.autograd.grad(F, kept[0])
    return kept[0][0].detach(), G[0]


def default_layer(n_layer: int) -> int:
    """min(⌊L/2⌋, L − 2), the middle block of L and never the last where there are two or more: Grad-CAM's
    default layer (see the module); 0 for L = 1 and 2."""
    n = _checks.integer("n_layer", n_layer, 1)
    return max(0, min(n // 2, n - 2))


def layer_of(model: nn.Module | LoadedModel, layer: int | None) -> int:
    """``layer``, or ``default_layer`` of the model's L where it is None (a classifier: its body's L)."""
    sizes = getattr(setting.explained_module(model), "sizes", None)
    if layer is not None:
        return _checks.integer("layer", layer, 0, None if sizes is None else sizes.n_layer - 1)
    if sizes is None:
        raise TypeError("Grad-CAM reads a transformer's residual stream: this model has no blocks (sizes)")
    return default_layer(sizes.n_layer)


def grad_cam(A: Tensor, G: Tensor, relu: bool = True) -> Tensor:
    """Grad-CAM_t = ReLU(Σ_j α_j A_tj), α_j = (1/T) Σ_t G_tj, for A, G ``[T, d_e]`` (no ReLU: signed)."""
    A, G = _checks.real_tensor("A", A), _checks.real_tensor("G", G)
    if A.shape != G.shape or A.dim() != 2:
        raise ValueError(f"A and G must both have shape [T, d_e], got {tuple(A.shape)} and {tuple(G.shape)}")
    cam = A @ G.mean(0)
    return cam.clamp(min=0) if _checks.flag("relu", relu) else cam


def contrast_function(
    model: nn.Module | LoadedModel, target: int, foil: int, T: int, position: int = -1
) -> Scalar:
    """F_c(E) = F_target(E) − F_foil(E) (logits; a classifier's class scores) for embeddings
    ``[n, T, d_e]``, in one pass: a language model's as LN_f(h_L)[position] · (W_U[target] − W_U[foil])
    (``CausalLM.readout``: one direction of the unembedding, not all T × D logits)."""
    if target == foil:
        raise ValueError(f"foil must differ from target, both are {target}")
    T = _checks.integer("T", T, 1, 1_000_000)  # the prompt's length (the position checked against)
    _checks.integer("position", position, -T, T - 1)
    module = setting.explained_module(model)
    if isinstance(module, CausalLM):
        W_U = module.unembedding.detach()
        w = (
            W_U[_checks.integer("target", target, 0, len(W_U) - 1)]
            - W_U[_checks.integer("foil", foil, 0, len(W_U) - 1)]
        )
        return lambda E: module.readout(E, position) @ w

    def F_c(E: Tensor) -> Tensor:
        scores = module.forward_embeddings(E)  # [n, classes]
        for name, k in (("target", target), ("foil", foil)):
            _checks.integer(name, k, 0, scores.size(-1) - 1)
        return scores[:, target] - scores[:, foil]

    return F_c
