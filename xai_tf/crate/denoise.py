"""The denoising view of CRATE's attention (lesson 13; the notes' "last theoretical nugget").

A token z = U_k a (k uniform over K, a ~ N(0, I_r), U_k orthonormal) is observed as x = z + σw.
Its density is q(x) = (1/K) Σ_k N(x; 0, U_kU_kᵀ + σ²I), and Tweedie's formula gives

    E[z | x] = x + σ² ∇ log q(x) = Σ_k w_k(x) U_kU_kᵀx / (1 + σ²),
    w(x) = softmax_k( ‖U_kᵀx‖² / (2σ²(1 + σ²)) ),

(using (U_kU_kᵀ + σ²I)⁻¹ = (I − U_kU_kᵀ/(1 + σ²))/σ² and equal determinants). The notes write the
step as Σ_k U_k (U_kᵀx) softmax_k(‖U_kᵀx‖²/(2σ²)) — the σ → 0 form. Each column of x is a token;
the softmax runs over the K subspaces of one token.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.crate import _common, rate


def _inputs(x: Tensor, U: Tensor, sigma: float) -> tuple[Tensor, Tensor, float]:
    x = _common.tokens("x", x)
    U = rate.bases(U, x.size(-2), orthonormal=True)
    _common.same_dtype(x, U, ("x", "U"))
    return x, U, _noise_scale(sigma)


def _noise_scale(sigma: object) -> float:
    """σ > 0 whose 2σ²(1 + σ²) is a positive finite float (σ = 1e160 overflows, σ = 1e−200 gives 0:
    the posterior's weights would be NaN)."""
    sigma = _checks.positive("sigma", sigma)
    s2 = sigma * sigma
    if s2 == 0 or not math.isfinite(2 * s2 * (1 + s2)):
        raise ValueError(
            f"sigma must keep 2σ²(1 + σ²) a positive finite number (about 1e-150..1e75), got {sigma:g}"
        )
    return sigma


def posterior_mean(x: Tensor, U: Tensor, sigma: float) -> Tensor:
    """E[z | x] = Σ_k softmax_k(‖U_kᵀx‖²/(2σ²(1+σ²))) U_kU_kᵀx/(1+σ²), for ``x [..., d, T]``."""
    x, U, sigma = _inputs(x, U, sigma)
    Z = rate.project(x, U)  # [..., K, r, T]
    w = torch.softmax((Z**2).sum(-2) / (2 * sigma**2 * (1 + sigma**2)), dim=-2)  # [..., K, T]
    return (U @ (Z * w.unsqueeze(-2))).sum(-3) / (1 + sigma**2)


def notes_step(x: Tensor, U: Tensor, sigma: float) -> Tensor:
    """The notes' attention form Σ_k U_k (U_kᵀx) softmax_k((U_kᵀx)ᵀ(U_kᵀx)/(2σ²)): no value matrix,
    no skip connection."""
    x, U, sigma = _inputs(x, U, sigma)
    Z = rate.project(x, U)
    w = torch.softmax((Z**2).sum(-2) / (2 * sigma**2), dim=-2)
    return (U @ (Z * w.unsqueeze(-2))).sum(-3)


def monte_carlo_mean(
    x: Tensor, U: Tensor, sigma: float, n: int = 100_000, seed: int = 0
) -> tuple[Tensor, Tensor]:
    """E[z | x] by self-normalised importance sampling from the prior: z_i = U_{k_i} a_i,
    weights ∝ exp(−‖x − z_i‖²/(2σ²)); returns the estimate and its standard error (delta method,
    √(Σ w_i² (z_i − μ̂)²) / Σ w_i), both ``[d, T]``, for ``x [d, T]``."""
    x, U, sigma = _inputs(x, U, sigma)
    if x.dim() != 2:
        raise ValueError(f"x must be one [d, T] matrix of tokens, got {tuple(x.shape)}")
    n = _checks.integer("n", n, 2)
    K, d, r = U.shape
    _checks.fits(f"monte_carlo_mean(n = {n})", 8 * n * (2 * d * r + 2 * d + r + 3), "choose a smaller n")
    g = seeds.generator(seed)  # draws on the CPU: the same on every device
    k = torch.randint(K, (n,), generator=g, device="cpu").to(x.device)
    a = torch.randn(n, r, 1, generator=g, dtype=x.dtype, device="cpu").to(x.device)
    z = (U[k] @ a).squeeze(-1)  # [n, d]
    means, errors = [], []
    for t in range(x.size(-1)):
        log_w = -((x[:, t] - z) ** 2).sum(-1) / (2 * sigma**2)
        w = (log_w - log_w.max()).exp()
        mu = (w @ z) / w.sum()
        means.append(mu)
        errors.append(((w**2) @ (z - mu) ** 2).sqrt() / w.sum())
    return torch.stack(means, -1), torch.stack(errors, -1)


def denoising_errors(U: Tensor, sigma: float, T: int = 64, seed: int = 0) -> dict[str, float]:
    """On T tokens x = z + σw drawn from the mixture: relative errors ‖f(x) − E[z|x]‖/‖E[z|x]‖ of
    the notes' step and of the identity (no denoising), and the mean-squared error to the clean z
    of E[z|x], of the notes' step and of x itself (no denoising; σ² in expectation), per token and
    coordinate."""
    from xai_tf.crate import mixture

    x, z, _ = mixture.sample_tokens(U, T, _noise_scale(sigma), seed)
    exact, notes = posterior_mean(x, U, sigma), notes_step(x, U, sigma)
    size = math.sqrt(exact.numel())

    def rel(a: Tensor) -> float:
        return float(torch.linalg.vector_norm(a - exact) / torch.linalg.vector_norm(exact))

    return {
        "notes": rel(notes),
        "identity": rel(x),
        "mse_exact": float(torch.linalg.vector_norm(exact - z) / size) ** 2,
        "mse_notes": float(torch.linalg.vector_norm(notes - z) / size) ** 2,
        "mse_identity": float(torch.linalg.vector_norm(x - z) / size) ** 2,
    }
