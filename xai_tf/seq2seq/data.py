"""Lesson 16's translation task: a seeded synthetic language pair with gold word alignments.

``make_corpus(seed)`` draws pairs from the grammar of ``xai_tf.seq2seq.grammar`` (an English-like
source, a Portuguese-like target: adjective–noun swap, a verb-final subordinate clause, ``to the`` →
``à``, ``I am going`` → ``vou``, ``my`` → ``o meu``) with source lengths spread evenly over
``MIN_LENGTH``..``CORPUS_MAX_LENGTH`` and splits them into train, dev and test, disjoint by source
sentence. The lecture's example ``I am going to the store`` → ``vou à loja`` is always in the test
split. A ``Pair`` holds word lists and its gold links (i, j): target position i, source position j —
the row and column of the attention matrix α_ij (all links sure).

**Vocabularies and unknown words.** Each side's vocabulary holds every word its side of the grammar
can produce (not only the training split's), after ``<pad>`` = 0, ``<bos>`` = 1, ``<eos>`` = 2 and
``<unk>`` = 3. The policy for a word outside the language: ``encode`` refuses it by name (a model never
saw ``<unk>`` in training, so a translation of it would be noise); ``encode(..., unknown="unk")``
maps it to ``<unk>`` for a caller who wants to see that happen. A sentence whose words all belong
to the other side is refused as "the target language"; an empty sentence, or one longer than
``MAX_LENGTH`` words, is refused with the range.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.seq2seq import grammar

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
MIN_LENGTH = 3  # the shortest clause: "the dog sings"
CORPUS_MAX_LENGTH = 35  # the corpus's longest source sentence
MAX_LENGTH = 60  # the longest sentence encode accepts (about the longest the grammar makes)


class Pair(NamedTuple):
    """One sentence pair: source words, target words, gold links (i target, j source)."""

    source: list[str]
    target: list[str]
    links: set[tuple[int, int]]


@dataclass(frozen=True)
class Vocabulary:
    """Words ↔ ids of one side ("source" or "target"): the four specials first, then the words sorted."""

    side: str
    words: tuple[str, ...]

    @classmethod
    def of(cls, side: str) -> Vocabulary:
        """Every word of ``side`` ("source" or "target") the grammar can produce."""
        if side not in ("source", "target"):
            raise ValueError(f"side must be 'source' or 'target', got {side!r}")
        words = grammar.source_words() if side == "source" else grammar.target_words()
        return cls(side, (*SPECIALS, *sorted(words)))

    def __len__(self) -> int:
        return len(self.words)

    @property
    def index(self) -> dict[str, int]:
        return _index(self.words)

    def encode(self, words: Sequence[str], unknown: str = "error", name: str = "words") -> list[int]:
        """The ids of ``words`` (no <bos>/<eos>); see the module's docstring for the unknown-word policy.
        ``name`` is the caller's argument that held ``words`` ("source", "pairs[3].target"), which every
        refusal names."""
        if isinstance(words, str):  # wrapping it as [words] would make a one-word sentence
            raise TypeError(
                f"{name} must be a list of words, got one str: split it, e.g. tokenize({words[:20]!r})"
            )
        words = _checks.strings(name, words)
        if unknown not in ("error", "unk"):
            raise ValueError(f"unknown must be 'error' or 'unk', got {unknown!r}")
        if not words:
            raise ValueError(
                f"{name} is empty: the {self.side} sentence needs {MIN_LENGTH} to {MAX_LENGTH} words"
            )
        if len(words) > MAX_LENGTH:
            raise ValueError(
                f"{name} has {len(words)} words: a {self.side} sentence has at most {MAX_LENGTH}"
            )
        index = self.index
        missing = [w for w in words if w not in index or w in SPECIALS]
        if missing and unknown == "error":
            other = Vocabulary.of("target" if self.side == "source" else "source")
            if all(w in other.index for w in words):
                raise ValueError(
                    f"{name}: this sentence is in the {other.side} language; give a {self.side} sentence"
                )
            shown = ", ".join(repr(w) for w in dict.fromkeys(missing))
            raise ValueError(
                f"{name} has unknown {self.side} word(s) {shown}: the vocabulary has {len(self) - 4} words"
            )
        return [index.get(w, 3) if w not in SPECIALS else 3 for w in words]

    def decode(self, ids: Iterable[int]) -> list[str]:
        """The words of ``ids``, stopping at <eos> and skipping <pad> and <bos>."""
        out = []
        for i in ids:
            i = _checks.integer("ids", int(i), 0, len(self) - 1)
            if i == 2:
                break
            if i > 1:
                out.append(self.words[i])
        return out


_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}


def _index(words: tuple[str, ...]) -> dict[str, int]:
    if words not in _INDEXES:
        _INDEXES[words] = {w: k for k, w in enumerate(words)}
    return _INDEXES[words]


def tokenize(text: str) -> list[str]:
    """Words of a typed sentence: lower case (``I`` stays upper case), punctuation dropped."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return ["I" if w == "i" else w for w in re.findall(r"[^\W\d_]+", text.lower())]


@dataclass(frozen=True)
class Corpus:
    """Train, dev and test pairs (disjoint source sentences) and the two vocabularies."""

    train: list[Pair]
    dev: list[Pair]
    test: list[Pair]
    source_vocab: Vocabulary
    target_vocab: Vocabulary


def _pair(p: grammar.Phrase) -> Pair:
    return Pair(list(p.source), list(p.target), set(p.links))


EXAMPLE = _pair(grammar.EXAMPLE)


#: Distinct three-word sources the grammar makes ("I dance now", "the dog sings", …), the scarcest length
#: (counted in issue 58).
THREE_WORD_SOURCES = 3816
#: The largest train + dev + test: every length 3..35 gets ⌈total / 33⌉ distinct sources, so the total
#: may not pass 33 × 3816 (above it the search for new three-word sources never ends).
MAX_TOTAL = THREE_WORD_SOURCES * (CORPUS_MAX_LENGTH - MIN_LENGTH + 1)


def make_corpus(seed: int = 0, train: int = 4000, dev: int = 300, test: int = 700) -> Corpus:
    """Pairs with source lengths spread evenly over 3..35 words, split at random into ``train``, ``dev``
    and ``test`` (each 1..100 000, together at most ``MAX_TOTAL`` = 125 928; the example sentence is
    test's first pair); the same seed gives the same corpus, built once per process (a few seconds for
    the default sizes, longer near the maximum) and shared: do not modify its lists.

    The corpus is data, not a draw of a result: ``XAI_TF_SEED_OFFSET`` does not move it (the shipped
    models of lesson 16 were trained on ``make_corpus(0)``'s train split, and their test split must stay
    unseen); the offset moves initial weights and minibatches."""
    sizes = [
        _checks.integer(name, n, 1, 100_000) for name, n in (("train", train), ("dev", dev), ("test", test))
    ]
    if sum(sizes) > MAX_TOTAL:
        raise ValueError(
            f"train + dev + test must be at most {MAX_TOTAL} (the grammar has {THREE_WORD_SOURCES} distinct "
            f"three-word sources, and each of the 33 lengths gets ⌈total / 33⌉), got {sum(sizes)}"
        )
    return _corpus(_checks.integer("seed", seed, 0, 2**32 - 1), *sizes)


@cache
def _corpus(seed: int, *sizes: int) -> Corpus:
    generator = grammar.Generator(seed)
    lengths = range(MIN_LENGTH, CORPUS_MAX_LENGTH + 1)
    quota = -(-sum(sizes) // len(lengths))
    by_length: dict[int, dict[tuple[str, ...], grammar.Phrase]] = {n: {} for n in lengths}
    seen = {grammar.EXAMPLE.source}
    while any(len(v) < quota for v in by_length.values()):
        p = generator.random_sentence()
        n = len(p.source)
        if n in by_length and len(by_length[n]) < quota and p.source not in seen:
            by_length[n][p.source] = p
            seen.add(p.source)
    pool = [_pair(p) for v in by_length.values() for p in v.values()]
    generator.rng.shuffle(pool)
    pairs = pool
    a, b = sizes[0], sizes[0] + sizes[1]
    return Corpus(
        pairs[:a],
        pairs[a:b],
        [EXAMPLE, *pairs[b : b + sizes[2] - 1]],
        Vocabulary.of("source"),
        Vocabulary.of("target"),
    )


class Batch(NamedTuple):
    """Padded id tensors of a list of pairs (<pad> = 0):

    - ``source`` [B, S] and ``source_mask`` [B, S] (True on words, False on padding);
    - ``target_in`` [B, T+1] = <bos> y_1 … y_T (the decoder's inputs under teacher forcing);
    - ``target_out`` [B, T+1] = y_1 … y_T <eos> (what it must predict; 0 where padded)."""

    source: Tensor
    source_mask: Tensor
    target_in: Tensor
    target_out: Tensor


def _pad(rows: list[list[int]]) -> Tensor:
    """The rows as one [len(rows), longest] tensor padded with 0, made on the CPU by name (callers move it
    to the model's device; torch's default device may be another)."""
    out = torch.zeros(len(rows), max(len(r) for r in rows), dtype=torch.long, device="cpu")
    for k, r in enumerate(rows):
        out[k, : len(r)] = torch.tensor(r, dtype=torch.long, device="cpu")
    return out


def _check_corpus(corpus: object) -> Corpus:
    """``corpus`` if it is a ``Corpus``, else a TypeError that names it."""
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a Corpus (make_corpus), got {type(corpus).__name__}")
    return corpus


def _check_pairs(pairs: object, name: str = "pairs") -> list[Pair]:
    """``pairs`` as a list if it is a non-empty list or tuple of ``Pair``s (one Pair alone, a string or
    None are refused by name), else a TypeError."""
    if isinstance(pairs, Pair) or not isinstance(pairs, list | tuple) or not pairs:
        raise TypeError(f"{name} must be a non-empty list of Pairs (corpus.train, .dev or .test)")
    if not all(isinstance(p, Pair) for p in pairs):
        bad = next(type(p).__name__ for p in pairs if not isinstance(p, Pair))
        raise TypeError(
            f"{name} must be a non-empty list of Pairs (corpus.train, .dev or .test), holds a {bad}"
        )
    return list(pairs)


def _source_ids(pairs: Sequence[Pair], corpus: Corpus, name: str = "pairs") -> list[list[int]]:
    """The source ids of each pair, each refusal naming the pair (``pairs[3].source``)."""
    return [corpus.source_vocab.encode(p.source, name=f"{name}[{k}].source") for k, p in enumerate(pairs)]


def batch(pairs: Sequence[Pair], corpus: Corpus) -> Batch:
    """The pairs as one padded ``Batch`` in ``corpus``'s vocabularies."""
    corpus, pairs = _check_corpus(corpus), _check_pairs(pairs)
    source = _source_ids(pairs, corpus)
    target = [corpus.target_vocab.encode(p.target, name=f"pairs[{k}].target") for k, p in enumerate(pairs)]
    src = _pad(source)
    return Batch(src, src != 0, _pad([[1, *t] for t in target]), _pad([[*t, 2] for t in target]))
