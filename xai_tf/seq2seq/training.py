"""Training lesson 16's encoder–decoders: cross-entropy under teacher forcing (the decoder reads the
gold previous word y_{i−1}), Adam, seeded minibatches,

    L(θ) = −(1/N) Σ_n Σ_i log p_θ(y_i | y_<i, x)   over the N target words (and <eos>) of a batch.

``train`` caches its models per (score, sizes, steps, seed and ``XAI_TF_SEED_OFFSET``) so that a
lesson and its claim tests train each model once per process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import torch
import torch.nn.functional as F

from xai_tf import seeds
from xai_tf.seq2seq import data
from xai_tf.seq2seq.model import Config, Seq2Seq
from xai_tf.training import TrainOptions, fit, fixed_batch_size, minibatches

OPTIONS = TrainOptions(steps=600, lr=3e-3, batch_size=32)  # train's defaults


@dataclass
class Trained:
    """A trained model, its corpus and the loss of every step; ``snapshots`` holds the weights at the
    steps named by ``snapshot_every`` (for curves over training)."""

    model: Seq2Seq
    corpus: data.Corpus
    losses: list[float]
    snapshots: dict[int, dict[str, torch.Tensor]] = field(default_factory=dict)


def _length_batches(pairs: list[data.Pair], batch_size: int) -> list[list[data.Pair]]:
    """The pairs sorted by source length and cut into batches of ``batch_size`` (each step draws one
    at random): little padding, so a step costs about its sentences' length, not the longest's."""
    ordered = sorted(pairs, key=lambda p: (len(p.source), len(p.target)))
    return [ordered[k : k + batch_size] for k in range(0, len(ordered), batch_size)]


def _loss(model: Seq2Seq, b: data.Batch) -> torch.Tensor:
    """Teacher-forced cross-entropy per target word (padding left out)."""
    logits, _ = model(b.source, b.source_mask, b.target_in)
    return F.cross_entropy(logits.flatten(0, 1), b.target_out.flatten(), ignore_index=0)


def train(
    score: str | None = "additive",
    options: TrainOptions = OPTIONS,
    d_h: int = 32,
    snapshot_every: int = 0,
) -> Trained:
    """An encoder–decoder (``score`` None: without attention) trained on ``data.make_corpus(0)`` for
    ``options.steps`` Adam steps of ``options.batch_size`` pairs (``OPTIONS`` by default); same
    arguments and offset → the same cached object."""
    fixed_batch_size(options)
    return _train(score, options.replace(seed=seeds.effective(options.seed)), d_h, snapshot_every)


@cache
def _train(score: str | None, options: TrainOptions, d_h: int, every: int) -> Trained:
    steps, batch_size, seed = options.steps, fixed_batch_size(options), options.seed
    corpus = data.make_corpus(0)
    c = Config(len(corpus.source_vocab), len(corpus.target_vocab), d_h=d_h, score=score)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = Seq2Seq(c)
    batches = _length_batches(corpus.train, batch_size)
    draw = minibatches(len(batches), 1, seed)
    trained = Trained(model, corpus, [])

    def step_loss(k: int) -> torch.Tensor:
        if every and k % every == 0:
            trained.snapshots[k] = {n: p.detach().clone() for n, p in model.state_dict().items()}
        return _loss(model, data.batch(batches[int(draw(k)[0])], corpus))

    trained.losses = fit(model.parameters(), step_loss, options)
    if every:
        trained.snapshots[steps] = {n: p.detach().clone() for n, p in model.state_dict().items()}
    model.eval()
    return trained
