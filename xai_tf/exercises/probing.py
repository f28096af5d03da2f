"""Checker for lesson 19: the online code length of MDL probing (Voita & Titov 2020).

The student writes ``fn(p_true, n_first, n_classes)``: the probabilities p_{θ_i}(y_n | h_n) that the
probes gave the true label of every example after the first block (``p_true [N − t_1]``), the size t_1 of
the first block (sent with the uniform code) and K, and returns the code length in bits,

    L_online = t_1 log₂ K − Σ_n log₂ p_{θ_i}(y_n | h_n).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

import numpy as np
import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, expect_close
from xai_tf.probing.mdl import codelength


def _case(seed: int, dtype: torch.dtype, n: int) -> Tensor:
    g = torch.Generator().manual_seed(seed)
    return (0.05 + 0.95 * torch.rand(n, generator=g, dtype=torch.float64)).to(dtype)


def _as_tensor(got: Tensor | np.ndarray | numbers.Real) -> Tensor:
    """The answer as a 0-d tensor in its own precision (a Python number as float64, numpy's as numpy's)."""
    answer = got.detach() if isinstance(got, Tensor) else torch.from_numpy(np.asarray(got))
    return answer.reshape(()) if answer.is_floating_point() else answer.reshape(()).double()


@checker("online code length")
def check_codelength(fn: Callable[[Tensor, int, int], object]) -> int:
    """Lesson 19: ``fn(p_true, n_first, n_classes)`` → L_online in bits (a number or a 0-d tensor)."""
    n = 0
    for seed, dtype, n_first, K in (
        (0, torch.float64, 2, 3),
        (1, torch.float64, 5, 8),
        (2, torch.float32, 1, 2),
    ):
        p = _case(seed, dtype, 20)
        got = fn(p.clone(), n_first, K)
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return`?")
        want = codelength(p.double(), n_first, K)
        if isinstance(got, Tensor | np.ndarray) and math.prod(got.shape) != 1:
            raise Mismatch(f"return one number (the total in bits), got a tensor of shape {tuple(got.shape)}")
        if not isinstance(got, Tensor | np.ndarray | numbers.Real):
            raise Mismatch(f"return a number or a 0-d tensor, got {type(got).__name__}")
        answer = _as_tensor(got)
        value = float(answer)
        nats = n_first * math.log(K) - float(torch.log(p.double()).sum())
        if abs(value - nats) < 1e-3 * abs(nats) and abs(value - want) > 1e-3:
            raise Mismatch(f"got {value:.4g}, the length in nats: use log₂ for bits (want {want:.4g})")
        if abs(value - (want - n_first * math.log2(K))) < 1e-3:
            raise Mismatch(
                "the first block is missing: it costs t_1 · log₂ K bits, sent with the uniform code"
            )
        log2_p = float(torch.log2(p.double()).sum())
        if min(abs(value - (n_first * math.log2(K) + log2_p)), abs(value + want)) < 1e-3:
            raise Mismatch("the sign of the log-probabilities: code length is −Σ log₂ p, a positive number")
        # A float answer may have been summed in float32 (a Python number keeps no trace of that): 1e-7 of
        # the total off, measured; 1e-6 of it is allowed, and a slip of 1e-3 bits (4e-5 here) is not.
        atol = 1e-6 * abs(want)
        expect_close("code length", answer, torch.tensor(want, dtype=torch.float64), atol=atol)
        n += 1
    return n
