"""The one training loop of the task models (lesson 06's classifier, and the toy tasks, sparse
autoencoders and concept bottlenecks of later lessons): Adam on a loss, a fixed number of steps.

    θ ← Adam(θ, ∇_θ L_k(θ)),  k = 0..steps−1

``loss(k)`` computes step k's loss, so a task chooses its own batches (the full set, or a seeded
minibatch per step); the loop returns the loss of every step, for a learning curve.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import torch
from torch import Tensor, nn

from xai_tf import _checks


def fit(
    parameters: Iterable[nn.Parameter], loss: Callable[[int], Tensor], steps: int, lr: float
) -> list[float]:
    """Minimise ``loss(k)`` over ``parameters`` by ``steps`` steps of Adam with learning rate ``lr``."""
    parameters = list(parameters)
    if not parameters:
        raise ValueError("parameters is empty: nothing to train")
    _checks.integer("steps", steps, 1)
    _checks.positive("lr", lr)
    optimizer = torch.optim.Adam(parameters, lr=lr)
    history = []
    for k in range(steps):
        optimizer.zero_grad()
        value = loss(k)
        value.backward()
        optimizer.step()
        history.append(float(value.detach()))
    return history
