"""Why the lecture's G-avg vanishes on a LayerNorm model and not on an RMSNorm one (lesson 06).

G-avg_t = (1/d_e) Σ_j ∇_tj averages token t's gradient ∇_t = ∂F/∂E_t over the d_e embedding dimensions
(not over the tokens). Σ_j ∇_tj is the derivative of F along the all-ones vector 1 ∈ ℝ^{d_e} added to E_t:

    G-avg_t = (1/d_e) d/dc F(E + c 1 e_tᵀ) |_{c=0}        (e_t the t-th unit vector: only row t moves).

LayerNorm, LN(u) = γ ⊙ (u − μ(u) 1) / √(σ²(u) + ε) + β, does not see such a shift: μ(u + c 1) = μ(u) + c and
σ²(u + c 1) = σ²(u), so LN(u + c 1) = LN(u) for every c (its Jacobian J has J 1 = 0). In GPT-2 the residual
stream h_0 = E + W_P is read only through LayerNorms (LN_1 and LN_2 of every block, LN_f before W_U) and
every block only adds to it. So adding c 1 to E_t adds c 1 to h_l[t] in every layer and changes nothing any
LayerNorm returns: F(E + c 1 e_tᵀ) = F(E) for every c, and G-avg_t = 0 exactly; a computed G-avg is
rounding. RMSNorm, u / √(mean(u²) + ε) ⊙ γ (Llama), does not centre: the shift changes it, F changes, and
G-avg survives. Both facts are measured here by ``shift_response`` (the finite shift itself) and
``g_avg_scale`` (G-avg against the size of the gradient it averages).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain.attribution import embedding_gradients, gradient_saliency
from xai_tf.explain.setting import explained
from xai_tf.models.loaded import LoadedModel


@dataclass
class GAvgScale:
    """``largest_g_avg`` = max_t |G-avg_t|, ``mean_abs_gradient`` = (1/(T d_e)) Σ_tj |∇_tj| (the mean
    G-L1), ``ratio`` = their quotient, and ``largest_shift_change`` = max_t |F(E + 1 e_tᵀ) − F(E)|."""

    largest_g_avg: float
    mean_abs_gradient: float
    largest_shift_change: float

    @property
    def ratio(self) -> float:
        return self.largest_g_avg / max(self.mean_abs_gradient, 1e-300)


@torch.no_grad()
def shift_response(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    c: float = 1.0,
    position: int = -1,
    output: str = "logit",
) -> Tensor:
    """F(E + c 1 e_tᵀ) − F(E) for every token t ``[T]``: the change of the explained output when the
    same number ``c`` is added to every coordinate of token t's embedding (one forward pass of T
    shifted copies). 0 up to rounding on a model whose every read of the residual stream is a
    LayerNorm (see the module's docstring); its derivative in c at 0 is d_e · G-avg_t."""
    c = _checks.finite("c", c)
    module, ids, F = explained(model, input_ids, target, position, output)
    E = module.embed(ids).detach()[None]  # [1, T, d_e]
    shifted = E.repeat(len(ids), 1, 1)  # [T, T, d_e]: copy t has row t shifted
    rows = torch.arange(len(ids), device=E.device)
    shifted[rows, rows] += c
    return F(shifted) - F(E)


def g_avg_scale(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    position: int = -1,
    output: str = "logit",
) -> GAvgScale:
    """G-avg against the gradient it averages, for one prediction (see ``GAvgScale``): on a LayerNorm
    model the ratio is rounding (about 1e-8 in float32), on an RMSNorm model it is not."""
    g, _ = embedding_gradients(model, input_ids, target, position, output)
    shift = shift_response(model, input_ids, target, 1.0, position, output)
    return GAvgScale(
        largest_g_avg=gradient_saliency(g, "avg").abs().max().item(),
        mean_abs_gradient=g.abs().mean().item(),
        largest_shift_change=shift.abs().max().item(),
    )
