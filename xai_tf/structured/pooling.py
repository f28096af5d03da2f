"""Yang et al.'s (2016) attention pooling as a function (lesson 18's exercise): the computation of
``xai_tf.structured.hierarchy.Attention``, on given weights. It lives apart from ``hierarchy`` so that the
recorded trainings' fingerprint (the code of that module) is unchanged."""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def attention_pool(h: Tensor, W: Tensor, b: Tensor, u_ctx: Tensor) -> tuple[Tensor, Tensor]:
    """Yang et al.'s attention pooling of the states ``h [..., T, d]``: u_t = tanh(W h_t + b),
    α_t = softmax_t(u_tᵀ u_ctx), pooled s = Σ_t α_t h_t; returns (s ``[..., d]``, α ``[..., T]``).
    ``W [d, d]``, ``b [d]`` and ``u_ctx [d]`` are ``Attention``'s ``W.weight``, ``W.bias`` and ``u_ctx``."""
    h = _checks.real_tensor("h", h)
    if h.dim() < 2:
        raise ValueError(f"h must be [..., T, d], got shape {tuple(h.shape)}")
    d = h.size(-1)
    for name, x, shape in (("W", W, (d, d)), ("b", b, (d,)), ("u_ctx", u_ctx, (d,))):
        if tuple(_checks.real_tensor(name, x).shape) != shape:
            raise ValueError(f"{name} must have shape {shape} for d = {d}, got {tuple(x.shape)}")
    alpha = torch.softmax(torch.tanh(h @ W.T + b) @ u_ctx, dim=-1)
    return (alpha.unsqueeze(-1) * h).sum(-2), alpha
