"""Control tasks and selectivity (Hewitt & Liang 2019; lesson 19).

A control task keeps the task's output space and its label frequencies but ties each label to the word
type alone: every type v (here the token id) draws one label c(v) at random from the task's empirical
label distribution, and every occurrence of v gets c(v). Only a probe that memorises types can do well
on it, so

    selectivity = accuracy(task) − accuracy(control)

measures what the probe reads from the representation rather than what it memorises. A type seen only
in the test windows gets a label the probe cannot know, as in the paper.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds


def control_labels(types: Tensor, labels: Tensor, seed: int = 0) -> Tensor:
    """c(v_i) for every token i: one label per type, drawn from the distribution of ``labels``."""
    _checks.tensor("types", types), _checks.tensor("labels", labels)
    _checks.same_length("a control task", "types", types, "labels", labels)
    if labels.numel() == 0:
        raise ValueError("labels is empty: a control task needs at least one token")
    for name, t in (("types", types), ("labels", labels)):
        if t.is_floating_point() or t.is_complex() or t.dtype == torch.bool or t.dim() != 1:
            raise TypeError(
                f"{name} must be a 1-d integer tensor (one id per token), got {t.dtype} {tuple(t.shape)}"
            )
    if int(labels.min()) < 0:
        raise ValueError(f"labels must be class indices ≥ 0, got {int(labels.min())}")
    _checks.fits(
        f"label counts up to class {int(labels.max())}", 8 * int(labels.max()), "number the classes 0..K−1"
    )
    g = seeds.generator(seed)
    values, inverse = types.cpu().unique(return_inverse=True)
    frequency = torch.bincount(labels.cpu()).double()
    per_type = torch.multinomial(frequency, values.numel(), replacement=True, generator=g)
    return per_type[inverse].to(labels.device)


def selectivity(task_accuracy: float, control_accuracy: float) -> float:
    """accuracy(task) − accuracy(control)."""
    return _checks.real("task_accuracy", task_accuracy, 0, 1) - _checks.real(
        "control_accuracy", control_accuracy, 0, 1
    )
