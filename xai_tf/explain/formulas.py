"""Lesson 20's small formulas, one function each: what its exercises ask for and what a lesson falls back
to until the student's function passes (``xai_tf.exercises.attribution_map``).

- **Completeness gap** of token scores against their baseline x′:
      delta = Σ_t score_t − (F(x) − F(x′))            (0 for a complete method).
- **DeepLIFT's rescale multiplier** of an elementwise y = f(z) between z and its reference z′
  (Shrikumar et al., 2017):
      m = (f(z) − f(z′)) / (z − z′),   and f′(z) where |z − z′| < 10⁻¹⁰ (``deeplift.EPS``),
  so that Δy = m Δz exactly, entry by entry.
- **The Shapley kernel** of Kernel SHAP (Lundberg & Lee, 2017) for a coalition z ∈ {0, 1}^T:
      π(z) = (T − 1) / (C(T, |z|) |z| (T − |z|)),     ∞ at |z| = 0 and |z| = T,
  under which the weighted least-squares fit over all 2^T coalitions is exactly the Shapley values
  (their Theorem 2; the infinite weights pin φ₀ = v(0) and Σ φ = v(1) − v(0)).
- **Spearman's ρ** of two score vectors a, b ``[T]``: the Pearson correlation of their ranks, tied values
  sharing the mean of the ranks they span (scipy's ``spearmanr``), so that ρ = 1 − 6 Σ d_t² / (T (T² − 1))
  only where neither vector has ties.
- **Exact Shapley values of a game** v: coalitions ``[S, T]`` → values ``[S]``, by enumerating
  ``perturbation.all_coalitions(T)`` (``perturbation.exact_shapley``'s formula).
- **Contrastive gradient × input** (Yin & Neubig, 2022) of F_c = z_target − z_foil, from the embedding
  gradients of the two logits:
      score_t = Σ_j (∂z_target/∂E_tj − ∂z_foil/∂E_tj) E_tj,
  the gradient × input of F_c, since the gradient is linear ("why the target rather than the foil").
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain import perturbation as pt
from xai_tf.explain.deeplift import EPS


def completeness_delta(scores: Tensor, f_x: float, f_base: float) -> Tensor:
    """delta = Σ_t scores_t − (F(x) − F(x′)), a 0-dimensional float64 tensor, for token scores ``[T]``
    and the outputs ``f_x`` = F(x), ``f_base`` = F(x′)."""
    s = _checks.real_tensor("scores", scores, dims=1)
    difference = _checks.finite("f_x", f_x) - _checks.finite("f_base", f_base)
    return s.double().sum() - difference


def rescale_multiplier(f: Callable[[Tensor], Tensor], z: Tensor, z_ref: Tensor) -> Tensor:
    """m = (f(z) − f(z′)) / (z − z′) entry by entry, and the gradient f′(z) where |z − z′| < ``EPS``,
    for an elementwise ``f`` (GELU, ReLU, tanh) and ``z``, ``z_ref`` of one shape; in z's dtype."""
    if not callable(f):
        raise TypeError(f"f must be an elementwise function of a tensor, got {type(f).__name__}")
    z = _checks.real_tensor("z", z)
    z_ref = _checks.real_tensor("z_ref", z_ref)
    _checks.same_shape("the rescale rule", "z", z, "z_ref", z_ref)
    with torch.enable_grad():
        at = z.detach().clone().requires_grad_(True)
        (slope,) = torch.autograd.grad(f(at).sum(), at)
    with torch.no_grad():
        dz = z - z_ref.to(z.dtype)
        dy = f(z) - f(z_ref.to(z.dtype))
        return torch.where(dz.abs() < EPS, slope, dy / torch.where(dz.abs() < EPS, 1, dz))


def shapley_kernel(z: Tensor) -> Tensor:
    """π(z) ``[N]`` in float64 for coalitions ``z`` ``[N, T]`` (0/1, T ≥ 2):
    (T − 1) / (C(T, |z|) |z| (T − |z|)), ``inf`` for the empty and the full coalition."""
    z = _checks.tensor("z", z)
    if z.dim() != 2 or z.size(1) < 2:
        raise ValueError(f"z must have shape [N, T] with T ≥ 2 tokens, got {tuple(z.shape)}")
    if not bool(((z == 0) | (z == 1)).all()):
        raise ValueError("z must hold 0 and 1 only (1 = the token is kept)")
    T = z.size(1)
    k = z.detach().cpu().double().sum(1)
    binomial = torch.tensor([math.comb(T, int(s)) for s in k], dtype=torch.float64)
    with torch.no_grad():
        return (T - 1) / (binomial * k * (T - k))  # 1/0 = inf at k = 0 and k = T


def _average_ranks(x: Tensor) -> Tensor:
    """Ranks 1..T of ``x`` ``[T]`` (float64), tied values sharing the mean of the ranks they span."""
    order = x.argsort(stable=True)
    ranks = torch.empty_like(x, dtype=torch.float64)
    ranks[order] = torch.arange(1, len(x) + 1, dtype=torch.float64, device=x.device)
    _, groups = x.unique(return_inverse=True)
    mean_rank = torch.zeros(int(groups.max()) + 1, dtype=torch.float64, device=x.device)
    mean_rank.index_add_(0, groups, ranks)
    return (mean_rank / torch.bincount(groups).double())[groups]


def spearman_rho(a: Tensor, b: Tensor) -> Tensor:
    """Spearman's ρ of ``a`` and ``b`` ``[T]`` (T ≥ 2, neither constant): the Pearson correlation of their
    average ranks, a 0-dimensional float64 tensor."""
    a = _checks.real_tensor("a", a, dims=1)
    b = _checks.real_tensor("b", b, dims=1)
    _checks.same_shape("Spearman's ρ", "a", a, "b", b)
    if len(a) < 2 or bool((a == a[0]).all()) or bool((b == b[0]).all()):
        raise ValueError(
            "a and b must each hold at least 2 different values: a constant has no ranks to correlate"
        )
    ra, rb = (_average_ranks(x.detach().double()) for x in (a, b))
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return (ra * rb).sum() / (ra.norm() * rb.norm())


def shapley_of_game(v: Callable[[Tensor], Tensor], T: int) -> Tensor:
    """φ ``[T]`` (float64) of the game ``v`` (coalitions ``[S, T]`` of 0/1 → values ``[S]``), by
    φ_i = Σ_{S ⊆ N∖{i}} |S|! (T − |S| − 1)! / T! (v(S ∪ {i}) − v(S)) over all 2^T coalitions, T ≤ 10."""
    if not callable(v):
        raise TypeError(f"v must be a function of coalitions [S, T], got {type(v).__name__}")
    z = pt.all_coalitions(T)
    values = v(z)
    if not isinstance(values, Tensor):
        raise TypeError(f"v must return a tensor of values [{2**T}], got {type(values).__name__}")
    return pt.exact_shapley(values.detach(), T)


def contrastive_gradient_x_input(g_target: Tensor, g_foil: Tensor, E: Tensor) -> Tensor:
    """score_t = Σ_j (g_target − g_foil)_tj E_tj ``[T]``: gradient × input of z_target − z_foil, from
    the gradients ``g_target`` = ∂z_target/∂E, ``g_foil`` = ∂z_foil/∂E and the embeddings E
    (all ``[T, d_e]``)."""
    gt = _checks.real_tensor("g_target", g_target, dims=2)
    gf = _checks.real_tensor("g_foil", g_foil, dims=2)
    e = _checks.real_tensor("E", E, dims=2)
    if not gt.shape == gf.shape == e.shape:
        raise ValueError(
            f"g_target, g_foil and E must have one shape [T, d_e], got {tuple(gt.shape)}, "
            f"{tuple(gf.shape)} and {tuple(e.shape)}"
        )
    return ((gt - gf) * e).sum(-1)
