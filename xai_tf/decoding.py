"""Turning next-token distributions into text.

Sampling with temperature τ draws x_{t+1} ~ softmax(z / τ), where z are the logits of the last
position; top-k keeps only the k largest logits before sampling. Greedy decoding is the limit
τ → 0: x_{t+1} = argmax z.
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


@torch.no_grad()
def generate(
    model: GPT2,
    input_ids: Sequence[int] | Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    seed: int | None = None,
) -> list[int]:
    """Prompt + ``max_new_tokens`` sampled tokens (recomputing the forward pass each step).

    The context is cropped to the last ``n_ctx`` tokens when the text outgrows it.
    """
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if max_new_tokens < 0:
        raise ValueError(f"max_new_tokens must be ≥ 0, got {max_new_tokens}")
    ids = model.check_input_ids(input_ids)[0]
    vocab = model.config.vocab_size
    if top_k is not None and not 1 <= top_k <= vocab:
        raise ValueError(f"top_k must lie in 1..{vocab}, got {top_k}")
    generator = torch.Generator().manual_seed(seed) if seed is not None else None
    for _ in range(max_new_tokens):
        logits = model(ids[-model.config.n_ctx :])[0, -1] / temperature
        if top_k is not None:
            logits[logits < logits.topk(top_k).values[-1]] = float("-inf")
        probs = logits.softmax(-1).cpu()
        next_id = torch.multinomial(probs, 1, generator=generator).to(ids.device)
        ids = torch.cat([ids, next_id])
    return ids.tolist()


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
