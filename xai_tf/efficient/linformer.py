"""Linformer (lesson 14): Wang, Li, Khabsa, Fang & Ma (2020), *Linformer: Self-Attention with Linear
Complexity*.

The n × n attention matrix is close to low rank, so project the n keys and values down to k rows
with E, F ∈ ℝ^{k×n} before attending:

    out = softmax( Q (E K)ᵀ / √d_att ) (F V)        — an n × k matrix of scores, O(n·k·d).

With k = n and E = F = I it is full attention exactly. The paper learns E and F (shared across
heads and layers in its cheapest variant). Without training, ``linformer_projections`` offers two:
``"gaussian"``, entries N(0, 1/k) (the Johnson–Lindenstrauss projection of the paper's analysis),
and ``"pool"``, the mean over k consecutive blocks of about n/k positions (one of the paper's
"general projections"; k = n gives E = F = I). The length n is fixed by E and F, and the plain form
is not causal.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.efficient import _common


def linformer_projections(
    n: int,
    rank: int,
    kind: str = "pool",
    seed: int = 0,
    dtype: torch.dtype | None = None,
    device: torch.device | str | None = None,
) -> tuple[Tensor, Tensor]:
    """E, F ``[k, n]``, k = ``rank`` in 1..n: ``"pool"`` averages k consecutive blocks of ⌊n/k⌋ or
    ⌈n/k⌉ positions (E = F); ``"gaussian"`` draws entries N(0, 1/k), seeded, on the CPU."""
    n = _checks.integer("n", n, 1)
    k = _checks.integer("rank", rank, 1, n)
    dtype = _checks.floating_dtype("dtype", dtype)
    _checks.fits(f"Linformer's projections E, F [{k}, {n}]", 3 * k * n * 8, "choose a smaller rank or n")
    if kind == "pool":
        block = torch.arange(n, device="cpu") * k // n  # position j belongs to block ⌊j k / n⌋
        E = torch.nn.functional.one_hot(block, k).T.double()
        F = E = E / E.sum(-1, keepdim=True)
    elif kind == "gaussian":
        g = seeds.generator(seed)
        E, F = (torch.randn(k, n, generator=g, dtype=torch.float64, device="cpu") / k**0.5 for _ in range(2))
    else:
        raise ValueError(f"kind must be 'pool' or 'gaussian', got {kind!r}")
    dtype = dtype or torch.get_default_dtype()
    return E.to(dtype=dtype, device=device), F.to(dtype=dtype, device=device)


def linformer_attention(
    Q: Tensor,
    K: Tensor,
    V: Tensor,
    rank: int | None = None,
    E: Tensor | None = None,
    F: Tensor | None = None,
    kind: str = "pool",
    seed: int = 0,
) -> Tensor:
    """softmax(Q (E K)ᵀ / √d_att) (F V) with E, F ``[k, n]`` given (in Q's dtype and device: no silent
    promotion), or made by ``linformer_projections(n, rank, kind, seed)``."""
    Q, K, V = _common.qkv(Q, K, V)
    n = K.size(-2)
    if E is None or F is None:
        if rank is None:
            raise ValueError("give rank (an integer in 1..n) or both projections E and F")
        E, F = linformer_projections(n, rank, kind, seed, Q.dtype, Q.device)
    for name, P in (("E", E), ("F", F)):
        if _checks.tensor(name, P).dim() != 2 or P.size(1) != n:
            raise ValueError(f"{name} must be [k, {n}] (one column per key), got {tuple(P.shape)}")
        _common.same_dtype(name, P, "Q", Q)
    if E.size(0) != F.size(0):
        raise ValueError(f"E has {E.size(0)} rows but F has {F.size(0)}: both project to the same k")
    s = Q @ (E @ K).transpose(-2, -1) * _common.scale(Q.size(-1))  # [..., n, k]
    return _common.finite_scores(s, "Q (E K)ᵀ / √d_att").softmax(-1) @ (F @ V)
