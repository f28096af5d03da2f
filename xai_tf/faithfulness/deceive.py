"""Pruthi et al. (2020), learning to deceive with attention (lesson 08): mark "impermissible" words
(m_t = 1: on the planted-cue task, the cues, which decide the label) and train with

    L = NLL − λ log(1 − αᵀm)

so that attention mass on m is penalised while the model may still use those words. The table per λ:
test accuracy, mean attention mass αᵀm, and the share of leave-one-out and gradient importance that
falls on m — if accuracy stays and LOO still sits on m while αᵀm collapses, attention hides what the
model uses (through the recurrent states, or with no recurrence through the states' norms ‖h_t‖).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.faithfulness._training import checked, penalty_weights
from xai_tf.faithfulness.importance import IMPORTANCES, importances, in_dtype, vocabulary_size
from xai_tf.tasks.recurrent import (
    OPTIONS,
    AttentionClassifier,
    Batch,
    Loss,
    accuracy,
    batch,
    train_attention_classifier,
)
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import TrainOptions


def deceive_penalty(alpha: Tensor, m: Tensor) -> Tensor:
    """−log(1 − αᵀm) per sentence ``[n]`` for weights α ≥ 0 and a 0/1 mask m ``[n, T]``.

    1 − αᵀm below the machine epsilon ε of α's dtype is rounding, not a value: αᵀm is clamped at
    1 − ε, so the penalty is at most −log ε (15.9 in float32) and has no gradient there. This is the
    defined value for a sentence whose every word is impermissible: αᵀm = 1 for every α, attention
    cannot leave m, and the penalty is a constant (instead of +∞, which trained NaN weights)."""
    alpha, m = _checks.real_tensor("alpha", alpha), _checks.real_tensor("m", m)
    if alpha.shape != m.shape:
        raise ValueError(f"alpha and m must have one shape, got {tuple(alpha.shape)} and {tuple(m.shape)}")
    if (alpha < 0).any():
        raise ValueError("alpha must be attention weights ≥ 0, got a negative entry")
    if ((m != 0) & (m != 1)).any():
        raise ValueError("m must be a 0/1 mask (1 = impermissible word)")
    eps = torch.finfo(_checks.compute_dtype(alpha)).eps
    return -torch.log1p(-(alpha * m).sum(-1).clamp(max=1 - eps))


def deceive_loss(lam: float) -> Loss:
    """L = NLL − λ · mean log(1 − αᵀm) as a training loss (m = the batch's cues)."""
    lam = _checks.at_least("lam", lam, 0.0)

    def loss(scores: Tensor, alpha: Tensor, b: Batch) -> Tensor:
        return nn.functional.cross_entropy(scores, b.labels) + lam * deceive_penalty(alpha, b.cues).mean()

    return loss


@dataclass
class DeceiveRow:
    """One λ: test accuracy, mean αᵀm, and the shares of |LOO| and |gradient| on m."""

    lam: float
    accuracy: float
    attention_on_m: float
    loo_on_m: float
    gradient_on_m: float


def mass_on_cues(
    model: AttentionClassifier, data: Sequence[Example], options: dict | None = None
) -> tuple[float, float, float]:
    """Mean over ``data`` of Σ_{t: m_t=1} score_t / Σ_t score_t for attention, |LOO| and |gradient|
    (computed with ``importance.IMPORTANCES``' keywords ``options``, e.g. ``importance.PAPER``)."""
    data = [e for e in check_examples("data", data, vocabulary_size(model), None) if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    settings = IMPORTANCES.settings(**(options or {}))
    model = in_dtype(model, settings["dtype"])  # one copy for every sentence
    shares = torch.zeros(3, device="cpu")
    with one_thread():
        for e in data:
            scores = importances(model, e.ids, ("attention", "LOO", "gradient"), **settings)
            m = torch.tensor(e.cues, dtype=torch.float, device="cpu")
            shares += torch.stack(
                [
                    (s.cpu().float() * m).sum() / s.sum().cpu().float().clamp(min=1e-12)
                    for s in scores.values()
                ]
            )
    attention, loo, gradient = (float(v) for v in shares / len(data))
    return attention, loo, gradient


def deceive_table(
    train: Sequence[Example],
    test: Sequence[Example],
    vocab_size: int,
    lams: Sequence[float] = (0.0, 1.0, 10.0),
    encoder: str = "bilstm",
    training: TrainOptions = OPTIONS,
    options: dict | None = None,
) -> list[DeceiveRow]:
    """Train one model per λ with ``deceive_loss`` (``train_attention_classifier`` with ``training``)
    and measure it on ``test`` (importances with ``importance.IMPORTANCES``' keywords ``options``).
    The options and both data sets are checked before the first model trains."""
    lams = penalty_weights(lams)
    train, test = checked(training, vocab_size, train=train, test=test)
    IMPORTANCES.settings(**(options or {}))
    rows = []
    for lam in lams:
        model = train_attention_classifier(
            train, vocab_size, encoder, loss=deceive_loss(lam), options=training
        )
        attention, loo, gradient = mass_on_cues(model, test, options)
        rows.append(DeceiveRow(float(lam), accuracy(model, test), attention, loo, gradient))
    return rows


@torch.no_grad()
def state_norms(model: AttentionClassifier, data: Sequence[Example]) -> tuple[float, float]:
    """Mean ‖h_t‖ over the words with m_t = 1 and over those with m_t = 0: with no recurrence, a
    deceived model can hide a cue behind a small α_t by making its state long."""
    b = batch(check_examples("data", data, vocabulary_size(model), None))
    _, _, h = model.run(b.ids, b.lengths)
    norms = h.norm(dim=-1)
    b = b.to(norms.device)
    valid = torch.arange(b.ids.size(1), device=norms.device) < b.lengths[:, None]
    on, off = valid & (b.cues > 0), valid & (b.cues == 0)
    if not on.any() or not off.any():
        raise ValueError("data needs words with m_t = 1 and words with m_t = 0")
    return float(norms[on].mean()), float(norms[off].mean())
