"""The RNN encoder–decoder of lesson 16 (Cho et al. 2014; Sutskever et al. 2014; Bahdanau et al. 2015),
in lecture 001's notation.

Encoder: a bidirectional GRU over the source embeddings gives one state per source word,
h_j = [→h_j; ←h_j] ∈ ℝ^{d} (d = 2 d_h). Decoder: a GRU cell whose state is s_i ∈ ℝ^{d},

    s_0 = tanh(W_s ←h_1),   s_i = GRU(s_{i−1}, [E(y_{i−1}); c_i]),
    p(y_i | y_<i, x) = softmax(W_o [s_i; c_i; E(y_{i−1})]),

where c_i is

- **without attention** (``score=None``): the one fixed-size vector c = [→h_S; ←h_1] for every i — the
  whole source squeezed into d numbers (the bottleneck);
- **with attention**: c_i = Σ_j α_ij h_j with α_ij from s_{i−1} and h_j by one of the score functions
  of ``xai_tf.seq2seq.attention`` (additive = Bahdanau et al.).

Source padding (id 0) is never attended to and does not enter the encoder's states (packed sequences).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from xai_tf import _checks
from xai_tf.seq2seq.attention import SCORES, _attend, scorer


@dataclass(frozen=True)
class Config:
    """Sizes: vocabularies, embedding d_e, encoder GRU d_h per direction (states d = 2 d_h), the
    additive/MLP hidden size d_att, and the score function (None: no attention)."""

    source_words: int
    target_words: int
    d_e: int = 32
    d_h: int = 32
    d_att: int = 32
    score: str | None = "additive"

    def __post_init__(self) -> None:
        for name in ("source_words", "target_words"):
            _checks.integer(name, getattr(self, name), 5)
        for name in ("d_e", "d_h", "d_att"):
            _checks.integer(name, getattr(self, name), 1, 4096)
        s, t, d_e, d = self.source_words, self.target_words, self.d_e, 2 * self.d_h
        n_bytes = 4 * (s * d_e + t * (d_e + 2 * d + d_e + 1))  # the embeddings and the output layer
        _checks.fits(f"source_words = {s} and target_words = {t}", n_bytes, "choose smaller vocabularies")
        if self.score is not None and self.score not in SCORES:
            raise ValueError(
                f"score must be None (no attention) or one of {', '.join(SCORES)}, got {self.score!r}"
            )


class Seq2Seq(nn.Module):
    """Encoder–decoder with or without attention (see the module's docstring)."""

    def __init__(self, config: Config):
        super().__init__()
        self.config = c = config
        d = 2 * c.d_h
        self.E_src = nn.Embedding(c.source_words, c.d_e, padding_idx=0)
        self.E_tgt = nn.Embedding(c.target_words, c.d_e, padding_idx=0)
        self.encoder = nn.GRU(c.d_e, c.d_h, batch_first=True, bidirectional=True)
        self.W_s = nn.Linear(c.d_h, d)
        self.decoder = nn.GRUCell(c.d_e + d, d)
        self.W_o = nn.Linear(2 * d + c.d_e, c.target_words)
        self.scorer = None if c.score is None else scorer(c.score, d, c.d_att)

    def encode(self, source: Tensor, source_mask: Tensor) -> tuple[Tensor, Tensor, Tensor | None, Tensor]:
        """h [B, S, d], s_0 [B, d], the scorer's keys (None without attention) and the fixed c [B, d]."""
        source = _checks.token_ids("source", source, self.E_src.num_embeddings)
        if source.dim() != 2:
            raise ValueError(f"source must be token ids [batch, S], got shape {tuple(source.shape)}")
        if (
            not isinstance(source_mask, Tensor)
            or source_mask.dtype != torch.bool
            or source_mask.shape != source.shape
        ):
            raise ValueError(f"source_mask must be a bool tensor shaped like source {tuple(source.shape)}")
        if not bool(source_mask.any(1).all()):
            raise ValueError("source_mask must mark at least one word in every row")
        lengths = source_mask.sum(1).cpu()
        packed = pack_padded_sequence(self.E_src(source), lengths, batch_first=True, enforce_sorted=False)
        out, last = self.encoder(packed)
        h, _ = pad_packed_sequence(out, batch_first=True, total_length=source.size(1))
        forward_last, backward_first = last[0], last[1]  # →h_S, ←h_1
        s0 = torch.tanh(self.W_s(backward_first))
        keys = None if self.scorer is None else self.scorer.keys(h)
        return h, s0, keys, torch.cat([forward_last, backward_first], -1)

    def attend(self, e: Tensor, source_mask: Tensor) -> Tensor:
        """α_i· [B, S] from the scores e_i· [B, S]: the softmax over the real (unpadded) source words."""
        return _attend(e, source_mask)

    def step(
        self,
        y_prev: Tensor,
        s_prev: Tensor,
        h: Tensor,
        keys: Tensor | None,
        c_fixed: Tensor,
        source_mask: Tensor,
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        """One decoder step from y_{i−1} [B] and s_{i−1} [B, d]: logits [B, V], s_i, α_i· [B, S]
        (None without attention)."""
        if self.scorer is None or keys is None:
            alpha, c = None, c_fixed
        else:
            alpha = self.attend(self.scorer(s_prev, keys), source_mask)
            c = torch.einsum("bs,bsd->bd", alpha, h)
        emb = self.E_tgt(y_prev)
        s = self.decoder(torch.cat([emb, c], -1), s_prev)
        return self.W_o(torch.cat([s, c, emb], -1)), s, alpha

    def forward(self, source: Tensor, source_mask: Tensor, target_in: Tensor) -> tuple[Tensor, Tensor | None]:
        """Teacher forcing: logits [B, T, V] for every position of ``target_in`` and α [B, T, S]
        (None without attention)."""
        target_in = _checks.token_ids("target_in", target_in, self.E_tgt.num_embeddings)
        if target_in.dim() != 2 or target_in.size(0) != len(source) or target_in.size(1) == 0:
            raise ValueError(f"target_in must be token ids [batch = {len(source)}, T ≥ 1] like source")
        h, s, keys, c = self.encode(source, source_mask)
        logits, alphas = [], []
        for i in range(target_in.size(1)):
            out, s, alpha = self.step(target_in[:, i], s, h, keys, c, source_mask)
            logits.append(out)
            alphas.append(alpha)
        attention = None if alphas[0] is None else torch.stack([a for a in alphas if a is not None], 1)
        return torch.stack(logits, 1), attention
