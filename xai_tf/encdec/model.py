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

``EncoderOnly``: the same stack with no causal mask anywhere (BERT-style), over [x_1 … x_S, m_1 … m_L]:
L = S + k *slots* (k = ``EXTRA_SLOTS``, the budget greedy decoding gives the other two), slot j's input
E(m_j) = √d_e · m + W_p[j] with one learnt vector m. Every position sees every position, but the input
never holds a target word, so nothing can be copied from the answer. All slots are read out in one
forward pass (non-autoregressive): z_j = W_e^{tgt} LN(h_{S+j}), trained towards
[y_1 … y_T, <eos>, …, <eos>] (every slot after the last word says <eos>), translated by ŷ_j = argmax z_j
cut at the first <eos>. A target longer than L words cannot be written: ``slot_targets`` refuses it (no
pair of the corpus comes near: T − S ≤ 5 < k).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from xai_tf import _checks
from xai_tf.encdec.blocks import EncoderBlock, LayerNorm, _check_stack, _check_width
from xai_tf.encdec.stack import Attentions, EncoderDecoder, _visible
from xai_tf.transformer.blocks import sinusoidal_positions

MAX_POSITIONS = 128
EXTRA_SLOTS = 8  # L = S + 8 output slots: greedy's budget, S + max_extra words (max_extra = 8)


class _Embedding(nn.Module):
    """E(x) = √d_e · W_e[x] + W_p[position], W_p fixed (sinusoidal), W_e ~ N(0, 1/d_e)."""

    W_p: Tensor

    def __init__(self, vocab: int, d_e: int, name: str = "vocab"):
        super().__init__()
        vocab, d_e = _checks.integer(name, vocab, 1), _checks.integer("d_e", d_e, 1)
        _checks.fits(
            f"{name} = {vocab} embeddings of d_e = {d_e}", 4 * vocab * d_e, f"choose a smaller {name} or d_e"
        )
        self.W_e = nn.Parameter(torch.randn(vocab, d_e) / math.sqrt(d_e))
        self.register_buffer("W_p", sinusoidal_positions(MAX_POSITIONS, d_e), persistent=False)

    def forward(self, ids: Tensor) -> Tensor:
        T = ids.size(-1)
        if T > MAX_POSITIONS:
            raise ValueError(f"sequences may have at most {MAX_POSITIONS} positions, got {T}")
        return math.sqrt(self.W_e.size(1)) * self.W_e[ids] + self.W_p[:T].to(self.W_e.dtype)


def _inputs(model: Any, source: object, source_mask: Tensor) -> tuple[Tensor, Tensor]:
    """``(source, source_mask)`` checked where they enter a model: ids [B, S] in the source vocabulary
    (torch would index out of range), a bool mask shaped like ``source``."""
    source = _checks.token_ids("source", source, model.source.W_e.size(0))
    if source.dim() != 2 or source.numel() == 0:
        raise ValueError(f"source must be token ids [batch, S] (S ≥ 1), got shape {tuple(source.shape)}")
    return source, _visible("source_mask", source_mask, *source.shape)


def _targets(model: Any, target_in: object, batch: int) -> Tensor:
    """``target_in`` checked: ids [batch, T] in the target vocabulary, one row per source sentence."""
    target_in = _checks.token_ids("target_in", target_in, model.target.W_e.size(0))
    if target_in.dim() != 2 or target_in.size(0) != batch or target_in.size(1) == 0:
        raise ValueError(
            f"target_in must be token ids [batch = {batch}, T] like source, "
            f"got shape {tuple(target_in.shape)}"
        )
    return target_in


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
        n_layers = _checks.integer("n_layers", n_layers, 1)
        d_e, _ = _check_width(d_e, n_heads)
        _check_stack(2 * n_layers, 3, d_e, _checks.integer("d_ff", d_ff, 1), "n_layers")  # encoder + decoder
        self.source = _Embedding(source_vocab, d_e, "source_vocab")
        self.target = _Embedding(target_vocab, d_e, "target_vocab")
        self.core = EncoderDecoder(d_e, n_heads, n_layers, n_layers, d_ff, dropout, norm_first)

    def encode(self, source: Tensor, source_mask: Tensor) -> Tensor:
        """The memory ``[B, S, d_e]`` (the encoder's output)."""
        source, source_mask = _inputs(self, source, source_mask)
        return self.core.encode(self.source(source), source_mask)[0]

    def decode(self, memory: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Tensor]:
        """(logits ``[B, T, D_tgt]``, cross-attention ``[N, B, H, T, S]``) for the decoder's inputs."""
        states, _, cross = self.core.decode(self.target(target_in), memory, target_in != 0, source_mask)
        return states @ self.target.W_e.T, cross

    def forward(self, source: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Attentions]:
        source, source_mask = _inputs(self, source, source_mask)
        target_in = _targets(self, target_in, source.size(0))
        states, maps = self.core(self.source(source), self.target(target_in), source_mask, target_in != 0)
        return states @ self.target.W_e.T, maps


class _OneStack(nn.Module):
    """Source and target embeddings, ``n_layers`` encoder blocks, a final LayerNorm; ``_run`` applies
    them under a mask and reads the last ``n_out`` positions out through the tied target embedding."""

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
        self.source = _Embedding(source_vocab, d_e, "source_vocab")
        self.target = _Embedding(target_vocab, d_e, "target_vocab")
        n_layers = _checks.integer("n_layers", n_layers, 1)
        _check_stack(n_layers, 2, _check_width(d_e, n_heads)[0], _checks.integer("d_ff", d_ff, 1), "n_layers")
        self.blocks = nn.ModuleList(
            EncoderBlock(d_e, n_heads, d_ff, dropout, norm_first) for _ in range(n_layers)
        )
        self.norm = LayerNorm(d_e)

    def _run(self, x: Tensor, mask: Tensor, n_out: int) -> tuple[Tensor, Tensor]:
        maps = []
        for block in self.blocks:
            x, A = block(x, mask)
            maps.append(A)
        return self.norm(x[:, x.size(1) - n_out :]) @ self.target.W_e.T, torch.stack(maps)


class DecoderOnly(_OneStack):
    """A causal stack over [source, <bos>, target] (see the module's docstring); ``forward`` takes the
    same three tensors as ``Seq2SeqTransformer`` and returns the target positions' logits and the
    self-attention maps ``[N, B, H, S+T, S+T]``."""

    def forward(self, source: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Tensor]:
        source, source_mask = _inputs(self, source, source_mask)
        target_in = _targets(self, target_in, source.size(0))
        S, T = source.size(1), target_in.size(1)
        x = torch.cat([self.source(source), self.target(target_in)], dim=1)
        visible = torch.cat([source_mask, target_in != 0], dim=1)  # [B, S+T]
        causal = torch.ones(S + T, S + T, dtype=torch.bool, device=x.device).tril()
        return self._run(x, causal & visible[:, None, None, :], T)


class EncoderOnly(_OneStack):
    """A bidirectional stack over [source, L slots] (see the module's docstring): ``forward(source,
    source_mask)`` returns the slots' logits ``[B, L_max, D_tgt]`` and the self-attention maps
    ``[N, B, H, S+L, S+L]``; a third argument (the decoders' ``target_in``) is accepted and never read."""

    def __init__(self, *sizes: Any, extra: int = EXTRA_SLOTS, **named: Any):
        """``sizes`` and ``named``: ``_OneStack``'s (source_vocab, target_vocab, d_e, n_heads, n_layers,
        d_ff, dropout, norm_first), with its defaults; ``extra``: the k slots past the source's length."""
        super().__init__(*sizes, **named)
        self.extra = _checks.integer("extra", extra, 0, MAX_POSITIONS)
        d_e = self.source.W_e.size(1)
        self.slot = nn.Parameter(torch.randn(d_e) / math.sqrt(d_e))

    def slots(self, source_mask: Tensor) -> Tensor:
        """Which slots each sentence has, ``[B, L_max]`` bool: slot j is real iff j < S_b + k."""
        n = source_mask.sum(1, keepdim=True) + self.extra
        return torch.arange(int(n.max()), device=n.device) < n

    def forward(
        self, source: Tensor, source_mask: Tensor, target_in: Tensor | None = None
    ) -> tuple[Tensor, Tensor]:
        source, source_mask = _inputs(self, source, source_mask)
        slots = self.slots(source_mask)
        L = slots.size(1)
        if L > MAX_POSITIONS:
            raise ValueError(f"sequences may have at most {MAX_POSITIONS} positions, got {L} slots")
        m = math.sqrt(self.slot.numel()) * self.slot + self.target.W_p[:L].to(self.slot.dtype)
        x = torch.cat([self.source(source), m.expand(len(source), L, -1)], dim=1)
        visible = torch.cat([source_mask, slots], dim=1)  # keys; every query sees every real position
        return self._run(x, visible[:, None, None, :], L)

    def slot_targets(self, source_mask: Tensor, target_out: Tensor) -> Tensor:
        """What each slot must say, ``[B, L_max]``: y_1 … y_T, then <eos> (id 2) in every later slot of
        the sentence, 0 (ignored) past its last slot. ``target_out`` is ``data.Batch.target_out``."""
        slots = self.slots(source_mask)
        lengths = (target_out > 2).sum(1, keepdim=True)  # T_b: the words before <eos>
        if (too_long := lengths[:, 0] > slots.sum(1)).any():
            k = int(too_long.nonzero()[0, 0])
            raise ValueError(
                f"target_out[{k}] has {int(lengths[k, 0])} words but its sentence has only "
                f"{int(slots[k].sum())} slots (L = S + {self.extra})"
            )
        out = torch.full_like(slots, 2, dtype=torch.long).masked_fill(~slots, 0)
        width = min(target_out.size(1), out.size(1))
        words = torch.arange(out.size(1), device=out.device) < lengths
        return torch.where(words, F.pad(target_out[:, :width], (0, out.size(1) - width)), out)


def scored_targets(model: nn.Module, source_mask: Tensor, target_out: Tensor) -> Tensor:
    """What ``model``'s logits are scored against (0 = not scored): ``target_out`` = y_1 … y_T <eos>
    for the decoders, ``EncoderOnly.slot_targets`` for the encoder-only model."""
    if isinstance(model, EncoderOnly):
        return model.slot_targets(source_mask, target_out)
    return target_out
