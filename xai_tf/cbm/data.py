"""A data set with known concepts (lesson 12): inputs x, true concepts c ∈ ℝ^k (a binary concept is
0 or 1), a target y, and which concepts are binary — what the generators in ``arthritis`` and
``shapes`` return and what every helper of ``xai_tf.cbm`` takes."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.cbm._common import check_binary, check_targets

TASKS = ("regression", "binary")


@dataclass(frozen=True)
class ConceptData:
    """``x [n, ...]`` inputs, ``c [n, k]`` concepts, ``y [n]`` target, ``binary [k]`` (True = the
    concept is 0/1, False = real-valued), concept ``names``, ``groups`` of concept indices that are
    intervened on together, and the ``task``: "regression" (ℓ = squared error) or "binary" (ℓ = −log
    of the probability of the true class). Checked when made: x, c, y floating and finite, ``binary``
    a bool tensor, a binary concept 0 or 1, and y 0 or 1 for a binary task."""

    x: Tensor
    c: Tensor
    y: Tensor
    binary: Tensor
    names: tuple[str, ...]
    groups: tuple[tuple[int, ...], ...]
    task: str

    def __post_init__(self) -> None:
        for name in ("x", "c", "y"):
            _checks.real_tensor(name, getattr(self, name))
        if self.c.dim() != 2:
            raise ValueError(f"c must be [n, k] (one row of concepts per example), got {tuple(self.c.shape)}")
        n, k = self.c.shape
        if self.x.dim() == 0 or self.x.size(0) != n or self.y.shape != (n,):
            raise ValueError(f"x, c and y must have one row per example, got {n} concepts rows")
        binary = check_binary(self.binary)
        if binary.shape != (k,) or len(self.names) != k:
            raise ValueError(f"binary and names must have one entry per concept (k = {k})")
        off = binary & (self.c != 0) & (self.c != 1)
        if off.any():
            i, j = (int(v) for v in off.nonzero()[0])
            raise ValueError(
                f"binary concepts must be 0 or 1, got {self.c[i, j].item():g} in concept {self.names[j]!r}"
            )
        if sorted(j for group in self.groups for j in group) != list(range(k)):
            raise ValueError(f"groups {self.groups} must hold each concept 0..{k - 1} once")
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {TASKS}, got {self.task!r}")
        check_targets("y", self.y, self.task)

    def __len__(self) -> int:
        return self.c.size(0)

    @property
    def k(self) -> int:
        """The number of concepts."""
        return self.c.size(1)

    def to(self, device: torch.device | str) -> ConceptData:
        """The same data on ``device``."""
        return ConceptData(
            self.x.to(device),
            self.c.to(device),
            self.y.to(device),
            self.binary.to(device),
            self.names,
            self.groups,
            self.task,
        )

    def subset(self, index: Tensor | slice) -> ConceptData:
        """The examples at ``index`` (same concepts, groups and task)."""
        return ConceptData(
            self.x[index], self.c[index], self.y[index], self.binary, self.names, self.groups, self.task
        )


def check_data(name: str, data: object, k: int | None = None) -> ConceptData:
    """A ``ConceptData`` (with k concepts, the model's, when ``k`` is given)."""
    if not isinstance(data, ConceptData):
        raise TypeError(f"{name} must be a ConceptData, got {type(data).__name__}")
    if k is not None and data.k != k:
        raise ValueError(f"the model has k = {k} concepts but {name} has {data.k}: data of another task?")
    return data
