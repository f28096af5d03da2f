"""The seq2seq Transformer of lesson 17 on lesson 16's translation task, and its decoder-only rival.

``Seq2SeqTransformer``: source words x_1..x_S and target words y_1..y_T (ids of ``xai_tf.seq2seq.data``)
are embedded, E(x) = √d_e · W_e[x] + W_p (sinusoidal positions, Vaswani et al. 2017: the √d_e keeps the
embedding's scale next to the positions'), read by ``EncoderDecoder``, and the decoder's last states h_t
are scored against the target embedding itself (tied output, Press & Wolf 2017): z_t = W_e^{tgt} h_t.

``DecoderOnly``: one stack of self-attention blocks over the concatenation
[x_1 … x_S, <bos>, y_1 … y_T] with a causal mask (the source is a *prefix*, GPT-style): target word t
attends to the whole source and to the words before it, but no source word attends to anything after
it. Source and target words have separate embeddings, each side's positions count from 0; the output
is tied to the target's.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.encdec.blocks import EncoderBlock, LayerNorm
from xai_tf.encdec.stack import Attentions, EncoderDecoder
from xai_tf.transformer.blocks import sinusoidal_positions

MAX_POSITIONS = 128


class _Embedding(nn.Module):
    """E(x) = √d_e · W_e[x] + W_p[position], W_p fixed (sinusoidal), W_e ~ N(0, 1/d_e)."""

    W_p: Tensor

    def __init__(self, vocab: int, d_e: int):
        super().__init__()
        self.W_e = nn.Parameter(torch.randn(_checks.integer("vocab", vocab, 1), d_e) / math.sqrt(d_e))
        self.register_buffer("W_p", sinusoidal_positions(MAX_POSITIONS, d_e), persistent=False)

    def forward(self, ids: Tensor) -> Tensor:
        T = ids.size(-1)
        if T > MAX_POSITIONS:
            raise ValueError(f"sequences may have at most {MAX_POSITIONS} positions, got {T}")
        return math.sqrt(self.W_e.size(1)) * self.W_e[ids] + self.W_p[:T].to(self.W_e.dtype)


class Seq2SeqTransformer(nn.Module):
    """Embeddings, ``EncoderDecoder``, tied output. ``forward(source, source_mask, target_in)`` gives the
    logits ``[B, T, D_tgt]`` for the next target word at each position and every attention map."""

    def __init__(
        self,
        source_vocab: int,
        target_vocab: int,
        d_e: int = 64,
        n_heads: int = 4,
        n_layers: int = 2,
        d_ff: int = 128,
        dropout: float = 0.0,
        norm_first: bool = True,
    ):
        super().__init__()
        self.source, self.target = _Embedding(source_vocab, d_e), _Embedding(target_vocab, d_e)
        self.core = EncoderDecoder(d_e, n_heads, n_layers, n_layers, d_ff, dropout, norm_first)

    def encode(self, source: Tensor, source_mask: Tensor) -> Tensor:
        """The memory ``[B, S, d_e]`` (the encoder's output)."""
        return self.core.encode(self.source(source), source_mask)[0]

    def decode(self, memory: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Tensor]:
        """(logits ``[B, T, D_tgt]``, cross-attention ``[N, B, H, T, S]``) for the decoder's inputs."""
        states, _, cross = self.core.decode(self.target(target_in), memory, target_in != 0, source_mask)
        return states @ self.target.W_e.T, cross

    def forward(self, source: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Attentions]:
        states, maps = self.core(self.source(source), self.target(target_in), source_mask, target_in != 0)
        return states @ self.target.W_e.T, maps


class DecoderOnly(nn.Module):
    """A causal stack over [source, <bos>, target] (see the module's docstring); ``forward`` takes the
    same three tensors as ``Seq2SeqTransformer`` and returns the target positions' logits and the
    self-attention maps ``[N, B, H, S+T, S+T]``."""

    def __init__(
        self,
        source_vocab: int,
        target_vocab: int,
        d_e: int = 64,
        n_heads: int = 4,
        n_layers: int = 4,
        d_ff: int = 128,
        dropout: float = 0.0,
        norm_first: bool = True,
    ):
        super().__init__()
        self.source, self.target = _Embedding(source_vocab, d_e), _Embedding(target_vocab, d_e)
        n_layers = _checks.integer("n_layers", n_layers, 1)
        self.blocks = nn.ModuleList(
            EncoderBlock(d_e, n_heads, d_ff, dropout, norm_first) for _ in range(n_layers)
        )
        self.norm = LayerNorm(d_e)

    def forward(self, source: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Tensor]:
        S, T = source.size(1), target_in.size(1)
        x = torch.cat([self.source(source), self.target(target_in)], dim=1)
        visible = torch.cat([source_mask, target_in != 0], dim=1)  # [B, S+T]
        causal = torch.ones(S + T, S + T, dtype=torch.bool, device=x.device).tril()
        mask = causal & visible[:, None, None, :]
        maps = []
        for block in self.blocks:
            x, A = block(x, mask)
            maps.append(A)
        return self.norm(x[:, S:]) @ self.target.W_e.T, torch.stack(maps)
