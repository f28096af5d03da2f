"""The encoder–decoder Transformer's blocks (Vaswani et al. 2017; lesson 17), from lessons 01–04's pieces.

Notation of the lecture: a sequence's states E ∈ ℝ^{T×d_e}, per head W_q, W_k ∈ ℝ^{d_att×d_e}, W_v ∈
ℝ^{d_att×d_e} (stored [out, in] like ``torch.nn.Linear``), Q = E W_qᵀ + b_q, K = Y W_kᵀ + b_k,
V = Y W_vᵀ + b_v with Y = E (self-attention) or Y = the encoder's output (cross-attention),
A = softmax(Q Kᵀ / √d_head, M) per head (lesson 01's ``xai_tf.attention.attention``: masked scores → −∞,
here with torch's softmax for speed: every row must keep one visible key, as the masks below do),
output Concat(heads) W_oᵀ + b_o.

Masks are boolean, True = visible (lesson 02's convention; ``torch.nn.Transformer`` uses the opposite,
True = hidden, see ``xai_tf.encdec.torch_parity``). An encoder block is, with f the sub-layer:

    post-LN (the 2017 paper):                  x ← LN(x + f(x))
    pre-LN ("the good order", OpenNMT; Xiong et al. 2020):   x ← x + f(LN(x))

for f = self-attention then the MLP W₂ relu(W₁ x + b₁) + b₂; a decoder block has three sub-layers: masked
self-attention (causal mask), cross-attention over the encoder's states (source padding mask), the MLP.
Dropout (rate p, training only) sits on the attention weights, inside the MLP after the ReLU, and on each
sub-layer's output before it is added to the residual, as in ``torch.nn.Transformer``.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from xai_tf import _checks
from xai_tf import attention as att
from xai_tf.transformer.blocks import layer_norm


def _check_width(d_e: object, n_heads: object) -> tuple[int, int]:
    d_e, n_heads = _checks.integer("d_e", d_e, 1), _checks.integer("n_heads", n_heads, 1)
    if d_e % n_heads:
        raise ValueError(f"n_heads must divide d_e={d_e}, got {n_heads}")
    return d_e, n_heads


def _check_stack(n_blocks: int, n_sub: int, d_e: int, d_ff: int, name: str = "blocks") -> None:
    """Refuse, before a weight is made, a stack whose float32 weights would not fit in memory: per block
    4·d_e² per attention sub-layer and 2·d_e·d_ff for the MLP (n_sub − 1 attentions)."""
    n = n_blocks * (4 * d_e * d_e * (n_sub - 1) + 2 * d_e * d_ff + 4 * d_e)
    what = f"{name} = {n_blocks} blocks of d_e = {d_e} and d_ff = {d_ff}"
    _checks.fits(what, 4 * n, f"choose a smaller {name}, d_e or d_ff")


class MultiHeadAttention(nn.Module):
    """MultiHead(X, Y) = Concat(head_1, …, head_H) W_oᵀ + b_o, head_h = A_h (Y W_v^hᵀ + b_v^h),
    A_h = softmax((X W_q^hᵀ + b_q^h)(Y W_k^hᵀ + b_k^h)ᵀ / √(d_att/H), M). Here d_att = d_e."""

    def __init__(self, d_e: int, n_heads: int, dropout: float = 0.0):
        super().__init__()
        self.d_e, self.n_heads = _check_width(d_e, n_heads)
        self.dropout = _checks.real("dropout", dropout, 0.0, 1.0, open_hi=True)
        _check_stack(1, 2, d_e, 0)
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Parameter(torch.empty(d_e, d_e)) for _ in range(4))
        self.b_q, self.b_k, self.b_v, self.b_o = (nn.Parameter(torch.zeros(d_e)) for _ in range(4))
        for W in (self.W_q, self.W_k, self.W_v, self.W_o):
            nn.init.xavier_uniform_(W)

    def forward(self, X: Tensor, Y: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``X [B, n, d_e]`` (queries), ``Y [B, m, d_e]`` (keys and values), ``mask`` broadcast to
        ``[B, H, n, m]`` (True = visible) → (output ``[B, n, d_e]``, A ``[B, H, n, m]``): lesson 01's
        ``multi_head_attention`` with biases; in training, dropout acts on A (the A returned then)."""
        return att.multi_head_attention(
            X,
            self.W_q,
            self.W_k,
            self.W_v,
            self.W_o,
            self.n_heads,
            mask,
            Y,
            (self.b_q, self.b_k, self.b_v, self.b_o),
            self._dropped_softmax if self.training and self.dropout else att.softmax,
        )

    def _dropped_softmax(self, scores: Tensor) -> Tensor:
        return F.dropout(att.softmax(scores), self.dropout, self.training)


class LayerNorm(nn.Module):
    """LN(u) = γ ⊙ (u − μ) / √(σ² + ε) + β (``xai_tf.transformer.blocks.layer_norm``), ε = 10⁻⁵."""

    def __init__(self, d_e: int):
        super().__init__()
        d_e = _checks.integer("d_e", d_e, 1)
        _checks.fits(f"a LayerNorm of d_e = {d_e}", 8 * d_e, "choose a smaller d_e")
        self.gamma, self.beta = nn.Parameter(torch.ones(d_e)), nn.Parameter(torch.zeros(d_e))

    def forward(self, u: Tensor) -> Tensor:
        return layer_norm(u, self.gamma, self.beta)


class MLP(nn.Module):
    """FFN(x) = W₂ dropout(relu(W₁ x + b₁)) + b₂, ``W₁ [d_ff, d_e]``, ``W₂ [d_e, d_ff]``."""

    def __init__(self, d_e: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        d_e, d_ff = _checks.integer("d_e", d_e, 1), _checks.integer("d_ff", d_ff, 1)
        dropout = _checks.real("dropout", dropout, 0.0, 1.0, open_hi=True)
        _check_stack(1, 1, d_e, d_ff)
        self.lin1, self.lin2, self.dropout = nn.Linear(d_e, d_ff), nn.Linear(d_ff, d_e), dropout

    def forward(self, x: Tensor) -> Tensor:
        return self.lin2(F.dropout(torch.relu(self.lin1(x)), self.dropout, self.training))


class _Block(nn.Module):
    """Sub-layers with their LayerNorms, in either order (``norm_first``: pre-LN)."""

    def __init__(self, d_e: int, n_heads: int, d_ff: int, dropout: float, norm_first: bool, n_sub: int):
        super().__init__()
        self.d_e, self.n_heads = _check_width(d_e, n_heads)
        d_ff = _checks.integer("d_ff", d_ff, 1)
        self.p = _checks.real("dropout", dropout, 0.0, 1.0, open_hi=True)
        _check_stack(1, n_sub, d_e, d_ff)
        if not isinstance(norm_first, bool):
            raise TypeError(f"norm_first must be True (pre-LN) or False (post-LN), got {norm_first!r}")
        self.norm_first = norm_first
        self.attn = nn.ModuleList(MultiHeadAttention(d_e, n_heads, dropout) for _ in range(n_sub - 1))
        self.mlp = MLP(d_e, d_ff, dropout)
        self.norms = nn.ModuleList(LayerNorm(d_e) for _ in range(n_sub))

    def _sub(self, i: int, x: Tensor, f) -> Tensor:
        """x + dropout(f(LN(x))) (pre-LN) or LN(x + dropout(f(x))) (post-LN)."""
        if self.norm_first:
            return x + F.dropout(f(self.norms[i](x)), self.p, self.training)
        return self.norms[i](x + F.dropout(f(x), self.p, self.training))


class EncoderBlock(_Block):
    """Self-attention over the source (padding mask), then the MLP; returns (x, A ``[B, H, S, S]``)."""

    def __init__(self, d_e: int, n_heads: int, d_ff: int, dropout: float = 0.0, norm_first: bool = False):
        super().__init__(d_e, n_heads, d_ff, dropout, norm_first, n_sub=2)

    def forward(self, x: Tensor, src_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        weights: list[Tensor] = []

        def self_attention(h: Tensor) -> Tensor:
            out, A = self.attn[0](h, h, src_mask)
            weights.append(A)
            return out

        x = self._sub(0, x, self_attention)
        return self._sub(1, x, self.mlp), weights[0]


class DecoderBlock(_Block):
    """Masked self-attention (``tgt_mask``: causal), cross-attention over ``memory`` (the encoder's
    output; ``memory_mask``: source padding), the MLP; returns (x, self-attention A, cross-attention A)."""

    def __init__(self, d_e: int, n_heads: int, d_ff: int, dropout: float = 0.0, norm_first: bool = False):
        super().__init__(d_e, n_heads, d_ff, dropout, norm_first, n_sub=3)

    def forward(
        self, x: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None
    ) -> tuple[Tensor, Tensor, Tensor]:
        weights: list[Tensor] = []

        def self_attention(h: Tensor) -> Tensor:
            out, A = self.attn[0](h, h, tgt_mask)
            weights.append(A)
            return out

        def cross_attention(h: Tensor) -> Tensor:
            out, A = self.attn[1](h, memory, memory_mask)
            weights.append(A)
            return out

        x = self._sub(0, x, self_attention)
        x = self._sub(1, x, cross_attention)
        return self._sub(2, x, self.mlp), weights[0], weights[1]
