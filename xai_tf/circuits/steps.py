"""Lesson 15's single steps as functions of tensors, the ones its exercises ask for: mean-ablating one
head's output, the normalised logit difference of a batch of logits, and attribution patching's
first-order estimate from an activation pair and a gradient.

- Mean ablation of head h (``ablation.ablate_head`` does it inside a forward pass): with the head
  outputs z ``[batch, heads, T, d_h]`` before W_O,  z'_{b,h,t} = (1 / (B T)) Σ_{b', t'} z_{b',h,t'},
  every other head kept.
- The normalised logit difference (``metrics.LogitDifference``): LD = z_T[c] − z_T[w] at the last
  position, m = (LD − LD_corrupted) / (LD_clean − LD_corrupted).
- The first-order estimate (``attribution.attribution_patching`` for a whole model): patching
  a_target ↦ a_source gives about  m(a_source) ≈ m_target + Σ_d (a_source − a_target)_d · ∂m/∂a_d |_target.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.circuits.metrics import LogitDifference


def mean_ablate(z: Tensor, head: int) -> Tensor:
    """A copy of the head outputs ``z [batch, heads, T, d_h]`` with head ``head`` replaced by its mean over
    the batch and the positions (formula above); the other heads unchanged."""
    z = _checks.real_tensor("z", z, dims=4)
    head = _checks.integer("head", head, 0, z.size(1) - 1)
    if z.size(0) == 0 or z.size(2) == 0:
        raise ValueError(f"z must hold at least one sequence and one position, got shape {tuple(z.shape)}")
    out = z.clone()
    out[:, head] = z[:, head].mean(dim=(0, 1), keepdim=True)
    return out


def normalised_logit_difference(
    logits: Tensor, correct: int, wrong: int, ld_clean: float, ld_corrupted: float
) -> Tensor:
    """m ``[batch]`` of ``logits [batch, T, vocab]``: (LD − LD_corrupted) / (LD_clean − LD_corrupted) with
    LD = logits[:, −1, correct] − logits[:, −1, wrong] (``metrics.LogitDifference``, which checks the
    arguments)."""
    return LogitDifference(correct, wrong, ld_clean, ld_corrupted)(logits)


def first_order_estimate(
    m_target: Tensor | float, a_source: Tensor, a_target: Tensor, grad: Tensor
) -> Tensor:
    """m_target + Σ_d (a_source − a_target)_d · grad_d over the last dim of the activations ``[..., d]``:
    attribution patching's estimate of every cell ``[...]`` (``grad`` = ∂m/∂a at the target run;
    ``m_target`` a number or a tensor that broadcasts to ``[...]``)."""
    tensors = {"a_source": a_source, "a_target": a_target, "grad": grad}
    a_source, a_target, grad = (_checks.real_tensor(name, x) for name, x in tensors.items())
    _checks.same_shape("the estimate", "a_source", a_source, "a_target", a_target)
    _checks.same_shape("the estimate", "a_source", a_source, "grad", grad)
    if a_source.dim() == 0:
        raise ValueError("a_source, a_target and grad must have a last dim d to sum over, got 0-d tensors")
    if not isinstance(m_target, Tensor):
        m_target = torch.tensor(_checks.finite("m_target", m_target), dtype=a_source.dtype)
    m_target = _checks.real_tensor("m_target", m_target)
    cells = a_source.shape[:-1]
    try:
        fits = torch.broadcast_shapes(m_target.shape, cells) == cells
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(
            f"m_target has shape {tuple(m_target.shape)}: it must broadcast to the cells {tuple(cells)}"
        )
    return m_target + ((a_source - a_target) * grad).sum(-1)
