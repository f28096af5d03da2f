"""Explaining one prediction of a transformer with gradients (lesson 06).

Tokens are discrete, so we split the model as f = g ∘ e (the lecture's notation): e looks up the
sequence's token embeddings E(x) = W_e[x] ∈ ℝ^{T×d_e}, and g maps them (with the fixed position
embeddings) to a scalar F(E) — the logit, probability or log-probability of a chosen token at a
chosen position, or a classifier's class score. Every method differentiates F with respect to E and
reduces over the d_e embedding dimensions to one score per token.

Sign convention: a positive token score means the token *raises* F; negative, it lowers F.

Methods (∇_t = ∂F/∂E_t ∈ ℝ^{d_e}, the gradient; the lecture writes it g too, and code calls it g):
- gradient saliency, aggregated over d_e: G-avg = (1/d_e) Σ_j ∇_tj, G-L1 = (1/d_e) Σ_j |∇_tj|,
  G-L2 = √((1/d_e) Σ_j ∇_tj²) (see ``gradient_saliency``);
- gradient × input: Σ_j ∇_tj E_tj;
- leave-one-out (occlusion): F(x) − F(x with token t replaced or dropped);
- integrated gradients (Sundararajan et al., 2017) along the straight path from a baseline E' to E:
      IG_tj = (E_tj − E'_tj) ∫₀¹ ∂F(E' + α(E − E'))/∂E_tj dα,
  with completeness Σ_tj IG_tj = F(E) − F(E'); the integral is a quadrature, so every result carries
  its completeness error delta = Σ IG − (F(E) − F(E')). The default quadrature is Gauss–Legendre
  (as Captum's); ``method="riemann_right"`` is the lecture's (and RevLLM's) right Riemann sum
  (1/m) Σ_{k=1..m} at α = k/m, first order: at m = 50 its delta is often several % of F(E) − F(E').
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain._inputs_only import inputs_only
from xai_tf.explain.path_integral import METHODS, Scalar, path_integrated_gradients, quadrature
from xai_tf.explain.setting import (
    IG_MEMORY,
    OUTPUTS,
    baseline_ids,
    embeddings,
    explained,
    fitting_batch,
    named_baselines,
    target_function,
)
from xai_tf.models.loaded import LoadedModel

# re-exported: lessons read them as attr.METHODS, attr.target_function, …
__all__ = [
    "IG_MEMORY",
    "METHODS",
    "OUTPUTS",
    "baseline_ids",
    "named_baselines",
    "path_integrated_gradients",
    "quadrature",
    "target_function",
]


@dataclass
class IGResult:
    """Integrated gradients of one prediction: ``attributions`` [T, d], ``token_scores`` [T]
    (summed over d), F at the input and at the baseline, and the completeness error ``delta``."""

    attributions: Tensor
    token_scores: Tensor
    f_input: float
    f_baseline: float
    delta: float

    @property
    def relative_delta(self) -> float:
        """|delta| / |F(x) − F(x')| — the share of the difference the quadrature missed."""
        return abs(self.delta) / max(abs(self.f_input - self.f_baseline), 1e-12)


def integrated_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    baseline: str | int | Sequence[int] | Tensor = "token0",
    n_steps: int = 50,
    method: str = "gausslegendre",
    position: int = -1,
    output: str = "logit",
    batch_size: int | None = None,
) -> IGResult:
    """IG on the token embeddings E(x) from the baseline E(x′) with m = ``n_steps`` gradient
    evaluations (position embeddings stay fixed) — the same quantity as Captum's
    ``LayerIntegratedGradients`` on the token-embedding layer with baseline ids. ``method`` is the
    quadrature: "gausslegendre" (the default, as Captum's) or "riemann_right" (the lecture's
    (1/m) Σ_{k=1..m} at α = k/m). ``output`` picks F: "logit", "logprob" or "prob". ``batch_size``
    path points go through the model at once; None picks the most that fit ``IG_MEMORY``."""
    module, ids, F = explained(model, input_ids, target, position, output)
    E, E_base = embeddings(module, ids, baseline)
    if batch_size is None:
        batch_size = fitting_batch(module, len(ids))
    with inputs_only(cast(nn.Module, module)):
        return _ig_result(F, E, E_base, n_steps, method, _checks.integer("batch_size", batch_size, 1))


def _ig_result(
    F: Scalar, E: Tensor, E_base: Tensor, n_steps: int, method: str, batch_size: int | None
) -> IGResult:
    attributions = path_integrated_gradients(F, E, E_base, n_steps, method, batch_size)
    with torch.no_grad():
        f_x, f_b = (float(v) for v in F(torch.stack([E, E_base])))
    delta = float(attributions.double().sum()) - (f_x - f_b)
    return IGResult(attributions, attributions.sum(-1), f_x, f_b, delta)


def sequential_integrated_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    baseline: str | int | Sequence[int] | Tensor = "token0",
    n_steps: int = 50,
    method: str = "gausslegendre",
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, Tensor]:
    """Sequential IG (Enguehard, 2023): for each token t only E_t moves from its baseline to its
    value, the other tokens stay as they are. Returns ``(token_scores [T], deltas [T])``; token t's
    completeness is score_t = F(E) − F(E with E_t := E'_t) + delta_t (delta_t = score_t minus that
    difference, as for IG)."""
    module, ids, F = explained(model, input_ids, target, position, output)
    E, E_base = embeddings(module, ids, baseline)
    scores, deltas = E.new_zeros(len(ids)), E.new_zeros(len(ids))
    for t in range(len(ids)):
        start = E.clone()
        start[t] = E_base[t]
        result = _ig_result(F, E, start, n_steps, method, fitting_batch(module, len(ids)))
        scores[t], deltas[t] = result.token_scores.sum(), result.delta
    return scores, deltas


def embedding_gradients(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, Tensor]:
    """``(g, E)``: the gradient ∇ = ∂F/∂E ``[T, d_e]`` at the prompt's token embeddings E(x)
    ``[T, d_e]``; ``output`` picks F ("logit", "logprob" or "prob")."""
    module, ids, F = explained(model, input_ids, target, position, output)
    E = module.embed(ids).detach().requires_grad_(True)
    (g,) = torch.autograd.grad(F(E[None]).sum(), E)
    return g, E.detach()


def gradient_saliency(g: Tensor, aggregation: str = "l2") -> Tensor:
    """One score per token from the gradient g = ∇ ``[T, d_e]``, reduced over the d_e embedding dims:

        "avg":         G-avg_t = (1/d_e) Σ_j ∇_tj          (signed: the mean direction of the gradient)
        "l1":          G-L1_t  = (1/d_e) Σ_j |∇_tj|        (the mean absolute value)
        "l2":          G-L2_t  = √((1/d_e) Σ_j ∇_tj²)      (the root mean square: lecture 000's G-L2)
        "mean-square": (1/d_e) Σ_j |∇_tj|² = (G-L2_t)²    (lecture 002's G-L2, written without the root)

    The two lectures' G-L2 rank the tokens in the same order (squaring is increasing on scores ≥ 0)
    but not on the same scale: the square stretches the gaps between large and small scores.
    Both are ‖∇_t‖₂ up to a monotone map (G-L2 = ‖∇_t‖₂ / √d_e).
    """
    reductions = {
        "avg": lambda: g.mean(-1),
        "l1": lambda: g.abs().mean(-1),
        "l2": lambda: g.pow(2).mean(-1).sqrt(),
        "mean-square": lambda: g.pow(2).mean(-1),
    }
    if aggregation not in reductions:
        raise ValueError(f"aggregation must be one of {list(reductions)}, got {aggregation!r}")
    return reductions[aggregation]()


def gradient_times_input(g: Tensor, E: Tensor) -> Tensor:
    """Σ_j ∇_tj E_tj per token (g = ∇ and E ``[T, d_e]``): to first order, how much F *drops* if
    E_t is set to 0, F(E) − F(E with E_t := 0) ≈ Σ_j ∇_tj E_tj (exact when F is linear in E_t)."""
    if g.shape != E.shape:
        raise ValueError(f"g has shape {tuple(g.shape)}, E {tuple(E.shape)}")
    return (g * E).sum(-1)


@torch.no_grad()
def leave_one_out(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    replacement: int | None = 0,
    position: int = -1,
    output: str = "logit",
) -> Tensor:
    """Occlusion: score_t = F(x) − F(x with token t replaced by ``replacement``), or with token t
    dropped when ``replacement`` is None (then only for the prediction after the whole prompt,
    ``position=-1``, which is read after the shortened prompt)."""
    module, ids, F = explained(model, input_ids, target, position, output)
    if replacement is not None:
        _checks.integer("replacement", replacement, 0, module.embedding.size(0) - 1)
    if replacement is None and (position != -1 or len(ids) == 1):
        raise ValueError(
            f"dropping tokens needs position=-1 and at least 2 tokens, got {position}, {len(ids)}"
        )
    T = len(ids)
    f_x = F(module.embed(ids)[None])
    if replacement is None:  # row t: the prompt without token t, [T, T − 1]
        keep = ~torch.eye(T, dtype=torch.bool, device=ids.device)
        changed = ids.expand(T, T)[keep].view(T, T - 1)
    else:  # row t: the prompt with token t replaced, [T, T]
        changed = ids.expand(T, T).clone()
        changed.diagonal().fill_(replacement)
    n = fitting_batch(module, changed.size(1))  # rows per forward pass (a forward keeps less)
    f_changed = torch.cat([F(module.embed(rows)) for rows in changed.split(n)])
    return (f_x - f_changed).float()
