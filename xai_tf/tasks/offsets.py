"""A toy task that needs relative offsets (lesson 14): "say the token k places back".

Sequences of random tokens x_0..x_{T−1} from a vocabulary of D symbols; the target at position i is
y_i = x_{i−k} for i ≥ k (positions i < k are not scored, their target is −100, PyTorch's ignore
index). The rule is the same at every position, so a model that knows where *relative* to itself to
look can apply it at any length; one that learned a lookup per absolute position cannot.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds

IGNORE = -100


def offset_batch(
    batch: int, T: int, offset: int = 3, vocab: int = 10, seed: int = 0
) -> tuple[Tensor, Tensor]:
    """Tokens ``x [batch, T]`` uniform in 0..vocab−1 (seeded) and targets ``y [batch, T]``,
    y_i = x_{i−offset} for i ≥ offset, −100 (ignored) before."""
    batch = _checks.integer("batch", batch, 1)
    offset = _checks.integer("offset", offset, 1)
    T = _checks.integer("T", T, offset + 1)
    vocab = _checks.integer("vocab", vocab, 2)
    g = seeds.generator(seed)
    x = torch.randint(vocab, (batch, T), generator=g)
    y = torch.full_like(x, IGNORE)
    y[:, offset:] = x[:, :-offset]
    return x, y
