"""One score vector θ ∈ ℝ^T, six attention maps side by side (lesson 18), and the cons the lecture lists
for the CRF computed.

- softmax: α_j = exp θ_j / Σ_j′ exp θ_j′;  sparsemax: argmin_{p ∈ Δ} ‖p − θ‖²;  fusedmax:
  sparsemax(prox_TV(θ, λ)) (lesson 03);
- sigmoid: independent z_j, α_j = σ(θ_j);  CRF: α_j = p(z_j = 1) under the linear-chain CRF with
  transition A (forward–backward);  SparseMAP: the marginals of the same chain, argmax_{μ ∈ M} θᵀμ +
  Aᵀν − ½‖μ‖², a combination of a few structures z.

The first three sum to 1 (a distribution over positions); the last three lie in [0, 1]^T (each position
on or off). **The cons, computed** (``jacobian``): the CRF's weights are never exactly 0 (no sparsity),
and its backward pass ∂α/∂θ is the Hessian of log Z, dense: autograd must differentiate the
forward–backward recursion itself (the specialised backward). SparseMAP's ∂α/∂θ = M_S Z M_Sᵀ is zero
outside the positions its few structures disagree on.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.attention.maps import fusedmax, softmax, sparsemax
from xai_tf.structured.chain import chain_marginals, independent_marginals
from xai_tf.structured.sparsemap import sparsemap_chain

MAPS = ("softmax", "sparsemax", "fusedmax", "sigmoid", "crf", "sparsemap")
DISTRIBUTIONS = MAPS[:3]


def contiguity_transition(bonus: float) -> Tensor:
    """A = [[0, 0], [0, b]] in float64 on the CPU: a bonus b for two neighbouring positions both on
    (z_{i−1} = z_i = 1), which favours contiguous blocks of attention when b > 0."""
    bonus = _checks.real("bonus", bonus, -100.0, 100.0)
    return torch.tensor([[0.0, 0.0], [0.0, bonus]], dtype=torch.float64, device="cpu")


def attention_map(theta: Tensor, name: str, transition: Tensor | None = None, lam: float = 0.5) -> Tensor:
    """α [T] from one score vector θ [T] by the map ``name`` (one of ``MAPS``); ``transition`` A [2, 2]
    for "crf" and "sparsemap" (zeros if None; moved to θ's device), ``lam`` λ for "fusedmax"."""
    if name not in MAPS:
        raise ValueError(f"name must be one of {', '.join(MAPS)}, got {name!r}")
    theta = _checks.real_tensor("theta", theta, dims=1)
    _checks.at_least("lam", lam, 0.0)  # checked whichever map: a λ the map ignores is still a mistake
    if theta.numel() == 0:
        raise ValueError("theta must be [T] with T ≥ 1 positions, got shape (0,)")
    a = theta.new_zeros(2, 2) if transition is None else _checks.real_tensor("transition", transition)
    a = a.to(theta.device)  # a 2 × 2 score follows θ's device
    if name == "softmax":
        return softmax(theta)
    if name == "sparsemax":
        return sparsemax(theta)
    if name == "fusedmax":
        return fusedmax(theta, lam)
    if name == "sigmoid":
        return independent_marginals(theta)
    if name == "crf":
        return chain_marginals(theta, a)
    return sparsemap_chain(theta, a).marginals


def side_by_side(theta: Tensor, transition: Tensor | None = None, lam: float = 0.5) -> dict[str, Tensor]:
    """Every map of ``MAPS`` on θ [T]: name → α [T]."""
    return {name: attention_map(theta, name, transition, lam) for name in MAPS}


def jacobian(theta: Tensor, name: str, transition: Tensor | None = None, lam: float = 0.5) -> Tensor:
    """∂α/∂θ [T, T] of the map ``name`` at θ, by autograd through its backward pass (for "crf" that is
    the Hessian of log Z, through the forward–backward recursion; for "sparsemap" the paper's
    M_S Z M_Sᵀ)."""
    theta = _checks.real_tensor("theta", theta, dims=1)
    return torch.autograd.functional.jacobian(
        lambda t: attention_map(t, name, transition, lam), theta.detach().clone()
    )
