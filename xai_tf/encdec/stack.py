"""The encoder and decoder stacks and their masks (lesson 17), as ``torch.nn.Transformer`` arranges them.

The encoder reads the source E_src ∈ ℝ^{B×S×d_e} through N encoder blocks, then a final LayerNorm; the
decoder reads the target so far E_tgt ∈ ℝ^{B×T×d_e} through N decoder blocks, each attending to the
encoder's output (the *memory*), then a final LayerNorm. ``torch.nn.Transformer`` keeps both final
LayerNorms in either order (in post-LN they normalise an already normalised vector a second time).

Masks (True = visible), broadcast over heads:
    source:  M_src[b, ·, ·, s] = s < S_b                        (padding: no query reads a pad key)
    target:  M_tgt[b, ·, t, u] = (u ≤ t) ∧ (u < T_b)            (causal: no position reads the future)
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.encdec.blocks import DecoderBlock, EncoderBlock, LayerNorm, _check_stack, _check_width


def _visible(name: str, visible: Tensor, B: int, T: int) -> Tensor:
    if _checks.tensor(name, visible).dtype != torch.bool or visible.shape != (B, T):
        raise ValueError(
            f"{name} must be a bool tensor [batch, T] = [{B}, {T}] (True = a real token), "
            f"got {visible.dtype} {tuple(visible.shape)}"
        )
    return visible


def source_mask(src_visible: Tensor) -> Tensor:
    """``src_visible [B, S]`` (True = a real token, False = padding) → ``[B, 1, 1, S]``."""
    src_visible = _checks.tensor("src_visible", src_visible)
    B, S = src_visible.shape if src_visible.dim() == 2 else (0, 0)
    return _visible("src_visible", src_visible, B, S)[:, None, None, :]


def target_mask(tgt_visible: Tensor) -> Tensor:
    """``tgt_visible [B, T]`` → the causal mask and the keys' padding ``[B, 1, T, T]``."""
    tgt_visible = _checks.tensor("tgt_visible", tgt_visible)
    B, T = tgt_visible.shape if tgt_visible.dim() == 2 else (0, 0)
    causal = torch.ones(T, T, dtype=torch.bool, device=tgt_visible.device).tril()
    return causal & _visible("tgt_visible", tgt_visible, B, T)[:, None, None, :]


class Attentions(NamedTuple):
    """Every attention map of one forward pass, stacked by layer: encoder ``[N, B, H, S, S]``, decoder
    self-attention ``[N, B, H, T, T]`` and cross-attention ``[N, B, H, T, S]``."""

    encoder: Tensor
    decoder: Tensor
    cross: Tensor


class EncoderDecoder(nn.Module):
    """N encoder blocks + final LN, N decoder blocks + final LN (no embeddings: ``model`` adds them)."""

    def __init__(
        self,
        d_e: int = 512,
        n_heads: int = 8,
        n_encoder: int = 6,
        n_decoder: int = 6,
        d_ff: int = 2048,
        dropout: float = 0.0,
        norm_first: bool = False,
    ):
        super().__init__()
        n_encoder = _checks.integer("n_encoder", n_encoder, 1)
        n_decoder = _checks.integer("n_decoder", n_decoder, 1)
        d_e, _ = _check_width(d_e, n_heads)
        d_ff = _checks.integer("d_ff", d_ff, 1)
        _check_stack(n_encoder, 2, d_e, d_ff, "n_encoder")
        _check_stack(n_decoder, 3, d_e, d_ff, "n_decoder")
        self.encoder = nn.ModuleList(
            EncoderBlock(d_e, n_heads, d_ff, dropout, norm_first) for _ in range(n_encoder)
        )
        self.decoder = nn.ModuleList(
            DecoderBlock(d_e, n_heads, d_ff, dropout, norm_first) for _ in range(n_decoder)
        )
        self.encoder_norm, self.decoder_norm = LayerNorm(d_e), LayerNorm(d_e)
        self.d_e, self.n_heads, self.norm_first = d_e, n_heads, norm_first

    def _states(self, name: str, x: object) -> Tensor:
        x = _checks.real_tensor(name, x, dims=3)
        if x.size(-1) != self.d_e:
            raise ValueError(f"{name} must be [batch, length, d_e = {self.d_e}], got {tuple(x.shape)}")
        return x

    def encode(self, src: Tensor, src_visible: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``src [B, S, d_e]`` → (memory ``[B, S, d_e]``, encoder attention ``[N, B, H, S, S]``)."""
        src = self._states("src", src)
        mask = (
            None if src_visible is None else source_mask(_visible("src_visible", src_visible, *src.shape[:2]))
        )
        maps = []
        for block in self.encoder:
            src, A = block(src, mask)
            maps.append(A)
        return self.encoder_norm(src), torch.stack(maps)

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_visible: Tensor | None = None,
        src_visible: Tensor | None = None,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """``tgt [B, T, d_e]`` → (states ``[B, T, d_e]``, self-attention, cross-attention maps)."""
        tgt, memory = self._states("tgt", tgt), self._states("memory", memory)
        if tgt.size(0) != memory.size(0):
            raise ValueError(
                f"tgt and memory must hold the same batch, got {tgt.size(0)} and {memory.size(0)}"
            )
        if tgt_visible is None:
            tgt_visible = torch.ones(tgt.shape[:2], dtype=torch.bool, device=tgt.device)
        tgt_mask = target_mask(_visible("tgt_visible", tgt_visible, *tgt.shape[:2]))
        memory_mask = (
            None
            if src_visible is None
            else source_mask(_visible("src_visible", src_visible, *memory.shape[:2]))
        )
        selfs, crosses = [], []
        for block in self.decoder:
            tgt, A_self, A_cross = block(tgt, memory, tgt_mask, memory_mask)
            selfs.append(A_self)
            crosses.append(A_cross)
        return self.decoder_norm(tgt), torch.stack(selfs), torch.stack(crosses)

    def forward(
        self, src: Tensor, tgt: Tensor, src_visible: Tensor | None = None, tgt_visible: Tensor | None = None
    ) -> tuple[Tensor, Attentions]:
        """The decoder's output states ``[B, T, d_e]`` and every attention map."""
        memory, A_enc = self.encode(src, src_visible)
        out, A_self, A_cross = self.decode(tgt, memory, tgt_visible, src_visible)
        return out, Attentions(A_enc, A_self, A_cross)
