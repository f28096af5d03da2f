"""Absolute vs relative positions (lesson 14): which one generalises to longer sequences.

Absolute (the lecture's W_p ∈ ℝ^{T_max×d_e}): the input of position i is e_i = W_e[x_i] + W_p[i];
one causal attention head with Q = E W_qᵀ, K = E W_kᵀ, V = E W_vᵀ.

Relative (Shaw, Uszkoreit & Vaswani 2018, *Self-Attention with Relative Position Representations*):
no W_p; learned vectors a^K_r, a^V_r for clipped offsets r = clip(j − i, −c, c) enter the head,

    z_ij = q_i · (k_j + a^K_{r(i,j)}) / √d_att,     out_i = Σ_j p_ij (v_j + a^V_{r(i,j)}).

Both are trained on ``xai_tf.tasks.offsets`` at one length and tested at longer ones. Rows of W_p
beyond the training length are never trained: the absolute model has nothing to go on there.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.tasks.offsets import IGNORE, offset_batch
from xai_tf.training import TrainOptions, fit, fixed_batch_size

OPTIONS = TrainOptions(steps=300, lr=0.01, batch_size=64)  # train_offset_model's defaults
MAX_T = 64  # the absolute model's table of positions has T_max = 64 rows; longer runs only cost


class OffsetModel(nn.Module):
    """Embedding, one causal attention head (absolute or relative positions), a readout to tokens."""

    def __init__(self, positions: str, vocab: int = 10, d: int = 32, T_max: int = 64, clip: int = 4):
        super().__init__()
        if positions not in ("absolute", "relative"):
            raise ValueError(f"positions must be 'absolute' or 'relative', got {positions!r}")
        self.positions, self.T_max = positions, _checks.integer("T_max", T_max, 1)
        self.clip = clip = _checks.integer("clip", clip, 0)  # offsets clipped to −clip..clip
        d, vocab = _checks.integer("d", d, 1), _checks.integer("vocab", vocab, 1)
        self.W_e = nn.Parameter(torch.randn(vocab, d) / math.sqrt(d))
        self.W_q, self.W_k, self.W_v = (nn.Parameter(torch.randn(d, d) / math.sqrt(d)) for _ in range(3))
        self.W_o = nn.Parameter(torch.randn(vocab, 2 * d) / math.sqrt(2 * d))
        if positions == "absolute":
            self.W_p = nn.Parameter(torch.randn(T_max, d) / math.sqrt(d))
        else:
            self.a_K = nn.Parameter(torch.randn(2 * clip + 1, d) / math.sqrt(d))
            self.a_V = nn.Parameter(torch.randn(2 * clip + 1, d) / math.sqrt(d))

    def forward(self, x: Tensor) -> Tensor:
        """Logits ``[batch, T, vocab]`` for tokens ``x [batch, T]``."""
        T = x.size(-1)
        E = self.W_e[x]
        if self.positions == "absolute":
            if T > self.T_max:
                raise ValueError(f"x has T = {T} positions but W_p has T_max = {self.T_max} rows")
            E = E + self.W_p[:T]
        Q, K, V = E @ self.W_q.T, E @ self.W_k.T, E @ self.W_v.T
        z = Q @ K.transpose(-2, -1)
        if self.positions == "relative":
            i = torch.arange(T, device=x.device)
            r = (i[None, :] - i[:, None]).clamp(-self.clip, self.clip) + self.clip  # [T, T] offset index
            r = r.expand(x.size(0), T, T)
            z = z + (Q @ self.a_K.T).gather(-1, r)  # q_i · a^K_{r(i,j)}
        future = ~torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        z = (z / math.sqrt(Q.size(-1))).masked_fill(future, float("-inf"))
        p = z.softmax(-1)
        out = p @ V
        if self.positions == "relative":
            mass = torch.zeros(*p.shape[:-1], 2 * self.clip + 1, dtype=p.dtype, device=p.device)
            out = out + mass.scatter_add(-1, r, p) @ self.a_V  # Σ_j p_ij a^V_{r(i,j)}
        return torch.cat([out, E], -1) @ self.W_o.T


def _task(name: str, T: object, offset: object, T_max: int = MAX_T) -> tuple[int, int]:
    """T in 2..T_max and the offset k in 1..T−1 (a position i ≥ k must exist to be scored)."""
    T = _checks.integer(name, T, 2, T_max)
    return T, _checks.integer("offset", offset, 1, T - 1)


def train_offset_model(
    positions: str, T: int = 16, offset: int = 3, options: TrainOptions = OPTIONS
) -> tuple[OffsetModel, list[float]]:
    """Train an ``OffsetModel`` on fresh seeded batches of ``options.batch_size`` sequences of length
    T, cross-entropy, Adam (``OPTIONS`` by default: 64 sequences)."""
    batch, seed = fixed_batch_size(options), options.seed
    if positions not in ("absolute", "relative"):
        raise ValueError(f"positions must be 'absolute' or 'relative', got {positions!r}")
    T, offset = _task("T", T, offset)
    with seeds.seeded(seed):
        model = OffsetModel(positions)

    def loss(k: int) -> Tensor:
        x, y = offset_batch(batch, T, offset, seed=seed * 100_003 + k)
        return F.cross_entropy(model(x).flatten(0, 1), y.flatten(), ignore_index=IGNORE)

    with one_thread():
        return model, fit(model.parameters(), loss, options)


@torch.no_grad()
def offset_accuracy(model: OffsetModel, T: int, offset: int = 3, n: int = 256, seed: int = 12345) -> float:
    """Share of scored positions (i ≥ offset) where the model's top token is x_{i−offset}, on ``n``
    fresh sequences of length ``T``."""
    if not isinstance(model, OffsetModel):
        raise TypeError(f"model must be an OffsetModel, got {type(model).__name__}")
    T, offset = _task("T", T, offset, model.T_max if model.positions == "absolute" else MAX_T)
    x, y = offset_batch(_checks.integer("n", n, 1, 100_000), T, offset, seed=seed)
    pred = model(x).argmax(-1)
    scored = y != IGNORE
    return float((pred[scored] == y[scored]).float().mean())
