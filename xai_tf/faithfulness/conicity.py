"""Conicity (Mohankumar et al., 2020; lesson 11; a slide of its own in the lecture, not its "horizontal
issue", which is information leaking between contextual vectors): how much the hidden states of one
sentence point the same way — when they do, attention weights can change without changing the output:

    conicity(H) = (1/m) Σ_i cos(h_i, ā),   ā = (1/m) Σ_j h_j,   H = (h_1, …, h_m).

Identical vectors give 1; vectors spread evenly in all directions give values near 0. Degenerate
case: when the mean ā is the zero vector (e.g. an orthonormal set together with its negatives) there
is no cone axis; cos(h, 0) is taken as 0, so the conicity is 0, the value of "no common direction"
(a zero row h_i likewise adds 0).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.tasks.recurrent import AttentionClassifier, batch, checked_data
from xai_tf.tasks.words import Example

EPS = 1e-12


def conicity(H: Tensor, mask: Tensor | None = None) -> Tensor:
    """conicity of the rows of H ``[..., m, d]`` (one value per leading index; differentiable).
    ``mask [..., m]`` (1 = a row that counts) leaves out padding."""
    _checks.tensor("H", H)
    if H.dim() < 2 or H.size(-2) == 0 or H.size(-1) == 0:
        raise ValueError(f"H must be vectors [..., m, d] with m, d ≥ 1, got shape {tuple(H.shape)}")
    if not H.is_floating_point() or not torch.isfinite(H).all():
        raise ValueError("H must be finite floating-point vectors")
    if mask is not None and not isinstance(mask, Tensor):
        raise TypeError(f"mask must be a tensor [..., m] (1 = a row that counts), got {type(mask).__name__}")
    w = torch.ones(H.shape[:-1], dtype=H.dtype, device=H.device) if mask is None else mask.to(H.dtype)
    if w.shape != H.shape[:-1]:
        raise ValueError(f"mask must have shape {tuple(H.shape[:-1])}, got {tuple(w.shape)}")
    m = w.sum(-1)
    if (m <= 0).any():
        raise ValueError("mask keeps no row of some H: conicity needs at least one vector")
    mean = (w[..., None] * H).sum(-2) / m[..., None]
    norms = H.norm(dim=-1) * mean.norm(dim=-1, keepdim=True)
    dots = (H * mean[..., None, :]).sum(-1)
    cos = torch.where(norms > EPS, dots / norms.clamp_min(EPS), torch.zeros_like(dots))
    return (w * cos).sum(-1) / m


@torch.no_grad()
def recurrent_conicity(model: AttentionClassifier, data: Sequence[Example]) -> tuple[float, float]:
    """``(embeddings, states)``: the mean over sentences of conicity(E(x)) and conicity(h) of lesson
    08's classifier (padding left out)."""
    b = batch(checked_data(model, data)).to(model.embedding.device)
    mask = torch.arange(b.ids.size(1), device=b.ids.device) < b.lengths[:, None]
    E = model.embed(b.ids)
    h = model.states(E, b.lengths)
    return float(conicity(E, mask).mean()), float(conicity(h, mask).mean())


@torch.no_grad()
def layer_conicity(lm: LoadedModel, texts: Sequence[str]) -> Tensor:
    """``[n_layer + 1]``: the mean over ``texts`` of the conicity of the residual stream entering
    layer 0 (embeddings + positions) and leaving each layer ℓ (a transformer's contextual vectors)."""
    if isinstance(texts, str) or not texts:
        raise ValueError("texts must be a non-empty list of strings")
    rows = []
    for text in texts:
        _, cache = lm.run_with_cache(lm.encode(text))
        stream = [cache["resid_pre", 0], *(cache["resid_post", layer] for layer in range(lm.n_layer))]
        rows.append(torch.stack([conicity(x[0].float()) for x in stream]))
    return torch.stack(rows).mean(0)
