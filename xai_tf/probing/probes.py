"""Probes (lesson 19): a small classifier g fitted on frozen representations h to predict a label y.

Linear probe: multinomial logistic regression on the standardised states z = (h − μ) / σ (μ, σ of the
probe's training tokens), p(y | h) = softmax(W z + b), fitted by L-BFGS to

    min_{W, b}  C Σ_i −log p(y_i | h_i) + ½ ‖W‖²,

the objective of scikit-learn's ``LogisticRegression(C=C)`` (tested against it). MLP probe (Hewitt &
Liang 2019's MLP-1): p(y | h) = softmax(W_2 ReLU(W_1 z + b_1) + b_2), trained by Adam on the full
batch with no regularisation: enough capacity to memorise. Accuracy is the share of test tokens whose
most probable label is the true one; the majority baseline predicts the most common training label.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread

PROBES = ("linear", "mlp")


@dataclass
class Probe:
    """A fitted probe: ``probe(h)`` gives log p(y | h) ``[N, K]`` (float64)."""

    mu: Tensor
    sigma: Tensor
    net: Callable[[Tensor], Tensor]

    def __call__(self, h: Tensor) -> Tensor:
        with torch.no_grad():
            return F.log_softmax(self.net(((h - self.mu) / self.sigma).float()).double(), -1)


def check_probe_data(h: object, y: object, n_classes: int | None = None) -> tuple[Tensor, Tensor, int]:
    """``(h [N, d] float, y [N] long, K)``, or a ValueError naming what is wrong: labels of another
    length than the states, one class only, a label outside 0..K − 1, NaN states."""
    h = _checks.real_tensor("h", h, dims=2)
    y = _checks.tensor("y", y)
    if y.dim() != 1 or y.dtype.is_floating_point or y.dtype == torch.bool:
        raise TypeError(f"y must be a 1-d integer tensor of labels, got {y.dtype} of shape {tuple(y.shape)}")
    if y.numel() != h.size(0):
        raise ValueError(f"y has {y.numel()} labels but h has {h.size(0)} states: one label per state")
    K = int(y.max()) + 1 if n_classes is None else _checks.integer("n_classes", n_classes, 2)
    if int(y.min()) < 0 or int(y.max()) >= K:
        raise ValueError(f"y must hold labels in 0..{K - 1}, got {int(y.min())}..{int(y.max())}")
    if y.unique().numel() < 2:
        raise ValueError(f"y has one class only ({int(y[0])}): a probe needs at least two")
    return h, y.to(h.device), max(K, 2)


def _standardise(h: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """μ, σ of the training states and z = (h − μ) / σ in float32."""
    mu, sigma = h.mean(0), h.std(0, unbiased=False).clamp_min(1e-6)
    return mu, sigma, ((h - mu) / sigma).float()


def fit_linear(
    h: Tensor, y: Tensor, n_classes: int | None = None, C: float = 1.0, max_iter: int = 100
) -> Probe:
    """The linear probe above, fitted in float32 by L-BFGS (at most ``max_iter`` iterations)."""
    h, y, K = check_probe_data(h, y, n_classes)
    C = _checks.positive("C", C)
    _checks.integer("max_iter", max_iter, 1)
    mu, sigma, z = _standardise(h)
    net = nn.Linear(z.size(1), K, device=z.device)
    nn.init.zeros_(net.weight), nn.init.zeros_(net.bias)
    opt = torch.optim.LBFGS(
        net.parameters(), max_iter=max_iter, line_search_fn="strong_wolfe", tolerance_grad=1e-6
    )

    def loss() -> Tensor:
        opt.zero_grad()
        value = C * F.cross_entropy(net(z), y, reduction="sum") + 0.5 * net.weight.pow(2).sum()
        value.backward()
        return value

    with one_thread():
        opt.step(loss)
    return Probe(mu, sigma, net.requires_grad_(False))


def fit_mlp(
    h: Tensor, y: Tensor, n_classes: int | None = None, hidden: int = 128, steps: int = 150, seed: int = 0
) -> Probe:
    """The MLP probe above (``hidden`` units, ``steps`` full-batch Adam steps at lr 3·10⁻³)."""
    h, y, K = check_probe_data(h, y, n_classes)
    _checks.integer("hidden", hidden, 1)
    _checks.integer("steps", steps, 1)
    mu, sigma, z = _standardise(h)
    with seeds.seeded(seed), one_thread():
        net = nn.Sequential(nn.Linear(z.size(1), hidden), nn.ReLU(), nn.Linear(hidden, K)).to(z.device)
        opt = torch.optim.Adam(net.parameters(), lr=3e-3)
        for _ in range(steps):
            opt.zero_grad()
            F.cross_entropy(net(z), y).backward()
            opt.step()
    net.requires_grad_(False)
    return Probe(mu, sigma, net)


def fit_probe(kind: str, h: Tensor, y: Tensor, n_classes: int | None = None, seed: int = 0) -> Probe:
    """``fit_linear`` or ``fit_mlp`` by name ("linear", "mlp")."""
    if kind not in PROBES:
        raise ValueError(f"kind must be one of {PROBES}, got {kind!r}")
    return fit_linear(h, y, n_classes) if kind == "linear" else fit_mlp(h, y, n_classes, seed=seed)


def accuracy(probe: Probe, h: Tensor, y: Tensor) -> float:
    """Share of tokens whose most probable label is the true label."""
    h = _checks.real_tensor("h", h, dims=2)
    if not isinstance(y, Tensor) or y.shape != h.shape[:1]:
        raise ValueError(f"y must be a tensor of {h.size(0)} labels, one per state of h")
    return float((probe(h).argmax(-1) == y.to(h.device)).double().mean())


def majority_baseline(y_train: Tensor, y_test: Tensor) -> float:
    """Accuracy of always predicting the most common training label."""
    _checks.tensor("y_train", y_train), _checks.tensor("y_test", y_test)
    if y_train.numel() == 0 or y_test.numel() == 0:
        raise ValueError("y_train and y_test must each hold at least one label")
    return float((y_test == y_train.mode().values).double().mean())
