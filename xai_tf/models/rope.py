"""Rotary position embeddings (RoPE, Su et al., 2021), in Hugging Face's rotate-half layout: the
position code of the Llama family (``llama.py``), applied to q and k inside attention instead of a
position vector added to the token embedding.

    R_p x: dimensions c and c + d_h/2 of a head turn by the angle p θ^(−2c/d_h),  c = 0..d_h/2 − 1

Since R_iᵀ R_j = R_{j−i}, the score R_i q · R_j k = q R_{i−j} · k depends on the positions only through
their offset (``rotation`` gives R_δ as a matrix).
"""

from __future__ import annotations

import torch
from torch import Tensor


def rotary(x: Tensor, positions: Tensor, theta: float) -> Tensor:
    """R_p x for ``x`` ``[batch, heads, T, d_h]`` at ``positions`` ``[T]``: dimensions c and c + d_h/2
    turn by p θ^(−2c/d_h) (rotate-half layout). The angles are computed in float32, as Hugging Face does."""
    d_h = x.size(-1)
    if x.dim() < 2 or d_h % 2 or positions.shape != (x.size(-2),):
        raise ValueError(
            f"x must be [..., T, d_h] with d_h even and positions [T], got {tuple(x.shape)} and "
            f"{tuple(positions.shape)}"
        )
    if not theta > 0:
        raise ValueError(f"theta must be a positive base, got {theta}")
    inv_freq = 1.0 / (theta ** (torch.arange(0, d_h, 2, dtype=torch.float, device=x.device) / d_h))
    angles = positions.float()[:, None] * inv_freq  # (T, d_h/2)
    angles = torch.cat([angles, angles], dim=-1)  # (T, d_h): pair c and c + d_h/2 share an angle
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


def rotation(d_h: int, theta: float, offset: int, device: torch.device | None = None) -> Tensor:
    """R_δ ``[d_h, d_h]`` for δ = ``offset``: rotary(q, i) · rotary(k, j) = q R_{i−j} · k, since
    R_i R_jᵀ = R_{i−j} (row r of the identity, turned by the angles of position δ, is row r of R_δ)."""
    eye = torch.eye(d_h, device=device)[None, None]  # d_h rows, each at position δ
    return rotary(eye, torch.full((d_h,), offset, device=device), theta)[0, 0]
