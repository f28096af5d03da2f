"""Checkers for the lessons' exercises: each runs known cases and says *what* is wrong.

A checker prints ``✔`` and returns True when every case passes; otherwise it prints ``✘`` with
the first problem it found (shape, a row that does not sum to 1, the first mismatching value)
and returns False. Checkers never raise, so a lesson runs top to bottom before it is solved.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor


class Mismatch(Exception):
    """One failed expectation, with the message a student sees."""


def _report(topic: str, run_cases: Callable[[], int]) -> bool:
    try:
        n = run_cases()
    except Mismatch as err:
        print(f"✘ {topic}: {err}")
        return False
    except Exception as err:  # the student's code raised: say so, not a traceback
        print(f"✘ {topic}: your function raised {type(err).__name__}: {err}")
        return False
    print(f"✔ {topic}: all {n} cases pass")
    return True


def expect_close(name: str, got: object, want: Tensor, atol: float = 1e-5) -> None:
    """Raise ``Mismatch`` naming the first difference between ``got`` and ``want``."""
    if got is None:
        raise Mismatch(f"{name} is None: did you forget to `return` it?")
    if not isinstance(got, Tensor):
        raise Mismatch(f"{name} should be a torch.Tensor, got {type(got).__name__}")
    if got.shape != want.shape:
        raise Mismatch(f"{name} has shape {tuple(got.shape)}, expected {tuple(want.shape)}")
    bad = ~torch.isclose(got.double(), want.double(), atol=atol, rtol=0)
    if bad.any():
        index = tuple(int(i) for i in bad.nonzero()[0])
        raise Mismatch(f"{name}{list(index)} is {got[index].item():.6g}, expected {want[index].item():.6g}")


def check_next_token_probs(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 00: ``fn(logits [T, vocab])`` → the next-token distribution ``[vocab]``."""

    def cases() -> int:
        gen = torch.Generator().manual_seed(0)
        shapes = [(1, 5), (4, 7), (3, 50)]
        for T, vocab in shapes:
            logits = torch.randn(T, vocab, generator=gen) * 3
            got = fn(logits.clone())
            if isinstance(got, Tensor) and got.shape == (vocab,):
                total = got.sum().item()
                if abs(total - 1) > 1e-5:
                    raise Mismatch(f"the probabilities sum to {total:.4f}, not 1 (softmax?)")
                if T > 1 and torch.allclose(got, logits[0].softmax(-1)):
                    raise Mismatch("you used the first position; the next token follows the last")
            expect_close("probs", got, logits[-1].softmax(-1))
        return len(shapes)

    return _report("next-token probabilities", cases)


def _expect_rows_sum_to_one(name: str, A: Tensor, visible: Tensor | None = None) -> None:
    sums = A.sum(-1)
    want = torch.ones_like(sums) if visible is None else visible.any(-1).to(sums.dtype).expand_as(sums)
    bad = (sums - want).abs() > 1e-5
    if bad.any():
        row = tuple(int(i) for i in bad.nonzero()[0])
        raise Mismatch(f"row {list(row)} of {name} sums to {sums[row].item():.4f}, not {want[row].item():g}")


def _expect_masked_zero(name: str, A: Tensor, visible: Tensor) -> None:
    leaked = (A != 0) & ~visible
    if leaked.any():
        i = tuple(int(x) for x in leaked.nonzero()[0])
        raise Mismatch(f"{name}{list(i)} = {A[i].item():.4g} but that position is masked: it leaked")


def check_softmax(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 01: ``fn(z)`` → softmax along the last dim, stable for large scores."""

    def cases() -> int:
        z = torch.tensor([[1.0, 2.0, 3.0], [112.0 / 8, 96.0 / 8, 0.0], [1000.0, 1001.0, 999.0]])
        got = fn(z[:2].clone())
        expect_close("softmax(z)", got, torch.softmax(z[:2], -1))
        big = fn(z[2:].clone())
        if isinstance(big, Tensor) and big.isnan().any():
            raise Mismatch("scores like 1000 give NaN: subtract the row maximum before exp")
        expect_close("softmax(large z)", big, torch.softmax(z[2:], -1))
        return 2

    return _report("softmax", cases)


def check_scaled_dot_product_attention(fn: Callable[[Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> bool:
    """Lesson 01: ``fn(Q, K, V)`` → ``(A V, A)`` with A = softmax(Q Kᵀ / √d)."""

    def cases() -> int:
        g = torch.Generator().manual_seed(1)
        shapes = [(4, 4, 8, 8), (3, 5, 16, 6)]
        for n, m, d, d_v in shapes:
            Q, K, V = (
                torch.randn(n, d, generator=g),
                torch.randn(m, d, generator=g),
                torch.randn(m, d_v, generator=g),
            )
            got = fn(Q, K, V)
            if not (isinstance(got, tuple) and len(got) == 2):
                raise Mismatch("return a pair (output, A)")
            out, A = got
            want_A = torch.softmax(Q @ K.T / d**0.5, -1)
            if isinstance(A, Tensor) and A.shape == want_A.shape:
                if torch.allclose(A, torch.softmax(Q @ K.T, -1), atol=1e-5):
                    raise Mismatch("A is not scaled: divide the scores by √d before the softmax")
                if torch.allclose(A, torch.softmax(Q @ K.T / d**0.5, 0), atol=1e-5):
                    raise Mismatch("the softmax runs down the columns: normalise each row (dim=-1)")
                _expect_rows_sum_to_one("A", A)
            expect_close("A", A, want_A)
            expect_close("output", out, want_A @ V)
        return len(shapes)

    return _report("scaled dot-product attention", cases)


def check_causal_mask(fn: Callable[[int], Tensor]) -> bool:
    """Lesson 02: ``fn(T)`` → boolean ``[T, T]``, True where position i may attend to j (j ≤ i)."""

    def cases() -> int:
        for T in (1, 4, 7):
            got = fn(T)
            if isinstance(got, Tensor) and got.dtype != torch.bool:
                raise Mismatch(f"the mask should be boolean (True = visible), got {got.dtype}")
            if (
                isinstance(got, Tensor)
                and got.shape == (T, T)
                and torch.equal(got, ~torch.ones(T, T, dtype=torch.bool).tril())
            ):
                raise Mismatch("True should mark what a position may see; yours marks what it may not")
            if isinstance(got, Tensor) and got.shape == (T, T) and T > 1 and got[0, 1]:
                raise Mismatch("position 0 may attend to position 1: that is looking into the future")
            expect_close("mask", got.float() if isinstance(got, Tensor) else got, torch.ones(T, T).tril())
        return 3

    return _report("causal mask", cases)


def check_masked_attention(fn: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> bool:
    """Lesson 02: ``fn(Q, K, V, mask)`` → ``(A V, A)``; masked positions get exactly 0 and a row
    with nothing visible gives zeros (no NaN)."""

    def cases() -> int:
        g = torch.Generator().manual_seed(2)
        Q, K, V = (
            torch.randn(5, 8, generator=g),
            torch.randn(5, 8, generator=g),
            torch.randn(5, 3, generator=g),
        )
        causal = torch.ones(5, 5, dtype=torch.bool).tril()
        padded = causal & (torch.arange(5) < 3)  # keys 3 and 4 are padding
        padded[0] = False  # a query that sees nothing
        for mask in (causal, padded):
            out, A = fn(Q, K, V, mask)
            if isinstance(A, Tensor) and A.isnan().any():
                raise Mismatch("A has NaN: a row with every position masked must give zeros")
            if isinstance(A, Tensor) and A.shape == mask.shape:
                _expect_masked_zero("A", A, mask)
                _expect_rows_sum_to_one("A", A, mask)
            scores = (Q @ K.T / 8**0.5).masked_fill(~mask, float("-inf"))
            want = torch.nan_to_num(torch.softmax(scores, -1))
            expect_close("A", A, want)
            expect_close("output", out, want @ V)
        return 2

    return _report("masked attention", cases)


def check_sparsemax(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 03: ``fn(z)`` → sparsemax along the last dim."""

    def cases() -> int:
        from xai_tf.attention import sparsemax

        zs = [
            torch.tensor([-2.0, 0.0, 0.5]),
            torch.tensor([[3.0, 1.0, 0.2, 2.9], [0.0, 0.0, 0.0, 0.0]]),
            torch.randn(3, 9, generator=torch.Generator().manual_seed(3)) * 2,
        ]
        for z in zs:
            got = fn(z.clone())
            if isinstance(got, Tensor) and got.shape == z.shape:
                if (got < -1e-7).any():
                    raise Mismatch("negative probabilities: clip z − τ at 0")
                _expect_rows_sum_to_one("p", got)
            expect_close("sparsemax(z)", got, sparsemax(z))
        return len(zs)

    return _report("sparsemax", cases)


def check_sparsemax_jacobian(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 03: ``fn(p)`` → the Jacobian ∂sparsemax/∂z ``[T, T]`` at the output p."""

    def cases() -> int:
        from xai_tf.attention import sparsemax

        zs = [torch.tensor([-2.0, 0.0, 0.5]), torch.tensor([0.1, 1.0, 0.9, 0.95, -1.0]), torch.zeros(4)]
        for z in zs:
            want = torch.autograd.functional.jacobian(sparsemax, z.double()).float()
            got = fn(sparsemax(z))
            if isinstance(got, Tensor) and got.shape == want.shape and (got.sum(-1).abs() > 1e-5).any():
                raise Mismatch("rows of the Jacobian must sum to 0 (adding a constant to z changes nothing)")
            expect_close("J", got, want)
        return len(zs)

    return _report("sparsemax Jacobian", cases)


def _expect_filtered(name: str, got: object, logits: Tensor, want: Tensor) -> None:
    """Shared diagnosis for logit filters: what was removed must be −∞, what was kept unchanged."""
    if isinstance(got, Tensor) and got.shape == want.shape:
        removed, kept = torch.isinf(want), torch.isfinite(want)
        if (got[removed] == 0).any():
            raise Mismatch("removed tokens should get the logit −inf, not 0 (0 is an ordinary logit)")
        if not torch.allclose(got[kept & torch.isfinite(got)], logits[kept & torch.isfinite(got)]):
            raise Mismatch("kept logits must stay as they were: return logits, not probabilities")
        n_got, n_want = torch.isfinite(got).sum(-1).flatten(), kept.sum(-1).flatten()
        hint = ""
        if name == "top-p" and bool((n_got < n_want).any()):
            hint = (
                "; you dropped the token that crosses p: keep a token while the mass *before* it is below p"
            )
        if (n_got == 0).any():
            raise Mismatch(f"a row keeps no token at all: at least one must survive{hint}")
        if (n_got != n_want).any():
            row = int((n_got != n_want).nonzero()[0, 0])
            raise Mismatch(
                f"{name} keeps {int(n_got[row])} tokens in row {row}, expected {int(n_want[row])}{hint}"
            )
    expect_close(f"{name}(logits)", got, want)


def check_top_k_filter(fn: Callable[[Tensor, int], Tensor]) -> bool:
    """Lesson 05: ``fn(logits, k)`` keeps the k largest logits of the last dim, −inf elsewhere
    (ties at the k-th value: the lower token id wins)."""

    def cases() -> int:
        from xai_tf.decoding import top_k_filter

        gen = torch.Generator().manual_seed(0)
        z = torch.randn(10, generator=gen) * 2
        runs = [(z, 1), (z, 3), (z, 10), (torch.randn(2, 8, generator=gen), 2)]
        runs.append((torch.tensor([1.0, 2.0, 2.0, 2.0, 0.0]), 2))  # a tie: tokens 1 and 2 are kept
        for logits, k in runs:
            _expect_filtered("top-k", fn(logits.clone(), k), logits, top_k_filter(logits, k))
        return len(runs)

    return _report("top-k filter", cases)


def check_top_p_filter(fn: Callable[[Tensor, float], Tensor]) -> bool:
    """Lesson 05: ``fn(logits, p)`` keeps the smallest set of most likely tokens whose probability
    reaches p (always at least one), −inf elsewhere."""

    def cases() -> int:
        from xai_tf.decoding import top_p_filter

        z = torch.tensor([0.5, 0.3, 0.15, 0.05]).log()
        runs = [(z, 0.5), (z, 0.6), (z, 0.9), (z, 1.0), (z, 1e-4)]
        runs.append((torch.randn(3, 12, generator=torch.Generator().manual_seed(1)) * 2, 0.7))
        for logits, p in runs:
            _expect_filtered("top-p", fn(logits.clone(), p), logits, top_p_filter(logits, p))
        return len(runs)

    return _report("top-p filter", cases)


def check_layer_norm(fn: Callable[[Tensor, Tensor, Tensor], Tensor]) -> bool:
    """Lesson 04: ``fn(u, gamma, beta)`` → γ ⊙ (u − μ) / √(σ² + 1e-5) + β over the last dim."""

    def cases() -> int:
        import torch.nn.functional as F

        gen = torch.Generator().manual_seed(0)
        shapes = [(8,), (3, 16), (2, 5, 32)]
        for shape in shapes:
            u = torch.randn(shape, generator=gen) * 3 + 1
            gamma, beta = torch.randn(shape[-1], generator=gen), torch.randn(shape[-1], generator=gen)
            want = F.layer_norm(u, shape[-1:], gamma, beta, 1e-5)
            got = fn(u.clone(), gamma, beta)
            if (
                isinstance(got, Tensor)
                and got.shape == want.shape
                and not torch.allclose(got, want, atol=1e-4)
            ):
                unbiased = (u - u.mean(-1, keepdim=True)) / torch.sqrt(u.var(-1, keepdim=True) + 1e-5)
                if torch.allclose(got, gamma * unbiased + beta, atol=1e-4):
                    raise Mismatch("σ² is the biased variance (divide by d, not d − 1): var(unbiased=False)")
                plain = F.layer_norm(u, shape[-1:], None, None, 1e-5)
                if torch.allclose(got, plain, atol=1e-4):
                    raise Mismatch("apply the learned scale γ and shift β after normalising")
            expect_close("LN(u)", got, want, atol=1e-4)
        return len(shapes)

    return _report("LayerNorm", cases)


def check_integrated_gradients(
    fn: Callable[[Callable[[Tensor], Tensor], Tensor, Tensor, int], Tensor],
) -> bool:
    """Lesson 06: ``fn(F, x, baseline, m)`` → IG by the right Riemann sum,
    (x − x') ⊙ (1/m) Σ_{k=1..m} ∇F(x' + (k/m)(x − x')), where F maps a batch ``[n, D]`` to ``[n]``."""

    def cases() -> int:
        from xai_tf.attribution import path_integrated_gradients

        w = torch.tensor([2.0, -1.0, 0.5])

        def toy(p: Tensor) -> Tensor:
            return torch.relu(torch.relu(p[:, 0]) - 1 - torch.relu(p[:, 1]))

        runs = [
            (lambda p: p @ w, torch.tensor([1.0, 4.0, -2.0]), torch.tensor([0.5, 0.0, 1.0]), 5),
            (toy, torch.tensor([3.0, 1.0]), torch.zeros(2), 4),
            (lambda p: (p**2).sum(-1), torch.tensor([1.0, -2.0]), torch.tensor([0.5, 0.5]), 10),
        ]
        for F, x, baseline, m in runs:
            want = path_integrated_gradients(F, x, baseline, n_steps=m)
            got = fn(F, x.clone(), baseline.clone(), m)
            if (
                isinstance(got, Tensor)
                and got.shape == want.shape
                and not torch.allclose(got, want, atol=1e-5)
            ):
                alphas = torch.arange(m) / m  # left sum: α = 0, …, (m−1)/m
                points = (baseline + alphas[:, None] * (x - baseline)).requires_grad_(True)
                left = (x - baseline) * torch.autograd.grad(F(points).sum(), points)[0].mean(0)
                if torch.allclose(got, left, atol=1e-5):
                    raise Mismatch(
                        "that is the left Riemann sum: take α = k/m for k = 1..m (α = 0 is no step)"
                    )
                grads_only = want / (x - baseline).masked_fill(x == baseline, 1)
                if torch.allclose(got, grads_only, atol=1e-5):
                    raise Mismatch("multiply the averaged gradient by (x − baseline)")
            expect_close("IG", got, want)
        return len(runs)

    return _report("integrated gradients (right Riemann sum)", cases)


def check_g_l1(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 06: ``fn(g)`` for a gradient g ``[T, d]`` → G-L1 ``[T]`` = (1/d) Σ_j |g_tj|."""

    def cases() -> int:
        gen = torch.Generator().manual_seed(0)
        gs = [torch.randn(5, 16, generator=gen), torch.tensor([[3.0, -4.0], [1.0, 1.0]])]
        for g in gs:
            want = g.abs().mean(-1)
            got = fn(g.clone())
            if isinstance(got, Tensor) and got.shape == want.shape:
                if torch.allclose(got, g.mean(-1)):
                    raise Mismatch("take absolute values first: the plain mean is G-avg")
                if torch.allclose(got, g.abs().sum(-1)):
                    raise Mismatch("divide by d: G-L1 is the mean of |g|, not the sum")
            if isinstance(got, Tensor) and got.shape != want.shape and got.shape == (g.size(-1),):
                raise Mismatch(
                    f"reduce over the embedding dim (the last): one score per token, {tuple(want.shape)}"
                )
            expect_close("G-L1", got, want)
        return len(gs)

    return _report("G-L1", cases)


def check_word_attention(fn: Callable[[Tensor, list[list[int]]], Tensor]) -> bool:
    """Lesson 07: ``fn(attn [T, T], groups)`` → word attention [W, W]: summed over the pieces of the
    attended word, averaged over the pieces of the attending word."""

    def cases() -> int:
        from xai_tf.wordlevel import word_attention

        gen = torch.Generator().manual_seed(0)
        runs = [
            (torch.randn(5, 5, generator=gen).softmax(-1), [[0], [1, 2], [3], [4]]),
            (torch.randn(6, 6, generator=gen).softmax(-1), [[0, 1, 2], [3, 4], [5]]),
            (torch.randn(3, 3, generator=gen).softmax(-1), [[0], [1], [2]]),
        ]
        for A, groups in runs:
            want = word_attention(A, groups)
            got = fn(A.clone(), groups)
            if (
                isinstance(got, Tensor)
                and got.shape == want.shape
                and not torch.allclose(got, want, atol=1e-5)
            ):
                sums = got.sum(-1)
                if (sums - 1).abs().max() > 1e-4:
                    worst = int((sums - 1).abs().argmax())
                    raise Mismatch(
                        f"row {worst} sums to {sums[worst]:.3f}: sum over the attended word's pieces "
                        "(columns), average over the attending word's pieces (rows)"
                    )
            expect_close("Ã", got, want)
        return len(runs)

    return _report("word-level attention", cases)


def check_rollout(fn: Callable[[Tensor], Tensor]) -> bool:
    """Lesson 07: ``fn(attentions [L, H, T, T])`` → R = Â_L ⋯ Â_1 with Â_l = ½ mean_h A_l + ½ I."""

    def cases() -> int:
        from xai_tf.wordlevel import attention_rollout, residual_attention

        gen = torch.Generator().manual_seed(1)
        stacks = [torch.randn(L, 2, T, T, generator=gen).softmax(-1) for L, T in [(1, 3), (2, 4), (4, 5)]]
        for attentions in stacks:
            want = attention_rollout(attentions)
            got = fn(attentions.clone())
            if (
                isinstance(got, Tensor)
                and got.shape == want.shape
                and not torch.allclose(got, want, atol=1e-5)
            ):
                A_hat = residual_attention(attentions)
                reversed_order = torch.linalg.multi_dot([*A_hat, torch.eye(A_hat.size(-1))])
                if len(A_hat) > 1 and torch.allclose(got, reversed_order, atol=1e-5):
                    raise Mismatch("the product runs the wrong way: R = Â_L ⋯ Â_1 (later layers on the left)")
                plain = torch.eye(A_hat.size(-1))
                for A in attentions.mean(1):
                    plain = A @ plain
                if torch.allclose(got, plain, atol=1e-5):
                    raise Mismatch("add the residual: Â = ½ A + ½ I before multiplying")
            expect_close("R", got, want)
        return len(stacks)

    return _report("attention rollout", cases)
