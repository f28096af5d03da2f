"""What a method of the registry (``registry.py``) is: its result, an ``Explanation`` of one score per
token, its call signature ``Method``, and the vocabularies a method declares — the model ``MODEL_KINDS`` it
accepts and what it ``READS`` of a model."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from torch import Tensor


@dataclass
class Explanation:
    """``scores`` [T], one per token; for IG its completeness ``delta`` and ``n_steps`` m (NaN and
    0 for a method without completeness); ``note`` says what the scores satisfy."""

    scores: Tensor
    delta: float = math.nan
    n_steps: int = 0
    note: str = ""


#: A method: ``(model, inputs, target, **options) → Explanation``, every declared option passed.
Method = Callable[..., Explanation]

#: The model kinds a method may accept, and what ``target`` means for each.
MODEL_KINDS: dict[str, str] = {
    "causal": "a causal language model (load_model): target is the next token whose logit is explained",
    "attention": "an attention classifier (tasks.recurrent): target is a class (default 1), |scores|",
    "sequence": "a transformer classifier (tasks.sentiment): target is a class (default predicted), |scores|",
    "encoder": "an encoder (load_model('minilm')): no target, what moves the mean-pooled sentence embedding",
}
#: The kinds a classifier module declares as its ``kind`` (a language model's comes from its handle).
CLASSIFIER_KINDS = ("attention", "sequence")
#: What a method reads of the model, in words: only "forward" is model-agnostic.
READS: dict[str, str] = {
    "forward": "forward passes only",
    "gradients": "gradients",
    "activations": "activations",
    "backward": "a modified backward pass",
}
