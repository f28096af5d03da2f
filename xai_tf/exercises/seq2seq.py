"""Checker for lesson 16: Bahdanau's additive attention and its context vector at decoder step i.

The student writes ``fn(s, h, W_a, U_a, v_a, i)`` with the decoder states ``s`` [T+1, d] (row 0 is s_0),
the encoder states ``h`` [S, d], W_a, U_a [d_att, d], v_a [d_att] and a step i ≥ 1, and returns
(α_i [S], c_i [d]):

    e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j),   α_ij = softmax_j e_ij,   c_i = Σ_j α_ij h_j.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, expect_close
from xai_tf.seq2seq.attention import additive_attention


def _case(
    seed: int, dtype: torch.dtype, S: int = 5, T: int = 4, d: int = 6, d_att: int = 3
) -> tuple[Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    return tuple(
        torch.randn(*shape, generator=g, dtype=torch.float64).to(dtype)
        for shape in ((T + 1, d), (S, d), (d_att, d), (d_att, d), (d_att,))
    )


def _reference(case: tuple[Tensor, ...], i: int) -> tuple[Tensor, Tensor]:
    s, h, W_a, U_a, v_a = case
    alpha, c = additive_attention(
        s[i - 1][None].double(), h[None].double(), W_a.double(), U_a.double(), v_a.double()
    )
    return alpha[0], c[0]


@checker("additive attention")
def check_additive_attention(fn: Callable[..., tuple[Tensor, Tensor]]) -> int:
    """Lesson 16: ``fn(s, h, W_a, U_a, v_a, i)`` → (α_i [S], c_i [d]) for s_{i−1} = s[i − 1]."""
    n = 0
    for seed, dtype, i in ((0, torch.float64, 1), (1, torch.float64, 3), (2, torch.float32, 2)):
        case = _case(seed, dtype)
        got = fn(*(t.clone() for t in case), i)
        if got is None:
            raise Mismatch("your function returned None: did you forget to `return alpha, c`?")
        if not isinstance(got, tuple | list) or len(got) != 2:
            raise Mismatch("return two tensors: (alpha of shape [S], c of shape [d])")
        alpha, c = got
        want_alpha, want_c = _reference(case, i)
        exact = all(isinstance(t, Tensor) and t.dtype == torch.float64 for t in (alpha, c))
        atol = 1e-10 if dtype == torch.float64 and exact else 1e-5  # the tolerance follows the dtype
        if isinstance(alpha, Tensor) and alpha.shape == want_alpha.shape:
            a = alpha.double()
            if torch.allclose(a, torch.ones_like(a)):
                raise Mismatch(
                    "every α_ij is 1: softmax over the wrong axis (normalise over the source words j)"
                )
            if not torch.isclose(a.sum(), torch.tensor(1.0, dtype=torch.float64), atol=1e-4):
                raise Mismatch(
                    f"α sums to {float(a.sum()):.4g}, not 1: the softmax must run over the source words j"
                )
            if i < case[0].size(0) and torch.allclose(a, _reference(case, i + 1)[0], atol=atol):
                raise Mismatch(
                    "that scores s_i, the state after step i: "
                    "Bahdanau scores the previous state s_{i−1} = s[i − 1]"
                )
        expect_close("alpha", alpha, want_alpha, atol=atol)
        expect_close("c", c, want_c, atol=atol)
        n += 1
    return n
