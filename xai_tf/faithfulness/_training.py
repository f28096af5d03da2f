"""The checks every trainer of lesson 08 runs before the first step (issue 31): its options through
``tasks.train.TrainOptions`` (steps 1..100 000, a seed ≥ 0) and its data through
``tasks.words.check_examples`` (a non-empty list of Examples, word ids of the model's
vocabulary, labels 0/1), so a bad argument is named before any model is built. The models
themselves are trained by ``tasks.recurrent.train_attention_classifier`` (one Adam loop, seeded
minibatches)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence

from xai_tf import _checks
from xai_tf.tasks.recurrent import train_attention_classifier
from xai_tf.tasks.train import TrainOptions
from xai_tf.tasks.words import Example, check_examples

#: The learning rate of ``train_attention_classifier``, which every model of lesson 08 trains with.
TRAINER_LR = inspect.signature(train_attention_classifier).parameters["lr"].default


def penalty_weights(lams: object) -> list[float]:
    """The λ of a table, one model each: a non-empty list of finite numbers ≥ 0."""
    if not isinstance(lams, list | tuple):
        raise TypeError(f"lams must be a list of λ ≥ 0, got {type(lams).__name__}")
    if not lams:
        raise ValueError("lams is empty: give at least one λ ≥ 0")
    return [_checks.at_least("lams", lam, 0.0) for lam in lams]


def checked(steps: int, seed: int, vocab_size: int, **data: Sequence[Example]) -> list[list[Example]]:
    """``TrainOptions(steps, TRAINER_LR, seed=seed)`` checked, then each data set (by its keyword's
    name) checked against ``vocab_size`` with labels 0/1; the data sets are returned in order."""
    TrainOptions(steps, TRAINER_LR, seed=seed)
    return [check_examples(name, examples, vocab_size) for name, examples in data.items()]
