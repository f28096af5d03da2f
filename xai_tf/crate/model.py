"""A small CRATE and a standard transformer of the same width, depth and heads (lesson 13).
Tokens are columns: every activation is ``[B, d, T]``.

CRATE block ℓ (Yu et al. 2023, eq. 10–11, as in their code: skip connection around MSSA, none
around ISTA, LayerNorm before each):

    Z^{ℓ+1/2} = Z^ℓ + A^ℓ [SATT(LN(Z^ℓ) | U^ℓ_1); …; SATT(LN(Z^ℓ) | U^ℓ_K)]     (scale 1/√r)
    Z^{ℓ+1}   = ReLU(Y + η Dᵀ(Y − D Y) − ηλ 1),   Y = LN(Z^{ℓ+1/2}),  η = λ = 0.1

The learned output matrix A^ℓ stands for [U_1 … U_K] (the paper's implementation learns it apart).
Standard block: Z + W_o MHA(LN Z) with separate W_q, W_k, W_v per head, then Z + W_2 ReLU(W_1 LN Z).
The classifier reads LN(mean of the tokens) with one linear layer.
"""

from __future__ import annotations

import math
from typing import cast

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.attention import attention
from xai_tf.crate import ista, mssa
from xai_tf.transformer.blocks import rms_norm

KINDS = ("crate", "standard")


def _layer_norm(Z: Tensor, ln: nn.LayerNorm) -> Tensor:
    """LayerNorm over the d features of each token (column)."""
    return ln(Z.mT).mT


class Block(nn.Module):
    """One CRATE or standard block on ``[B, d, T]``; ``trace`` returns its intermediate activations."""

    def __init__(self, kind: str, d: int, K: int, r: int, eta: float = 0.1, lam: float = 0.1):
        super().__init__()
        self.kind, self.K, self.r, self.eta, self.lam = kind, K, r, eta, lam
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        init = 1 / math.sqrt(d)
        n_proj = 1 if kind == "crate" else 3  # Q = K = V = U_kᵀ, or three matrices per head
        self.proj = nn.Parameter(torch.randn(n_proj, K, d, r) * init)
        self.out = nn.Linear(K * r, d)
        if kind == "crate":
            self.D = nn.Parameter(torch.linalg.qr(torch.randn(d, d))[0])  # start orthogonal
        else:
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d))

    def attention(self, Y: Tensor) -> Tensor:
        """``[B, K·r, T]``: the heads' outputs, before the output matrix."""
        B, _, T = Y.shape
        if self.kind == "crate":
            heads = mssa.satt(Y, self.proj[0], scale=1 / math.sqrt(self.r))
        else:
            q, k, v = (P.mT @ Y.unsqueeze(1) for P in self.proj)  # [B, K, r, T] each
            heads = attention(q.mT, k.mT, v.mT)[0].mT  # tokens as rows there: softmax(q kᵀ/√r) v
        return heads.reshape(B, self.K * self.r, T)

    def trace(self, Z: Tensor) -> dict[str, Tensor]:
        """``in`` Z^ℓ, ``attn_in`` LN(Z^ℓ), ``mid`` Z^{ℓ+1/2}, ``mlp_in`` LN(Z^{ℓ+1/2}), ``out`` Z^{ℓ+1}."""
        attn_in = _layer_norm(Z, self.ln1)
        mid = Z + (self.out.weight @ self.attention(attn_in) + self.out.bias.unsqueeze(-1))
        mlp_in = _layer_norm(mid, self.ln2)
        if self.kind == "crate":
            out = ista.ista_step(mlp_in, self.D, self.eta, self.lam)
        else:
            out = mid + self.mlp(mlp_in.mT).mT
        return {"in": Z, "attn_in": attn_in, "mid": mid, "mlp_in": mlp_in, "out": out}

    def forward(self, Z: Tensor) -> Tensor:
        return self.trace(Z)["out"]

    def value_bases(self) -> Tensor:
        """``[K, d, r]``: the subspaces the heads read their values from (U_k for CRATE, W_v's rows
        for the standard block), orthonormalised by QR."""
        return torch.linalg.qr(self.proj[-1].detach())[0]


class Classifier(nn.Module):
    """L blocks of one kind on ``[B, d, T]`` tokens, then a linear head on LN(mean over tokens)."""

    def __init__(self, kind: str, d: int, K: int, r: int, n_layers: int, n_classes: int):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        d, K = _checks.integer("d", d, 1), _checks.integer("K", K, 1)
        r = _checks.integer("r", r, 1, d)
        n_layers, n_classes = (
            _checks.integer("n_layers", n_layers, 1),
            _checks.integer("n_classes", n_classes, 2),
        )
        self.kind, self.d, self.n_classes = kind, d, n_classes
        self.blocks = nn.ModuleList(Block(kind, d, K, r) for _ in range(n_layers))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, n_classes)

    def tokens(self, Y: object) -> Tensor:
        """``Y [B, d, T]`` checked (finite, floating) and converted once to the model's dtype and device."""
        Y = _checks.tensor("Y", Y)
        if Y.dim() != 3 or Y.size(1) != self.d:
            raise ValueError(
                f"Y must be [B, d, T] with d = {self.d} (tokens are columns), got {tuple(Y.shape)}"
            )
        return _checks.like("Y", Y, self)

    def trace(self, Y: Tensor) -> list[dict[str, Tensor]]:
        """Every block's intermediate activations (``Block.trace``), first block first."""
        steps: list[dict[str, Tensor]] = []
        Z = self.tokens(Y)
        for i in range(len(self.blocks)):
            steps.append(self.block(i).trace(Z))
            Z = steps[-1]["out"]
        return steps

    def block(self, i: int) -> Block:
        """Block i (0 = the first)."""
        return cast(Block, self.blocks[i])

    def forward(self, Y: Tensor) -> Tensor:
        Z = self.trace(Y)[-1]["out"]
        return self.head(self.ln_f(Z.mean(-1)))


FORMS = ("pre-ln", "recap")


def attention_stack(model: Classifier, Y: object, form: str) -> list[Tensor]:
    """The tokens ``[B, d, T]`` after each of ``model``'s attention sub-layers alone (no MLP or ISTA
    step), stacked through its blocks, with MHATT(Z) = A·heads(Z) + b each block's attention and output
    matrix, in one of two forms:

        "pre-ln":  Z ← Z + MHATT(LN(Z))       (the models here, GPT-2: normalise before, sum after)
        "recap":   Z ← RMS_γ(Z + MHATT(Z))    (lecture 004's recap block: RMS after the residual sum,
                                              γ = 1; ``transformer.blocks.rms_norm``)

    Returns [Z⁰ = Y, Z¹, …, Z^L]."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    Z = model.tokens(Y)
    out = [Z]
    with torch.no_grad():
        for i in range(len(model.blocks)):
            b = model.block(i)
            X = _layer_norm(Z, b.ln1) if form == "pre-ln" else Z
            Z = Z + b.out.weight @ b.attention(X) + b.out.bias.unsqueeze(-1)
            if form == "recap":
                Z = rms_norm(Z.mT, torch.ones(model.d, dtype=Z.dtype, device=Z.device)).mT
            out.append(Z)
    return out
