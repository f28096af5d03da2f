"""The data of lesson 11's rationalizers and ERASER tables, checked where they enter: labelled sentences
(``xai_tf.tasks.words.Example``) whose word ids belong to the model's vocabulary. An id outside it means
the data were encoded with another vocabulary (a cue-task model on tweets): torch would only say
"index out of range", and a panel would show the other vocabulary's words."""

from __future__ import annotations

from xai_tf import _checks
from xai_tf.tasks.words import Example, Vocabulary


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
