"""The normalised logit difference, the metric of patching (lesson 15; Wang et al. 2022).

With a correct answer token c and a wrong one w, the logit difference of a run is
LD = z_T[c] − z_T[w] (logits z_T at the last position), and a patched run is scored by

    m = (LD_patched − LD_corrupted) / (LD_clean − LD_corrupted)

so 0 means "as the corrupted run" and 1 means "as the clean run". A pair with LD_clean = LD_corrupted
(or so close that the quotient would only amplify rounding: |LD_clean − LD_corrupted| ≤ 1e-6 · (1 +
|LD_clean|)) has nothing to patch and is refused by name, never turned into ±inf or NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.circuits import limits
from xai_tf.models.loaded import LoadedModel, causal


@dataclass(frozen=True)
class LogitDifference:
    """m(logits) = (LD − LD_corrupted) / (LD_clean − LD_corrupted), LD = z_T[correct] − z_T[wrong]."""

    correct: int
    wrong: int
    clean: float
    corrupted: float

    def __post_init__(self) -> None:
        _checks.integer("correct", self.correct, 0)
        _checks.integer("wrong", self.wrong, 0)
        if self.correct == self.wrong:
            raise ValueError(f"correct and wrong must be different tokens, got {self.correct} twice")
        clean, corrupted = _checks.finite("clean", self.clean), _checks.finite("corrupted", self.corrupted)
        if abs(clean - corrupted) <= 1e-6 * (1 + abs(clean)):
            raise ValueError(
                f"clean and corrupted are the same logit difference ({clean:.6g} and {corrupted:.6g}): the "
                "normalised metric would divide by zero; pick a prompt pair or tokens that the model tells "
                "apart"
            )

    def raw(self, logits: Tensor) -> Tensor:
        """LD per run: ``logits`` ``[batch, T, vocab]`` → ``[batch]``."""
        logits = _checks.tensor("logits", logits)
        if logits.dim() != 3 or logits.size(0) == 0 or logits.size(1) == 0:
            raise ValueError(f"logits must be [batch, T, vocab] with batch, T ≥ 1, got {tuple(logits.shape)}")
        if not logits.is_floating_point():
            raise TypeError(f"logits must be a floating-point tensor, got {logits.dtype}")
        if max(self.correct, self.wrong) >= logits.size(-1):
            raise ValueError(
                f"correct = {self.correct} and wrong = {self.wrong} must be ids of the logits' vocabulary "
                f"0..{logits.size(-1) - 1}"
            )
        return logits[:, -1, self.correct] - logits[:, -1, self.wrong]

    def __call__(self, logits: Tensor) -> Tensor:
        return (self.raw(logits) - self.corrupted) / (self.clean - self.corrupted)


def prompt_pair(lm: LoadedModel, clean_ids: object, corrupted_ids: object) -> tuple[Tensor, Tensor]:
    """Both prompts as ``[1, T]`` ids of one length (a ValueError naming both lengths otherwise)."""
    clean, corrupted = (
        limits.token_ids(lm, n, i) for n, i in (("clean_ids", clean_ids), ("corrupted_ids", corrupted_ids))
    )
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
    vocab = lm.vocab_size
    correct = _checks.integer("correct", correct, 0, vocab - 1)
    wrong = _checks.integer("wrong", wrong, 0, vocab - 1)
    if correct == wrong:
        raise ValueError(f"correct and wrong must be different tokens, got {correct} twice")
    clean, corrupted = prompt_pair(lm, clean_ids, corrupted_ids)
    unscaled = LogitDifference(correct, wrong, 1.0, 0.0)
    with torch.no_grad():
        ld_clean, ld_corrupted = (float(unscaled.raw(lm(ids))[0]) for ids in (clean, corrupted))
    if not (math.isfinite(ld_clean) and math.isfinite(ld_corrupted)):
        raise ValueError(f"the model's logit differences are not finite ({ld_clean}, {ld_corrupted})")
    if abs(ld_clean - ld_corrupted) <= 1e-6 * (1 + abs(ld_clean)):
        raise ValueError(
            "clean_ids and corrupted_ids give the same logit difference of correct over wrong "
            f"({ld_clean:.6g}): the normalised metric would divide by zero, nothing to patch"
        )
    return LogitDifference(correct, wrong, ld_clean, ld_corrupted)
