"""Induction heads on repeated random tokens (lesson 15; Elhage et al. 2021, Olsson et al. 2022).

A sequence x_1..x_{2n} whose second half repeats its first (x_{n+i} = x_i, the x_i drawn uniformly
from the vocabulary) cannot be predicted in its first half, but every token of the second half can
be copied from the token after its earlier occurrence. An *induction head* attends from position
t ≥ n+1 (1-based; 0-based t ≥ n) to position t − n + 1, the token that followed x_t last time:

    induction score(l, h) = mean over batch and t ∈ {n..2n−1} of A^{l,h}[t, t − n + 1]
    previous-token score(l, h) = mean over batch and t ∈ {1..2n−1} of A^{l,h}[t, t − 1]

(0-based positions, A the attention probabilities). Per-token loss ℓ_t = −log p(x_{t+1} | x_≤t).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.circuits import limits
from xai_tf.models.loaded import LoadedModel, causal


def repeated_tokens(model: LoadedModel | nn.Module, half: int, batch: int = 1, seed: int = 0) -> Tensor:
    """``[batch, 2·half]`` ids: ``half`` tokens drawn uniformly from the vocabulary, then the same again."""
    lm = causal(model, "an induction test on repeated tokens")
    half = _checks.integer("half", half, 2, lm.n_ctx // 2)
    batch = _checks.integer("batch", batch, 1, 1024)
    vocab = lm.vocab_size
    # drawn on the CPU (the generator's device), so every device gets the same tokens
    first = torch.randint(0, vocab, (batch, half), generator=seeds.generator(seed), device="cpu")
    return torch.cat([first, first], dim=1).to(lm.device)


def per_token_loss(model: LoadedModel | nn.Module, ids: Tensor) -> Tensor:
    """``[batch, T−1]`` cross-entropies ℓ_t = −log p(x_{t+1} | x_≤t)."""
    lm = causal(model, "a per-token loss")
    ids = limits.token_ids(lm, "ids", ids)
    if ids.size(1) < 2:
        raise ValueError(f"ids must have at least 2 tokens (a loss predicts the next one), got {ids.size(1)}")
    limits.check_forward(
        "a per-token loss", lm, ids.size(0), ids.size(1), "pass fewer or shorter sequences in ids"
    )
    with torch.no_grad():
        return token_losses(lm(ids), ids)


def token_losses(logits: Tensor, ids: Tensor) -> Tensor:
    """``[batch, T−1]``: ℓ_t = −log softmax(logits_t)[x_{t+1}] (logits ``[batch, T, vocab]``)."""
    logits, ids = _checks.tensor("logits", logits), _checks.tensor("ids", ids)
    if logits.dim() != 3 or ids.shape != logits.shape[:2] or ids.size(1) < 2 or ids.size(0) < 1:
        raise ValueError(
            f"logits must be [batch, T, vocab] and ids [batch, T] with batch ≥ 1 and T ≥ 2, got "
            f"{tuple(logits.shape)} and {tuple(ids.shape)}"
        )
    logits = _checks.real_tensor("logits", logits)
    ids = _checks.token_ids("ids", ids, logits.size(-1)).to(logits.device)
    return F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")


def attention_patterns(model: LoadedModel | nn.Module, ids: Tensor) -> Tensor:
    """``[layers, batch, heads, T, T]``: every head's attention probabilities on ``ids``."""
    lm = causal(model, "attention patterns of a causal model")
    ids = limits.token_ids(lm, "ids", ids)
    advice = "pass fewer or shorter sequences in ids"
    limits.check_forward("attention patterns", lm, ids.size(0), ids.size(1), advice, cache=True)
    with torch.no_grad():
        _, cache = lm.run_with_cache(ids)
    return cache.stack("attn")


def _pattern(pattern: object) -> Tensor:
    """Attention probabilities ``[layers, batch, heads, T, T]``: finite, in [0, 1], rows summing to 1."""
    pattern = _checks.tensor("pattern", pattern)
    if (
        pattern.dim() != 5
        or pattern.size(-1) != pattern.size(-2)
        or pattern.size(-1) < 2
        or not pattern.numel()
    ):
        raise ValueError(
            "pattern must be [layers, batch, heads, T, T] with T ≥ 2 and at least one layer, prompt and "
            f"head, got {tuple(pattern.shape)}"
        )
    pattern = _checks.real_tensor("pattern", pattern)
    sums = pattern.sum(-1, dtype=torch.float32)  # (float64 is not on every device)
    tolerance = max(1e-3, 8 * torch.finfo(pattern.dtype).eps)  # bfloat16 rows sum to 1 ± a few 1e-3
    if float(pattern.min()) < 0 or float((sums - 1).abs().max()) > tolerance:
        raise ValueError(
            "pattern must hold attention probabilities (entries ≥ 0, each row summing to 1), got entries "
            f"in [{float(pattern.min()):.3g}, {float(pattern.max()):.3g}] and row sums in "
            f"[{float(sums.min()):.3g}, {float(sums.max()):.3g}]: pass softmax(scores), not the scores"
        )
    return pattern


def induction_scores(pattern: Tensor) -> Tensor:
    """``[layers, heads]``: mean A[t, t − n + 1] over the second half t = n..2n−1 of a sequence of
    T = 2n tokens whose halves repeat (``pattern`` from ``attention_patterns``)."""
    pattern = _pattern(pattern)
    T = pattern.size(-1)
    if T % 2:
        raise ValueError(f"pattern must cover an even number of tokens (two equal halves), got T = {T}")
    half = T // 2
    return pattern.diagonal(offset=1 - half, dim1=-2, dim2=-1)[..., 1:].mean(dim=(1, 3))


def previous_token_scores(pattern: Tensor) -> Tensor:
    """``[layers, heads]``: mean A[t, t − 1] over t = 1..T−1."""
    return _pattern(pattern).diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(1, 3))


def heads_above(scores: Tensor, threshold: float) -> list[tuple[int, int]]:
    """The (layer, head) of every entry of a ``[layers, heads]`` score grid above ``threshold``."""
    scores = _checks.real_tensor("scores", scores)
    if scores.dim() != 2:
        raise ValueError(f"scores must be [layers, heads], got shape {tuple(scores.shape)}")
    threshold = _checks.real("threshold", threshold, 0.0, 1.0)
    return [divmod(int(i), scores.size(1)) for i in (scores.flatten() > threshold).nonzero().flatten()]
