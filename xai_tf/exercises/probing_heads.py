"""Checkers for lesson 19, sections 5–7: a head's share of attention on its targets (Voita et al. 2019),
token identifiability by the nearest input embedding (Brunner et al. 2020) and erasure's first-order
score (De Cao et al. 2020). ``probing`` has sections 1–4's."""

from __future__ import annotations

from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.probing.erasure import first_order_delta
from xai_tf.probing.heads import target_share
from xai_tf.probing.identifiability import identified


def _attention_case() -> tuple[Tensor, Tensor]:
    """Causal attention ``A [2, 3, 6, 6]`` and targets S: queries 0 and 2 have none, query 5 has two."""
    g = torch.Generator().manual_seed(5)
    scores = torch.randn(2, 3, 6, 6, generator=g, dtype=torch.float64) * 2
    A = scores.masked_fill(~torch.ones(6, 6, dtype=torch.bool).tril(), float("-inf")).softmax(-1)
    S = torch.zeros(6, 6)
    S[1, 0] = S[3, 1] = S[4, 2] = S[5, 1] = S[5, 3] = 1
    return A.float(), S


@checker("target share", reference=target_share)
def check_target_share(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 19: ``fn(A, S)`` → share = mean_s Σ_{t ∈ S(s)} A[s, t] over the queries with targets, ``[...]``
    from ``A [..., T, T]`` and ``S [T, T]``."""
    A, S = _attention_case()
    for a in (A, A[0, 1]):
        got = fn(a.clone(), S.clone())
        want = target_share(a.double(), S)
        on_targets = (a.double() * S).sum(-1)  # [..., T]
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, on_targets.mean(-1)):
                raise Mismatch(
                    "averaged over every query: only the queries that have targets count (rows of S with a 1)"
                )
            if close(got, on_targets.sum(-1)):
                raise Mismatch("summed over the queries: take the mean over the queries that have targets")
            rows = S.sum(-1) > 0
            if close(got, (on_targets[..., rows] / S.sum(-1)[rows]).mean(-1)):
                raise Mismatch(
                    "divided by the number of targets: a query's share is the *sum* of its targets' weights"
                )
        if isinstance(got, Tensor) and got.shape == a.shape[:-2] + a.shape[-1:]:
            raise Mismatch(
                f"shape {tuple(got.shape)}: sum over the keys t (last axis), then average the queries s"
            )
        expect_close("share", got, want)
    return 2


def _identity_case() -> tuple[Tensor, Tensor, Tensor]:
    """e, g_h ``[1, 6, 4]`` and ids with token 5 twice: g(h) of token 0 points at e_2 (also token 5); g(h) of
    token 1 points at e_1 but is short, so by distance it is nearest to e_4 (the shortest embedding); e_3 is
    long, so a dot product picks it for token 5's g(h), which points between e_3 and e_5."""
    e = torch.tensor(
        [
            [1.0, 0, 0, 0],
            [0, 1, 0, 0],
            [0.9, 0.1, 0.3, 0],
            [0, 0, 8, 0],
            [0.02, 0.03, 0, 0.05],
            [0, 0, 0.3, 1],
        ]
    )
    g_h = torch.tensor(
        [[0.9, 0.1, 0.35, 0], [0, 0.05, 0, 0], [0, 0, 1, 0], [0, 0, 5, 0.1], [0, 0, 0, 0.1], [0, 0, 0.45, 1]]
    )
    ids = torch.tensor([[5, 7, 5, 9, 4, 3]])
    return g_h[None], e[None], ids


@checker("identified", reference=identified)
def check_identified(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 19: ``fn(g_h, e, ids)`` → bool ``[n, T]``: the input embedding nearest to g(h_i) by cosine has
    token i's id."""
    g_h, e, ids = _identity_case()
    got = fn(g_h.clone(), e.clone(), ids.clone())
    want = identified(g_h, e, ids)
    if isinstance(got, Tensor) and got.shape == want.shape:
        answer = got.bool()

        def same_id(nearest: Tensor) -> bool:
            return torch.equal(answer, ids.gather(1, nearest) == ids)

        if same_id(torch.cdist(g_h, e).argmin(-1)) and not torch.equal(answer, want):
            raise Mismatch(
                "nearest by Euclidean distance: use cosine similarity, the states' norms are not the"
                " embeddings'"
            )
        if same_id((g_h @ e.transpose(1, 2)).argmax(-1)) and not torch.equal(answer, want):
            raise Mismatch(
                "a dot product favours long embeddings: normalise both sides, cos(a, b) = a·b / (‖a‖ ‖b‖)"
            )
        cos = F.normalize(g_h, dim=-1) @ F.normalize(e, dim=-1).transpose(1, 2)
        if torch.equal(answer, cos.argmax(-1) == torch.arange(6)):
            raise Mismatch(
                "compare token ids, not positions: a token that occurs twice is identified by either"
                " occurrence"
            )
    expect_close("identified", got.double() if isinstance(got, Tensor) else got, want.double())
    return 1


@checker("first-order erasure score", reference=first_order_delta)
def check_first_order_delta(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 19: ``fn(grad, h, b)`` → δ[t] = |∇_{h[t]} log p(ŷ) · (b − h[t])|, ``[T]``."""
    g = torch.Generator().manual_seed(7)
    grad, h, b = torch.randn(6, 8, generator=g), torch.randn(6, 8, generator=g), torch.randn(8, generator=g)
    got = fn(grad.clone(), h.clone(), b.clone())
    want = first_order_delta(grad.double(), h.double(), b.double())
    if isinstance(got, Tensor) and got.shape == want.shape:
        step = grad.double() * (b.double() - h.double())
        if close(got, step.sum(-1)) or close(got, -step.sum(-1)):
            raise Mismatch(
                "negative scores: δ is an absolute value, how far erasing moves log p(ŷ) either way"
            )
        if close(got, (grad.double() * h.double()).sum(-1).abs()):
            raise Mismatch("the step is b − h[t], to the baseline: multiply the gradient by it, not by h[t]")
        if close(got, step.abs().sum(-1)):
            raise Mismatch("take the absolute value of the dot product, not of each of its terms")
    expect_close("δ", got, want)
    return 1
