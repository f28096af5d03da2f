"""The normalised logit difference, the metric of patching (lesson 15; Wang et al. 2022).

With a correct answer token c and a wrong one w, the logit difference of a run is
LD = z_T[c] − z_T[w] (logits z_T at the last position), and a patched run is scored by

    m = (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)

so 0 means "as the corrupted run" and 1 means "as the clean run".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, causal

IdsLike = Tensor | Sequence[int]


@dataclass(frozen=True)
class LogitDifference:
    """m(logits) = (LD − LD_corrupted) / (LD_clean − LD_corrupted), LD = z_T[correct] − z_T[wrong]."""

    correct: int
    wrong: int
    clean: float
    corrupted: float

    def raw(self, logits: Tensor) -> Tensor:
        """LD per run: ``logits`` ``[batch, T, vocab]`` → ``[batch]``."""
        return logits[:, -1, self.correct] - logits[:, -1, self.wrong]

    def __call__(self, logits: Tensor) -> Tensor:
        return (self.raw(logits) - self.corrupted) / (self.clean - self.corrupted)


def prompt_pair(lm: LoadedModel, clean_ids: object, corrupted_ids: object) -> tuple[Tensor, Tensor]:
    """Both prompts as ``[1, T]`` ids of one length (a ValueError naming both lengths otherwise)."""
    # check_input_ids refuses anything that is not ids: the cast only tells the type checker so
    clean, corrupted = (lm.model.check_input_ids(cast(IdsLike, ids)) for ids in (clean_ids, corrupted_ids))
    if clean.size(0) != 1 or corrupted.size(0) != 1:
        raise ValueError("clean_ids and corrupted_ids must each be one prompt, not a batch")
    if clean.size(1) != corrupted.size(1):
        raise ValueError(
            f"clean_ids has {clean.size(1)} tokens but corrupted_ids has {corrupted.size(1)}: "
            "patching needs prompts of the same length in tokens"
        )
    return clean, corrupted


def logit_difference_metric(
    model: LoadedModel | nn.Module, clean_ids: object, corrupted_ids: object, correct: int, wrong: int
) -> LogitDifference:
    """The normalised logit difference of ``correct`` over ``wrong`` for this prompt pair."""
    lm = causal(model, "a logit difference")
    vocab = lm.model.config.vocab_size
    correct = _checks.integer("correct", correct, 0, vocab - 1)
    wrong = _checks.integer("wrong", wrong, 0, vocab - 1)
    if correct == wrong:
        raise ValueError(f"correct and wrong must be different tokens, got {correct} twice")
    clean, corrupted = prompt_pair(lm, clean_ids, corrupted_ids)
    unscaled = LogitDifference(correct, wrong, 1.0, 0.0)
    with torch.no_grad():
        ld_clean, ld_corrupted = (float(unscaled.raw(lm(ids))[0]) for ids in (clean, corrupted))
    if ld_clean == ld_corrupted:
        raise ValueError("the clean and corrupted prompts give the same logit difference: nothing to patch")
    return LogitDifference(correct, wrong, ld_clean, ld_corrupted)
