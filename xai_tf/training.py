"""The one training loop of the task models (lesson 06's classifier, and the toy tasks, sparse
autoencoders, rationalizers, concept bottlenecks and CRATE models of later lessons): Adam on a loss,
a fixed number of steps.

    θ ← Adam(θ, ∇_θ L_k(θ)),  k = 0..steps−1

``loss(k)`` computes step k's loss, so a task chooses its own batches (the full set, or
``minibatches``: a seeded draw per step); the loop returns the loss of every step, for a learning
curve. Every trainer takes its options as one ``TrainOptions`` (each trainer's defaults are a
module constant; ``options.replace(steps=300)`` changes one of them), checked once when made.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds

MAX_STEPS = 100_000  # about an hour of the largest lesson model on one core: more is a typo
MAX_LR = 1.0  # an Adam step moves each weight by about lr: above 1 training only diverges
MAX_BATCH = 1_000_000


@dataclass(frozen=True)
class TrainOptions:
    """A trainer's options, checked when made: ``steps`` in 1..100 000, ``lr`` in (0, 1], ``batch_size``
    in 1..10⁶ or None (every example each step), ``seed`` an integer ≥ 0 (shifted by
    ``XAI_TF_SEED_OFFSET``, see ``xai_tf.seeds``)."""

    steps: int
    lr: float
    batch_size: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        _checks.integer("steps", self.steps, 1, MAX_STEPS)
        _checks.real("lr", self.lr, 0.0, MAX_LR, open_lo=True)
        if self.batch_size is not None:
            _checks.integer("batch_size", self.batch_size, 1, MAX_BATCH)
        seeds.effective(self.seed)

    def replace(self, **changes: object) -> TrainOptions:
        """These options with ``changes`` (field names as keywords), checked again."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise TypeError(f"changes must name fields of TrainOptions, got {unknown}")
        return replace(self, **changes)  # type: ignore[arg-type]


def checked_options(options: object) -> TrainOptions:
    """``options`` if it is a ``TrainOptions``, else a TypeError naming the argument."""
    if not isinstance(options, TrainOptions):
        raise TypeError(f"options must be a TrainOptions, got {type(options).__name__}")
    return options


def fixed_batch_size(options: object) -> int:
    """``options.batch_size`` for a trainer that has no whole-set step (it draws a fresh batch each
    step, or groups its data in batches once), else a ValueError naming it."""
    batch_size = checked_options(options).batch_size
    if batch_size is None:
        raise ValueError("options.batch_size must be an integer for this trainer, got None")
    return batch_size


def minibatches(n: int, batch_size: int | None, seed: int) -> Callable[[int], Tensor]:
    """Step k's examples as indices into 0..n−1: ``batch_size`` drawn uniformly with replacement by a
    generator seeded with ``seed`` (one draw per call, in step order), or all n in order when
    ``batch_size`` is None or ≥ n (the full-batch gradient)."""
    n = _checks.integer("n", n, 1)
    if batch_size is None or batch_size >= n:
        everything = torch.arange(n)
        return lambda k: everything
    g = seeds.generator(seed)
    return lambda k: torch.randint(n, (batch_size,), generator=g)


def fit(
    parameters: Iterable[nn.Parameter], loss: Callable[[int], Tensor], options: TrainOptions
) -> list[float]:
    """Minimise ``loss(k)`` over ``parameters`` by ``options.steps`` steps of Adam with learning rate
    ``options.lr``; a loss that becomes NaN or infinite stops training with an error naming ``lr``."""
    parameters = list(parameters)
    if not parameters:
        raise ValueError("parameters is empty: nothing to train")
    options = checked_options(options)
    optimizer = torch.optim.Adam(parameters, lr=options.lr)
    history = []
    for k in range(options.steps):
        optimizer.zero_grad()
        value = loss(k)
        value.backward()
        optimizer.step()
        history.append(float(value.detach()))
        if not math.isfinite(history[-1]):
            raise ValueError(
                f"the loss became {history[-1]} at step {k}: training diverged; choose a smaller lr "
                f"(got {options.lr:g}) or check the data for NaN"
            )
    return history
