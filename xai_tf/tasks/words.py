"""Word vocabularies for the small word-level classifiers of lessons 08 and 11 (the planted-cue task
``cues`` and the tweets of ``tweets``): text → lower-case words → ids, with id 0 for padding and
id 1 for a word the vocabulary lacks; and the check of labelled sentences where they enter
(``check_examples``: word ids of the model's vocabulary, labels of its classes), which lessons 08 and
11 share.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from torch import Tensor

from xai_tf import _checks

#: The two classes of every sentiment task in the course (label 0, label 1): the cue sentences, the
#: tweets and the Shakespearean phrases.
CLASSES = ("negative", "positive")
PAD, UNK = "<pad>", "<unk>"
_WORD = re.compile(r"[a-z0-9']+|[!?]")


def tokenize(text: str) -> list[str]:
    """Lower-case words (letters, digits, apostrophes) and the marks ! and ?; all else is dropped."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return _WORD.findall(text.lower())


class Vocabulary:
    """Words ↔ ids: ``words[0]`` is padding, ``words[1]`` the unknown word."""

    def __init__(self, words: Sequence[str]):
        self.words = [PAD, UNK, *(w for w in words if w not in (PAD, UNK))]
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise ValueError("words must not repeat")

    @classmethod
    def build(cls, texts: Iterable[str], min_count: int = 1) -> Vocabulary:
        """The words seen at least ``min_count`` times in ``texts``, most frequent first."""
        counts = Counter(w for text in texts for w in tokenize(text))
        return cls([w for w, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_count])

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s words; a text with no known word is refused (nothing to explain)."""
        ids = [self.index.get(w, 1) for w in tokenize(text)]
        if not any(i > 1 for i in ids):
            raise ValueError(f"text has no word the vocabulary knows: {text!r}")
        return ids

    def decode(self, ids: Iterable[int]) -> list[str]:
        """The words of ``ids`` (ids in 0..len − 1: a negative id is refused, not read from the end)."""
        found = _checks.token_ids("ids", ids if isinstance(ids, Tensor) else list(ids), len(self.words))
        if found.dim() != 1:
            raise ValueError(f"ids must be one sentence's ids [T], got shape {tuple(found.shape)}")
        return [self.words[i] for i in found.tolist()]


class Example(NamedTuple):
    """One labelled sentence: word ids, the label, and ``cues`` (1 where a word decides the label —
    known for the planted-cue task, all 0 where nobody knows)."""

    ids: list[int]
    label: int
    cues: list[int]


def examples(vocab: Vocabulary, data: Iterable[tuple[str, int]]) -> list[Example]:
    """(text, label) pairs as ``Example``s with no known cues; texts with no known word are dropped."""
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a Vocabulary, got {type(vocab).__name__}")
    out = []
    for text, label in data:
        ids = [vocab.index.get(w, 1) for w in tokenize(text)]
        if any(i > 1 for i in ids):
            out.append(Example(ids, label, [0] * len(ids)))
    if not out:
        raise ValueError("data has no text with a word the vocabulary knows")
    return out


def check_examples(name: str, data: object, vocab_size: int, classes: int | None = 2) -> list[Example]:
    """``data`` as a non-empty list of ``Example``\\s, each of at least one word, whose word ids lie in
    0..vocab_size − 1 and whose labels lie in 0..classes − 1 (labels not checked when ``classes`` is
    None: the data are only explained, not learnt)."""
    vocab_size = _checks.integer("vocab_size", vocab_size, 2)
    if not isinstance(data, list | tuple) or not all(isinstance(e, Example) for e in data):
        raise TypeError(
            f"{name} must be a list of Examples (xai_tf.tasks.words.Example), got {type(data).__name__}"
        )
    if not data:
        raise ValueError(f"{name} is empty: give at least one Example")
    empty = next((k for k, e in enumerate(data) if len(e.ids) == 0), None)
    if empty is not None:
        raise ValueError(f"{name}[{empty}] has no word: every sentence needs at least one")
    _checks.token_ids(f"{name}'s word ids", [i for e in data for i in e.ids], vocab_size)
    if classes is not None:
        for e in data:
            _checks.integer(f"{name}'s labels", e.label, 0, classes - 1)
    return list(data)


def same_vocabulary(vocab: Vocabulary, model_words: int) -> None:
    """A vocabulary that decodes a model's ids for display must be the model's: ``vocab`` as long as
    the model's embedding table (``model_words`` rows)."""
    if not isinstance(vocab, Vocabulary):
        raise TypeError(f"vocab must be a Vocabulary, got {type(vocab).__name__}")
    if len(vocab) != model_words:
        raise ValueError(
            f"vocab has {len(vocab)} words but the model's vocabulary has {model_words}: "
            "pass the Vocabulary the model was trained with"
        )
