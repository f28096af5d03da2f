"""What decoding costs with and without the key/value cache (lesson 05): a count of the positions the
model computes, which does not depend on the machine, and a wall time measured so that it means
something (``xai_tf.timing``: a warm-up run, then the median of several).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from torch import Tensor

from xai_tf import _checks, timing
from xai_tf.models.loaded import causal
from xai_tf.transformer.decoding import Model, greedy


def positions_computed(prompt_length: int, max_new_tokens: int, n_ctx: int, use_cache: bool) -> int:
    """How many token positions the decoders run through the model to add ``max_new_tokens`` to a
    prompt of P tokens (a count that does not depend on the machine):

        with the cache:    P + (n − 1)            (the prompt once, then one position per step)
        without it:        Σ_{k=0}^{n−1} min(P + k, n_ctx)   (every step reads the whole text again)

    With the cache, a text that outgrows the context is read again from scratch (``_last_logits``)."""
    P, n = (
        _checks.integer("prompt_length", prompt_length, 1),
        _checks.integer("max_new_tokens", max_new_tokens, 1),
    )
    if not use_cache:
        return sum(min(P + k, n_ctx) for k in range(n))
    total, window = min(P, n_ctx), min(P, n_ctx)
    for _ in range(n - 1):
        window, total = (window + 1, total + 1) if window < n_ctx else (n_ctx, total + n_ctx)
    return total


def decoding_seconds(
    model: Model, input_ids: Sequence[int] | Tensor, max_new_tokens: int, use_cache: bool, repeats: int = 3
) -> float:
    """Median wall time of greedy decoding over ``repeats`` runs, after one run to warm up (the
    first run pays for memory allocation and caches: one unwarmed run can be off by 10×)."""
    _checks.integer("repeats", repeats, 1)
    device = causal(model, "decoding").device
    run = partial(greedy, model, input_ids, max_new_tokens, stop_at_eot=False, use_cache=use_cache)
    return timing.median_seconds(run, repeats, device)
