"""The steps of lesson 06's computations, one function each: what its exercises ask the student to write,
and what a lesson continues with until the student's version passes.

Notation as in ``xai_tf.explain.attribution``: the gradient ∇ = ∂F/∂E ``[T, d_e]``, the token embeddings
E = E(x) and the baseline's E' = E(x′), m quadrature nodes α_k with weights w_k on [0, 1].
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain.path_integral import quadrature


def g_l1(g: Tensor) -> Tensor:
    """G-L1_t = (1/d_e) Σ_j |∇_tj|: one unsigned score per token ``[T]`` from the gradient ``[T, d_e]``."""
    return _checks.real_tensor("g", g, dims=2).abs().mean(-1)


def straight_path(E_base: Tensor, E: Tensor, alphas: Tensor) -> Tensor:
    """The points E' + α_k (E − E') of IG's straight path ``[m, T, d_e]``, one per α_k in ``alphas``
    ``[m]``: α = 0 is the baseline E', α = 1 the input E."""
    E_base, E = _checks.real_tensor("E_base", E_base), _checks.real_tensor("E", E)
    alphas = _checks.real_tensor("alphas", alphas, dims=1)
    _checks.same_shape("the path", "E_base", E_base, "E", E)
    return E_base + alphas.to(E).view(-1, *[1] * E.dim()) * (E - E_base)


def gauss_legendre(m: int) -> tuple[Tensor, Tensor]:
    """The m Gauss–Legendre nodes α_k and weights w_k on [0, 1] (float64): the nodes x_k and weights
    v_k of [−1, 1] mapped by α = (x + 1)/2, w = v/2, so that Σ_k w_k h(α_k) ≈ ∫₀¹ h(α) dα, exact for
    polynomials h of degree ≤ 2m − 1."""
    return quadrature(_checks.integer("m", m, 1), "gausslegendre")


def completeness_delta(attributions: Tensor, f_input: float | Tensor, f_baseline: float | Tensor) -> Tensor:
    """delta = Σ_{t,j} IG_tj − (F(x) − F(x′)): how far the attributions ``[T, d_e]`` (any shape) miss
    completeness; 0 for the exact integral, the quadrature's error otherwise."""
    attributions = _checks.real_tensor("attributions", attributions)
    f_x, f_b = (
        _checks.finite(name, f.item() if isinstance(f, Tensor) and f.numel() == 1 else f)
        for name, f in (("f_input", f_input), ("f_baseline", f_baseline))
    )
    return attributions.sum() - torch.tensor(f_x - f_b, dtype=attributions.dtype, device=attributions.device)


def monomial_errors(alphas: Tensor, weights: Tensor, max_degree: int) -> Tensor:
    """|Σ_k w_k α_k^p − ∫₀¹ α^p dα| = |Σ_k w_k α_k^p − 1/(p + 1)| for p = 0..``max_degree``, in float64:
    which polynomial degrees the rule (α_k, w_k) integrates exactly (up to rounding)."""
    max_degree = _checks.integer("max_degree", max_degree, 0)
    alphas = _checks.real_tensor("alphas", alphas, dims=1)
    weights = _checks.real_tensor("weights", weights, dims=1)
    _checks.same_shape("the rule", "alphas", alphas, "weights", weights)
    p = torch.arange(max_degree + 1, dtype=torch.float64, device=alphas.device)
    rule = (weights.double()[None] * alphas.double()[None] ** p[:, None]).sum(-1)
    return (rule - 1 / (p + 1)).abs()


def exact_degree(alphas: Tensor, weights: Tensor, tol: float = 1e-12) -> int:
    """The largest p such that the rule (α_k, w_k) integrates α^0, …, α^p over [0, 1] within ``tol``
    (``monomial_errors``), searched up to 2m + 1; −1 if not even constants. Gauss–Legendre with m
    nodes: 2m − 1; the right Riemann sum: 0."""
    tol = _checks.positive("tol", tol)
    errors = monomial_errors(alphas, weights, 2 * len(alphas) + 1)
    return int((errors < tol).cumprod(0).sum()) - 1


def probability_gradient(p: Tensor, dz: Tensor, w: int) -> Tensor:
    """The gradient of the probability p_w = softmax(z)_w from the logits' gradients ``dz`` ``[D, n]``
    (row v: ∂z_v with respect to n inputs) and the probabilities ``p`` ``[D]``:

        ∂p_w = p_w (∂z_w − Σ_v p_v ∂z_v)        ``[n]``

    a token raises p_w only where it raises z_w more than the probability-weighted mean of all logits."""
    p = _checks.real_tensor("p", p, dims=1)
    dz = _checks.real_tensor("dz", dz, dims=2)
    if dz.size(0) != p.size(0):
        raise ValueError(f"dz must have one row per entry of p ({p.size(0)}), got shape {tuple(dz.shape)}")
    w = _checks.integer("w", w, 0, p.size(0) - 1)
    return p[w] * (dz[w] - p.to(dz) @ dz)
