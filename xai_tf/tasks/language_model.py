"""The language-modelling loss and a model trained from scratch on it (lesson 04's training section).

The lecture's training objective, with the position index it drops written out:

    L(θ) = −(1/N) Σ_{i=1}^{N} (1/(T−1)) Σ_{t=1}^{T−1} log f_θ(x^{(i)}_{≤t})_{x^{(i)}_{t+1}}

— the mean negative log-likelihood of every next token of every text. It is the *categorical*
cross-entropy over the D tokens of the vocabulary; the lecture calls it "binary cross entropy",
which is the two-class case.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import seeds
from xai_tf.models.gpt2 import GPT2
from xai_tf.models.gpt2_config import GPT2Config
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.training import TrainOptions, checked_options, fit

OPTIONS = TrainOptions(steps=100, lr=3e-3)  # train_from_scratch's defaults


def next_token_loss(model: LoadedModel | GPT2, ids: Sequence[int] | Tensor) -> Tensor:
    """L for one text ``ids`` (N = 1): −(1/(T−1)) Σ_t log f(x_{≤t})_{x_{t+1}}, differentiable.
    The text must fit the model's context (T ≤ n_ctx + 1)."""
    lm = causal(model, "the next-token loss")
    ids = torch.as_tensor(ids, device=lm.device)
    if ids.dim() != 1 or not 2 <= len(ids) <= lm.n_ctx + 1:
        raise ValueError(f"ids must be one text of 2..{lm.n_ctx + 1} tokens, got shape {tuple(ids.shape)}")
    logits = lm.model(ids[:-1])[0]  # position t predicts token t + 1
    return F.cross_entropy(logits.float(), ids[1:])


def train_from_scratch(
    ids: Sequence[int], config: GPT2Config, options: TrainOptions = OPTIONS
) -> tuple[GPT2, list[float]]:
    """A GPT-2 of ``config``, randomly initialised (seeded), trained by Adam on ``next_token_loss``
    of ``ids`` (one text, the whole of it every step; ``OPTIONS`` by default): ``(model, loss of every
    step)``."""
    seed = checked_options(options).seed
    if any(not 0 <= int(i) < config.vocab_size for i in ids):
        raise ValueError(f"ids must lie in 0..{config.vocab_size - 1} (the config's vocabulary)")
    with seeds.seeded(seed):
        model = GPT2(config)
    history = fit(model.parameters(), lambda _k: next_token_loss(model, ids), options)
    return model.eval(), history
