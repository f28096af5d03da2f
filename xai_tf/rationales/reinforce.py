"""REINFORCE, the score-function estimator (Williams, 1992; lesson 11), for Z_i ~ Bernoulli(σ(φ_i)):

    ∇_φ E_{P(z)}[f(z)] = E_{P(z)}[(f(z) − b) ∇_φ log P(z)],
    log P(z) = Σ_i z_i log p_i + (1 − z_i) log(1 − p_i),   p_i = σ(φ_i),

for any baseline b that does not depend on z (E[∇ log P(z)] = 0), so one sample's estimate is
unbiased; a good b (e.g. the running mean of f) lowers its variance. On a toy with a few tokens the
expectation is a finite sum over all 2^T selections, so the estimator can be checked exactly.
"""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks

MAX_T = 16  # 2^16 = 65 536 selections, one backward pass each: more is a typo, not a toy


def log_prob(phi: Tensor, z: Tensor) -> Tensor:
    """log P(z) = Σ_i z_i log σ(φ_i) + (1 − z_i) log(1 − σ(φ_i)) over the last axis, for logits φ and
    selections z of one shape (z converted to φ's floating dtype)."""
    phi = _checks.real_tensor("phi", phi)
    _checks.same_shape("log P(z)", "phi", phi, "z", _checks.tensor("z", z))
    return -torch.nn.functional.binary_cross_entropy_with_logits(phi, z.to(phi.dtype), reduction="none").sum(
        -1
    )


def _function(f: object) -> None:
    if not callable(f):
        raise TypeError(
            f"f must be a function of a selection z [T] returning one number, got {type(f).__name__}"
        )


def estimate(phi: Tensor, f: Callable[[Tensor], Tensor], z: Tensor, baseline: float = 0.0) -> Tensor:
    """One sample's REINFORCE estimate (f(z) − b) ∇_φ log P(z), shape of φ; f(z) must be one number."""
    _checks.finite("baseline", baseline)
    _function(f)
    phi = _checks.real_tensor("phi", phi).detach().requires_grad_(True)
    (grad,) = torch.autograd.grad(log_prob(phi, z), phi)
    value = f(z)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        value = phi.new_tensor(float(value))
    if not isinstance(value, Tensor) or value.numel() != 1:
        shown = tuple(value.shape) if isinstance(value, Tensor) else type(value).__name__
        raise ValueError(f"f must return one number for a selection z [T], got {shown}")
    return (value.detach().reshape(()) - baseline) * grad


def selections(T: int) -> Tensor:
    """All 2^T selections z ∈ {0, 1}^T ``[2^T, T]``."""
    _checks.integer("T", T, 1, MAX_T)
    return torch.tensor(list(itertools.product((0.0, 1.0), repeat=T)), device="cpu")


def _enumerable(phi: object, f: object) -> tuple[Tensor, Tensor]:
    """φ ``[T]`` with T in 1..16, and every selection ``[2^T, T]`` in φ's dtype."""
    phi = _checks.real_tensor("phi", phi, dims=1)
    _function(f)
    if not 1 <= len(phi) <= MAX_T:
        raise ValueError(f"phi must have 1..{MAX_T} entries (2^T selections are enumerated), got {len(phi)}")
    return phi, selections(len(phi)).to(phi.device, phi.dtype)


def expected_estimate(phi: Tensor, f: Callable[[Tensor], Tensor], baseline: float = 0.0) -> Tensor:
    """E_{P(z)}[estimate] by enumerating every z: equals ∇_φ E[f] if unbiased. φ ``[T]``, T in
    1..16 (2^T selections are enumerated)."""
    phi, zs = _enumerable(phi, f)
    weights = log_prob(phi.detach().expand_as(zs), zs).exp()
    return sum(w * estimate(phi, f, z, baseline) for w, z in zip(weights, zs, strict=True))


def exact_gradient(phi: Tensor, f: Callable[[Tensor], Tensor]) -> Tensor:
    """∇_φ E_{P(z)}[f(z)] = ∇_φ Σ_z P(z) f(z), the expectation written out over every z (small T) and
    differentiated by autograd: what ``expected_estimate`` must equal, computed without the estimator."""
    phi, zs = _enumerable(phi, f)
    phi = phi.detach().requires_grad_(True)
    p = torch.sigmoid(phi)
    expectation = torch.stack([torch.prod(torch.where(z > 0, p, 1 - p)) * f(z) for z in zs]).sum()
    (grad,) = torch.autograd.grad(expectation, phi)
    return grad


def toy_cost(z: Tensor) -> Tensor:
    """Lesson 11's toy cost of a selection of 3 tokens, f(z) = 1.5 z₀ − 0.7 z₁ + 2.2 z₂ + 3 z₀ z₂ (the
    product term makes E[f] more than a sum over tokens)."""
    z = _checks.real_tensor("z", z, dims=1)
    if len(z) != 3:
        raise ValueError(f"z must be a selection of 3 tokens, got {len(z)}")
    return 1.5 * z[0] - 0.7 * z[1] + 2.2 * z[2] + 3.0 * z[0] * z[2]
