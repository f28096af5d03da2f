"""Checkers for lesson 04's other computations (issue 54): one BPE merge (section 1), the pre-LN block's
two residual updates (section 4), the parameter count of a GPT-2 (section 7) and the SwiGLU MLP
(section 11.3). Each names the typical mistakes before the generic comparison."""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable
from itertools import pairwise

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf.exercises._check import Mismatch, checker, close, expect_close
from xai_tf.transformer import bpe, modern, parameter_count, pre_ln

Words = dict[tuple[str, ...], int]

#: Sennrich et al.'s toy corpus; a frequent word against many rare ones (the counts are weighted); a
#: three-way tie whose first pair met is not the alphabetically first; a pair twice in one word.
_BPE_CASES: list[Words] = [
    bpe.word_counts(" ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)),
    {("i", "n"): 8, ("o", "n"): 1, ("o", "n", "e"): 1, ("b", "o", "n", "e"): 1},
    {("t", "o"): 4, ("g", "o"): 4, ("d", "o"): 2, ("d", "o", "t"): 2},
    {tuple("banana"): 2, tuple("bandana"): 1},
]


def _pair_counts(words: Words, weighted: bool = True, every: bool = True) -> Counter[tuple[str, str]]:
    """c(a, b) over ``words``: each word's pairs ``weighted`` by its frequency (or once), ``every``
    occurrence in a word (or once per word)."""
    counts: Counter[tuple[str, str]] = Counter()
    for word, freq in words.items():
        pairs = list(pairwise(word)) if every else list(dict.fromkeys(pairwise(word)))
        for pair in pairs:
            counts[pair] += freq if weighted else 1
    return counts


def _merged_first_only(word: tuple[str, ...], left: str, right: str) -> tuple[str, ...]:
    for i in range(len(word) - 1):
        if (word[i], word[i + 1]) == (left, right):
            return (*word[:i], left + right, *word[i + 2 :])
    return word


def _judge_pair(got: object, words: Words, want: tuple[str, str], count: int) -> tuple[str, str]:
    if not (isinstance(got, tuple | list) and len(got) == 2 and all(isinstance(s, str) for s in got)):
        raise Mismatch(f"the pair should be a tuple (left, right) of two symbols, got {got!r}")
    pair = (got[0], got[1])
    counts = _pair_counts(words)
    if pair == want:
        return pair
    if pair not in counts:
        raise Mismatch(f"{pair} is not an adjacent pair of symbols in any word")
    once = _pair_counts(words, weighted=False)
    if pair == min(once.items(), key=lambda item: (-item[1], item[0]))[0]:
        raise Mismatch(
            "weight each pair by its word's frequency (words[w] times), not once per distinct word: "
            f"{want} occurs {count} times, {pair} {counts[pair]}"
        )
    if counts[pair] == count:
        raise Mismatch(
            f"{pair} and {want} tie at {count}: ties go to the alphabetically first pair (left, right), "
            "e.g. min over (−count, pair)"
        )
    raise Mismatch(f"the most frequent pair is {want} ({count} times); {pair} occurs {counts[pair]} times")


def _judge_count(got: object, words: Words, pair: tuple[str, str], count: int) -> None:
    if isinstance(got, Tensor) and got.dim() == 0:
        got = got.item()
    if isinstance(got, bool) or not isinstance(got, numbers.Real):
        raise Mismatch(f"the count should be a number, got {type(got).__name__}")
    if got == count:
        return
    if got == _pair_counts(words, weighted=False)[pair]:
        raise Mismatch(
            f"weight each pair by its word's frequency (words[w] times): {pair} occurs {count} times, "
            f"not {got}"
        )
    if got == _pair_counts(words, every=False)[pair]:
        raise Mismatch(f"count every occurrence of {pair} in a word, not once per word: {count}, not {got}")
    raise Mismatch(f"{pair} occurs {count} times over the words (each weighted by its frequency), not {got}")


def _judge_words(got: object, words: Words, pair: tuple[str, str], want: Words) -> None:
    if not isinstance(got, dict):
        raise Mismatch(
            f"the words after the merge should be a dict (symbols → count), got {type(got).__name__}"
        )
    got = {tuple(k) if isinstance(k, list | tuple) else k: v for k, v in got.items()}
    if got == want:
        return
    if got == words:
        raise Mismatch(
            f"the words came back unchanged: replace each {pair} by the one symbol {''.join(pair)!r}"
        )
    if got == {_merged_first_only(w, *pair): n for w, n in words.items()}:
        raise Mismatch(f"merge every occurrence of {pair} in a word, left to right, not only the first one")
    if set(got) == set(want):
        raise Mismatch("each word keeps its frequency: only its symbols change")
    for word, merged in zip(words, want, strict=True):
        if merged not in got:
            raise Mismatch(f"after merging {pair}, {word} should become {merged}")
    raise Mismatch(f"the words after the merge should be exactly {want}")


@checker("one BPE merge", reference=bpe.merge_step)
def check_merge_step(fn: Callable[[Words], object]) -> int:
    """Lesson 04: ``fn(words)`` → ``(pair, count, new_words)`` for ``words`` {symbols of a word: its
    frequency}: the most frequent adjacent pair (counts weighted by frequency; ties to the alphabetically
    first pair), its count, and the words with every occurrence of it merged into one symbol."""
    for words in _BPE_CASES:
        pair, count, merged = bpe.merge_step(words)
        got = fn(dict(words))
        if got is None:
            raise Mismatch("returned None: did you forget to `return` it?")
        if not (isinstance(got, tuple | list) and len(got) == 3):
            raise Mismatch(
                "return a triple (pair, count, words): the pair merged, its count and the new words"
            )
        _judge_pair(got[0], words, pair, count)
        _judge_count(got[1], words, pair, count)
        _judge_words(got[2], words, pair, merged)
    return len(_BPE_CASES)


def _toy_sublayers(d: int, gen: torch.Generator) -> tuple[Callable[[Tensor], Tensor], ...]:
    """ln_1, attn, ln_2, mlp on streams ``[..., T, d]`` in the dtype of their input: two LayerNorms with
    their own γ, β; a causal running mean over the positions, then a linear map; a GELU MLP at 2d."""
    g1, b1, g2, b2 = (torch.randn(d, generator=gen, dtype=torch.float64) * 0.5 + s for s in (1, 0, 1, 0))
    W_a = torch.randn(d, d, generator=gen, dtype=torch.float64) / math.sqrt(d)
    W_1 = torch.randn(2 * d, d, generator=gen, dtype=torch.float64) / math.sqrt(d)
    W_2 = torch.randn(d, 2 * d, generator=gen, dtype=torch.float64) / math.sqrt(2 * d)

    def ln(gamma: Tensor, beta: Tensor) -> Callable[[Tensor], Tensor]:
        return lambda u: F.layer_norm(u, (d,), gamma.to(u.dtype), beta.to(u.dtype))

    def attn(u: Tensor) -> Tensor:
        seen = torch.arange(1, u.size(-2) + 1, dtype=u.dtype)[:, None]
        return (u.cumsum(-2) / seen) @ W_a.to(u.dtype).T

    def mlp(u: Tensor) -> Tensor:
        return F.gelu(u @ W_1.to(u.dtype).T) @ W_2.to(u.dtype).T

    return ln(g1, b1), attn, ln(g2, b2), mlp


@checker("pre-LN block", reference=pre_ln.pre_ln_block)
def check_pre_ln_block(fn: Callable[..., Tensor]) -> int:
    """Lesson 04: ``fn(f, ln_1, attn, ln_2, mlp)`` → f' + mlp(ln_2(f')) with f' = f + attn(ln_1(f)), for a
    stream ``f`` ``[..., T, d]`` and the four sub-layers as functions of it."""
    gen = torch.Generator().manual_seed(7)
    shapes = [(5, 8), (2, 6, 8)]
    for shape in shapes:
        f = torch.randn(shape, generator=gen) * 2 + 0.5
        ln_1, attn, ln_2, mlp = parts = _toy_sublayers(shape[-1], gen)
        x = f.double()
        want = pre_ln.pre_ln_block(x, *parts)
        got = fn(f.clone(), *parts)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            mid = x + attn(ln_1(x))
            post = ln_1(x + attn(x))
            wrong = [
                (
                    ln_2(post + mlp(post)),
                    "that is the post-LN block (the norm after each sum, as in the "
                    "original Transformer): GPT-2 normalises each sub-layer's input, f' = f + attn(ln_1(f))",
                ),
                (
                    mid + mlp(ln_2(x)),
                    "the MLP reads f' = f + attn(ln_1(f)), the stream after the attention "
                    "update, not f (a parallel block, as GPT-NeoX's; GPT-J's shares one LayerNorm)",
                ),
                (mid + mlp(ln_1(mid)), "the MLP has its own LayerNorm: mlp(ln_2(f')), not ln_1"),
                (mid, "the MLP's update is missing: the block returns f' + mlp(ln_2(f'))"),
                (
                    attn(ln_1(x)) + mlp(ln_2(attn(ln_1(x)))),
                    "each sub-layer *adds* its output to the stream: "
                    "f' = f + attn(ln_1(f)), not attn(ln_1(f)) alone",
                ),
                (
                    mlp(ln_2(attn(ln_1(x)))),
                    "each sub-layer *adds* its output to the stream (the residual "
                    "connections): f' = f + attn(ln_1(f)), then f' + mlp(ln_2(f'))",
                ),
            ]
            for value, message in wrong:
                if close(got, value, atol=1e-4):
                    raise Mismatch(message)
        expect_close("block(f)", got, want, atol=1e-4)
    return len(shapes)


@checker("GPT-2 parameter count", reference=parameter_count.gpt2_parameter_count)
def check_parameter_count(fn: Callable[[int, int, int, int], object]) -> int:
    """Lesson 04: ``fn(D, n_ctx, d_e, L)`` → D d_e + n_ctx d_e + L (12 d_e² + 13 d_e) + 2 d_e, a whole number
    (int, float or a 0-d tensor): GPT-2 with W_e tied to the unembedding, biases and LayerNorm's γ, β."""
    cases = [(50_257, 1024, 768, 12), (101, 16, 8, 2), (1000, 64, 32, 3)]
    for D, n, d, L in cases:
        want = parameter_count.gpt2_parameter_count(D, n, d, L)
        got = fn(D, n, d, L)
        if got is None:
            raise Mismatch("the count is None: did you forget to `return` it?")
        if isinstance(got, Tensor) and got.dim() == 0:
            got = got.item()
        if isinstance(got, bool) or not isinstance(got, numbers.Real):
            raise Mismatch(f"the count should be a number, got {type(got).__name__}")
        allowed, number = max(0.5, 1e-7 * want), float(got)  # float32 rounds GPT-2 small's count to 8
        if abs(number - want) <= allowed:
            continue
        wrong = {
            want - 2 * d * L - d: "each LayerNorm has a shift β as well as a gain γ: 2 d_e parameters, "
            "two per block and the final LN_f",
            want + D * d: "the unembedding is W_e itself (weight tying): count the D d_e once",
            want - 5 * d * L: "the MLP's two layers have biases too: 4 d_e + d_e per block",
            want - 4 * d * L: "the attention's W_q, W_k, W_v and W_o have biases too: 3 d_e + d_e per block",
            want - 9 * d * L: "every linear map has a bias: 4 d_e in the attention and 5 d_e in the MLP "
            "per block",
            want - n * d: "the position embedding W_p holds n_ctx d_e parameters",
            want - 2 * d: "the final LayerNorm LN_f after the last block has 2 d_e parameters",
            want - 13 * d * L - 2 * d: "12 d_e² per block is the approximation: add the biases and the "
            "LayerNorms (13 d_e per block) and the final LN_f (2 d_e)",
        }
        for value, message in wrong.items():
            if abs(number - value) <= allowed:
                raise Mismatch(message)
        raise Mismatch(f"the count for D={D}, n_ctx={n}, d_e={d}, L={L} is {got:,}, expected {want:,}")
    return len(cases)


@checker("SwiGLU MLP", reference=modern.swiglu)
def check_swiglu(fn: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor]) -> int:
    """Lesson 04: ``fn(u, W_gate, W_up, W_down)`` → W_down (SiLU(W_gate u) ⊙ W_up u) for ``u`` ``[..., d]``,
    the weights stored out × in (``W_gate``, ``W_up`` ``[d_mlp, d]``, ``W_down`` ``[d, d_mlp]``)."""
    gen = torch.Generator().manual_seed(8)
    shapes = [(5, 8), (2, 3, 8)]
    for shape in shapes:
        d, d_mlp = shape[-1], 12
        u = torch.randn(shape, generator=gen)
        W_gate, W_up = (torch.randn(d_mlp, d, generator=gen) / math.sqrt(d) for _ in range(2))
        W_down = torch.randn(d, d_mlp, generator=gen) / math.sqrt(d_mlp)
        x, Wg, Wu, Wd = (t.double() for t in (u, W_gate, W_up, W_down))
        want = modern.swiglu(x, Wg, Wu, Wd)
        got = fn(u.clone(), W_gate, W_up, W_down)
        if isinstance(got, Tensor) and got.shape == want.shape and not close(got, want, atol=1e-4):
            gate, value = x @ Wg.T, x @ Wu.T
            wrong = [
                (F.gelu(gate) * value @ Wd.T, "that gates with GELU: SwiGLU's gate is SiLU(x) = x σ(x)"),
                (
                    F.silu(value) * gate @ Wd.T,
                    "SiLU goes on the gate W_gate u; W_up u is the value it scales",
                ),
                (
                    torch.sigmoid(gate) * value @ Wd.T,
                    "that is GLU's gate σ(W_gate u): SwiGLU's is SiLU(x) = x σ(x)",
                ),
                (F.silu(gate) @ Wd.T, "the gate multiplies W_up u elementwise: SiLU(W_gate u) ⊙ W_up u"),
                (F.silu(gate * value) @ Wd.T, "SiLU applies to the gate W_gate u alone, before the product"),
            ]
            for mistake, message in wrong:
                if close(got, mistake, atol=1e-4):
                    raise Mismatch(message)
        expect_close("SwiGLU(u)", got, want, atol=1e-4)
    return len(shapes)
