"""A corrupted prompt for activation patching (lesson 15) that lines up with the clean one on any tokenizer.

Patching copies activations position by position, so the clean and corrupted prompts must have the same
number of tokens, and the logit difference z_answer − z_wrong needs the two names' first tokens to differ.
GPT-2's and the bundled model's tokenizers give " Romeo" and " Hamlet" the same length; a model of one's own
may split names differently, so the corrupted name is the first candidate that keeps the length.
"""

from __future__ import annotations

from collections.abc import Sequence

from xai_tf.models.loaded import LoadedModel, as_model

#: Names to swap in, tried in order (Hamlet first: the lesson's own choice on the bundled model).
CANDIDATES = (
    "Hamlet", "Macbeth", "Othello", "Banquo", "Lear", "Duncan", "Viola", "Orsino", "Portia", "Brutus", "Puck",
    "Iago", "Oberon", "Paris", "Tybalt", "Antonio", "Cassio", "Caesar", "Kent", "Edgar", "Edmund", "Regan",
    "Horatio", "Ophelia", "Laertes", "Claudius", "Ross", "Angus", "Lennox", "Malcolm", "Fleance", "Hecate",
)  # fmt: skip


def same_length_name(lm: LoadedModel, text: str, name: str, candidates: Sequence[str] = CANDIDATES) -> str:
    """The first of ``candidates`` that, put in place of ``name`` in ``text``, gives as many tokens as
    ``text`` and a different first token for " <candidate>" than for " <name>"; a ValueError naming them if
    none does."""
    lm = as_model(lm)
    if not isinstance(text, str) or not isinstance(name, str) or f" {name}" not in f" {text}":
        raise ValueError(f"name must be a word of text, got name={name!r} and text={text!r}")
    length, first = len(lm.encode(text)), lm.tokenizer.encode(f" {name}")[0]
    for other in candidates:
        if (
            len(lm.encode(text.replace(name, other))) == length
            and lm.tokenizer.encode(f" {other}")[0] != first
        ):
            return other
    raise ValueError(
        f"none of the candidates {list(candidates)} keeps {text!r} at {length} tokens for {lm.name}: "
        "pass candidates= with names this tokenizer splits like the clean one"
    )
