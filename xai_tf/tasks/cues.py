"""A synthetic classification task with planted cues (lessons 08 and 11): every explanation can be
scored against the truth, because the generator knows which words decide the label.

A sentence is T filler words (T uniform in ``length``) into which ``n`` cue words are planted at
random positions, n ∈ {1, 3} (odd, so there is no tie). A cue word is positive ("good", …) or
negative ("bad", …); the label is the majority polarity, y = 1[Σ_i s_i > 0] with s_i = ±1. Filler
words include sentiment-free distractors that look like cues ("very", "quite", "movie") but never
change the label. ``Example.cues`` marks the planted positions: the words an explanation should find.
"""

from __future__ import annotations

from xai_tf import _checks, seeds
from xai_tf.tasks.words import CLASSES as CLASSES
from xai_tf.tasks.words import Example, Vocabulary

POSITIVE = ("good", "great", "superb", "lovely", "fine", "brilliant")
NEGATIVE = ("bad", "awful", "poor", "dull", "boring", "terrible")
FILLER = (
    "the", "a", "movie", "film", "plot", "actor", "was", "is", "very", "quite", "and", "but", "it",
    "this", "story", "scene", "really", "rather", "ending", "music", "of", "with", "so", "too",
)  # fmt: skip
VOCAB = Vocabulary([*FILLER, *POSITIVE, *NEGATIVE])


def cue_sentences(
    n: int, seed: int = 0, length: tuple[int, int] = (6, 14), vocab: Vocabulary = VOCAB
) -> list[Example]:
    """``n`` seeded sentences of the planted-cue task (see the module docstring)."""
    _checks.integer("n", n, 1)
    if not isinstance(length, tuple | list) or len(length) != 2:
        raise TypeError(f"length must be a pair (shortest, longest) of integers in 3..200, got {length!r}")
    lo, hi = (_checks.integer("length", v, 3, 200) for v in length)
    if lo > hi:
        raise ValueError(f"length must be (shortest, longest) with shortest ≤ longest, got {length}")
    rng = seeds.numpy_rng(seed)
    out = []
    for _ in range(n):
        T = int(rng.integers(lo, hi + 1))
        words = list(rng.choice(FILLER, size=T))
        n_cues = int(rng.choice([1, 3]))
        where = rng.choice(T, size=n_cues, replace=False)
        signs = rng.choice([-1, 1], size=n_cues)
        for t, s in zip(where, signs, strict=True):
            words[t] = str(rng.choice(POSITIVE if s > 0 else NEGATIVE))
        cues = [int(t in where) for t in range(T)]
        out.append(Example([vocab.index[w] for w in words], int(signs.sum() > 0), cues))
    return out
