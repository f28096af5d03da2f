"""Attention inside an RNN decoder (lesson 16), in lecture 001's notation: the decoder's previous state
s_{i−1} ∈ ℝ^{d} is scored against every encoder state h_j ∈ ℝ^{d} (j = 1..S), the scores are turned into
weights over the source, and the weighted sum of the encoder states is the context vector c_i:

    e_ij = score(s_{i−1}, h_j),   α_ij = exp(e_ij) / Σ_{j′} exp(e_ij′)  (source padding excluded),
    c_i = Σ_j α_ij h_j.

The score functions (``SCORES``):

- ``dot`` (Luong et al. 2015): e_ij = s_{i−1}ᵀ h_j
- ``scaled_dot`` (Vaswani et al. 2017's scaling): e_ij = s_{i−1}ᵀ h_j / √d
- ``bilinear`` (Luong's "general"): e_ij = s_{i−1}ᵀ W_a h_j
- ``additive`` (Bahdanau et al. 2015): e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j)
- ``mlp``: e_ij = v_aᵀ ReLU(W_2 ReLU(W_a s_{i−1} + U_a h_j)), one more layer than additive.

Luong et al. score the *current* state s_i and use c_i on the output; here every scorer reads s_{i−1}
and c_i feeds the next state, as in Bahdanau et al., so that only the score function differs.
Each scorer precomputes what depends on h only (``keys``), once per sentence.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from xai_tf import _checks


class Scorer(nn.Module):
    """e_ij = score(s_{i−1}, h_j): ``keys(h)`` once per sentence, then ``forward(s, keys)`` → [B, S]
    per step."""

    def keys(self, h: Tensor) -> Tensor:
        return h

    def forward(self, s: Tensor, keys: Tensor) -> Tensor:  # s [B, d], keys [B, S, k] → e [B, S]
        raise NotImplementedError


class Dot(Scorer):
    def forward(self, s: Tensor, keys: Tensor) -> Tensor:
        return torch.einsum("bd,bsd->bs", s, keys)


class ScaledDot(Dot):
    def forward(self, s: Tensor, keys: Tensor) -> Tensor:
        return super().forward(s, keys) / math.sqrt(keys.size(-1))


class Bilinear(Scorer):
    def __init__(self, d: int):
        super().__init__()
        self.W_a = nn.Linear(d, d, bias=False)

    def keys(self, h: Tensor) -> Tensor:  # W_a h_j, so that e_ij = s_{i−1}ᵀ (W_a h_j)
        return self.W_a(h)

    def forward(self, s: Tensor, keys: Tensor) -> Tensor:
        return torch.einsum("bd,bsd->bs", s, keys)


class Additive(Scorer):
    def __init__(self, d: int, d_att: int):
        super().__init__()
        self.W_a = nn.Linear(d, d_att, bias=False)
        self.U_a = nn.Linear(d, d_att, bias=False)
        self.v_a = nn.Linear(d_att, 1, bias=False)

    def keys(self, h: Tensor) -> Tensor:
        return self.U_a(h)

    def hidden(self, s: Tensor, keys: Tensor) -> Tensor:
        return torch.tanh(self.W_a(s)[:, None, :] + keys)

    def forward(self, s: Tensor, keys: Tensor) -> Tensor:
        return self.v_a(self.hidden(s, keys)).squeeze(-1)


class MLP(Additive):
    def __init__(self, d: int, d_att: int):
        super().__init__(d, d_att)
        self.W_2 = nn.Linear(d_att, d_att)

    def hidden(self, s: Tensor, keys: Tensor) -> Tensor:
        return torch.relu(self.W_2(torch.relu(self.W_a(s)[:, None, :] + keys)))


SCORES = ("dot", "scaled_dot", "bilinear", "additive", "mlp")


def scorer(name: str, d: int, d_att: int) -> Scorer:
    """The score function ``name`` (one of ``SCORES``) for states of size ``d`` (``d_att``: the hidden
    size of additive and MLP)."""
    if name not in SCORES:
        raise ValueError(f"name must be one of {', '.join(SCORES)} (the score function), got {name!r}")
    d, d_att = _checks.integer("d", d, 1, 8192), _checks.integer("d_att", d_att, 1, 4096)
    if name in ("dot", "scaled_dot"):
        return Dot() if name == "dot" else ScaledDot()
    return Bilinear(d) if name == "bilinear" else (Additive if name == "additive" else MLP)(d, d_att)


def _attend(e: Tensor, source_mask: Tensor) -> Tensor:
    """α_ij = softmax_j e_ij over the source words (``source_mask`` [B, S] True), 0 on padding."""
    return torch.softmax(e.masked_fill(~source_mask, float("-inf")), dim=-1)


def additive_attention(
    s_prev: Tensor, h: Tensor, W_a: Tensor, U_a: Tensor, v_a: Tensor, source_mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Bahdanau's attention for one decoder step, written out: s_prev = s_{i−1} [B, d], h [B, S, d],
    W_a, U_a [d_att, d], v_a [d_att], source_mask [B, S] (True on words; None: no padding). Returns
    α_i· [B, S] and c_i [B, d]:

        e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j),  α_ij = softmax_j e_ij,  c_i = Σ_j α_ij h_j."""
    h = _checks.real_tensor("h", h, dims=3)
    s_prev = _checks.real_tensor("s_prev", s_prev, dims=2)
    if s_prev.shape[0] != h.shape[0] or s_prev.shape[1] != h.shape[2]:
        raise ValueError(
            f"s_prev [B, d] and h [B, S, d] need one batch size B and one width d, "
            f"got {tuple(s_prev.shape)} and {tuple(h.shape)}"
        )
    if source_mask is None:
        mask = torch.ones(h.shape[:2], dtype=torch.bool, device=h.device)
    else:
        mask = _checks.tensor("source_mask", source_mask)
    if mask.shape != h.shape[:2] or mask.dtype != torch.bool or not mask.any(1).all():
        raise ValueError(
            "source_mask must be a bool [B, S] like h's first two axes, with a word in every row"
        )
    d = h.shape[-1]
    W_a, U_a = _checks.real_tensor("W_a", W_a, dims=2), _checks.real_tensor("U_a", U_a, dims=2)
    v_a = _checks.real_tensor("v_a", v_a, dims=1)
    if W_a.shape[1] != d or U_a.shape != W_a.shape or v_a.shape[0] != W_a.shape[0]:
        raise ValueError(
            f"W_a and U_a must be [d_att, {d}] and v_a [d_att], "
            f"got {tuple(W_a.shape)}, {tuple(U_a.shape)}, {tuple(v_a.shape)}"
        )
    e = torch.tanh((s_prev @ W_a.T)[:, None, :] + h @ U_a.T) @ v_a  # [B, S]
    alpha = _attend(e, mask)
    return alpha, torch.einsum("bs,bsd->bd", alpha, h)
