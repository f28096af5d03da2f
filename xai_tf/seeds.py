"""Seeds: one rule for every random choice the package and the lessons make (data, initial weights,
minibatches, sampling).

A result that comes from training or sampling is a random variable: another seed, another CPU or another
torch build changes it. To see another machine's view on your own, set ``XAI_TF_SEED_OFFSET=N`` (an
integer, default 0) before starting Python: every seed s used through this module becomes
s′ = (s + N) mod 2³², so the whole course runs on other draws. Read in one place: ``offset``.

A seed is an integer ≥ 0 (``1.5``, ``"0"``, ``None``, ``True`` and negative numbers are
refused by name). Helpers never reseed the caller's global generator: ``seeded`` forks it for a block.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

from xai_tf import _checks

VARIABLE = "XAI_TF_SEED_OFFSET"
MODULUS = 2**32


def offset() -> int:
    """N of ``XAI_TF_SEED_OFFSET`` (0 when unset), read from the environment at each call."""
    text = os.environ.get(VARIABLE, "").strip()
    try:
        return int(text) if text else 0
    except ValueError:
        raise ValueError(f"{VARIABLE} must be an integer (e.g. 3), got {text!r}") from None


def effective(seed: object, name: str = "seed") -> int:
    """s′ = (s + N) mod 2³² for a seed s ≥ 0 and the offset N."""
    return (_checks.integer(name, seed, 0) + offset()) % MODULUS


def generator(seed: object, name: str = "seed", device: torch.device | str = "cpu") -> torch.Generator:
    """A torch generator on ``device`` (one this machine has: "cpu", "cuda", "cuda:N", "mps") seeded with
    s′ (the global generator is not touched)."""
    return torch.Generator(_checks.device("device", device)).manual_seed(effective(seed, name))


def numpy_rng(seed: object, name: str = "seed") -> np.random.Generator:
    """A numpy generator seeded with s′."""
    return np.random.default_rng(effective(seed, name))


@contextmanager
def seeded(seed: object, name: str = "seed") -> Iterator[None]:
    """Run a block (building modules, whose initialisers draw from torch's global generator, and
    training them) with the global generator seeded with s′, then restore the caller's state: the same
    seed gives the same weights, and the caller's own random numbers do not move."""
    s = effective(seed, name)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(s)
        yield


def manual_seed(seed: object, name: str = "seed") -> None:
    """Seed torch's global generator with s′: for a lesson's own cells, which own their global state
    (helpers use ``seeded`` or ``generator`` instead)."""
    torch.manual_seed(effective(seed, name))
