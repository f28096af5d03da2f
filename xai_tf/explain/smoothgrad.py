"""SmoothGrad and VarGrad (lesson 20): the gradient averaged over noisy copies of the input.

For a differentiable F, an input x (here the token embeddings E ∈ ℝ^{T×d_e}) and N draws
ε_n ~ 𝒩(0, σ² I) (Smilkov et al., 2017; Adebayo et al., 2018 for VarGrad),

    SmoothGrad(x) = (1/N) Σ_n ∇F(x + ε_n),
    VarGrad(x)    = (1/N) Σ_n ∇F(x + ε_n)² − SmoothGrad(x)²          (elementwise; the population variance),

with the noise level given, as in the paper, as a share of the input's range:
σ = ``noise_scale`` · (max x − min x). (A noise σ = ``noise_scale`` itself is the usual mistake: on
embeddings of range 0.5 a "15 %" noise of σ = 0.15 is 60 % of it.) These are Captum's
``NoiseTunnel(Saliency(abs=False))`` with ``nt_type="smoothgrad"`` and ``"vargrad"`` and stdevs = σ.

Token scores (the registry's entries): SmoothGrad × input, Σ_j E_tj · SmoothGrad_tj (signed, the smoothed
gradient × input of lesson 06), and VarGrad summed over the d_e dimensions, Σ_j VarGrad_tj (≥ 0: how much
the gradient at token t changes under the noise, not which way F moves).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.explain import setting
from xai_tf.explain._inputs_only import inputs_only
from xai_tf.explain.path_integral import Scalar
from xai_tf.models.loaded import LoadedModel

#: The most noisy copies one call draws (each costs a forward and a backward pass).
MAX_SAMPLES = 2000


def noise_sigma(x: Tensor, noise_scale: float) -> float:
    """σ = ``noise_scale`` · (max x − min x), ``noise_scale`` in (0, 1]."""
    scale = _checks.real("noise_scale", noise_scale, 0.0, 1.0, open_lo=True)
    x = _checks.real_tensor("x", x)
    if x.numel() == 0:
        raise ValueError("x is empty: σ needs the range of at least one value")
    return scale * float(x.max() - x.min())


def noisy_gradient_moments(
    F: Scalar, x: Tensor, noise: Tensor, batch_size: int = 16
) -> tuple[Tensor, Tensor]:
    """``(SmoothGrad, VarGrad)`` of F at ``x`` for the noise draws ``noise`` ``[N, *x.shape]`` (already
    scaled by σ): the mean and the population variance of ∇F(x + ε_n) over n, both shaped as x."""
    if noise.shape[1:] != x.shape or noise.size(0) < 1:
        raise ValueError(
            f"noise must have shape [N ≥ 1, {', '.join(map(str, x.shape))}], got {tuple(noise.shape)}"
        )
    total = torch.zeros_like(x, dtype=torch.float64)
    square = torch.zeros_like(total)
    for chunk in noise.split(batch_size):
        points = (x.detach() + chunk).requires_grad_(True)
        (g,) = torch.autograd.grad(F(points).sum(), points)
        total += g.double().sum(0)
        square += g.double().pow(2).sum(0)
    mean = total / len(noise)
    return mean.to(x.dtype), (square / len(noise) - mean.pow(2)).to(x.dtype)


def smoothgrad(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    n_samples: int = 50,
    noise_scale: float = 0.15,
    seed: int = 0,
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, Tensor, Tensor]:
    """``(SmoothGrad [T, d_e], VarGrad [T, d_e], E [T, d_e])`` of one prediction (``output`` of
    ``target``, see ``attribution.target_function``) over ``n_samples`` noisy copies of the token
    embeddings E, with σ = ``noise_scale`` · (max E − min E) and the noise drawn on E's device from a
    generator seeded by s′ = ``seed`` + XAI_TF_SEED_OFFSET (``xai_tf.seeds``)."""
    n = _checks.integer("n_samples", n_samples, 1, MAX_SAMPLES)
    module, ids, F = setting.explained(model, input_ids, target, position, output)
    E = module.embed(ids).detach()
    sigma = noise_sigma(E, noise_scale)
    g = seeds.generator(seed, device=E.device)  # s′ = s + XAI_TF_SEED_OFFSET
    noise = torch.randn((n, *E.shape), generator=g, device=E.device, dtype=E.dtype) * sigma
    with inputs_only(cast(nn.Module, module)):  # no weight-gradient edges: less kept for the backward
        mean, var = noisy_gradient_moments(F, E, noise)
    return mean, var, E
