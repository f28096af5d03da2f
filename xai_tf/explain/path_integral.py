"""Integrated gradients of any function, by quadrature (lesson 06; its exercise checker too).

For a differentiable F, an input x and a baseline x′ (same shape),

    IG(x) = (x − x′) ⊙ ∫₀¹ ∇F(x′ + α (x − x′)) dα  ≈  (x − x′) ⊙ Σ_k w_k ∇F(x′ + α_k (x − x′)),

with nodes α_k and weights w_k from ``quadrature``. ``xai_tf.explain.attribution`` applies it to
the token embeddings of a transformer, with Gauss–Legendre as its default; here the default stays
the lecture's right Riemann sum (α_k = k/m, w_k = 1/m), which lesson 06's exercise asks for.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf import _cancel, _checks

Scalar = Callable[[Tensor], Tensor]  # a batch of inputs [n, ...] → one number per input [n]
METHODS = ("riemann_right", "gausslegendre")


def quadrature(n_steps: int, method: str = "riemann_right") -> tuple[Tensor, Tensor]:
    """Nodes α_k and weights w_k with ∫₀¹ h(α) dα ≈ Σ_k w_k h(α_k).

    ``riemann_right``: α_k = k/m, w_k = 1/m for k = 1..m (α = 0 is not a node). ``gausslegendre``:
    the m Gauss–Legendre nodes and weights of [−1, 1] mapped to [0, 1] (exact for polynomials of
    degree ≤ 2m − 1). Both in float64 on the CPU; callers move them to their input's device.
    """
    n_steps = _checks.integer("n_steps", n_steps, 1)
    if method == "riemann_right":
        nodes = torch.arange(1, n_steps + 1, dtype=torch.float64, device="cpu") / n_steps
        return nodes, torch.full((n_steps,), 1 / n_steps, dtype=torch.float64, device="cpu")
    if method == "gausslegendre":
        x, w = np.polynomial.legendre.leggauss(n_steps)
        return torch.from_numpy((x + 1) / 2), torch.from_numpy(w / 2)
    raise ValueError(f"method must be one of {METHODS}, got {method!r}")


def path_integrated_gradients(
    F: Scalar,
    x: Tensor,
    baseline: Tensor,
    n_steps: int = 50,
    method: str = "riemann_right",
    batch_size: int | None = None,
) -> Tensor:
    """IG of any differentiable F at one input ``x`` (any shape) from ``baseline`` (same shape):
    (x − x') ⊙ Σ_k w_k ∇F(x' + α_k (x − x')). The path points are evaluated ``batch_size`` at a time
    (all at once by default); the result does not depend on it."""
    if x.shape != baseline.shape:
        raise ValueError(f"baseline has shape {tuple(baseline.shape)}, the input {tuple(x.shape)}")
    if batch_size is not None:
        _checks.integer("batch_size (None: all steps at once)", batch_size, 1)
    alphas, weights = quadrature(n_steps, method)
    x, baseline = x.detach(), baseline.detach()
    total = torch.zeros_like(x, dtype=torch.float64)
    for start in range(0, n_steps, batch_size or n_steps):
        _cancel.checkpoint()  # a slow panel's stale render stops here (a no-op elsewhere)
        a = alphas[start : start + (batch_size or n_steps)].to(x).view(-1, *[1] * x.dim())
        points = (baseline + a * (x - baseline)).requires_grad_(True)
        (grads,) = torch.autograd.grad(F(points).sum(), points)
        w = weights[start : start + len(a)].to(total).view(-1, *[1] * x.dim())
        total += (w * grads.double()).sum(0)
    return ((x - baseline).double() * total).to(x.dtype)
