"""The checks every trainer of lesson 08 runs before the first step (issue 31): its options (a
``xai_tf.training.TrainOptions``, checked when made) and its data through
``tasks.words.check_examples`` (a non-empty list of Examples, word ids of the model's
vocabulary, labels 0/1), so a bad argument is named before any model is built. The models
themselves are trained by ``tasks.recurrent.train_attention_classifier`` (one Adam loop, seeded
minibatches)."""

from __future__ import annotations

from collections.abc import Sequence

from xai_tf import _checks
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import checked_options


def penalty_weights(lams: object) -> list[float]:
    """The λ of a table, one model each: a non-empty list of finite numbers ≥ 0."""
    if not isinstance(lams, list | tuple):
        raise TypeError(f"lams must be a list of λ ≥ 0, got {type(lams).__name__}")
    if not lams:
        raise ValueError("lams is empty: give at least one λ ≥ 0")
    return [_checks.at_least("lams", lam, 0.0) for lam in lams]


def checked(options: object, vocab_size: int, **data: Sequence[Example]) -> list[list[Example]]:
    """``options`` checked to be a ``TrainOptions``, then each data set (by its keyword's name)
    checked against ``vocab_size`` with labels 0/1; the data sets are returned in order."""
    checked_options(options)
    return [check_examples(name, examples, vocab_size) for name, examples in data.items()]
