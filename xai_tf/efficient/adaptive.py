"""Adaptively sparse attention (lesson 14): α-entmax with α learned per head. Correia, Niculae &
Martins (2019), *Adaptively Sparse Transformers*.

p = α-entmax(z), p_j = [(α−1) z_j − τ]_+^{1/(α−1)} (``xai_tf.attention.entmax``). Its derivative in
α, on the support (0 elsewhere), with h_j = −p_j log p_j and p̃_j = p_j^{2−α} / Σ_k p_k^{2−α}:

    ∂p_j/∂α = (p_j − p̃_j) / (α−1)²  +  (h_j − p̃_j Σ_k h_k) / (α−1).

(Differentiate p_j = u_j^{1/(α−1)}, u_j = (α−1) z_j − τ(α), and fix τ′(α) by Σ_j ∂p_j/∂α = 0.)
``entmax_heads`` applies one α per head with this gradient, so α trains like any weight; the
model keeps α = 1 + sigmoid(a) in (1, 2) as the paper does. ``alpha_task`` is a toy where head h
must reproduce a target weighting of scores (hard argmax, sparsemax, softmax): each head settles at
its own α.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.attention import entmax, sparsemax
from xai_tf.training import TrainOptions, fit, fixed_batch_size

OPTIONS = TrainOptions(steps=200, lr=0.05, batch_size=64)  # train_alpha_heads' defaults


def _alpha(alpha: object) -> Tensor:
    if not isinstance(alpha, Tensor):
        alpha = torch.tensor(
            [_checks.real("alpha", alpha, 1, float("inf"), open_lo=True, open_hi=True)], device="cpu"
        )
    if not alpha.is_floating_point() or alpha.dim() > 1 or alpha.numel() == 0:
        raise TypeError(f"alpha must be a float or a 1-d float tensor of one α per head, got {alpha!r}")
    bad = ~(torch.isfinite(alpha) & (alpha > 1))
    if bad.any():
        raise ValueError(f"alpha must be > 1 and finite for every head, got {alpha[bad][0].item():g}")
    return alpha


def entmax_alpha_grad(p: Tensor, alpha: float) -> Tensor:
    """∂p/∂α along the last dim at the output p = α-entmax(z) (formula in the module docstring)."""
    alpha = _checks.real("alpha", alpha, 1, float("inf"), open_lo=True, open_hi=True)
    if not isinstance(p, Tensor) or not p.is_floating_point():
        raise TypeError(f"p must be a floating-point tensor of probabilities, got {type(p).__name__}")
    if p.numel() == 0 or not ((p >= 0).all() and torch.allclose(p.sum(-1), p.new_ones(()), atol=1e-4)):
        raise ValueError("p must hold probabilities: entries ≥ 0 that sum to 1 along the last dim")
    on = p > 0
    s = torch.where(on, p.clamp(min=1e-300).pow(2 - alpha), torch.zeros_like(p))
    p_tilde = s / s.sum(-1, keepdim=True)
    h = torch.where(on, -p * p.clamp(min=1e-300).log(), torch.zeros_like(p))
    grad = (p - p_tilde) / (alpha - 1) ** 2 + (h - p_tilde * h.sum(-1, keepdim=True)) / (alpha - 1)
    return torch.where(on, grad, torch.zeros_like(p))


class _EntmaxHeads(torch.autograd.Function):
    @staticmethod
    def forward(ctx, z: Tensor, alpha: Tensor) -> Tensor:
        p = torch.stack([entmax(z.select(-3, h), float(a)) for h, a in enumerate(alpha.tolist())], -3)
        ctx.save_for_backward(p, alpha)
        return p

    @staticmethod
    def backward(ctx, grad: Tensor) -> tuple[Tensor, Tensor]:
        p, alpha = ctx.saved_tensors
        a = alpha.to(p).view(-1, 1, 1)
        s = torch.where(p > 0, p.clamp(min=1e-300).pow(2 - a), torch.zeros_like(p))  # J = diag(s) − s sᵀ/Σs
        total = s.sum(-1, keepdim=True)
        grad_z = s * (grad - (s * grad).sum(-1, keepdim=True) / total.masked_fill(total == 0, 1))
        d_alpha = torch.stack(
            [entmax_alpha_grad(p.select(-3, h), float(x)) for h, x in enumerate(alpha.tolist())], -3
        )
        grad_alpha = (grad * d_alpha).sum(-1).sum(-1)  # [..., H]
        return grad_z, grad_alpha.reshape(-1, alpha.numel()).sum(0).to(alpha)


def entmax_heads(z: Tensor, alpha: Tensor) -> Tensor:
    """α_h-entmax of scores ``z [..., H, n, T]`` along the last dim, one α_h > 1 per head
    (``alpha [H]``), differentiable in z and in α."""
    if not isinstance(z, Tensor) or not z.is_floating_point() or z.dim() < 3:
        raise TypeError(
            f"z must be a float tensor [..., heads, n, T], got {getattr(z, 'shape', type(z).__name__)}"
        )
    if not torch.isfinite(z).all():
        raise ValueError("z has NaN or inf scores")
    alpha = _alpha(alpha)
    if alpha.numel() != z.size(-3):
        raise ValueError(f"alpha has {alpha.numel()} values but z has {z.size(-3)} heads: one α per head")
    return _EntmaxHeads.apply(z, alpha)


TARGETS = ("argmax", "sparsemax", "softmax")


def alpha_task(batch: int, T: int = 12, seed: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """Scores s ``[batch, T]`` ~ N(0, 1), values v ``[batch, T]`` and targets ``[batch, 3]``: the values
    weighted by one-hot argmax(s), sparsemax(s) and softmax(s) (one target per head)."""
    batch, T = _checks.integer("batch", batch, 1, 100_000), _checks.integer("T", T, 2, 4096)
    _checks.fits(f"alpha_task's {batch} × {T} scores", 4 * 8 * batch * T, "choose a smaller batch or T")
    g = seeds.generator(seed)
    s, v = torch.randn(batch, T, generator=g), torch.randn(batch, T, generator=g)
    hard = torch.nn.functional.one_hot(s.argmax(-1), T).float()
    weights = torch.stack([hard, sparsemax(s), s.softmax(-1)], 1)  # [batch, 3, T]
    return s, v, (weights * v[:, None]).sum(-1)


class AlphaHeads(nn.Module):
    """Three heads reading the same scores s: p_h = α_h-entmax(w_h s), α_h = 1 + sigmoid(a_h),
    output_h = Σ_j p_hj v_j. Starts at α = 1.5 and w = 1 for every head."""

    def __init__(self, heads: int = 3):
        super().__init__()
        self.a = nn.Parameter(torch.zeros(heads))
        self.log_w = nn.Parameter(torch.zeros(heads))

    @property
    def alpha(self) -> Tensor:
        return 1 + torch.sigmoid(self.a)

    def weights(self, s: Tensor) -> Tensor:
        z = s[:, None, None, :] * self.log_w.exp()[:, None, None]  # [batch, H, 1, T]
        return entmax_heads(z, self.alpha)[:, :, 0]

    def forward(self, s: Tensor, v: Tensor) -> Tensor:
        return (self.weights(s) * v[:, None]).sum(-1)


def train_alpha_heads(options: TrainOptions = OPTIONS) -> tuple[AlphaHeads, list[float]]:
    """Fit ``AlphaHeads`` to ``alpha_task`` by mean squared error (fresh seeded batches of
    ``options.batch_size`` each step, Adam; ``OPTIONS`` by default)."""
    batch, seed = fixed_batch_size(options), options.seed
    with seeds.seeded(seed):
        model = AlphaHeads(len(TARGETS))

    def loss(k: int) -> Tensor:
        s, v, y = alpha_task(batch, seed=seed * 100_003 + k)
        return ((model(s, v) - y) ** 2).mean()

    with one_thread():
        return model, fit(model.parameters(), loss, options)
