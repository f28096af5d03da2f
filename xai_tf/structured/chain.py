"""The linear-chain CRF over binary attention variables z = (z_1, …, z_T) ∈ {0, 1}^T (lecture 001's
latent structured attention, Kim et al. 2017).

A structure z has the score  s(z) = Σ_i θ_i z_i + Σ_{i=2}^T A[z_{i−1}, z_i]  (θ_i the unary score of
position i, from a query–key score; A the 2 × 2 transition score), and probability
p(z) = exp s(z) / Z with Z = Σ_z exp s(z). The attention on position i is the marginal p(z_i = 1).
With A = 0 the variables are independent and p(z_i = 1) = σ(θ_i).

Every function takes θ as ``[..., T]`` (a batch of leading dimensions) and A as ``[2, 2]``, computes in
their common floating dtype (float16/bfloat16 in float32) on their device, and is differentiable.
"""

from __future__ import annotations

import itertools

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks

#: Brute-force enumeration visits 2^T structures: T ≤ 16 keeps it at 65,536.
MAX_ENUMERATED = 16


def _inputs(theta: object, transition: object) -> tuple[Tensor, Tensor]:
    """θ [..., T] with T ≥ 1 and A [2, 2], finite, on one device, in their common compute dtype."""
    theta = _checks.real_tensor("theta", theta)
    if theta.dim() == 0 or theta.size(-1) == 0:
        raise ValueError(f"theta must be [..., T] with T ≥ 1 positions, got shape {tuple(theta.shape)}")
    transition = _checks.real_tensor("transition", transition)
    if tuple(transition.shape) != (2, 2):
        raise ValueError(
            f"transition must be [2, 2] (A[z_(i-1), z_i] for binary z), got shape {tuple(transition.shape)}"
        )
    if transition.device != theta.device:
        raise ValueError(f"transition is on {transition.device} but theta on {theta.device}: use one device")
    dtype = _checks.compute_dtype(
        theta.new_empty(0, dtype=torch.promote_types(theta.dtype, transition.dtype))
    )
    return theta.to(dtype), transition.to(dtype)


def _unary(theta: Tensor) -> Tensor:
    """u[..., i, c] = θ_i · c for c ∈ {0, 1}: the unary score of z_i = c."""
    return torch.stack([torch.zeros_like(theta), theta], dim=-1)


def independent_marginals(theta: Tensor) -> Tensor:
    """The unstructured case: independent z_i with p(z_i = 1) = σ(θ_i) = 1 / (1 + exp(−θ_i))."""
    theta = _checks.real_tensor("theta", theta)
    if theta.dim() == 0 or theta.size(-1) == 0:
        raise ValueError(f"theta must be [..., T] with T ≥ 1 positions, got shape {tuple(theta.shape)}")
    return torch.sigmoid(theta.to(_checks.compute_dtype(theta)))


def _forward(u: Tensor, transition: Tensor) -> list[Tensor]:
    """The forward messages F (not α: α is the attention the marginals become; the list keeps the name
    ``alpha``, which the shipped models' fingerprint reads): F_1(c) = u_1(c);
    F_i(c) = u_i(c) + logsumexp_{c'} (F_{i−1}(c') + A[c', c])."""
    alpha = [u[..., 0, :]]
    for i in range(1, u.size(-2)):
        alpha.append(u[..., i, :] + torch.logsumexp(alpha[-1].unsqueeze(-1) + transition, dim=-2))
    return alpha


def _backward(u: Tensor, transition: Tensor) -> list[Tensor]:
    """The backward messages B (the list named ``beta``): B_T(c) = 0;
    B_i(c) = logsumexp_{c'} (A[c, c'] + u_{i+1}(c') + B_{i+1}(c'))."""
    beta = [torch.zeros_like(u[..., -1, :])]
    for i in range(u.size(-2) - 2, -1, -1):
        beta.append(torch.logsumexp(transition + (u[..., i + 1, :] + beta[-1]).unsqueeze(-2), dim=-1))
    return beta[::-1]


def chain_log_partition(theta: Tensor, transition: Tensor) -> Tensor:
    """log Z = logsumexp_c F_T(c), the forward recursion in log space (never exp of a large score).
    Returns ``[...]``: one log Z per chain of the batch."""
    theta, transition = _inputs(theta, transition)
    return torch.logsumexp(_forward(_unary(theta), transition)[-1], dim=-1)


def chain_marginals(theta: Tensor, transition: Tensor) -> Tensor:
    """p(z_i = 1) = exp(F_i(1) + B_i(1) − log Z), forward–backward in log space (F, B the forward and
    backward messages). Returns ``[..., T]``."""
    theta, transition = _inputs(theta, transition)
    u = _unary(theta)
    alpha, beta = _forward(u, transition), _backward(u, transition)
    log_z = torch.logsumexp(alpha[-1], dim=-1, keepdim=True)
    return torch.exp(
        torch.stack([a[..., 1] + b[..., 1] for a, b in zip(alpha, beta, strict=True)], dim=-1) - log_z
    )


def chain_marginals_autograd(theta: Tensor, transition: Tensor) -> Tensor:
    """p(z_i = 1) = ∂ log Z / ∂θ_i (torch-struct's idea: the marginals are the gradient of the
    log-partition, since ∂s(z)/∂θ_i = z_i). Differentiable itself (the gradient keeps its graph)."""
    theta, transition = _inputs(theta, transition)
    with torch.enable_grad():
        leaf = theta if theta.requires_grad else theta.detach().requires_grad_()
        log_z = torch.logsumexp(_forward(_unary(leaf), transition)[-1], dim=-1)
        keep_graph = theta.requires_grad or transition.requires_grad
        (grad,) = torch.autograd.grad(log_z.sum(), leaf, create_graph=keep_graph)
    return grad


def chain_marginals_enumerated(theta: Tensor, transition: Tensor) -> Tensor:
    """p(z_i = 1) = Σ_{z : z_i = 1} exp s(z) / Σ_z exp s(z), over all 2^T structures (T ≤ 16): the
    brute-force definition, for checking forward–backward on short chains."""
    theta, transition = _inputs(theta, transition)
    T = _checks.integer("theta's length T (2^T structures are enumerated)", theta.size(-1), 1, MAX_ENUMERATED)
    n_bytes = 2 * (theta.numel() // T) * 2**T * theta.element_size()  # the scores of every structure, p
    _checks.fits(f"enumerating {theta.numel() // T} chains", n_bytes, "enumerate fewer chains", theta.device)
    z = torch.tensor(list(itertools.product((0, 1), repeat=theta.size(-1))), device=theta.device)
    pair = transition[z[:, :-1], z[:, 1:]].sum(-1)  # Σ_i A[z_{i−1}, z_i] for each structure
    p = torch.softmax(theta @ z.to(theta.dtype).T + pair, dim=-1)
    return p @ z.to(theta.dtype)


def viterbi(theta: Tensor, transition: Tensor) -> Tensor:
    """The MAP structure argmax_z s(z) of one chain θ [T], by max-product in the forward direction and
    back-pointers: δ_i(c) = u_i(c) + max_{c'} (δ_{i−1}(c') + A[c', c]). Returns z [T] with 0/1 entries
    in θ's dtype (ties go to the label 0)."""
    theta, transition = _inputs(theta, transition)
    if theta.dim() != 1:
        raise ValueError(f"theta must be one chain [T], got shape {tuple(theta.shape)}")
    z = viterbi_array(theta.detach().cpu().double().numpy(), transition.detach().cpu().double().numpy())
    return torch.from_numpy(z).to(theta)


def viterbi_array(theta: np.ndarray, transition: np.ndarray) -> np.ndarray:
    """``viterbi`` on float64 arrays θ [T] and A [2, 2] without checks, in plain Python floats (SparseMAP's
    oracle calls it thousands of times a training step); z [T] of 0.0/1.0, ties to the label 0."""
    (a00, a01), (a10, a11) = transition.tolist()
    d0, d1 = 0.0, float(theta[0])  # δ_1(0), δ_1(1)
    back = []
    for t in theta[1:].tolist():
        from1_to0, from1_to1 = d1 + a10 > d0 + a00, d1 + a11 > d0 + a01
        d0, d1 = max(d0 + a00, d1 + a10), max(d0 + a01, d1 + a11) + t
        back.append((from1_to0, from1_to1))
    z = [int(d1 > d0)]
    for pointers in reversed(back):
        z.append(int(pointers[z[-1]]))
    return np.array(z[::-1], dtype=np.float64)
