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
from xai_tf.cbm._common import check_concepts
from xai_tf.cbm.data import TASKS


def concept_loss(out: Tensor, c: Tensor, binary: Tensor) -> Tensor:
    """L_c for concept outputs ``out [n, k]`` (logits where ``binary [k]``, values elsewhere) and
    true concepts ``c [n, k]``: ℓ_j summed over the k concepts, averaged over the n examples."""
    _checks.tensor("binary", binary)
    k = binary.numel()
    check_concepts("out", out, k)
    check_concepts("c", c, k)
    if out.shape != c.shape:
        raise ValueError(f"out {tuple(out.shape)} and c {tuple(c.shape)} must have the same shape")
    per_entry = (
        binary * F.binary_cross_entropy_with_logits(out, c, reduction="none") + (~binary) * (out - c).square()
    )
    return per_entry.sum(-1).mean()


def task_loss(out: Tensor, y: Tensor, task: str) -> Tensor:
    """L_y for outputs ``out [n]`` and targets ``y [n]``."""
    _checks.tensor("out", out)
    _checks.tensor("y", y)
    if out.shape != y.shape:
        raise ValueError(f"out {tuple(out.shape)} and y {tuple(y.shape)} must have the same shape")
    if task == "regression":
        return (out - y).square().mean()
    if task == "binary":
        return F.binary_cross_entropy_with_logits(out, y)
    raise ValueError(f"task must be one of {TASKS}, got {task!r}")


def joint_loss(
    out: Tensor, y: Tensor, concept_out: Tensor, c: Tensor, binary: Tensor, lam: float, task: str
) -> Tensor:
    """L_y + λ L_c: the joint model's objective (λ = ``lam`` ≥ 0; λ = 0 is the standard model's)."""
    lam = _checks.at_least("lam", lam, 0)
    return task_loss(out, y, task) + lam * concept_loss(concept_out, c, binary)
