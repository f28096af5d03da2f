"""Post-hoc concept bottleneck models, PCBM and PCBM-h (lesson 12; Yuksekgonul, Wang and Zou, "Post-hoc
Concept Bottleneck Models", ICLR 2023): a trained network, left frozen, made into a concept bottleneck
model by fitting only linear maps on its features.

    φ(x) ∈ ℝ^d      the frozen network's features: what its h reads into its last linear layer
    concept bank    one concept activation vector w_j ∈ ℝ^d and offset β_j per concept, a linear probe on φ:
                    w_j, β_j = argmin_{w,β} (1/n) Σ_i ℓ_j(wᵀφ(x_i) + β, c_ij) + (μ/2)‖w‖²
                    (ℓ_j of ``losses``: logistic regression for a binary concept, ridge for a real one)
    bottleneck      b_j(x) = w_jᵀφ(x) + β_j  (a logit, or the concept's predicted value)
    head            g(b) = vᵀb + v₀,
                    v, v₀ = argmin (1/n) Σ_i ℓ(g(b_i), y_i) + λ/(N_c K) (α‖v‖₁ + (1 − α)‖v‖²)
    PCBM-h          f̂(x) = g(b(x)) + rᵀφ(x) + r₀ with g fixed,
                    r, r₀ = argmin (1/n) Σ_i ℓ(g(b_i) + rᵀφ(x_i) + r₀, y_i) + (μ/2)‖r‖²

with ℓ the task loss of ``losses``, N_c = k concepts and K = 1 output. The paper projects onto the bank,
f_C^(j)(x) = ⟨φ(x), w_j⟩/‖w_j‖², and its authors' code uses the signed distance (⟨φ(x), w_j⟩ + β_j)/‖w_j‖;
both are per-concept affine maps of b_j, so a linear head on any of them is the same family of models
(only the penalty's weighting differs). b_j is used here because it is on the scale of c_j, as leakage's
scrambling needs. The paper's concept vectors come from linear SVMs on examples with and without the
concept; a logistic probe's normal vector plays that part here. Solved in float64: the probes and r by
Newton's method, the head by FISTA (accelerated proximal gradient, soft-thresholding for the ℓ₁ term).
"""

from __future__ import annotations

import copy
import math

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.cbm._common import check_targets, module_input
from xai_tf.cbm.data import TASKS, ConceptData, check_data
from xai_tf.cbm.models import ConceptBottleneck


def _body(h: nn.Module) -> nn.Sequential:
    """h without its last layer, for h an ``nn.Sequential`` ending in a Linear layer."""
    if not (isinstance(h, nn.Sequential) and len(h) > 1 and isinstance(h[-1], nn.Linear)):
        raise ValueError(
            "model.h must be an nn.Sequential of layers ending in a Linear one (its features' map)"
        )
    return nn.Sequential(*list(h)[:-1])


def features(model: ConceptBottleneck, x: Tensor) -> Tensor:
    """φ(x) [n, d]: what ``model.h`` (an ``nn.Sequential`` ending in a Linear layer) reads into its last
    layer, without gradients."""
    if not isinstance(model, ConceptBottleneck):
        raise TypeError(f"model must be a ConceptBottleneck, got {type(model).__name__}")
    body = _body(model.h)
    with torch.no_grad():
        return body(module_input("h", model.h, x))


def _design(name: str, X: object, t: object, task: str) -> tuple[Tensor, Tensor]:
    """X [n, d] and t [n] in float64, rows paired, t 0/1 for a binary task."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    X = _checks.real_tensor(name, X, dims=2)
    t = check_targets("target", t, task)
    _checks.same_length("a linear fit", f"rows of {name}", X, "targets", t)
    return X.double(), t.double()


def _loss_terms(z: Tensor, t: Tensor, task: str) -> tuple[Tensor, Tensor, Tensor]:
    """ℓ(z, t), ∂ℓ/∂z and ∂²ℓ/∂z² per example: (z − t)², or −log σ(z)^t (1 − σ(z))^(1−t)."""
    if task == "regression":
        return (z - t).square(), 2 * (z - t), torch.full_like(z, 2.0)
    p = z.sigmoid()
    return nn.functional.binary_cross_entropy_with_logits(z, t, reduction="none"), p - t, p * (1 - p)


def linear_probe(
    X: Tensor, t: Tensor, task: str, mu: float = 1e-3, offset: Tensor | None = None
) -> tuple[Tensor, float]:
    """w, β = argmin (1/n) Σ_i ℓ(wᵀX_i + β + o_i, t_i) + (μ/2)‖w‖² (ℓ: squared error for "regression",
    logistic loss for "binary"; o = ``offset``, zero by default) by Newton's method with backtracking.
    Returns w [d] (float64) and β."""
    X, t = _design("X", X, t, task)
    mu = _checks.positive("mu", mu)
    o = torch.zeros_like(t) if offset is None else _checks.real_tensor("offset", offset, dims=1).double()
    _checks.same_length("a linear fit", "offset", o, "targets", t)
    n, d = X.shape
    X1 = torch.cat([X, X.new_ones(n, 1)], 1)
    ridge = torch.cat([X.new_full((d,), mu), X.new_zeros(1)])

    def objective(theta: Tensor) -> Tensor:
        return _loss_terms(X1 @ theta + o, t, task)[0].mean() + 0.5 * (ridge * theta.square()).sum()

    theta = X.new_zeros(d + 1)
    for _ in range(100):
        _, dz, d2z = _loss_terms(X1 @ theta + o, t, task)
        grad = X1.T @ dz / n + ridge * theta
        if grad.abs().max() < 1e-11:
            break
        hess = (X1.T * d2z) @ X1 / n + torch.diag(ridge + 1e-12)
        step, before, s = torch.linalg.solve(hess, grad), objective(theta), 1.0
        while objective(theta - s * step) > before - 1e-4 * s * (grad @ step) and s > 1e-10:
            s /= 2
        theta = theta - s * step
    return theta[:d], float(theta[d])


def _soft_threshold(v: Tensor, tau: Tensor) -> Tensor:
    """prox of Σ_j τ_j |v_j|: sign(v_j) max(|v_j| − τ_j, 0)."""
    return v.sign() * (v.abs() - tau).clamp(min=0)


def elastic_net(
    X: Tensor, y: Tensor, task: str, lam: float = 0.01, alpha: float = 0.99, max_iter: int = 20000
) -> tuple[Tensor, float]:
    """v, v₀ = argmin (1/n) Σ_i ℓ(vᵀX_i + v₀, y_i) + λ/N_c (α‖v‖₁ + (1 − α)‖v‖²) (the module docstring's
    head; N_c = X's columns) by FISTA with adaptive restart, from zero, until no weight moves by 1e-10.
    It runs on standardised columns X̃_j = (X_j − m_j)/s_j, whose weights ṽ_j = s_j v_j carry the same
    penalty written as λ/N_c (α|ṽ_j|/s_j + (1 − α)ṽ_j²/s_j²): the same minimiser, better conditioned.
    Returns v [N_c] (float64, exact zeros where the ℓ₁ term wins) and v₀."""
    X, y = _design("X", X, y, task)
    lam, alpha = _checks.at_least("lam", lam, 0), _checks.real("alpha", alpha, 0, 1)
    max_iter = _checks.integer("max_iter", max_iter, 1)
    n, k = X.shape
    m, s = X.mean(0), X.std(0, correction=0).clamp(min=1e-12)
    X1 = torch.cat([(X - m) / s, X.new_ones(n, 1)], 1)
    l1 = torch.cat([lam * alpha / k / s, X.new_zeros(1)])
    l2 = torch.cat([lam * (1 - alpha) / k / s.square(), X.new_zeros(1)])
    curvature = 2.0 if task == "regression" else 0.25  # the largest ∂²ℓ/∂z²
    step = 1 / (curvature * float(torch.linalg.eigvalsh(X1.T @ X1 / n)[-1]) + 2 * float(l2.max()))
    theta = momentum = X.new_zeros(k + 1)
    a = 1.0
    for _ in range(max_iter):
        grad = X1.T @ _loss_terms(X1 @ momentum, y, task)[1] / n + 2 * l2 * momentum
        new = _soft_threshold(momentum - step * grad, step * l1)
        if float((momentum - new) @ (new - theta)) > 0:  # restart: the momentum points uphill
            a = 1.0
        a_next = (1 + math.sqrt(1 + 4 * a * a)) / 2
        done = float((new - theta).abs().max()) < 1e-10
        momentum, theta, a = new + ((a - 1) / a_next) * (new - theta), new, a_next
        if done:
            break
    v = theta[:k] / s
    return v, float(theta[k] - m @ v)


def posthoc_cbm(
    standard: ConceptBottleneck, train: ConceptData, lam: float = 0.01, alpha: float = 0.99, mu: float = 1e-3
) -> ConceptBottleneck:
    """The PCBM of the module docstring on ``standard``'s frozen features: a ConceptBottleneck (mode
    "post-hoc", g reads b) whose h is a copy of ``standard.h`` up to its last layer followed by the
    concept bank, and whose g is the elastic-net head."""
    if not isinstance(standard, ConceptBottleneck):
        raise TypeError(f"standard must be a ConceptBottleneck, got {type(standard).__name__}")
    train = check_data("train", train, standard.k)
    phi = features(standard, train.x)
    bank = [
        linear_probe(phi, train.c[:, j], "binary" if train.binary[j] else "regression", mu)
        for j in range(train.k)
    ]
    p = next(standard.h.parameters())
    layer = nn.Linear(phi.size(1), train.k, dtype=p.dtype, device=p.device)
    head = nn.Linear(train.k, 1, dtype=p.dtype, device=p.device)
    with torch.no_grad():
        layer.weight.copy_(torch.stack([w for w, _ in bank]))
        layer.bias.copy_(torch.tensor([beta for _, beta in bank], device=p.device))
        b = layer(phi)
        v, v0 = elastic_net(b, train.y, train.task, lam, alpha)
        head.weight.copy_(v.unsqueeze(0))
        head.bias.fill_(v0)
    h = nn.Sequential(*copy.deepcopy(_body(standard.h)), layer)
    model = ConceptBottleneck(h, head, train.binary, "logit", "post-hoc").eval()
    return model.requires_grad_(False)


class PosthocHybrid(nn.Module):
    """PCBM-h: f̂(x) = g(b(x)) + rᵀφ(x) + r₀, the PCBM's output plus a linear residual on its features."""

    def __init__(self, pcbm: ConceptBottleneck, residual: nn.Linear):
        super().__init__()
        self.pcbm, self.residual = pcbm, residual

    def forward(self, x: Tensor) -> Tensor:
        return self.pcbm(x) + self.residual(features(self.pcbm, x)).squeeze(-1)


def hybrid(pcbm: ConceptBottleneck, train: ConceptData, mu: float = 1e-3) -> PosthocHybrid:
    """PCBM-h of the module docstring: r fitted on ``train`` with the PCBM ``pcbm`` (g and the bank) fixed."""
    if not (isinstance(pcbm, ConceptBottleneck) and pcbm.mode == "post-hoc"):
        raise TypeError(
            f"pcbm must be a post-hoc ConceptBottleneck from posthoc_cbm, got {type(pcbm).__name__}"
        )
    train = check_data("train", train, pcbm.k)
    phi = features(pcbm, train.x)
    with torch.no_grad():
        r, r0 = linear_probe(phi, train.y, train.task, mu, offset=pcbm(train.x))
    p = next(pcbm.parameters())
    residual = nn.Linear(phi.size(1), 1, dtype=p.dtype, device=p.device).requires_grad_(False)
    residual.weight.copy_(r.unsqueeze(0))
    residual.bias.fill_(r0)
    return PosthocHybrid(pcbm, residual).eval()
