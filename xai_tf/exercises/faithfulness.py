"""Checkers for lesson 08: the classifier's additive attention weights, Kendall's τ of two importance
vectors, the JSD of two attentions, erasing weights with renormalisation (Serrano & Smith), the
deception penalty (Pruthi et al.), the TVD of two predictions (Wiegreffe & Pinter), the precision at k
against planted cues and a basis of the attention changes that leave a head's output unchanged
(Brunner et al.)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import combinations

import numpy as np
import torch
from scipy import stats
from scipy.spatial.distance import jensenshannon
from torch import Tensor

from xai_tf import _checks
from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.faithfulness import (
    correlation,
    deceive,
    divergence,
    erasure,
    identifiability,
    plausibility,
)


def kendall_tau(a: Tensor | Sequence[float], b: Tensor | Sequence[float]) -> float:
    """τ_b = (n_c − n_d) / √((n_0 − n_a)(n_0 − n_b)) of two importance vectors (lesson 08, section 2):
    the statistic of ``xai_tf.faithfulness.correlation.kendall``, the function exercise 2.1's check
    cell falls back to (NaN for a constant vector; mismatched or too short vectors are refused)."""
    return correlation.kendall(a, b)[0]


def _tau_a(a: np.ndarray, b: np.ndarray) -> float:
    """τ_a: (concordant − discordant) / n_0, with no correction for ties."""
    pairs = list(combinations(range(len(a)), 2))
    return sum(np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) for i, j in pairs) / len(pairs)


def _ties(a: np.ndarray) -> int:
    """n_a: the pairs i < j with a_i = a_j."""
    return sum(a[i] == a[j] for i, j in combinations(range(len(a)), 2))


@checker("Kendall τ", reference=kendall_tau)
def check_kendall_tau(fn: Callable[[Tensor, Tensor], float]) -> int:
    """Lesson 08: ``fn(a, b)`` → τ_b of two importance vectors (scipy.stats.kendalltau's statistic)."""
    rng = np.random.default_rng(8)
    cases = [
        (np.array([0.1, 0.5, 0.2, 0.9]), np.array([1.0, 3.0, 2.0, 4.0])),
        (np.array([0.1, 0.5, 0.2, 0.9]), np.array([4.0, 3.0, 2.0, 1.0])),
        (rng.normal(size=7), rng.normal(size=7)),
        (np.array([0.0, 0.0, 0.3, 0.7, 0.7]), np.array([0.2, 0.1, 0.4, 0.3, 0.9])),  # ties
    ]
    for a, b in cases:
        got = fn(torch.from_numpy(a), torch.from_numpy(b))
        if got is None:
            raise Mismatch("returned None: did you forget to `return` τ?")
        try:
            got = float(got)
        except (TypeError, ValueError):
            hint = ": return its .statistic" if hasattr(got, "statistic") else ""
            raise Mismatch(f"return one number τ, got {type(got).__name__}{hint}") from None
        want = float(stats.kendalltau(a, b).statistic)
        if abs(got - want) > 1e-6:
            if abs(got - np.corrcoef(a, b)[0, 1]) < 1e-6:
                raise Mismatch("that is Pearson's r of the values, not Kendall's τ (pairs counted)")
            n0 = len(a) * (len(a) - 1) / 2
            if abs(got - _tau_a(a, b) * n0 / (n0 - _ties(a)) / (n0 - _ties(b))) < 1e-6:
                raise Mismatch(
                    "the denominator is the square root √((n_0 − n_a)(n_0 − n_b)), not the product"
                )
            if abs(got - _tau_a(a, b)) < 1e-6:
                raise Mismatch(
                    f"for a = {a.tolist()} you return τ_a = {got:.4f}: with ties the denominator is "
                    f"√((n_0 − n_a)(n_0 − n_b)), not n_0 (τ_b = {want:.4f})"
                )
            if abs(got - stats.spearmanr(a, b).statistic) < 1e-6:
                raise Mismatch("that is Spearman's ρ (ranks correlated), not Kendall's τ (pairs counted)")
            raise Mismatch(
                f"for a = {np.round(a, 3).tolist()}, b = {np.round(b, 3).tolist()}: "
                f"τ = {want:.4f}, got {got:.4f}"
            )
    return len(cases)


@checker("erasure with renormalisation", reference=erasure.erase)
def check_erase(fn: Callable[[Tensor, Sequence[int]], Tensor]) -> int:
    """Lesson 08: ``fn(alpha, removed)`` → α′ with α′_t = 0 on ``removed`` and the rest rescaled to sum 1."""
    cases = [
        (torch.tensor([0.5, 0.2, 0.2, 0.1], dtype=torch.float64), [0]),
        (torch.tensor([0.1, 0.6, 0.3], dtype=torch.float64), [1, 2]),
        (torch.tensor([0.25, 0.25, 0.25, 0.25], dtype=torch.float64), []),
    ]
    for alpha, removed in cases:
        got = fn(alpha.clone(), list(removed))
        kept = torch.ones(len(alpha), dtype=torch.bool)
        kept[removed] = False
        want = torch.where(kept, alpha, torch.zeros_like(alpha))
        want = want / want.sum()
        if isinstance(got, Tensor) and removed and got.shape == (len(alpha) - len(removed),):
            raise Mismatch(
                f"α′ has {len(got)} entries for {len(alpha)} words: "
                "zero the removed weights, do not delete them"
            )
        if isinstance(got, Tensor) and got.shape == want.shape:
            if close(got, torch.where(kept, alpha, torch.zeros_like(alpha))) and removed:
                raise Mismatch(
                    f"removing {removed} from {alpha.tolist()}: the rest must be renormalised to sum to 1"
                )
            if close(got, alpha.softmax(-1).masked_fill(~kept, 0)) and removed:
                raise Mismatch("α′ is renormalised by dividing by the kept weights' sum, not by a softmax")
        expect_close(f"α′ for removed = {removed}", got, want, atol=1e-9)
    return len(cases)


def _number(got: object, what: str) -> float:
    """``got`` as one float (a Python number, a 0-d tensor or numpy scalar), else a Mismatch."""
    if got is None:
        raise Mismatch(f"returned None: did you forget to `return` {what}?")
    if isinstance(got, Tensor) and got.numel() != 1:
        raise Mismatch(f"return one number {what}, got a tensor of shape {tuple(got.shape)}")
    try:
        return float(got)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise Mismatch(f"return one number {what}, got {type(got).__name__}") from None


def _distributions() -> tuple[Tensor, Tensor]:
    """Two batches of 3 distributions over 5 words (float32), with exact zeros in both (0 log 0 = 0)."""
    g = torch.Generator().manual_seed(8)
    p, q = torch.rand(3, 5, generator=g), torch.rand(3, 5, generator=g)
    p[0, 1], p[1, 3], q[0, 2], q[2, 0] = 0.0, 0.0, 0.0, 0.0
    return p / p.sum(-1, keepdim=True), q / q.sum(-1, keepdim=True)


@checker("JSD", reference=divergence.jsd)
def check_jsd(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 08: ``fn(p, q)`` → JSD(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m), m = ½ (p + q), in nats, along
    the last dim (0 log 0 = 0); the reference is scipy's Jensen–Shannon *distance*, squared."""
    p, q = _distributions()
    got = fn(p.clone(), q.clone())
    want = torch.from_numpy(jensenshannon(p.double().numpy(), q.double().numpy(), axis=-1) ** 2)
    if isinstance(got, Tensor) and got.shape == want.shape:
        if got.isnan().any():
            raise Mismatch("JSD is NaN where a weight is exactly 0: 0 · log 0 counts as 0 (torch.xlogy)")
        if close(got, want.sqrt()):
            raise Mismatch("that is √JSD, the distance scipy's jensenshannon returns: do not take the root")
        if close(got, want / math.log(2)):
            raise Mismatch("that is the JSD in bits (log₂): use the natural logarithm, nats")
        m = (p + q).double() / 2
        if close(got, torch.xlogy(p.double(), p.double() / m).sum(-1)):
            raise Mismatch("that is KL(p ‖ m) alone: average it with KL(q ‖ m)")
    expect_close("JSD", got, want)
    return 1


@checker("TVD", reference=divergence.tvd)
def check_tvd(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 08: ``fn(p, q)`` → TVD(p, q) = ½ Σ_t |p_t − q_t| along the last dim."""
    p, q = _distributions()
    got = fn(p.clone(), q.clone())
    diff = (p - q).double()
    want = diff.abs().sum(-1) / 2
    if isinstance(got, Tensor) and got.shape == want.shape:
        if close(got, 2 * want):
            raise Mismatch("that is Σ |p_t − q_t|, twice the TVD: halve it")
        if close(got, diff.abs().amax(-1)):
            raise Mismatch("that is the largest |p_t − q_t| alone: sum over every t, then halve")
        if close(got, diff.sum(-1).abs()) or close(got, diff.sum(-1) / 2):
            raise Mismatch("the differences were summed with their signs, which cancel: sum |p_t − q_t|")
    expect_close("TVD", got, want)
    return 1


@checker("deception penalty", reference=deceive.deceive_penalty)
def check_deceive_penalty(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 08: ``fn(alpha, m)`` → −log(1 − αᵀm) per sentence ``[n]``, for weights ``alpha [n, T]`` and
    a 0/1 mask ``m [n, T]`` of the impermissible words."""
    alpha = torch.tensor(
        [[0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]], dtype=torch.float32
    )
    m = torch.tensor([[0, 1, 0, 0], [1, 0, 1, 0], [0, 0, 0, 0]], dtype=torch.float32)
    got = fn(alpha.clone(), m.clone())
    a, mask = alpha.double(), m.double()
    mass = (a * mask).sum(-1)
    want = -torch.log1p(-mass)
    if isinstance(got, Tensor) and got.shape == want.shape:
        if close(got, -want):
            raise Mismatch("the sign is flipped: the penalty is −log(1 − αᵀm) ≥ 0, growing with αᵀm")
        if close(got, -torch.log(mass)):
            raise Mismatch("−log(αᵀm) rewards attention on m: penalise −log(1 − αᵀm), the mass off m")
        if close(got, -torch.log1p(-a * mask).sum(-1)):
            raise Mismatch("Σ_t −log(1 − α_t m_t) is not −log(1 − Σ_t α_t m_t): sum αᵀm first")
    if isinstance(got, Tensor) and got.shape == alpha.shape:
        raise Mismatch(f"shape {tuple(got.shape)}: one penalty per sentence, αᵀm summed over the words")
    expect_close("penalty", got, want)
    return 1


@checker("P@k", reference=plausibility.precision_at_k)
def check_precision_at_k(fn: Callable[[Tensor, list[int]], float]) -> int:
    """Lesson 08: ``fn(scores, cues)`` → P@k = |top_k(scores) ∩ cues| / k with k = the number of cues
    (``cues`` a 0/1 list, one entry per word)."""
    cases = [
        (torch.tensor([0.1, 0.9, 0.3, 0.05, 0.4], dtype=torch.float32), [0, 1, 0, 0, 0]),
        (torch.tensor([0.3, 0.1, 0.7, 0.2, 0.6, 0.05], dtype=torch.float32), [1, 0, 0, 0, 1, 0]),
        (torch.tensor([0.5, 0.2, 0.35, 0.4, 0.3, 0.1, 0.25], dtype=torch.float32), [1, 1, 0, 1, 0, 0, 0]),
    ]
    for scores, cues in cases:
        got = _number(fn(scores.clone(), list(cues)), "P@k")
        k = sum(cues)
        top = sorted(range(len(cues)), key=lambda t: -float(scores[t]))
        hits = sum(cues[t] for t in top[:k])
        want = hits / k
        if abs(got - want) > 1e-6:
            if abs(got - cues[top[0]]) < 1e-6 and k > 1:
                raise Mismatch(f"for cues {cues} you kept the top word only: k is the number of cues, {k}")
            low = sum(cues[t] for t in top[::-1][:k]) / k
            if abs(got - low) < 1e-6:
                raise Mismatch(f"for cues {cues} you took the k *lowest* scores: rank largest first")
            if abs(got - hits) < 1e-6 and k > 1:
                raise Mismatch(f"for cues {cues} you return the count {hits}: divide by k = {k}")
            raise Mismatch(f"for scores {scores.tolist()} and cues {cues}: P@k = {want:.4f}, got {got:.4f}")
    return len(cases)


def _value_cases() -> list[Tensor]:
    """Values V [T, d_h]: T > d_h + 1 (3 directions), T = d_h + 1 (none), and two equal rows (one)."""
    g = torch.Generator().manual_seed(8)
    dup = torch.randn(5, 4, generator=g)
    dup[1] = dup[0]
    return [torch.randn(7, 3, generator=g), torch.randn(4, 3, generator=g), dup]


@checker("null directions", reference=identifiability.null_directions)
def check_null_directions(fn: Callable[[Tensor], object]) -> int:
    """Lesson 08: ``fn(V)`` → a basis ``[T, r]`` (tensor or numpy array, one direction per column) of
    {δ ∈ ℝ^T : δ V = 0, Σ_t δ_t = 0}; any basis passes: each column is checked against both
    equations, and the columns must span the whole set (rank r = T − rank [Vᵀ; 1ᵀ])."""
    for V in _value_cases():
        T, d = V.shape
        got = fn(V.clone())
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the basis?")
        if not isinstance(got, Tensor | np.ndarray):
            raise Mismatch(f"return a tensor or numpy array [T, r], got {type(got).__name__}")
        B = torch.as_tensor(got).detach().double().cpu()
        v = V.double()
        r = T - int(np.linalg.matrix_rank(torch.cat([v.T, torch.ones(1, T, dtype=v.dtype)]).numpy()))
        if B.dim() != 2 or B.shape[0] != T:
            hint = " (one direction per column: transpose it)" if B.dim() == 2 and B.shape[1] == T else ""
            raise Mismatch(
                f"for V of shape {(T, d)} the basis must be [T = {T}, r], got {tuple(B.shape)}{hint}"
            )
        scale = float(B.abs().max()) if B.numel() else 0.0
        tol = 1e-4 * max(scale, 1.0) * float(v.abs().max())
        if B.numel() and (v.T @ B).abs().max() > tol:
            raise Mismatch(f"for V of shape {(T, d)} a column δ has δ V ≠ 0: it changes the head's output")
        if B.numel() and B.sum(0).abs().max() > 1e-4 * max(scale, 1.0):
            raise Mismatch(
                f"for V of shape {(T, d)} a column has Σ_t δ_t ≠ 0: α + δ would no longer sum to 1 "
                "(add the row of ones to the equations)"
            )
        rank = int(np.linalg.matrix_rank(B.numpy(), tol=1e-6 * max(scale, 1.0))) if B.numel() else 0
        if rank != r:
            raise Mismatch(
                f"for V of shape {(T, d)} your columns span {rank} direction(s), the set has {r}"
                + (
                    " (two rows of V are equal here: count with the rank, not T − d_h − 1)"
                    if d + 1 >= T
                    else ""
                )
            )
    return 3


def additive_weights(h: Tensor, W_a: Tensor, b_a: Tensor, v: Tensor) -> Tensor:
    """α ``[n, T]`` = softmax_t(θ), θ_t = vᵀ tanh(W_a h_t + b_a), for states ``h [n, T, d]``,
    ``W_a [d_att, d]``, ``b_a [d_att]`` and ``v [d_att]`` (lesson 08, section 1: the additive attention
    of Jain & Wallace's classifier, as ``AttentionClassifier.attention`` computes it without padding)."""
    h, W_a = _real("h", h, 3), _real("W_a", W_a, 2)
    b_a, v = _real("b_a", b_a, 1), _real("v", v, 1)
    if W_a.shape[1] != h.shape[-1] or b_a.shape[0] != W_a.shape[0] or v.shape[0] != W_a.shape[0]:
        raise ValueError(
            "h [n, T, d], W_a [d_att, d], b_a [d_att] and v [d_att] must agree, got "
            f"{tuple(h.shape)}, {tuple(W_a.shape)}, {tuple(b_a.shape)}, {tuple(v.shape)}"
        )
    return torch.softmax(torch.tanh(h @ W_a.T + b_a) @ v, dim=-1)


def _real(name: str, x: object, dims: int) -> Tensor:
    return _checks.real_tensor(name, x, dims=dims)


@checker("additive attention", reference=additive_weights)
def check_additive_weights(fn: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 08: ``fn(h, W_a, b_a, v)`` → α ``[n, T]`` = softmax over the words of vᵀ tanh(W_a h_t + b_a)
    (here n = 2 sentences of T = 5 words, d = 6, d_att = 4)."""
    g = torch.Generator().manual_seed(8)
    h, W_a = torch.randn(2, 5, 6, generator=g), torch.randn(4, 6, generator=g)
    b_a, v = torch.randn(4, generator=g), 2 * torch.randn(4, generator=g)
    got = fn(h.clone(), W_a.clone(), b_a.clone(), v.clone())
    h64, W64, b64, v64 = (x.double() for x in (h, W_a, b_a, v))
    theta = torch.tanh(h64 @ W64.T + b64) @ v64
    want = torch.softmax(theta, -1)
    if isinstance(got, Tensor) and got.shape == want.shape:
        if close(got, torch.softmax((h64 @ W64.T + b64) @ v64, -1)):
            raise Mismatch("θ_t = vᵀ tanh(W_a h_t + b_a): the tanh is missing")
        if close(got, torch.softmax(theta, 0)):
            raise Mismatch("the softmax ran over the sentences (dim 0): take it over the words, dim=-1")
        if close(got, theta):
            raise Mismatch("those are the scores θ: α is their softmax over the words")
    expect_close("α", got, want)
    return 1
