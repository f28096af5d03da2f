"""Jain & Wallace (2019), adversarial attention (lesson 08): with the model and the encoder's states h
fixed, find weights α̃ on the simplex as far as possible from the model's α* that leave the output
unchanged,

    maximise JSD(α̃, α*)   subject to   |f_α̃(x) − f_α*(x)| < ε,   f_α(x) = softmax(W_c Σ_t α_t h_t + b_c)_1.

Search: α̃ = softmax(z), z from log α* plus seeded noise, Adam on −JSD + c·max(0, |Δf| − ε/2)
(c = 100). The constraint is then enforced exactly: the answer is α* + s(α̃ − α*) (still on the
simplex) for the largest s ∈ {1, 0.98, …, 0} that keeps |Δf| < ε; s = 0 (no change) always does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.faithfulness.divergence import jsd
from xai_tf.faithfulness.importance import sentence_ids, vocabulary_size
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, check_examples

PENALTY = 100.0
#: Adam steps of the search (lesson 08 uses 100): each is a forward and backward pass.
MAX_STEPS = 10_000
#: Adam moves z by about lr per step; beyond 1 the search only jumps.
MAX_LR = 1.0


@dataclass
class Adversary:
    """One instance: the model's α* and the adversary's α̃ ``[T]``, their JSD, and f under each."""

    alpha: Tensor
    alpha_adv: Tensor
    jsd: float
    f: float
    f_adv: float


def _f(model: AttentionClassifier, h: Tensor, alpha: Tensor) -> Tensor:
    return model.readout(h.expand(len(alpha), -1, -1), alpha).softmax(-1)[:, 1]


def epsilon_adversary(
    model: AttentionClassifier,
    ids: Sequence[int] | Tensor,
    epsilon: float = 0.01,
    steps: int = 100,
    lr: float = 0.3,
    seed: int = 0,
) -> Adversary:
    """The ε-adversarial attention of one sentence (see the module docstring)."""
    epsilon = _checks.real("epsilon", epsilon, 0.0, 1.0, open_lo=True)
    _checks.integer("steps", steps, 0, MAX_STEPS)
    _checks.real("lr", lr, 0.0, MAX_LR, open_lo=True)
    ids = sentence_ids(model, ids)
    with torch.no_grad():
        h = model.states(model.embed(ids))
        alpha = model.attention(h)
        f = _f(model, h, alpha)
    g = seeds.generator(seed)
    z = (alpha.log() + torch.randn(alpha.shape, generator=g, device="cpu").to(alpha)).requires_grad_(True)
    optimizer = torch.optim.Adam([z], lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        a = z.softmax(-1)
        violation = ((_f(model, h, a) - f).abs() - epsilon / 2).clamp(min=0)
        (-jsd(a, alpha) + PENALTY * violation).sum().backward()
        optimizer.step()
    if not torch.isfinite(z).all():
        raise ValueError(f"the adversary's search diverged: choose a smaller lr (got {lr:g})")
    with torch.no_grad():
        s = torch.linspace(1, 0, 51, device=alpha.device)[:, None]
        candidates = alpha + s * (z.softmax(-1) - alpha)
        ok = (_f(model, h, candidates) - f).abs() < epsilon
        best = candidates[int(ok.nonzero()[0])]
        return Adversary(
            alpha[0], best, float(jsd(best, alpha[0])), float(f), float(_f(model, h, best[None]))
        )


def adversary_study(
    model: AttentionClassifier, data: Sequence[Example], epsilon: float = 0.01, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``(JSD(α̃, α*) [n], max_t α*_t [n])`` over the sentences of ``data``."""
    data = check_examples("data", data, vocabulary_size(model), None)
    _checks.integer("seed", seed, 0)
    with one_thread():
        found = [epsilon_adversary(model, e.ids, epsilon, seed=seed + i) for i, e in enumerate(data)]
    return np.array([a.jsd for a in found]), np.array([float(a.alpha.max()) for a in found])
