"""Checkers for lesson 09: the histogram labels of a sequence, the tied attention map, the same-token
share, the crossing of two loss curves, the last unmatched open bracket after each position of a Dyck
string, and the heads' attention on it (the stack share)."""

from __future__ import annotations

import numbers
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf import attention as att
from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.tasks.dyck import parse_dyck
from xai_tf.tasks.dyck_model import stack_share
from xai_tf.tasks.histogram import histogram_labels, same_token_share
from xai_tf.tasks.solvable import crossing


def tied_attention(E: Tensor, W: Tensor) -> Tensor:
    """A(x) = softmax(E Wᵀ W Eᵀ / √d_att) for embeddings ``E [..., L, d_e]`` and the tied query and key
    ``W [d_att, d_e]`` (lesson 09, section 2): ``xai_tf.attention.self_attention`` with W_q = W_k = W and
    the identity as value, its attention map only."""
    E, W = _checks.real_tensor("E", E), _checks.real_tensor("W", W, dims=2)
    if E.dim() < 2 or E.size(-1) != W.size(1):
        raise ValueError(
            "E must be [..., L, d_e] and W [d_att, d_e] with one d_e, "
            f"got {tuple(E.shape)} and {tuple(W.shape)}"
        )
    return att.self_attention(E, W, W, torch.eye(E.size(-1), dtype=E.dtype, device=E.device))[1]


def stack_tops(s: str) -> list[int]:
    """s(i) for every position of a valid Dyck string ``s`` (any depth; brackets ``()[]``): the position
    of the last unmatched open bracket after reading s[: i + 1], −1 when all are matched (lesson 09,
    section 5: ``xai_tf.tasks.dyck.parse_dyck``'s stack tops)."""
    parsed = parse_dyck(s, D=max(len(s), 1))
    if not parsed.valid:
        raise ValueError(f"s must be a valid Dyck string of ()[], got {s!r}: {parsed.error}")
    return parsed.top


@checker("histogram labels", reference=histogram_labels)
def check_histogram_labels(fn: Callable[[Tensor], Tensor]) -> int:
    """Lesson 09: ``fn(x)`` for tokens ``x [L]`` → ``y [L]`` with y_i = number of j with x_j = x_i."""
    g = torch.Generator().manual_seed(9)
    cases = [
        torch.tensor([3, 0, 11, 0, 8, 0, 8, 0, 8, 0]),
        torch.tensor([5]),
        torch.randint(4, (12,), generator=g),
    ]
    cases.append(torch.arange(7))
    for x in cases:
        got, want = fn(x.clone()), histogram_labels(x)
        if isinstance(got, Tensor) and got.shape == want.shape and torch.equal(got, want - 1):
            raise Mismatch(
                f"for x = {x.tolist()} you count the other equal tokens only: x_i counts itself too"
            )
        if isinstance(got, Tensor) and got.shape == (len(x), len(x)):
            raise Mismatch(f"for x = {x.tolist()} you return the L × L matrix [x_i = x_j]: sum it over j")
        if isinstance(got, Tensor) and got.dim() == 1 and len(got) == int(x.max()) + 1 != len(x):
            raise Mismatch(
                f"for x = {x.tolist()} you return one count per token value (bincount): "
                "y needs one count per position, the count of x_i"
            )
        if (
            isinstance(got, Tensor)
            and len(x) > 1
            and got.shape == want.shape
            and close(got, want.double() / len(x))
        ):
            raise Mismatch(f"for x = {x.tolist()} you return a share (a mean): y_i is a count, a sum")
        if isinstance(got, Tensor) and got.dtype.is_floating_point is False:
            got = got.double()
        expect_close(f"y for x = {x.tolist()}", got, want.double())
    return len(cases)


@checker("last unmatched open bracket", reference=stack_tops)
def check_stack_tops(fn: Callable[[str], list[int]]) -> int:
    """Lesson 09: ``fn(s)`` for a valid Dyck string → the list s(i) per position: the position of the
    last unmatched open bracket after reading s[: i + 1], −1 when every bracket so far is matched."""
    cases = ["([])[]", "(([[]]))", "()[]()", "[([][()])]", "(" + "[" * 3 + "]" * 3 + ")"]
    for s in cases:
        got, want = fn(s), parse_dyck(s, D=8).top
        if got is None:
            raise Mismatch("returned None: did you forget to `return` the list?")
        got = got.tolist() if isinstance(got, Tensor) else list(got) if isinstance(got, tuple) else got
        if not isinstance(got, list) or len(got) != len(s):
            raise Mismatch(f"for {s!r} return a list of {len(s)} positions, got {got!r}")
        odd = [v for v in got if isinstance(v, bool) or not isinstance(v, numbers.Integral)]
        if odd:
            raise Mismatch(
                f"for {s!r} every entry must be a position (an int, −1 for an empty stack), got {odd[0]!r}"
                + (" — push the index i, not the bracket" if isinstance(odd[0], str) else "")
            )
        got = [int(v) for v in got]
        if got != want:
            i = next(i for i, (u, v) in enumerate(zip(got, want, strict=True)) if u != v)
            if got[1:] == want[:-1]:
                hint = " (s(i) is the top *after* reading position i: update the stack first)"
            elif got == parse_dyck(s, D=8).depth:
                hint = " (that is the depth of the stack: s(i) is the position of its top)"
            elif s[i] in ")]":
                hint = " (after a closing bracket the top is the open bracket *below* the popped one)"
            else:
                hint = ""
            raise Mismatch(
                f"for {s!r}, after position {i} ({s[i]!r}) you say {got[i]}, expected {want[i]}{hint}"
            )
    return len(cases)


@checker("tied attention", reference=tied_attention)
def check_tied_attention(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 09: ``fn(E, W)`` → softmax(E Wᵀ W Eᵀ / √d_att) along the last dim, for ``E [..., L, d_e]``
    and ``W [d_att, d_e]`` (here d_att = 4, d_e = 6, a batch of 2)."""
    g = torch.Generator().manual_seed(9)
    E, W = torch.randn(2, 5, 6, generator=g), torch.randn(4, 6, generator=g)
    got = fn(E.clone(), W.clone())
    scores = (E.double() @ W.double().T) @ (W.double() @ E.double().transpose(-1, -2))
    want = torch.softmax(scores / 2.0, -1)
    if isinstance(got, Tensor) and got.shape == want.shape:
        if close(got, torch.softmax(scores, -1)):
            raise Mismatch("the scores are not scaled: divide E Wᵀ W Eᵀ by √d_att")
        if close(got, torch.softmax(scores / 6**0.5, -1)):
            raise Mismatch("scaled by √d_e = √6: the scale is √d_att, d_att = W.shape[0] = 4")
        if close(got, torch.softmax(scores / 4, -1)):
            raise Mismatch("divided by d_att = 4: the scale is √d_att = 2")
        if close(got, torch.softmax(scores / 2.0, -2)):
            raise Mismatch("the softmax ran down the columns: each row (one query) must sum to 1, dim=-1")
    expect_close("A", got, want)
    return 1


@checker("same-token share", reference=same_token_share)
def check_same_token_share(fn: Callable[[Tensor, Tensor], float]) -> int:
    """Lesson 09: ``fn(A, x)`` → the mean over positions i whose token repeats of
    Σ_{j≠i, x_j = x_i} A_ij / Σ_{j≠i} A_ij, for maps ``A [B, L, L]`` and tokens ``x [B, L]``."""
    g = torch.Generator().manual_seed(9)
    x = torch.tensor([[1, 4, 1, 2, 4, 1], [3, 0, 0, 5, 3, 3]])
    A = torch.softmax(2 * torch.randn(2, 6, 6, generator=g), -1)
    got = fn(A.clone(), x.clone())
    Ad = A.double()
    same = x[..., :, None] == x[..., None, :]
    others = ~torch.eye(6, dtype=torch.bool)
    repeated = (same & others).any(-1)
    ratio = (Ad * (same & others)).sum(-1) / (Ad * others).sum(-1)
    want = float(ratio[repeated].mean())
    if got is None:
        raise Mismatch("returned None: did you forget to `return` the share?")
    if isinstance(got, Tensor) and got.numel() != 1:
        raise Mismatch(
            f"return one number (the mean over positions), got a tensor of shape {tuple(got.shape)}"
        )
    try:
        got = float(got)
    except (TypeError, ValueError):
        raise Mismatch(f"return one number, got {type(got).__name__}") from None
    if abs(got - want) > 1e-6:
        if abs(got - float(((Ad * same).sum(-1) / Ad.sum(-1))[repeated].mean())) < 1e-6:
            raise Mismatch("j = i was counted: the share is over the *other* positions, j ≠ i")
        if abs(got - float((Ad * (same & others)).sum(-1)[repeated].mean())) < 1e-6:
            raise Mismatch("not divided by Σ_{j≠i} A_ij: the share is of the attention given to the others")
        if abs(got - float(ratio.mean())) < 1e-6:
            raise Mismatch("averaged over every position: keep only those whose token repeats (y_i ≥ 2)")
        raise Mismatch(f"the share is {want:.6f}, got {got:.6f}")
    return 1


def _interpolate(alphas: list[float], d: list[float], i: int) -> float:
    """Where the line through (α_i, d_i) and (α_{i+1}, d_{i+1}) crosses 0."""
    return alphas[i] + d[i] / (d[i] - d[i + 1]) * (alphas[i + 1] - alphas[i])


@checker("crossing", reference=crossing)
def check_crossing(fn: Callable[[list[float], list[float], list[float]], float | None]) -> int:
    """Lesson 09: ``fn(alphas, a, b)`` → the first α where a − b changes sign, by linear interpolation
    between the grid points around it (the grid point itself where a − b is exactly 0); None if never."""
    alphas = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5]
    cases = [
        ([3.0, 2.0, 1.5, 1.0, 0.5, 0.2], [1.0, 1.0, 1.0, 1.25, 1.0, 1.0]),  # first sign change in (0.75, 1)
        ([1.0, 0.5, 2.0, 2.0, 0.5, 0.5], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]),  # two changes: the first counts
        ([2.0, 2.0, 1.0, 0.5, 0.2, 0.1], [1.0, 1.5, 1.0, 1.0, 1.0, 1.0]),  # exactly 0 at α = 0.75
        ([1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 0.1, 0.2, 0.3, 0.4, 0.5]),  # never
    ]
    for a, b in cases:
        got = fn(list(alphas), list(a), list(b))
        want = crossing(alphas, a, b)
        if want is None:
            if got is not None:
                raise Mismatch(
                    f"a − b = {[u - v for u, v in zip(a, b, strict=True)]} never changes sign: "
                    f"return None, got {got!r}"
                )
            continue
        if got is None:
            raise Mismatch(
                f"returned None for a − b = {[u - v for u, v in zip(a, b, strict=True)]}, which "
                "changes sign: did you forget to `return` it?"
            )
        try:
            value = float(got)
        except (TypeError, ValueError):
            raise Mismatch(f"return one number α (or None), got {type(got).__name__}") from None
        if abs(value - want) > 1e-6:
            d = [u - v for u, v in zip(a, b, strict=True)]
            changes = [i for i in range(len(d) - 1) if d[i] * d[i + 1] < 0]
            if any(min(abs(value - alphas[i]), abs(value - alphas[i + 1])) < 1e-9 for i in changes):
                raise Mismatch(
                    f"for a − b = {d} you return the grid point {value:g}: interpolate linearly between "
                    "the two grid points where a − b changes sign"
                )
            last = changes[-1]
            if len(changes) > 1 and abs(value - _interpolate(alphas, d, last)) < 1e-6:
                raise Mismatch(f"for a − b = {d} you return the last sign change: the first one counts")
            raise Mismatch(f"for a − b = {d}: the crossing is at α = {want:.6g}, got {value:.6g}")
    return len(cases)


@checker("stack share", reference=stack_share)
def check_stack_share(fn: Callable[[Tensor, Tensor], Tensor]) -> int:
    """Lesson 09: ``fn(A, top)`` → ``[n_layer, n_head]``: the mean of A_{i, s(i)} over every position
    i (of every string) with s(i) ≥ 0, for ``A [B, n_layer, n_head, T, T]`` and ``top [B, T]``."""
    g = torch.Generator().manual_seed(9)
    top = torch.tensor([stack_tops("(()[])"), stack_tops("()([])")])
    A = torch.softmax(
        torch.randn(2, 2, 3, 6, 6, generator=g).masked_fill(~torch.ones(6, 6).tril().bool(), -torch.inf), -1
    )
    got = fn(A.clone(), top.clone())
    Ad, seen = A.double(), top >= 0
    idx = top.clamp(min=0)[:, None, None, :, None].expand(2, 2, 3, 6, 1)
    on_top = Ad.gather(-1, idx)[..., 0]
    want = (on_top * seen[:, None, None]).sum((0, -1)) / seen.sum()
    if isinstance(got, Tensor) and got.shape == want.shape:
        if close(got, (on_top * seen[:, None, None]).sum((0, -1)) / seen.numel()):
            raise Mismatch(
                "divided by every position: average only over those with s(i) ≥ 0 (a non-empty stack)"
            )
        if close(got, on_top.mean((0, -1))):
            raise Mismatch("positions with an empty stack (s(i) = −1) were counted: leave them out")
        column = Ad.transpose(-1, -2).gather(-1, idx)[..., 0]
        if close(got, (column * seen[:, None, None]).sum((0, -1)) / seen.sum()):
            raise Mismatch("that is A_{s(i), i}: row i is the query, read the column s(i) of row i")
        per_string = (on_top * seen[:, None, None]).sum(-1) / seen.sum(-1)[:, None, None]
        if close(got, per_string.mean(0)):
            raise Mismatch("that is the mean of each string's mean: pool the positions of all strings")
    expect_close("stack share", got, want)
    return 1
