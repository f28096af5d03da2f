"""Two formulas lesson 12 states, as functions of tensors (the references of its exercises 2.1 and 7.1).

The arthritis task's grade (section 2; ``arthritis`` draws its data with it):

    c̃_j = (c_j − μ_j)/σ_j (real-valued concept),   c̃_j = 2 c_j − 1 (binary concept)
    s = Σ_j w_j c̃_j + β (x · u),                    y = #{t ∈ THRESHOLDS : s > t} ∈ {0, …, 4}

The post-hoc bottleneck's head objective (section 7; ``posthoc.elastic_net`` minimises it), for
bottlenecks b_i ∈ ℝ^{N_c}, one output (K = 1) and ℓ the task loss of ``losses``:

    J(v, v₀) = (1/n) Σ_i ℓ(vᵀb_i + v₀, y_i) + λ/(N_c K) (α‖v‖₁ + (1 − α)‖v‖₂²)
"""

from __future__ import annotations

import numbers

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.cbm import arthritis
from xai_tf.cbm._common import check_binary, check_concepts, check_targets
from xai_tf.cbm.data import TASKS
from xai_tf.cbm.losses import task_loss


def grade(c: Tensor, binary: Tensor, bypass_term: Tensor) -> Tensor:
    """y = #{t ∈ THRESHOLDS : s > t} with s = Σ_j w_j c̃_j + β(x·u) (module docstring; μ_j, σ_j, w_j and
    the thresholds are ``arthritis.MEANS``, ``SCALES``, ``WEIGHTS``, ``THRESHOLDS``), for concepts
    ``c [n, 12]``, ``binary [12]`` (True = a 0/1 concept) and the bypass term β(x·u) ``[n]``. Computed
    in float64; the grades ``[n]`` come back in c's dtype."""
    k = len(arthritis.NAMES)
    binary = check_binary(binary)
    if binary.numel() != k:
        raise ValueError(
            f"binary must be [{k}], one flag per concept of the arthritis task, got {binary.numel()}"
        )
    c = check_concepts("c", c, k)
    bypass_term = _checks.real_tensor("bypass_term", bypass_term, dims=1)
    _checks.same_length("the grade", "rows of c", c, "bypass terms", bypass_term)
    standardised = arthritis._standardised(c.double(), binary.to(c.device))
    weights = torch.tensor(arthritis.WEIGHTS, dtype=torch.float64, device=c.device)
    s = standardised @ weights + bypass_term.double().to(c.device)
    thresholds = torch.tensor(arthritis.THRESHOLDS, dtype=torch.float64, device=c.device)
    return (s.unsqueeze(-1) > thresholds).sum(-1).to(c.dtype)


def elastic_net_objective(
    v: Tensor, v0: float | Tensor, b: Tensor, y: Tensor, lam: float, alpha: float, task: str
) -> Tensor:
    """J(v, v₀) of the module docstring (a 0-d tensor in b's dtype) for head weights ``v [N_c]``, bias
    ``v0`` (a number or a one-element tensor), bottlenecks ``b [n, N_c]``, targets ``y [n]`` (0/1 for a
    binary task, whose ℓ is the cross-entropy on the logit), λ = ``lam`` ≥ 0 and α = ``alpha`` ∈ [0, 1]."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    b = _checks.real_tensor("b", b, dims=2)
    v = _checks.real_tensor("v", v, dims=1)
    if v.numel() != b.size(1):
        raise ValueError(
            f"v must be [N_c] with N_c = {b.size(1)} (one weight per column of b), got {v.numel()}"
        )
    if isinstance(v0, Tensor):
        if v0.numel() != 1:
            raise ValueError(f"v0 must be one number (the head's bias), got shape {tuple(v0.shape)}")
        v0 = float(v0)
    if isinstance(v0, bool) or not isinstance(v0, numbers.Real):
        raise TypeError(f"v0 must be a number (the head's bias), got {type(v0).__name__}")
    v0 = _checks.finite("v0", v0)
    y = check_targets("y", y, task)
    _checks.same_length("the head objective", "rows of b", b, "targets", y)
    lam, alpha = _checks.at_least("lam", lam, 0), _checks.real("alpha", alpha, 0, 1)
    dtype = _checks.compute_dtype(b)
    b, v = b.to(dtype), v.to(dtype=dtype, device=b.device)
    penalty = lam / b.size(1) * (alpha * v.abs().sum() + (1 - alpha) * v.square().sum())  # K = 1
    return task_loss(b @ v + v0, y.to(device=b.device), task) + penalty
