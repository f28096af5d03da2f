"""How well a concept bottleneck model does (lesson 12): task error and concept error.

task error      RMSE = √((1/n) Σ_i (f(x_i) − y_i)²)   (regression)
                error rate = (1/n) Σ_i 1[1[f(x_i) > 0] ≠ y_i]   (binary task, f a logit)
concept error   binary concepts: the share of wrong 1[h_j(x_i) > 0] over examples and binary concepts;
                real-valued concepts: RMSE over examples and real-valued concepts
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.cbm._common import check_binary, check_concepts, check_targets
from xai_tf.cbm.data import TASKS, ConceptData, check_data
from xai_tf.cbm.models import ConceptBottleneck


def task_error(out: Tensor, y: Tensor, task: str) -> float:
    """RMSE (regression) or error rate (binary task: y 0 or 1) of outputs ``out [n]`` against ``y [n]``."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    out, y = check_targets("out", out, "regression"), _checks.tensor("y", y)
    _checks.same_shape("the task error", "out", out, "y", y)
    y = check_targets("y", y, task)
    if task == "regression":
        return math.sqrt(float((out.double() - y.double()).square().mean()))
    return float(((out > 0).to(y.dtype) != y).float().mean())


def concept_errors(out: Tensor, c: Tensor, binary: Tensor) -> dict[str, float]:
    """{"binary concept error": share wrong, "real concept RMSE": RMSE} of concept outputs ``out [n, k]``
    (NaN where the model has no concept of that kind)."""
    k = check_binary(binary).numel()
    out, c = check_concepts("out", out, k), check_concepts("c", c, k)
    _checks.same_shape("the concept errors", "out", out, "c", c)
    wrong = ((out[:, binary] > 0).float() != c[:, binary]).float()
    real = (out[:, ~binary].double() - c[:, ~binary].double()).square()
    return {
        "binary concept error": float(wrong.mean()) if wrong.numel() else math.nan,
        "real concept RMSE": math.sqrt(float(real.mean())) if real.numel() else math.nan,
    }


def evaluate(model: ConceptBottleneck, data: ConceptData) -> dict[str, float]:
    """{"task error": …, "binary concept error": …, "real concept RMSE": …} of ``model`` on ``data``."""
    if not isinstance(model, ConceptBottleneck):
        raise TypeError(f"model must be a ConceptBottleneck, got {type(model).__name__}")
    data = check_data("data", data, model.k)
    with torch.no_grad():
        out = model.concept_outputs(data.x)
        return {
            "task error": task_error(model.g(model.to_bottleneck(out)).squeeze(-1), data.y, data.task),
            **concept_errors(out, data.c, data.binary),
        }
