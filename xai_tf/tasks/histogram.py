"""The histogram task and its one-layer attention model (lesson 09; Weiss, Goldberg & Yahav 2021's
task, Cui, Behrens, Krzakala & Zdeborová 2024's two solutions).

A sequence x_1..x_L of tokens from an alphabet of T symbols; the label of position i is how many
times its token occurs in the whole sequence, y_i = Σ_j [x_j = x_i] ("DATAIAIAIA" → 1 5 1 5 3 5 3 5
3 5). The model is the lecture's: token and position embeddings in separate coordinates,
e_i = (W_e[x_i], W_p[i]) ∈ ℝ^{d_e} (W_e = (⋆ 0), W_p = (0 ⋆)), one attention layer with tied query and
key W ∈ ℝ^{d_att×d_e} and the identity as value,

    A(x) = softmax(E Wᵀ W Eᵀ / √d_att) E,
    logits_i = W⁽²⁾ σ(W⁽¹⁾ LN(A(x)_i) + b⁽¹⁾) + b⁽²⁾   (σ = ReLU, classes 0..L).

W splits into a semantic block (the columns that read W_e's coordinates) and a positional block
(those that read W_p's): ``block="semantic"`` keeps W inside one block during training.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

BLOCKS = ("semantic", "positional")
MAX_L, MAX_T = 64, 1000  # the lesson's L = 10, T = 15; longer sequences only cost memory (L² per sequence)
MAX_WIDTH = 4096  # the model's widths: the lesson's are 16..128
MAX_TRAIN = 1_000_000  # 50 times the lesson's 20,000 training sequences
OPTIONS = TrainOptions(steps=1500, lr=3e-3, batch_size=256)  # train_histogram's defaults


def histogram_labels(x: Tensor) -> Tensor:
    """y_i = Σ_j [x_j = x_i] for tokens ``x [..., L]`` (integers)."""
    x = _tokens(x)
    return (x.unsqueeze(-1) == x.unsqueeze(-2)).sum(-1)


def _tokens(x: object) -> Tensor:
    x = _checks.tensor("x", x)
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool or x.dim() == 0:
        raise TypeError(f"x must be an integer tensor of tokens [..., L], got {x.dtype} {tuple(x.shape)}")
    return x


def count_probability(c: int, L: int = 10, T: int = 15) -> float:
    """P(y_i = c) for tokens uniform over T symbols: the other L − 1 positions hold x_i exactly c − 1
    times, a binomial,

        P(y_i = c) = C(L−1, c−1) (1/T)^{c−1} (1 − 1/T)^{L−c}."""
    L, T = _checks.integer("L", L, 1, MAX_L), _checks.integer("T", T, 1)
    c = _checks.integer("c", c, 1, L)
    return math.comb(L - 1, c - 1) * (1 / T) ** (c - 1) * (1 - 1 / T) ** (L - c)


def histogram_data(n: int, L: int = 10, T: int = 15, seed: int = 0) -> tuple[Tensor, Tensor]:
    """``n`` sequences ``x [n, L]`` with tokens uniform in 0..T−1 (seeded) and their labels ``y``;
    refused before allocating when x, y and the labels' L × L comparison would not fit in memory."""
    n, L = _checks.integer("n", n, 1), _checks.integer("L", L, 1, MAX_L)
    T, g = _checks.integer("T", T, 1, MAX_T), seeds.generator(seed)
    per_sequence = L * (16 + L)  # x and y in int64, the comparison [x_i = x_j] in bool
    most = _checks.available_ram() // per_sequence
    _checks.fits(f"histogram_data(n={n}, L={L})", n * per_sequence, f"choose n ≤ {most}")
    x = torch.randint(T, (n, L), generator=g)
    return x, histogram_labels(x)


class HistogramModel(nn.Module):
    """Embeddings in separate coordinates, one tied attention layer, LayerNorm, a ReLU MLP per position."""

    def __init__(
        self,
        T: int = 15,
        L: int = 10,
        d_tok: int = 16,
        d_pos: int = 16,
        d_att: int = 32,
        hidden: int = 128,
        block: str | None = None,
    ):
        super().__init__()
        if block not in (None, *BLOCKS):
            raise ValueError(f"block must be None, 'semantic' or 'positional', got {block!r}")
        T, L = _checks.integer("T", T, 1, MAX_T), _checks.integer("L", L, 1, MAX_L)
        d_tok, d_pos, d_att, hidden = (
            _checks.integer(name, v, 1, MAX_WIDTH)
            for name, v in (("d_tok", d_tok), ("d_pos", d_pos), ("d_att", d_att), ("hidden", hidden))
        )
        self.T, self.L, self.d_tok, self.block = T, L, d_tok, block
        self.W_e = nn.Parameter(torch.randn(T, d_tok))
        self.W_p = nn.Parameter(torch.randn(L, d_pos))
        self.W = nn.Parameter(torch.randn(d_att, d_tok + d_pos) / math.sqrt(d_tok + d_pos))
        self.ln = nn.LayerNorm(d_tok + d_pos)
        self.mlp = nn.Sequential(nn.Linear(d_tok + d_pos, hidden), nn.ReLU(), nn.Linear(hidden, L + 1))
        if block is not None:
            with torch.no_grad():
                self.W.mul_(block_mask(self.W, d_tok, block))

    def embed(self, x: Tensor) -> Tensor:
        """E(x) = (W_e[x_i], W_p[i]) per position: ``[batch, L, d_e]``."""
        x = _checks.token_ids("x", x, self.T)
        if x.dim() == 0 or x.size(-1) != self.L:
            raise ValueError(f"x has shape {tuple(x.shape)} but the model was trained for L = {self.L}")
        pos = self.W_p.expand(*x.shape, -1)
        return torch.cat([self.W_e[x], pos], -1)

    def weight(self) -> Tensor:
        """W as used: inside its block when the model is restricted to one."""
        return self.W if self.block is None else self.W * block_mask(self.W, self.d_tok, self.block)

    def forward(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """(logits ``[batch, L, L+1]``, attention A ``[batch, L, L]``) for tokens ``x [batch, L]``."""
        E = self.embed(x)
        Q = E @ self.weight().T  # (B, L, d_att); keys are the same: W_q = W_k = W
        A = torch.softmax(Q @ Q.transpose(-2, -1) / math.sqrt(Q.size(-1)), -1)
        return self.mlp(self.ln(A @ E)), A


def block_mask(W: Tensor, d_tok: int, block: str) -> Tensor:
    """1 on the columns of W that read the token (``"semantic"``) or position (``"positional"``)
    coordinates of e_i, 0 elsewhere."""
    if block not in BLOCKS:
        raise ValueError(f"block must be 'semantic' or 'positional', got {block!r}")
    if _checks.tensor("W", W).dim() != 2:
        raise ValueError(f"W must have 2 dimensions, got shape {tuple(W.shape)}")
    d_tok = _checks.integer("d_tok", d_tok, 0, W.size(1))
    mask = torch.zeros_like(W)
    mask[:, :d_tok] = 1.0
    return mask if block == "semantic" else 1.0 - mask


def off_block_share(model: HistogramModel, block: str) -> float:
    """‖W − W ⊙ M_block‖_F / ‖W‖_F: how much of the trained W lies outside ``block`` (0 = inside)."""
    if not isinstance(model, HistogramModel):
        raise TypeError(f"model must be a HistogramModel, got {type(model).__name__}")
    W = model.weight().detach()
    outside = W * (1 - block_mask(W, model.d_tok, block))
    return float(outside.norm() / W.norm())


def train_histogram(
    start: str = "semantic",
    restrict: bool = False,
    options: TrainOptions = OPTIONS,
    n_train: int = 20_000,
    init: HistogramModel | None = None,
) -> tuple[HistogramModel, list[float]]:
    """Train a ``HistogramModel`` by cross-entropy on ``n_train`` seeded sequences (L = 10, T = 15),
    seeded minibatches of ``options.batch_size``, Adam (``OPTIONS`` by default). ``start`` picks the
    block W starts in (the other block is 0); ``restrict=True`` keeps it there. ``init`` continues
    from a trained model (its weights are copied, the block restriction lifted unless ``restrict``)."""
    if start not in BLOCKS:
        raise ValueError(f"start must be 'semantic' or 'positional', got {start!r}")
    if not isinstance(restrict, bool):
        raise TypeError(f"restrict must be True or False, got {restrict!r}")
    seed = checked_options(options).seed
    x, y = histogram_data(_checks.integer("n_train", n_train, 1, MAX_TRAIN), seed=seed)
    with seeds.seeded(seed):
        model = HistogramModel(block=start)
    if init is not None:
        _check_init(init, model)
        model.load_state_dict(init.state_dict())
        with torch.no_grad():
            model.W.copy_(init.weight())
    model.block = start if restrict else None
    draw = minibatches(len(x), options.batch_size, seed + 1)

    def loss(k: int) -> Tensor:
        i = draw(k)
        logits, _ = model(x[i])
        return F.cross_entropy(logits.flatten(0, 1), y[i].flatten())

    return model, fit(model.parameters(), loss, options)


def _check_init(init: object, model: HistogramModel) -> None:
    if not isinstance(init, HistogramModel):
        raise TypeError(f"init must be a HistogramModel or None, got {type(init).__name__}")
    theirs = {k: tuple(v.shape) for k, v in init.state_dict().items()}
    if theirs != {k: tuple(v.shape) for k, v in model.state_dict().items()}:
        raise ValueError(
            f"init must be a HistogramModel of the trained sizes (T = {model.T}, L = {model.L}, "
            f"the default widths), got T = {init.T}, L = {init.L}"
        )


def same_token_share(A: Tensor, x: Tensor) -> float:
    """The share of the attention a position gives to *other* positions that goes to its own token,

        mean over i with y_i ≥ 2 of  Σ_{j≠i, x_j = x_i} A_ij / Σ_{j≠i} A_ij ,

    1 for a purely semantic map; (y_i − 1)/(L − 1) on average for a map that treats the other
    positions alike (uniform, or "self plus uniform"). A position that gives no attention to the
    others (Σ_{j≠i} A_ij = 0) has no share and is left out of the mean."""
    A, x = _checks.real_tensor("A", A), _tokens(x)
    if A.shape != (*x.shape, x.size(-1)):
        raise ValueError(f"A must be [..., L, L] for x [..., L], got {tuple(A.shape)} and {tuple(x.shape)}")
    others = ~torch.eye(x.size(-1), dtype=torch.bool, device=x.device)
    same = (x.unsqueeze(-1) == x.unsqueeze(-2)) & others
    to_others = (A * others).sum(-1)
    repeated = same.any(-1)
    if not repeated.any():
        raise ValueError("x has no repeated token: the share is undefined")
    counted = repeated & (to_others > 0)
    if not counted.any():
        raise ValueError(
            "A gives no attention to other positions at any repeated token: the share is undefined"
        )
    return float(((A * same).sum(-1)[counted] / to_others[counted]).mean())


def accuracy_by_count(model: HistogramModel, x: Tensor, y: Tensor) -> dict[int, tuple[float, int]]:
    """count c → (share of positions with y_i = c predicted right, number of such positions)."""
    _pairs(model, x, y)
    with torch.no_grad():
        right = model(x)[0].argmax(-1) == y
    return {int(c): (float(right[y == c].float().mean()), int((y == c).sum())) for c in y.unique()}


@torch.no_grad()
def histogram_accuracy(model: HistogramModel, x: Tensor, y: Tensor) -> float:
    """Share of positions where argmax logits_i = y_i."""
    _pairs(model, x, y)
    return float((model(x)[0].argmax(-1) == y).float().mean())


def _pairs(model: object, x: object, y: object) -> None:
    """A histogram model, its tokens x and their counts y (integers in 1..L), position by position."""
    if not isinstance(model, HistogramModel):
        raise TypeError(f"model must be a HistogramModel, got {type(model).__name__}")
    x, y = _checks.token_ids("x", x, model.T), _checks.tensor("y", y)
    _checks.same_shape("the accuracy", "x", x, "y", y)
    if y.is_floating_point() or y.is_complex() or y.dtype == torch.bool:
        raise TypeError(f"y must be integer counts in 1..{model.L}, got {y.dtype}")
    if y.numel() and (int(y.min()) < 1 or int(y.max()) > model.L):
        bad = int(y.min()) if int(y.min()) < 1 else int(y.max())
        raise ValueError(f"y must be integer counts in 1..{model.L}, got {bad}")
