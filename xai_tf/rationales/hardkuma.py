"""The HardKuma distribution (Bastings et al., 2019; lesson 11): a Kumaraswamy variable K ~ Kuma(a, b)
on (0, 1), with CDF F_K(k) = 1 − (1 − k^a)^b, stretched to (l, r) ∋ [0, 1] and clamped:

    K = (1 − (1 − u)^{1/b})^{1/a},  u ~ U(0, 1)     (reparameterised: a sample is a function of a, b)
    Z = min(1, max(0, l + (r − l) K)),   l = −0.1, r = 1.1

so Z has point masses at 0 and at 1 and a density in between:

    P(Z = 0) = F_K(−l / (r − l)),    P(Z = 1) = 1 − F_K((1 − l) / (r − l)).

The expected number of selected words E[‖z‖₀] = Σ_i (1 − P(Z_i = 0)) is differentiable in (a, b).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks

LOW, HIGH = -0.1, 1.1


def _check(a: Tensor, b: Tensor) -> None:
    """a and b: floating tensors of one shape (their dtype is followed), entries finite and > 0."""
    for name, x in (("a", a), ("b", b)):
        _checks.tensor(name, x)
        if not x.is_floating_point():
            raise TypeError(f"{name} must be a floating-point tensor (Kumaraswamy shapes), got {x.dtype}")
        if not (torch.isfinite(x).all() and (x > 0).all()):
            raise ValueError(f"{name} must be finite and > 0 (Kumaraswamy shapes)")
    _checks.same_shape("HardKuma", "a", a, "b", b)


def kuma_cdf(k: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """F_K(k) = 1 − (1 − k^a)^b for k in [0, 1] (k outside is clamped: F is 0 below, 1 above)."""
    _check(a, b)
    k = _checks.real_tensor("k", k)
    return 1 - (1 - k.clamp(0, 1) ** a) ** b


def sample(a: Tensor, b: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """One HardKuma sample per entry of a, b (same shape), differentiable in a and b; ``generator``
    (a CPU ``torch.Generator``) draws the uniforms, torch's global one when None."""
    _check(a, b)
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {type(generator).__name__}")
    u = torch.rand(a.shape, generator=generator, dtype=a.dtype, device="cpu").to(a.device)
    u = u.clamp(1e-6, 1 - 1e-6)
    k = (1 - (1 - u) ** (1 / b)) ** (1 / a)
    return (LOW + (HIGH - LOW) * k).clamp(0, 1)


def prob_zero(a: Tensor, b: Tensor) -> Tensor:
    """P(Z = 0) = F_K(−l / (r − l))."""
    _check(a, b)
    return kuma_cdf(torch.full_like(a, -LOW / (HIGH - LOW)), a, b)


def prob_one(a: Tensor, b: Tensor) -> Tensor:
    """P(Z = 1) = 1 − F_K((1 − l) / (r − l))."""
    _check(a, b)
    return 1 - kuma_cdf(torch.full_like(a, (1 - LOW) / (HIGH - LOW)), a, b)
