"""Wiegreffe & Pinter (2019), attention is not not explanation: the yardsticks (lesson 08).

- Uniform attention: train the same model with α_t = 1/T (``attention="uniform"`` of
  ``xai_tf.tasks.recurrent``); if it is as accurate, attention is not needed for the task and its
  weights cannot mean much.
- Seed variance: JSD(α^{(i)}, α^{(j)}) between the attentions of models that differ only in their
  seed — how "different" two attentions of equally good models are anyway.
- The model-consistent adversary: a new model trained against a fixed base model with

      L = TVD(ŷ_adv, ŷ_base) − λ KL(α_adv ‖ α_base),

  per sentence, averaged: it must predict like the base model while attending differently. The KL it
  reaches against the change of prediction it pays, for several λ, says whether very different
  attention comes for free (then attention is not a unique explanation).

The KL's direction: the lecture writes KL(α ‖ α̃) without saying which is the adversary's. W&P's code
(``sarahwie/attention``, ``model/Binary_Classification.py``) calls ``nn.KLDivLoss(reduction="sum")``
on ``(target_attn.log(), attn)``, which is Σ attn (log attn − log target_attn) = KL(α_adv ‖ α_base):
the default here (``kl_direction="adv||base"``). Two differences of scale from their code:

- they sum both terms over a batch, we average both: the ratio of the two terms is the same, so λ
  means the same; only the loss's overall scale changes (the step size, which Adam largely ignores);
- their TVD is ``batch_tvd(sigmoid(s), ŷ_base)`` = ½ |σ_adv − σ_base| of one sigmoid output, ours is
  the TVD of the two-class softmax, ½ (|Δp₀| + |Δp₁|) = |Δp₁|, twice theirs. So L here is
  2 (TVD_W&P − (λ/2) KL): the same trade-off takes a λ here twice theirs (λ = 0.1 here is their
  λ = 0.05), and a TVD printed here is twice the same change in their units.

``"base||adv"`` is the other reading, KL(α_base ‖ α_adv): it is
unbounded where α_adv → 0 under base mass, so it rewards the adversary for emptying words the base
model attends to, while KL(α_adv ‖ α_base) rewards putting mass where the base model puts little.
Both α are clamped at 10⁻¹² (float32 softmaxes underflow to 0, and padded words have α_t = 0 exactly,
where the gradient of α log α would be −∞ · 0 = NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.faithfulness._training import checked, penalty_weights
from xai_tf.faithfulness.divergence import jsd, kl, tvd
from xai_tf.faithfulness.importance import vocabulary_size
from xai_tf.tasks.recurrent import (
    OPTIONS,
    AttentionClassifier,
    Batch,
    Loss,
    predict,
    train_attention_classifier,
)
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import TrainOptions


def seed_jsd(models: Sequence[AttentionClassifier], data: Sequence[Example]) -> np.ndarray:
    """JSD between the attentions of every pair of ``models`` on every sentence ``[pairs × n]``."""
    if not isinstance(models, list | tuple) or not all(isinstance(m, AttentionClassifier) for m in models):
        raise TypeError(f"models must be a list of AttentionClassifiers, got {models!r:.60}")
    if len(models) < 2:
        raise ValueError(f"models must hold at least 2 models, got {len(models)}")
    sizes = {vocabulary_size(m) for m in models}
    if len(sizes) != 1:
        raise ValueError(f"models must share one vocabulary, got vocabularies of {sorted(sizes)} words")
    data = check_examples("data", data, sizes.pop(), None)
    alphas = [predict(m, data)[1] for m in models]
    return torch.cat([jsd(a, b) for a, b in combinations(alphas, 2)]).cpu().numpy()


KL_DIRECTIONS = ("adv||base", "base||adv")
ADVERSARY = OPTIONS.replace(seed=1)  # the adversaries' options: the classifier's, another seed


def consistent_loss(
    base: AttentionClassifier, train: Sequence[Example], lam: float, kl_direction: str = "adv||base"
) -> Loss:
    """W&P's L = mean TVD(ŷ_adv, ŷ_base) − λ mean KL(α_adv ‖ α_base) against ``base``'s outputs on
    ``train`` (looked up by the batch's indices); ``kl_direction="base||adv"`` uses KL(α_base ‖ α_adv)."""
    lam = _checks.at_least("lam", lam, 0.0)
    if kl_direction not in KL_DIRECTIONS:
        raise ValueError(f"kl_direction must be one of {KL_DIRECTIONS}, got {kl_direction!r}")
    probs, alphas = predict(base, check_examples("train", train, vocabulary_size(base), None))

    def loss(scores: Tensor, alpha: Tensor, b: Batch) -> Tensor:
        p, a = probs[b.index], alphas[b.index, : alpha.size(1)]
        if kl_direction == "adv||base":
            divergence = kl(alpha.clamp(min=1e-12), a.clamp(min=1e-12))
        else:
            divergence = kl(a, alpha.clamp(min=1e-12))
        return tvd(scores.softmax(-1), p).mean() - lam * divergence.mean()

    return loss


def consistent_adversary(
    base: AttentionClassifier,
    train: Sequence[Example],
    lam: float,
    options: TrainOptions = ADVERSARY,
    kl_direction: str = "adv||base",
) -> AttentionClassifier:
    """One model-consistent adversary of ``base`` trained with ``consistent_loss`` (same architecture);
    its options and data are checked before it trains."""
    (train,) = checked(options, vocabulary_size(base), train=train)
    return train_attention_classifier(
        train,
        base.config.vocab_size,
        base.config.encoder,
        loss=consistent_loss(base, train, lam, kl_direction),
        options=options,
        device=base.embedding.device,
    )


def consistent_adversaries(
    base: AttentionClassifier,
    train: Sequence[Example],
    test: Sequence[Example],
    lams: Sequence[float] = (0.0, 0.01, 0.1),
    options: TrainOptions = ADVERSARY,
    kl_direction: str = "adv||base",
) -> list[tuple[float, float, float]]:
    """Per λ: ``(λ, mean TVD(ŷ_adv, ŷ_base), mean JSD(α_base, α_adv))`` on ``test``."""
    lams = penalty_weights(lams)
    train, test = checked(options, vocabulary_size(base), train=train, test=test)
    p_base, a_base = predict(base, test)
    out = []
    for lam in lams:
        adv = consistent_adversary(base, train, lam, options, kl_direction)
        p_adv, a_adv = predict(adv, test)
        out.append((float(lam), float(tvd(p_adv, p_base).mean()), float(jsd(a_adv, a_base).mean())))
    return out
