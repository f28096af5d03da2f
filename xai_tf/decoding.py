"""Turning next-token distributions into text.

Sampling with temperature τ draws x_{t+1} ~ softmax(z / τ), where z are the logits of the last
position. Top-k keeps only the k largest logits before sampling; nucleus (top-p) sampling keeps the
smallest set of most likely tokens whose probability reaches p (Holtzman et al., 2020). Greedy
decoding is the limit τ → 0: x_{t+1} = argmax z. Removed tokens get the logit −∞.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf.models.gpt2 import GPT2


@torch.no_grad()
def greedy(model: GPT2, input_ids: Sequence[int] | Tensor, max_new_tokens: int) -> list[int]:
    """Prompt + ``max_new_tokens`` tokens, each x_{t+1} = argmax_v z_{t,v}."""
    ids = model.check_input_ids(input_ids)[0]
    for _ in range(max_new_tokens):
        next_id = model(ids[-model.config.n_ctx :])[0, -1].argmax().view(1)
        ids = torch.cat([ids, next_id])
    return ids.tolist()


def top_k_filter(logits: Tensor, k: int) -> Tensor:
    """Keep the k largest logits (last dim), −∞ elsewhere. Exactly k survive: ties at the k-th
    value go to the lower token id."""
    vocab = logits.size(-1)
    if not 1 <= k <= vocab:
        raise ValueError(f"k must lie in 1..{vocab}, got {k}")
    order = logits.argsort(dim=-1, descending=True, stable=True)
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, order[..., :k], True)
    return logits.masked_fill(~keep, float("-inf"))


def top_p_filter(logits: Tensor, p: float) -> Tensor:
    """Nucleus filter: keep the most likely tokens, in order, until their probability reaches p.

    A token is kept when the mass of the strictly more likely tokens is below p, so the most likely
    token always survives; p = 1 keeps everything. Ties are ordered by token id.
    """
    if not 0 < p <= 1:
        raise ValueError(f"p must lie in (0, 1], got {p}")
    if p == 1:
        return logits
    order = logits.argsort(dim=-1, descending=True, stable=True)
    probs = logits.gather(-1, order).softmax(-1)
    keep_sorted = probs.cumsum(-1) - probs < p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))


def sample_next_token(
    logits: Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> int:
    """One draw x ~ softmax(filter(z / τ)) from the logits ``[vocab]`` of the last position."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    return int(torch.multinomial(logits.softmax(-1).cpu(), 1, generator=generator))


@torch.no_grad()
def generate(
    model: GPT2,
    input_ids: Sequence[int] | Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
) -> list[int]:
    """Prompt + ``max_new_tokens`` sampled tokens (recomputing the forward pass each step).

    The context is cropped to the last ``n_ctx`` tokens when the text outgrows it.
    """
    vocab = model.config.vocab_size
    if max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be ≥ 0, got {max_new_tokens}")
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if top_k is not None and not 1 <= top_k <= vocab:
        raise ValueError(f"top_k must lie in 1..{vocab}, got {top_k}")
    if top_p is not None and not 0 < top_p <= 1:
        raise ValueError(f"top_p must lie in (0, 1], got {top_p}")
    ids = model.check_input_ids(input_ids)[0].tolist()
    generator = torch.Generator().manual_seed(seed) if seed is not None else None
    for _ in range(max_new_tokens):
        logits = model(ids[-model.config.n_ctx :])[0, -1]
        ids.append(sample_next_token(logits, temperature, top_k, top_p, generator))
    return ids


@torch.no_grad()
def next_token_probs(model: GPT2, input_ids: Sequence[int] | Tensor) -> Tensor:
    """p(x_{T+1} | x_1..x_T) = softmax(z_T): the distribution over the next token, ``[vocab]``."""
    return model(input_ids)[0, -1].softmax(-1)


def top_next_tokens(model: GPT2, input_ids: Sequence[int] | Tensor, k: int) -> tuple[Tensor, Tensor]:
    """The ``k`` most likely next tokens: ``(ids, probabilities)``, most likely first."""
    vocab = model.config.vocab_size
    if not 1 <= k <= vocab:
        raise ValueError(f"k must lie in 1..{vocab}, got {k}")
    probs, ids = next_token_probs(model, input_ids).topk(k)
    return ids, probs
