"""The losses of a concept bottleneck model (lesson 12).

concept loss    L_c = (1/n) Σ_i Σ_j ℓ_j(h_j(x_i), c_ij)
                ℓ_j(z, c) = −log σ(z)^c (1 − σ(z))^(1−c)    (binary concept, z a logit)
                ℓ_j(v, c) = (v − c)²                         (real-valued concept)
task loss       L_y = (1/n) Σ_i ℓ(f(x_i), y_i): squared error (regression), −log of the
                probability of the true class (binary task, f a logit)
joint loss      L_y + λ L_c,  λ ≥ 0
"""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.cbm._common import check_binary, check_concepts, check_targets
from xai_tf.cbm.data import TASKS


def concept_loss(out: Tensor, c: Tensor, binary: Tensor) -> Tensor:
    """L_c for concept outputs ``out [n, k]`` (logits where ``binary [k]``, values elsewhere) and
    true concepts ``c [n, k]``: ℓ_j summed over the k concepts, averaged over the n examples."""
    k = check_binary(binary).numel()
    out, c = check_concepts("out", out, k), check_concepts("c", c, k)
    _checks.same_shape("the concept loss", "out", out, "c", c)
    c = c.to(out.dtype)  # the dtype rule: the data follow the model's outputs
    per_entry = (
        binary * F.binary_cross_entropy_with_logits(out, c, reduction="none") + (~binary) * (out - c).square()
    )
    return per_entry.sum(-1).mean()


def task_loss(out: Tensor, y: Tensor, task: str) -> Tensor:
    """L_y for outputs ``out [n]`` and targets ``y [n]`` (0 or 1 for a binary task), n ≥ 1."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    out, y = check_targets("out", out, "regression"), _checks.tensor("y", y)
    _checks.same_shape("the task loss", "out", out, "y", y)
    y = check_targets("y", y, task).to(out.dtype)
    if task == "regression":
        return (out - y).square().mean()
    return F.binary_cross_entropy_with_logits(out, y)


def joint_loss(
    out: Tensor, y: Tensor, concept_out: Tensor, c: Tensor, binary: Tensor, lam: float, task: str
) -> Tensor:
    """L_y + λ L_c: the joint model's objective (λ = ``lam`` ≥ 0; λ = 0 is the standard model's)."""
    lam = _checks.at_least("lam", lam, 0)
    return task_loss(out, y, task) + lam * concept_loss(concept_out, c, binary)
