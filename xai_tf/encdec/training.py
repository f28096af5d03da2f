"""Training and decoding lesson 17's models on lesson 16's task (``xai_tf.seq2seq.data``).

Loss: cross-entropy of the next target word with label smoothing ε (Szegedy et al. 2016): the target
distribution puts 1 − ε on the right word and ε spread evenly over the K output words (the right one
included), so the right word's target is 1 − ε + ε/K and every other word's ε/K; padding is ignored.
Optimiser: Adam (β₁ = 0.9, β₂ = 0.98, Vaswani et al. 2017) with the learning rate

    lr(step) = lr_max · min(1, step / warmup) · decay(step),   decay = 1 (constant) or
               √(max(step, warmup) / warmup)⁻¹ (inverse square root after the warm-up, the paper's decay):
               Vaswani et al.'s (§5.3) d^−0.5 · min(step^−0.5, step · warmup^−1.5)
               with d^−0.5 = lr_max · √warmup

``warmup = 0`` starts at lr_max and decays from step 1 (lr_max/√step); ``ramp = False`` keeps the decay of
``warmup`` steps and removes only the ramp: lr_max until step w, then the same (w/step)^½ (issue 58: the
``warmup = 0`` runs change the ramp *and* train at a tenth of the rate after step 100).

The encoder-only model is trained by the same loop, its loss the same cross-entropy averaged over its
output slots (``model.EncoderOnly.slot_targets``: every slot of a sentence, the <eos> slots after its last
word included) instead of over y_1 … y_T <eos>.

Every random choice (weights, minibatches, dropout) is seeded through
``xai_tf.seeds`` (``XAI_TF_SEED_OFFSET`` shifts it).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from xai_tf import _checks, seeds
from xai_tf.encdec.model import scored_targets
from xai_tf.seq2seq import data


@dataclass
class Settings:
    """How to train: steps, minibatch size, peak learning rate, warm-up steps, decay, label smoothing, and
    whether the warm-up ramps the rate up (``ramp``) or only sets where the decay starts."""

    steps: int = 600
    batch_size: int = 64
    lr: float = 2e-3
    warmup: int = 100
    decay: str = "inverse_sqrt"
    label_smoothing: float = 0.0
    ramp: bool = True

    def __post_init__(self) -> None:
        _checks.integer("steps", self.steps, 1)
        _checks.integer("batch_size", self.batch_size, 1)
        _checks.positive("lr", self.lr)
        _checks.integer("warmup", self.warmup, 0)
        if self.decay not in ("constant", "inverse_sqrt"):
            raise ValueError(f"decay must be 'constant' or 'inverse_sqrt', got {self.decay!r}")
        _checks.real("label_smoothing", self.label_smoothing, 0.0, 1.0, open_hi=True)
        if not isinstance(self.ramp, bool):
            raise TypeError(f"ramp must be True or False, got {self.ramp!r}")


@dataclass
class History:
    """Per step: the training loss and the learning rate; the wall-clock seconds of each step."""

    loss: list[float] = field(default_factory=list)
    lr: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


def learning_rate(step: int, settings: Settings) -> float:
    """lr(step) of the module's docstring, steps counted from 1."""
    step = _checks.integer("step", step, 1)
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a Settings, got {type(settings).__name__}")
    warm = min(1.0, step / settings.warmup) if settings.warmup and settings.ramp else 1.0
    if settings.decay == "constant":
        return settings.lr * warm
    return settings.lr * warm * (max(step, settings.warmup, 1) / max(settings.warmup, 1)) ** -0.5


def loss_fn(logits: Tensor, target_out: Tensor, label_smoothing: float = 0.0) -> Tensor:
    """Mean cross-entropy over the non-padding positions of ``target_out [B, T]`` (logits ``[B, T, D]``,
    ids in 0..D−1, 0 = padding), targets smoothed by ``label_smoothing`` ε in [0, 1)."""
    label_smoothing = _checks.real("label_smoothing", label_smoothing, 0.0, 1.0, open_hi=True)
    if (
        _checks.real_tensor("logits", logits).dim() != 3
        or logits.size(-1) == 0
        or logits.shape[:2] != _checks.tensor("target_out", target_out).shape
    ):
        raise ValueError(
            f"logits must be [B, T, D] (D ≥ 1) and target_out [B, T], "
            f"got {tuple(logits.shape)} and {tuple(target_out.shape)}"
        )
    target_out = _checks.token_ids("target_out", target_out, logits.size(-1))
    return F.cross_entropy(
        logits.flatten(0, 1), target_out.flatten(), ignore_index=0, label_smoothing=label_smoothing
    )


def _batches(corpus: data.Corpus, size: int, g: torch.Generator) -> Iterator[data.Batch]:
    """Minibatches of sentences of similar length (less padding): the training pairs sorted by source
    length, cut into runs of ``size``, the runs drawn in a random order, again each epoch."""
    order = sorted(range(len(corpus.train)), key=lambda i: len(corpus.train[i].source))
    runs = [order[k : k + size] for k in range(0, len(order), size)]
    while True:
        for r in torch.randperm(len(runs), generator=g).tolist():
            yield data.batch([corpus.train[i] for i in runs[r]], corpus)


def train(model: nn.Module, corpus: data.Corpus, settings: Settings, seed: int = 0, callback=None) -> History:
    """Train ``model`` (called as ``model(source, source_mask, target_in)`` → (logits, …)) in place on
    ``corpus.train``; ``callback(step, model)`` runs after each step (e.g. to stop at a target accuracy:
    return True to stop)."""
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a Settings, got {type(settings).__name__}")
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(corpus, data.Corpus):
        raise TypeError(f"corpus must be a Corpus (data.make_corpus), got {type(corpus).__name__}")
    g = seeds.generator(seed)
    batches = _batches(corpus, settings.batch_size, g)
    optimiser = torch.optim.Adam(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), eps=1e-9)
    history = History()
    model.train()
    with seeds.seeded(seed):
        for step in range(1, settings.steps + 1):
            start = time.perf_counter()
            b = next(batches)
            lr = learning_rate(step, settings)
            for group in optimiser.param_groups:
                group["lr"] = lr
            logits = model(b.source, b.source_mask, b.target_in)[0]
            target = scored_targets(model, b.source_mask, b.target_out)
            loss = loss_fn(logits, target, settings.label_smoothing)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            history.loss.append(loss.item())
            history.lr.append(lr)
            history.seconds.append(time.perf_counter() - start)
            if callback is not None and callback(step, model):
                break
    model.eval()
    return history
