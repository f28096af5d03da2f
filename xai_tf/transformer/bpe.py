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


def word_counts(text: str) -> dict[tuple[str, ...], int]:
    """Each whitespace-separated word of ``text`` as the tuple of its characters, with how often it occurs:
    the corpus BPE starts from, {("l", "o", "w"): 5, …}."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    words = dict(Counter(tuple(w) for w in text.split()))
    if not words:
        raise ValueError("text is empty: the corpus needs at least one word")
    return words


def merge_step(
    words: dict[tuple[str, ...], int],
) -> tuple[tuple[str, str], int, dict[tuple[str, ...], int]]:
    """One BPE merge on ``words`` (symbols of each word → its frequency n_w): count every adjacent pair,

        c(a, b) = Σ_w n_w · #{i : w_i = a, w_{i+1} = b},

    take the most frequent pair, ties to the alphabetically smallest (a, b), and replace each occurrence
    of it in every word by the one symbol ab (scanning left to right, without overlap). Returns the
    pair, its count c(a, b) and the new words; each word keeps its frequency."""
    if not isinstance(words, dict):
        raise TypeError(f"words must be a dict of symbol tuples → counts, got {type(words).__name__}")
    if not words:
        raise ValueError("words is empty: the corpus needs at least one word")
    pairs: Counter[tuple[str, str]] = Counter()
    for word, freq in words.items():
        if not isinstance(word, tuple) or not all(isinstance(s, str) and s for s in word):
            raise TypeError(f"words' keys must be tuples of non-empty strings, got {word!r}")
        _checks.integer(f"the count of {word!r}", freq, 1)
        for pair in pairwise(word):
            pairs[pair] += freq
    if not pairs:
        raise ValueError("words has no pair left to merge: every word is one symbol")
    (left, right), count = min(pairs.items(), key=lambda item: (-item[1], item[0]))
    return (left, right), count, {_merge_word(w, left, right): f for w, f in words.items()}


def train_bpe(text: str, n_merges: int) -> list[Merge]:
    """Learn up to ``n_merges`` merges from the whitespace-separated words of ``text``: ``merge_step``
    repeated on ``word_counts(text)``.

    Ties between equally frequent pairs go to the alphabetically smallest pair (left, right), so
    the result does not depend on the order of the corpus. Stops early when no pair is left.
    """
    _checks.integer("n_merges", n_merges, 0)
    words = word_counts(text)
    merges: list[Merge] = []
    for _ in range(n_merges):
        if all(len(w) < 2 for w in words):
            break
        (left, right), count, words = merge_step(words)
        merges.append(Merge(left, right, count))
    return merges


def bpe_segment(word: str, merges: list[Merge]) -> list[str]:
    """Split ``word`` into characters, then apply ``merges`` in the order they were learned."""
    if not isinstance(word, str) or not word:
        raise ValueError(f"word is empty or not a string: got {word!r}")
    symbols = tuple(word)
    for m in merges:
        symbols = _merge_word(symbols, m.left, m.right)
    return list(symbols)
