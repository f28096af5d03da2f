"""A small causal transformer for bounded Dyck (lesson 09; Wen, Li, Liu & Risteski 2023), and the
share of its attention that lands on the stack top.

Input e_i = W_e[x_i] + W_p[i]; each layer adds multi-head causal attention (and, with ``mlp``, a
ReLU MLP) to the residual stream, f⁽ˡ⁺¹⁾ = f⁽ˡ⁾ + MHA(LN(f⁽ˡ⁾)) (+ MLP(LN(·))); a linear readout of
LN(f⁽ᴸ⁾) predicts the next closing bracket's class c_i (``xai_tf.tasks.dyck``).

The human-readable mechanism reads the last unmatched open bracket s(i). For head h of layer l,

    stack share_{l,h} = mean over positions i with a non-empty stack of A^{(l,h)}_{i, s(i)},

(1 = the head looks only at the stack top; a uniform causal head scores the mean of 1/(i+1)).
Variants that solve the task with other patterns: ``uniform_first=True`` fixes layer 1's weights to
the causal mean A_ij = 1/(i+1); ``away > 0`` adds away · (mean stack share over all heads) to the
loss, pushing attention off the stack top.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.tasks.dyck import BRACKETS, MAX_BRACKETS, encode_dyck, next_close_targets, sample_dyck
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

MAX_D, MAX_LAYERS, MAX_T = 4096, 16, 4096  # the lesson's model: d = 32, 2 layers, T_max = 48
OPTIONS = TrainOptions(steps=1500, lr=3e-3, batch_size=128)  # train_dyck's defaults


class DyckModel(nn.Module):
    """``n_layer`` layers of ``n_head`` causal heads on d features, 3 classes out (k = 2)."""

    def __init__(
        self,
        d: int = 32,
        n_layer: int = 2,
        n_head: int = 2,
        T_max: int = 48,
        mlp: bool = True,
        uniform_first: bool = False,
        n_tokens: int = 4,
    ):
        super().__init__()
        d, n_layer = _checks.integer("d", d, 1, MAX_D), _checks.integer("n_layer", n_layer, 1, MAX_LAYERS)
        n_head, T_max = _checks.integer("n_head", n_head, 1, d), _checks.integer("T_max", T_max, 1, MAX_T)
        if d % n_head:
            raise ValueError(f"d = {d} must be divisible by n_head = {n_head}")
        n_tokens = _checks.integer("n_tokens", n_tokens, 2, len(BRACKETS))
        self.n_head, self.T_max, self.uniform_first = n_head, T_max, uniform_first
        self.W_e = nn.Embedding(n_tokens, d)
        self.W_p = nn.Embedding(T_max, d)
        self.ln = nn.ModuleList(nn.LayerNorm(d) for _ in range(2 * n_layer + 1))
        self.W_qkv = nn.ModuleList(nn.Linear(d, 3 * d, bias=False) for _ in range(n_layer))
        self.W_o = nn.ModuleList(nn.Linear(d, d, bias=False) for _ in range(n_layer))
        self.mlp = nn.ModuleList(
            nn.Sequential(nn.Linear(d, 4 * d), nn.ReLU(), nn.Linear(4 * d, d)) if mlp else nn.Identity()
            for _ in range(n_layer)
        )
        self.has_mlp = mlp
        self.readout = nn.Linear(d, n_tokens // 2 + 1)

    def heads(self, f: Tensor, layer: int) -> tuple[Tensor, Tensor, Tensor]:
        """(Q, K, V) of ``layer`` for LN(f), each ``(B, nh, T, hs)``."""
        B, T, d = f.shape
        q, k, v = self.W_qkv[layer](self.ln[2 * layer](f)).split(d, -1)

        def split(t: Tensor) -> Tensor:
            return t.view(B, T, self.n_head, d // self.n_head).transpose(1, 2)

        return split(q), split(k), split(v)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """(logits ``[B, T, 3]``, attention ``[B, n_layer, n_head, T, T]``) for token ids ``x [B, T]``."""
        x = _checks.token_ids("x", x, self.W_e.num_embeddings)
        if x.dim() != 2:
            raise ValueError(f"x must be token ids [B, T], got shape {tuple(x.shape)}")
        B, T = x.shape
        if T > self.T_max:
            raise ValueError(
                f"strings must be at most T_max = {self.T_max} brackets (the position embeddings), got {T}"
            )
        f = self.W_e(x) + self.W_p(torch.arange(T, device=x.device))
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        maps = []
        for layer in range(len(self.W_qkv)):
            q, k, v = self.heads(f, layer)
            if layer == 0 and self.uniform_first:
                A = (causal / causal.sum(-1, keepdim=True)).expand(B, self.n_head, T, T)
            else:
                z = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~causal, float("-inf"))
                A = z.softmax(-1)
            f = f + self.W_o[layer]((A @ v).transpose(1, 2).reshape(B, T, -1))
            if self.has_mlp:
                f = f + self.mlp[layer](self.ln[2 * layer + 1](f))
            maps.append(A)
        return self.readout(self.ln[-1](f)), torch.stack(maps, 1)


def stack_share(A: Tensor, top: Tensor) -> Tensor:
    """``[n_layer, n_head]``: mean of A_{i, s(i)} over positions i with s(i) ≥ 0, for attention
    ``A [B, n_layer, n_head, T, T]`` and stack tops ``top [B, T]`` (−1 = empty stack)."""
    A, top = _checks.real_tensor("A", A), _checks.tensor("top", top)
    if A.dim() != 5 or top.shape != (A.size(0), A.size(-1)):
        raise ValueError(
            f"A must be [B, n_layer, n_head, T, T] and top [B, T], got {tuple(A.shape)}, {tuple(top.shape)}"
        )
    T = A.size(-1)
    if top.is_floating_point() or top.is_complex() or top.dtype == torch.bool:
        raise TypeError(f"top must hold integer positions in -1..{T - 1}, got {top.dtype}")
    if top.numel() and (int(top.min()) < -1 or int(top.max()) >= T):
        bad = int(top.min()) if int(top.min()) < -1 else int(top.max())
        raise ValueError(f"top must be positions in -1..{T - 1} (−1: an empty stack), got {bad}")
    seen = top >= 0
    if not seen.any():
        raise ValueError("top has no position with a non-empty stack: the share is undefined")
    on_top = A.gather(-1, top.clamp(min=0)[:, None, None, :, None].expand(*A.shape[:-1], 1))[..., 0]
    return (on_top * seen[:, None, None]).sum((0, -1)) / seen.sum()


def train_dyck(
    uniform_first: bool = False,
    away: float = 0.0,
    N: int = 24,
    D: int = 4,
    n_train: int = 4000,
    options: TrainOptions = OPTIONS,
) -> tuple[DyckModel, list[float]]:
    """Train a ``DyckModel`` on ``n_train`` seeded strings of Dyck_{2,D} of length N: cross-entropy of
    the next-closing class at every position (+ ``away`` · mean stack share, see the module), Adam on
    seeded minibatches (``OPTIONS`` by default)."""
    away = _checks.at_least("away", away, 0.0)
    seed = checked_options(options).seed
    N = _checks.integer("N", N, 2, MAX_T)
    n_train = _checks.integer("n_train", n_train, 1, MAX_BRACKETS // N)
    strings = sample_dyck(n_train, N, 2, D, seed=seed)
    x, (c, top) = encode_dyck(strings), next_close_targets(strings, 2, D)
    with seeds.seeded(seed):
        model = DyckModel(T_max=max(N, 48), uniform_first=uniform_first)
    draw = minibatches(len(x), options.batch_size, seed + 1)

    def loss(k: int) -> Tensor:
        i = draw(k)
        logits, A = model(x[i])
        value = F.cross_entropy(logits.flatten(0, 1), c[i].flatten())
        return value + away * stack_share(A, top[i]).mean() if away else value

    return model, fit(model.parameters(), loss, options)


@torch.no_grad()
def dyck_accuracy(model: DyckModel, strings: list[str], D: int = 4) -> float:
    """Share of positions whose argmax class is the automaton's c_i."""
    if not isinstance(model, DyckModel):
        raise TypeError(f"model must be a DyckModel, got {type(model).__name__}")
    c, _ = next_close_targets(strings, 2, D)
    return float((model(encode_dyck(strings))[0].argmax(-1) == c).float().mean())
