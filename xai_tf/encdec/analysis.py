"""What lesson 17 computes about the architecture itself, without training: who may attend to whom in
the three Transformer families, what a layer costs, gradient norms by layer at initialisation, and why
one attention head cannot do what a convolution does.

Costs per layer (Vaswani et al. 2017, Table 1), n positions of width d, kernel width k:

    self-attention   O(n² d) operations,  O(1) sequential operations,  path length O(1)
    recurrent        O(n d²) operations,  O(n) sequential operations,  path length O(n)
    convolutional    O(k n d²),           O(1),                          O(log_k n)
"""

from __future__ import annotations

import itertools

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.encdec import evaluate
from xai_tf.encdec.model import Seq2SeqTransformer
from xai_tf.encdec.training import loss_fn
from xai_tf.seq2seq import data

FAMILIES = ("encoder-only", "decoder-only", "encoder-decoder")


def family_mask(family: str, S: int, T: int) -> Tensor:
    """Who may attend to whom over [source (S positions); target (T positions)], ``[S+T, S+T]`` bool
    (row: the query, column: the key, True = visible), all layers together:

        encoder-only (BERT):      every position sees every position (it would see the answer)
        decoder-only (GPT):       position i sees j ≤ i (the source is a prefix)
        encoder-decoder:          source sees source; target i sees the whole source (cross-attention)
                                  and target j ≤ i (masked self-attention); no source word sees the target
    """
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {family!r}")
    S, T = _checks.integer("S", S, 1, 512), _checks.integer("T", T, 1, 512)
    n = S + T
    if family == "encoder-only":
        return torch.ones(n, n, dtype=torch.bool)
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    if family == "decoder-only":
        return causal
    mask = causal.clone()
    mask[:S, :S] = True
    mask[:S, S:] = False
    mask[S:, :S] = True
    return mask


def attention_scores(family: str, S: int, T: int) -> int:
    """The number of query–key scores one layer computes in ``family`` (the True cells of its mask;
    an encoder-only layer computes all (S+T)² of them)."""
    return int(family_mask(family, S, T).sum())


def sequential_steps(kind: str, S: int, T: int, n_layers: int) -> int:
    """Steps that must run one after another for one teacher-forced forward pass:
    "rnn": S (encoder) + T (decoder) recurrences, whatever the depth's per-step cost;
    "transformer": 2 N layers (N encoder then N decoder), every position of a layer at once."""
    S, T = _checks.integer("S", S, 1), _checks.integer("T", T, 1)
    n_layers = _checks.integer("n_layers", n_layers, 1)
    if kind == "rnn":
        return S + T
    if kind == "transformer":
        return 2 * n_layers
    raise ValueError(f"kind must be 'rnn' or 'transformer', got {kind!r}")


def gradient_norms(model: Seq2SeqTransformer, pairs: list[data.Pair], corpus: data.Corpus) -> Tensor:
    """‖∂L/∂θ_l‖ for the parameters θ_l of each block, ``[2, N]`` (row 0 the encoder's blocks, row 1
    the decoder's), on one batch: at initialisation, post-LN's last decoder blocks get the largest
    gradients and pre-LN's stay even across depth (Xiong et al. 2020)."""
    if not isinstance(model, Seq2SeqTransformer):
        raise TypeError(f"model must be a Seq2SeqTransformer, got {type(model).__name__}")
    b = evaluate._batch(model, pairs, corpus)
    model.zero_grad()
    with torch.enable_grad():
        loss_fn(model(b.source, b.source_mask, b.target_in)[0], b.target_out).backward()
    stacks = (model.core.encoder, model.core.decoder)
    norms = [[_norm(block) for block in stack] for stack in stacks]
    model.zero_grad()
    return torch.tensor(norms, device=b.source.device)


def _norm(block: nn.Module) -> float:
    grads = [p.grad.flatten() for p in block.parameters() if p.grad is not None]
    return torch.cat(grads).norm().item()


#: The most multiply-adds (grid points × n·d²) that ``convolution_vs_heads`` accepts: a few seconds.
MAX_WORK = 3 * 10**8


def convolution_vs_heads(d: int = 4, n: int = 12, seed: int = 0, grid: int = 20) -> dict[str, float]:
    """A convolution of width 3, y_t = W₋₁ x_{t−1} + W₀ x_t + W₊₁ x_{t+1} (a matrix per offset), fitted
    by attention over the three neighbours (the lecture's "problem of self-attention"):

    - one head: y_t ≈ W (α₋₁ x_{t−1} + α₀ x_t + α₊₁ x_{t+1}), one value map W for every offset and
      weights α on the simplex — least squares in W for each α of a grid, the best kept;
    - three heads, head h attending only offset h with its own value map W_h: least squares over
      (W₋₁, W₀, W₊₁) on the three shifted copies side by side.

    Returns the relative residual ‖ŷ − y‖ / ‖y‖ of each (``"one head"``, ``"three heads"``) for random
    x ∈ ℝ^{n×d} and W_o (seeded)."""
    d, n = _checks.integer("d", d, 1, 64), _checks.integer("n", n, 3, 4096)
    grid = _checks.integer("grid", grid, 1, 200)
    work = (grid + 1) * (grid + 2) // 2 * n * d * d  # one least-squares fit of n×d per point of the grid
    if work > MAX_WORK:
        raise ValueError(
            f"grid = {grid} with n = {n}, d = {d} means {work:.1e} multiply-adds, over the {MAX_WORK:.0e} "
            "that run in seconds: lower grid, n or d"
        )
    g = torch.Generator().manual_seed(_checks.integer("seed", seed, 0))
    x = torch.randn(n + 2, d, generator=g, dtype=torch.float64)
    W = torch.randn(3, d, d, generator=g, dtype=torch.float64)
    shifted = torch.stack([x[:-2], x[1:-1], x[2:]])  # [3 offsets, n, d]: x_{t-1}, x_t, x_{t+1}
    y = torch.einsum("oij,otj->ti", W, shifted)
    best = float("inf")
    for i, j in itertools.product(range(grid + 1), repeat=2):
        if i + j <= grid:
            alpha = torch.tensor([i, j, grid - i - j], dtype=torch.float64) / grid
            mixed = torch.einsum("o,otj->tj", alpha, shifted)  # Σ_o α_o x_{t+o}
            fit = torch.linalg.lstsq(mixed, y).solution  # y ≈ mixed @ fit
            best = min(best, ((mixed @ fit - y).norm() / y.norm()).item())
    side_by_side = torch.cat(list(shifted), dim=1)  # [n, 3d]: each head one-hot on its offset
    fit = torch.linalg.lstsq(side_by_side, y).solution
    three = ((side_by_side @ fit - y).norm() / y.norm()).item()
    return {"one head": best, "three heads": three}
