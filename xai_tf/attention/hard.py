"""Hard attention as subset selection, and the gradient estimators that train it (used by lesson 03).

Hard top-k attention keeps k of the T positions: a k-hot mask m ∈ {0, 1}^T with Σ_j m_j = k. The
stochastic version draws the subset by **perturb-and-MAP** (Papandreou & Yuille, 2011): add
independent Gumbel noise g_j to the scores θ_j and keep the k largest,

    m = top_k(θ + g),   g_j = −log(−log u_j),  u_j ~ U(0, 1),

which draws k positions one after another without replacement, each with probability ∝ exp θ_j
(the Gumbel-top-k trick, Kool, van Hoof & Welling, 2019). For an ordered draw s_1, …, s_k:

    P(s_1, …, s_k) = Π_i exp θ_{s_i} / Σ_{j ∉ {s_1..s_{i−1}}} exp θ_j.

A loss L(m) of the mask has expected value E[L] = Σ_{ordered draws} P · L, computed exactly by
enumeration for small T (``expected_loss``); its gradient ∇_θ E[L] is what the estimators
(``gradient_estimates``) approximate from single draws:

- REINFORCE (score function, Williams, 1992): (L(m) − b) ∇_θ log P(s_1..s_k), b a baseline that does
  not depend on the draw; unbiased for any such b.
- straight-through (Bengio, Léonard & Courville, 2013): the forward pass uses the hard m, the backward
  pass treats m as if it were the smooth surrogate k · softmax(θ): J_{k·softmax}(θ)ᵀ ∇_m L(m). Biased.
- Gumbel-softmax (Jang, Gu & Poole, 2017; Maddison, Mnih & Teh, 2017), for k positions the relaxed
  top-k of Xie & Ermon (2019) at temperature τ: ∇_θ L(m̃_τ(θ + g)). Biased for τ > 0 (the loss is
  evaluated at a soft mask), with a variance that grows as τ → 0.
- perturb-and-MAP's own gradient (the perturbed optimiser of Berthet et al., 2020, with Gumbel noise
  and ε = 1): L(top_k(θ + g)) ∇ν(g), ν(g) = g + e^{−g} the Gumbel's negative log-density. Unbiased,
  since θ + g has density ∝ exp(−ν(x − θ)).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks

#: The estimators ``gradient_estimates`` knows, in the lecture's order.
ESTIMATORS = ("reinforce", "straight_through", "gumbel_softmax", "perturb_and_map")

LossFn = Callable[[Tensor], Tensor]


def _theta(theta: object) -> Tensor:
    t = _checks.tensor("theta", theta)
    if t.dim() != 1 or t.numel() == 0 or not t.is_floating_point():
        raise ValueError(
            f"theta must be a 1-D float tensor with at least one score, got {t.dtype} {tuple(t.shape)}"
        )
    if not torch.isfinite(t).all():
        raise ValueError("theta must be finite")
    return t


def _k(k: object, T: int) -> int:
    return _checks.integer("k", k, 1, T)


def _loss_fn(loss: object) -> LossFn:
    if not callable(loss):
        raise TypeError(f"loss must be a function of the mask m [..., T] → [...], got {type(loss).__name__}")
    return loss


def hard_topk(theta: Tensor, k: int) -> Tensor:
    """m = top_k(θ): the k-hot mask of the k highest scores along the last dim (first on ties).
    With θ + g (Gumbel noise) in place of θ this is one perturb-and-MAP draw."""
    t = _checks.tensor("theta", theta)
    if t.dim() == 0 or t.size(-1) == 0 or not t.is_floating_point() or not torch.isfinite(t).all():
        raise ValueError(
            f"theta must be finite float scores along a last dim of size ≥ 1, got {tuple(t.shape)}"
        )
    k = _k(k, t.size(-1))
    index = t.topk(k, dim=-1).indices
    return torch.zeros_like(t).scatter_(-1, index, 1.0)


def relaxed_topk(theta: Tensor, k: int, tau: float) -> Tensor:
    """The relaxed top-k of Xie & Ermon (2019) at temperature τ along the last dim:
    a_1 = softmax(θ / τ), then a_{i+1} = softmax((θ + Σ_{l ≤ i} log(1 − a_l)) / τ), and m̃ = Σ_{i ≤ k} a_i.
    Σ_j m̃_j = k; as τ → 0, m̃ → top_k(θ). With k = 1 and θ + g it is the Gumbel-softmax."""
    t = _checks.tensor("theta", theta)
    if t.dim() == 0 or t.size(-1) == 0 or not t.is_floating_point() or not torch.isfinite(t).all():
        raise ValueError(
            f"theta must be finite float scores along a last dim of size ≥ 1, got {tuple(t.shape)}"
        )
    k, tau = _k(k, t.size(-1)), _checks.positive("tau", tau)
    keys, m = t, torch.zeros_like(t)
    for _ in range(k):
        a = torch.softmax(keys / tau, -1)
        m = m + a
        keys = keys + torch.log1p(-a.clamp(max=1 - 1e-12))
    return m


def _ordered_draws(T: int, k: int) -> Tensor:
    return torch.tensor(list(itertools.permutations(range(T), k)), dtype=torch.long)


def _masks(draws: Tensor, T: int, like: Tensor) -> Tensor:
    return torch.zeros(draws.size(0), T, dtype=like.dtype, device=like.device).scatter_(1, draws, 1.0)


def expected_loss(theta: Tensor, k: int, loss: LossFn) -> Tensor:
    """E[L] = Σ_{ordered draws s} P(s) L(m(s)) over all T!/(T−k)! draws, exactly (T ≤ 10 keeps it
    small). Differentiable in θ: ``torch.autograd.grad`` of it is the exact gradient ∇_θ E[L]."""
    theta = _theta(theta)
    T = theta.numel()
    k, loss = _k(k, T), _loss_fn(loss)
    if math.perm(T, k) > 100_000:
        raise ValueError(f"k must keep T!/(T−k)! ≤ 100000 ordered draws to enumerate, got T = {T}, k = {k}")
    draws = _ordered_draws(T, k).to(theta.device)
    log_p = _log_prob(theta.expand(draws.size(0), T), draws)
    return (log_p.exp() * loss(_masks(draws, T, theta))).sum()


def _gumbel(shape: tuple[int, ...], generator: torch.Generator | None = None, dtype=torch.float64) -> Tensor:
    """Standard Gumbel noise g = −log(−log u), u ~ U(0, 1), on ``generator``'s device."""
    device = generator.device if generator is not None else None
    u = torch.rand(shape, generator=generator, dtype=dtype, device=device)
    tiny = torch.finfo(dtype).tiny
    return -torch.log((-torch.log(u.clamp(min=tiny))).clamp(min=tiny))


def gradient_estimates(
    theta: Tensor,
    k: int,
    loss: LossFn,
    estimator: str,
    n: int,
    generator: torch.Generator | None = None,
    tau: float = 1.0,
    baseline: float = 0.0,
) -> Tensor:
    """n independent single-draw estimates of ∇_θ E[L], shape [n, T] (the module docstring gives
    each estimator's formula). ``tau`` is the Gumbel-softmax temperature τ; ``baseline`` b is
    REINFORCE's. Every estimator draws its subsets as m = top_k(θ + g) with the same noise g for the
    same ``generator`` state, so they can be compared draw by draw."""
    theta = _theta(theta)
    T = theta.numel()
    k, loss = _k(k, T), _loss_fn(loss)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(map(repr, ESTIMATORS))}, got {estimator!r}")
    n = _checks.integer("n", n, 1, 10_000_000)
    tau, baseline = _checks.positive("tau", tau), _checks.finite("baseline", baseline)
    g = _gumbel((n, T), generator, theta.dtype).to(theta.device)
    th = theta.detach().expand(n, T).clone().requires_grad_(True)  # one θ per draw: per-draw gradients
    perturbed = th + g
    if estimator == "reinforce":
        draws = perturbed.detach().topk(k, dim=-1).indices  # in order: the sequential draw
        with torch.no_grad():
            weight = loss(_masks(draws, T, theta)) - baseline
        surrogate = (weight * _log_prob(th, draws)).sum()
    elif estimator == "straight_through":
        m_hard = hard_topk(perturbed.detach(), k)
        soft = k * torch.softmax(th, -1)
        surrogate = loss(m_hard + soft - soft.detach()).sum()
    elif estimator == "gumbel_softmax":
        surrogate = loss(relaxed_topk(perturbed, k, tau)).sum()
    else:  # perturb-and-MAP, perturbed-optimiser gradient: L(top_k(θ + g)) ∇ν(g), ∇ν(g) = 1 − e^{−g}
        with torch.no_grad():
            return loss(hard_topk(perturbed, k))[:, None] * (1 - torch.exp(-g))
    (grad,) = torch.autograd.grad(surrogate, th)
    return grad.detach()


def _log_prob(theta: Tensor, draws: Tensor) -> Tensor:
    """log P(s_1..s_k) per row: theta [n, T], draws [n, k] → [n]."""
    n, k = draws.shape
    left = torch.ones_like(theta, dtype=torch.bool)
    total = theta.new_zeros(n)
    for i in range(k):
        s = draws[:, i : i + 1]
        total = total + theta.gather(1, s)[:, 0] - theta.masked_fill(~left, -math.inf).logsumexp(-1)
        left = left.scatter(1, s, False)
    return total


def estimate_summary(G: Tensor, exact: Tensor) -> dict[str, float]:
    """How n single-draw estimates ``G`` [n, T] of a gradient ∇ (``exact`` [T]) fare, with Ḡ their
    mean and Var̂ the unbiased variance per coordinate: "bias" ‖Ḡ − ∇‖, "noise of the mean"
    √(Σ_j Var̂(G_j) / n), "max |z|" max_j |Ḡ_j − ∇_j| / √(Var̂(G_j) / n) (an unbiased estimator keeps
    every |z_j| under 4 but with probability ≈ 6e-5 per coordinate), and "variance" Σ_j Var̂(G_j) of
    one estimate."""
    G, exact = _checks.tensor("G", G), _checks.tensor("exact", exact)
    if G.dim() != 2 or G.size(0) < 2 or exact.shape != G.shape[1:]:
        raise ValueError(
            f"G must be [n ≥ 2, T] estimates and exact [T], got {tuple(G.shape)} and {tuple(exact.shape)}"
        )
    n, mean, var = G.size(0), G.mean(0), G.var(0)
    return {
        "bias": (mean - exact).norm().item(),
        "noise of the mean": (var.sum() / n).sqrt().item(),
        "max |z|": ((mean - exact).abs() / (var / n).sqrt()).max().item(),
        "variance": var.sum().item(),
    }
