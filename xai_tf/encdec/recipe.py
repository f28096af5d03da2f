"""Two formulas of lesson 17's training recipe as plain functions, for its exercises: the warm-up
schedule (``training.learning_rate``'s inverse-square-root decay, vectorised) and label smoothing's
target distribution (what ``training.loss_fn`` asks PyTorch for). They live apart from ``training`` so
that the shipped models' fingerprint (the import graph of ``runs``) is unchanged."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import functional as F

from xai_tf import _checks


def schedule(steps: Tensor, lr_max: float, warmup: int) -> Tensor:
    """lr(t) = lr_max · min(1, t / w) · (max(t, w) / w)^(−1/2) at every step t of ``steps`` (counted from 1),
    w = ``warmup``: ``learning_rate``'s inverse-square-root schedule, vectorised. It is Vaswani et al.'s
    d^−0.5 · min(t^−0.5, t · w^−1.5) with d^−0.5 = lr_max · √w."""
    steps = _checks.real_tensor("steps", steps)
    if steps.numel() and float(steps.min()) < 1:
        raise ValueError(f"steps must be ≥ 1 (counted from 1), got {float(steps.min()):g}")
    lr_max, w = _checks.positive("lr_max", lr_max), _checks.integer("warmup", warmup, 1)
    return lr_max * torch.clamp(steps / w, max=1.0) * (torch.clamp(steps, min=w) / w) ** -0.5


def smoothed_targets(y: Tensor, n_words: int, eps: float) -> Tensor:
    """The label-smoothed targets q = (1 − ε) · onehot(y) + ε / K of the word ids ``y [n]``, K = ``n_words``:
    ``[n, K]``, 1 − ε + ε/K on the right word and ε/K on every other; −Σ_k q_k log p_k is PyTorch's
    cross-entropy with ``label_smoothing=ε``."""
    K, eps = _checks.integer("n_words", n_words, 1), _checks.real("eps", eps, 0.0, 1.0)
    y = _checks.tensor("y", y)
    if y.dim() != 1 or y.is_floating_point() or y.dtype == torch.bool:
        raise TypeError(
            f"y must be a 1-D integer tensor of word ids, got {y.dtype} of shape {tuple(y.shape)}"
        )
    if y.numel() and (int(y.min()) < 0 or int(y.max()) >= K):
        raise ValueError(f"y must hold word ids in 0..{K - 1}, got {int(y.min())}..{int(y.max())}")
    _checks.fits(f"{y.numel()} targets over n_words = {K}", 8 * y.numel() * K, "choose a smaller n_words")
    return (1 - eps) * F.one_hot(y, K).to(torch.get_default_dtype()) + eps / K
