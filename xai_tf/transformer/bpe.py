"""Byte-pair encoding learned from scratch on a toy corpus (Sennrich et al., 2016); lesson 04.

Start from the characters of each word; count every adjacent pair of symbols over the corpus
(weighted by word frequency); merge the most frequent pair into one new symbol everywhere; repeat.
The merges, in the order learned, are the tokenizer: a new word is split into characters and the
merges are applied in that order. GPT-2 does the same over bytes (see ``xai_tf.models.tokenization``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from xai_tf import _checks


@dataclass(frozen=True)
class Merge:
    """One learned rule: ``left + right`` becomes a symbol; ``count`` is the pair's frequency then."""

    left: str
    right: str
    count: int


def _merge_word(word: tuple[str, ...], left: str, right: str) -> tuple[str, ...]:
    """Replace each occurrence of the pair (left, right), scanning left to right without overlap."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == left and word[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train_bpe(text: str, n_merges: int) -> list[Merge]:
    """Learn up to ``n_merges`` merges from the whitespace-separated words of ``text``.

    Ties between equally frequent pairs go to the alphabetically smallest pair (left, right), so
    the result does not depend on the order of the corpus. Stops early when no pair is left.
    """
    _checks.integer("n_merges", n_merges, 0)
    words = Counter(tuple(w) for w in text.split())
    if not words:
        raise ValueError("text is empty: the corpus needs at least one word")
    merges: list[Merge] = []
    for _ in range(n_merges):
        pairs: Counter[tuple[str, str]] = Counter()
        for word, freq in words.items():
            for pair in pairwise(word):
                pairs[pair] += freq
        if not pairs:
            break
        (left, right), count = min(pairs.items(), key=lambda item: (-item[1], item[0]))
        merges.append(Merge(left, right, count))
        words = Counter({_merge_word(w, left, right): f for w, f in words.items()})
    return merges


def bpe_segment(word: str, merges: list[Merge]) -> list[str]:
    """Split ``word`` into characters, then apply ``merges`` in the order they were learned."""
    if not isinstance(word, str) or not word:
        raise ValueError(f"word is empty or not a string: got {word!r}")
    symbols = tuple(word)
    for m in merges:
        symbols = _merge_word(symbols, m.left, m.right)
    return list(symbols)
