"""Probes (lesson 19): a small classifier g fitted on frozen representations h to predict a label y.

Linear probe: multinomial logistic regression on the standardised states z = (h − μ) / σ (μ, σ of the
probe's training tokens), p(y | h) = softmax(W z + b), fitted by L-BFGS to

    min_{W, b}  C Σ_i −log p(y_i | h_i) + λ_K ‖W‖²,   λ_K = ½ for K ≥ 3 classes, 1 for K = 2,

the objective of scikit-learn's ``LogisticRegression(C=C)`` (tested against its coefficients and
probabilities). For two classes scikit-learn fits one vector w = W_1 − W_0 with ½ ‖w‖²; the softmax's
minimum has W_0 = −W_1 = w / 2, where ‖W‖² = ½ ‖w‖², so λ_2 = 1 (½ would fit scikit-learn's 2C).

MLP probe (Hewitt & Liang 2019's MLP-1): p(y | h) = softmax(W_2 ReLU(W_1 z + b_1) + b_2), trained by
Adam on the full batch with no regularisation: enough capacity to memorise. Accuracy is the share of
test tokens whose most probable label is the true one; the majority baseline predicts the most common
training label.

Every function takes one problem, ``h [N, d]`` with ``y [N]``, or a stack of B independent problems,
``h [B, N, d]`` with ``y [B, N]`` (e.g. every layer, task and control): the stack is fitted at once
(batched matrix products), each problem with its own weights. The summed objective of independent
convex problems has the joint minimum, so a stack fits what B separate fits would.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread

PROBES = ("linear", "mlp")


@dataclass
class Probe:
    """Fitted probes: ``probe(h)`` gives log p(y | h) ``[B, N, K]`` (float64) for states ``[B, N, d]``
    (``[N, K]`` for ``[N, d]``); ``layers`` are the weights of each linear map, ``(W [B, d_in, d_out],
    b [B, 1, d_out])``, with a ReLU between two of them."""

    mu: Tensor
    sigma: Tensor
    layers: list[tuple[Tensor, Tensor]]

    def __call__(self, h: Tensor) -> Tensor:
        single = h.dim() == 2
        x = ((h if not single else h[None]) - self.mu) / self.sigma
        x = x.float()
        with torch.no_grad():
            for i, (W, b) in enumerate(self.layers):
                x = torch.baddbmm(b, x, W)
                x = x.relu() if i < len(self.layers) - 1 else x
        out = F.log_softmax(x.double(), -1)
        return out[0] if single else out


def check_probe_data(h: object, y: object, n_classes: int | None = None) -> tuple[Tensor, Tensor, int]:
    """``(h [B, N, d], y [B, N] long, K)`` from one problem or a stack, or a ValueError naming what is
    wrong: labels of another length than the states, one class only, a label outside 0..K − 1, NaN."""
    h = _checks.real_tensor("h", h)
    if h.dim() not in (2, 3) or h.size(-1) == 0:
        raise ValueError(f"h must be [N, d] (d ≥ 1) or a stack [B, N, d], got shape {tuple(h.shape)}")
    h = h[None] if h.dim() == 2 else h
    y = _checks.tensor("y", y)
    if y.dtype.is_floating_point or y.dtype == torch.bool or y.dim() not in (1, 2):
        raise TypeError(
            f"y must be an integer tensor of labels [N] or [B, N], got {y.dtype} {tuple(y.shape)}"
        )
    y = y.expand(h.size(0), -1) if y.dim() == 1 else y
    if y.shape != h.shape[:2]:
        raise ValueError(
            f"y has labels of shape {tuple(y.shape)} but h has states {tuple(h.shape[:2])}: one label each"
        )
    K = int(y.max()) + 1 if n_classes is None else _checks.integer("n_classes", n_classes, 2, 100_000)
    if int(y.min()) < 0 or int(y.max()) >= K:
        raise ValueError(f"y must hold labels in 0..{K - 1}, got {int(y.min())}..{int(y.max())}")
    if any(row.unique().numel() < 2 for row in y):
        raise ValueError("y has one class only: a probe needs at least two")
    return h, y.to(h.device), max(K, 2)


def _standardise(h: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """μ, σ of the training states (per problem) and z = (h − μ) / σ in float32."""
    mu, sigma = h.mean(1, keepdim=True), h.std(1, unbiased=False, keepdim=True).clamp_min(1e-6)
    return mu, sigma, ((h - mu) / sigma).float()


def fit_linear(
    h: Tensor, y: Tensor, n_classes: int | None = None, C: float = 1.0, max_iter: int = 100
) -> Probe:
    """The linear probe above, fitted in float32 by L-BFGS (at most ``max_iter`` iterations)."""
    h, y, K = check_probe_data(h, y, n_classes)
    C = _checks.positive("C", C)
    _checks.integer("max_iter", max_iter, 1)
    mu, sigma, z = _standardise(h)
    W = torch.zeros(z.size(0), z.size(2), K, device=z.device, requires_grad=True)
    b = torch.zeros(z.size(0), 1, K, device=z.device, requires_grad=True)
    opt = torch.optim.LBFGS([W, b], max_iter=max_iter, line_search_fn="strong_wolfe", tolerance_grad=1e-6)

    lam = 1.0 if K == 2 else 0.5  # λ_K above

    def loss() -> Tensor:
        opt.zero_grad()
        logits = torch.baddbmm(b, z, W)
        value = C * F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum") + lam * W.pow(2).sum()
        value.backward()
        return value

    with one_thread():
        opt.step(loss)
    return Probe(mu, sigma, [(W.detach(), b.detach())])


def fit_mlp(
    h: Tensor,
    y: Tensor,
    n_classes: int | None = None,
    hidden: int = 128,
    steps: int = 150,
    seed: int = 0,
    holdout: float = 0.0,
) -> Probe:
    """The MLP probe above (``hidden`` units, ``steps`` full-batch Adam steps at lr 3·10⁻³; PyTorch's
    default initialisation of ``nn.Linear``, seeded). ``holdout`` > 0 stops early, as Voita & Titov (2020)
    train their MDL probes: the last ⌈holdout·N⌉ examples (at least one) are held out, the probe trains on
    the others, and each problem keeps its weights of the step with the lowest held-out cross-entropy (the
    initial weights included). Fewer than 10 examples hold nothing out."""
    h, y, K = check_probe_data(h, y, n_classes)
    hidden = _checks.integer("hidden", hidden, 1)
    _checks.integer("steps", steps, 1, 100_000)
    _checks.real("holdout", holdout, 0.0, 0.5)
    B, N, d = h.shape
    # float32 weights with their gradients and Adam's two moments, and the hidden activations with theirs
    n_bytes = 4 * (4 * B * (d + 1 + K + 1) * hidden + 2 * B * N * hidden)
    _checks.fits(f"an MLP probe of hidden = {hidden}", n_bytes, "choose a smaller hidden", h.device)
    n_out = max(1, math.ceil(holdout * y.size(1))) if holdout > 0 and y.size(1) >= 10 else 0
    h, y, h_out, y_out = (
        h[:, : y.size(1) - n_out],
        y[:, : y.size(1) - n_out],
        h[:, y.size(1) - n_out :],
        y[:, y.size(1) - n_out :],
    )
    mu, sigma, z = _standardise(h)
    B, d = z.size(0), z.size(2)
    g = seeds.generator(seed)

    def init(d_in: int, d_out: int) -> tuple[Tensor, Tensor]:
        bound = d_in**-0.5  # nn.Linear's U(−1/√d_in, 1/√d_in)
        W = (torch.rand(B, d_in, d_out, generator=g) * 2 - 1) * bound
        b = (torch.rand(B, 1, d_out, generator=g) * 2 - 1) * bound
        return W.to(z.device).requires_grad_(), b.to(z.device).requires_grad_()

    layers = [init(d, hidden), init(hidden, K)]
    params = [p for pair in layers for p in pair]
    opt = torch.optim.Adam(params, lr=3e-3)
    probe = Probe(mu, sigma, [(W.detach(), b.detach()) for W, b in layers])  # shares the trained tensors
    best = _held_out_loss(probe, h_out, y_out), [p.detach().clone() for p in params]
    with one_thread():
        for _ in range(steps):
            opt.zero_grad()
            x = torch.baddbmm(layers[0][1], z, layers[0][0]).relu()
            logits = torch.baddbmm(layers[1][1], x, layers[1][0])
            F.cross_entropy(logits.flatten(0, 1), y.flatten(), reduction="sum").div(y.size(1)).backward()
            opt.step()
            if n_out:
                loss = _held_out_loss(probe, h_out, y_out)
                better = loss < best[0]
                best = (
                    torch.where(better, loss, best[0]),
                    [
                        torch.where(better.view(-1, *[1] * (p.dim() - 1)), p.detach(), kept)
                        for p, kept in zip(params, best[1], strict=True)
                    ],
                )
    if not n_out:
        return probe
    return Probe(mu, sigma, [(best[1][0], best[1][1]), (best[1][2], best[1][3])])


def _held_out_loss(probe: Probe, h: Tensor, y: Tensor) -> Tensor:
    """Mean cross-entropy ``[B]`` of ``probe`` on held-out states ``[B, n, d]`` (zeros where n = 0)."""
    if y.size(1) == 0:
        return torch.zeros(y.size(0), dtype=torch.float64, device=y.device)
    return -probe(h).gather(2, y[..., None])[..., 0].mean(1)


def fit_probe(kind: str, h: Tensor, y: Tensor, n_classes: int | None = None, seed: int = 0) -> Probe:
    """``fit_linear`` or ``fit_mlp`` by name ("linear", "mlp")."""
    if kind not in PROBES:
        raise ValueError(f"kind must be one of {PROBES}, got {kind!r}")
    seed = _checks.integer("seed", seed, 0)  # checked for both kinds (the linear fit does not draw)
    return fit_linear(h, y, n_classes) if kind == "linear" else fit_mlp(h, y, n_classes, seed=seed)


def accuracy(probe: Probe, h: Tensor, y: Tensor) -> Tensor:
    """Share of tokens whose most probable label is the true label: a 0-d tensor for one problem, ``[B]``
    for a stack."""
    if not isinstance(probe, Probe):
        raise TypeError(f"probe must be a Probe (fit_linear, fit_mlp), got {type(probe).__name__}")
    h = _checks.real_tensor("h", h)
    if h.dim() < 2 or h.shape[-1] != probe.mu.shape[-1]:
        raise ValueError(
            f"h must be states [N, d] with d = {probe.mu.shape[-1]} (the probe's), got {tuple(h.shape)}"
        )
    if not isinstance(y, Tensor) or y.shape[-1:] != h.shape[-2:-1]:
        raise ValueError(f"y must be a tensor of {h.size(-2)} labels per problem, one per state of h")
    K = probe.layers[-1][0].shape[-1]
    if y.is_floating_point() or (y.numel() and not 0 <= int(y.min()) <= int(y.max()) < K):
        raise ValueError(f"y must hold integer labels in 0..{K - 1} (the probe's classes)")
    return (probe(h).argmax(-1) == y.to(h.device)).double().mean(-1)


def majority_baseline(y_train: Tensor, y_test: Tensor) -> float:
    """Accuracy of always predicting the most common training label."""
    for name, t in (("y_train", y_train), ("y_test", y_test)):
        if _checks.tensor(name, t).is_floating_point() or t.is_complex() or t.dtype == torch.bool:
            raise TypeError(f"{name} must be an integer tensor of labels, got {t.dtype}")
    if y_train.numel() == 0 or y_test.numel() == 0:
        raise ValueError("y_train and y_test must each hold at least one label")
    return float((y_test == y_train.mode().values).double().mean())
