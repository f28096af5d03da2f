"""Training a 2-layer GPT-2 until it grows an induction head (lesson 15; ``scripts/train_induction.py``
trains the shipped one, ``circuits.shipped`` loads it).

The data make copying the only way to predict anything. Every token is drawn uniformly from a
vocabulary of D tokens; in each sequence of T tokens a segment s_1..s_L of random length L starts at a
random position p and is then repeated until the sequence ends:

    x = [r_1 .. r_p] [s_1 .. s_L] [s_1 .. s_L] [s_1 ..]      L ~ U{L_min..L_max},  p ~ U{0..T/2 − 1}

The prefix r is unpredictable (loss log D a token), every token after the first copy is predictable by
looking back L − 1 tokens. Because L and p change from sequence to sequence, no fixed positional
offset predicts it ("attend n − 1 back", which a fixed layout teaches instead); the solution that
works everywhere is the induction circuit: a previous-token head in layer 0 and, in layer 1, a head
that attends to the token after the earlier occurrence of the current one and copies it.

The model is our own ``GPT2`` (so every helper, hook and reference check of lesson 15 applies),
trained on the mean cross entropy of every next token by AdamW (weight decay 0.01) whose learning rate
rises linearly over the first ``WARMUP`` steps, lr_k = lr · min(1, (k + 1) / WARMUP). Not
``xai_tf.training.fit``'s constant-rate Adam: with it, two runs of 2000 steps (2 and 4 heads, seed 0)
stayed in the stage before the phase change — they predict a repeated token only as one of the
tokens seen recently (second-half loss near log L), with no induction head (largest induction score
0.06) — while the warm-up run formed one within 500 steps. Even so the phase change is itself random: of
seeds 0, 1, 2 retrained with this recipe, 0 (shipped) and 1 grew induction heads within 2000 steps and 2
did not (November 2026, this machine).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.models.gpt2 import GPT2, GPT2Config
from xai_tf.training import TrainOptions, fixed_batch_size

#: The shipped model's sizes: 2 layers × 2 heads, d = 64, a vocabulary of 32 tokens, 32 positions.
CONFIG = GPT2Config(vocab_size=32, n_ctx=32, n_embd=64, n_layer=2, n_head=2)
WARMUP, WEIGHT_DECAY = 200, 0.01
OPTIONS = TrainOptions(steps=2000, lr=1e-3, batch_size=64)  # the shipped model's (train_induction's defaults)


@dataclass(frozen=True)
class RepeatData:
    """Where the repeats are: segment lengths ``L_min..L_max`` in sequences of ``T`` tokens."""

    T: int = 32
    L_min: int = 3
    L_max: int = 12

    def __post_init__(self) -> None:
        _checks.integer("T", self.T, 4, 4096)
        _checks.integer("L_min", self.L_min, 2, self.T // 2)
        _checks.integer("L_max", self.L_max, self.L_min, self.T // 2)


def repeat_batch(data: RepeatData, vocab: int, batch: int, generator: torch.Generator) -> Tensor:
    """``[batch, T]`` ids: a random prefix, then a random segment repeated to the end (module docstring)."""
    vocab = _checks.integer("vocab", vocab, 2, 1_000_000)
    batch = _checks.integer("batch", batch, 1, 100_000)
    x = torch.randint(0, vocab, (batch, data.T), generator=generator)
    L = torch.randint(data.L_min, data.L_max + 1, (batch, 1), generator=generator)
    p = torch.randint(0, data.T // 2, (batch, 1), generator=generator)
    t = torch.arange(data.T)
    # position t ≥ p copies position p + (t − p) mod L of the first copy
    source = torch.where(t >= p, p + (t - p) % L, t)
    return x.gather(1, source)


def train_induction(
    config: GPT2Config = CONFIG, data: RepeatData = RepeatData(), options: TrainOptions = OPTIONS
) -> tuple[GPT2, list[float]]:
    """A ``GPT2`` of ``config`` trained on fresh ``repeat_batch`` batches of ``options.batch_size``
    sequences (AdamW at ``options.lr`` with warm-up, ``options.steps`` steps), and its loss at every
    step."""
    batch = fixed_batch_size(options)
    if data.T > config.n_ctx:
        raise ValueError(f"data.T must be at most the context n_ctx = {config.n_ctx}, got {data.T}")
    generator = seeds.generator(options.seed)
    with seeds.seeded(options.seed):
        model = GPT2(config).train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=options.lr, weight_decay=WEIGHT_DECAY)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda k: min(1.0, (k + 1) / WARMUP))
    history = []
    for _ in range(options.steps):
        x = repeat_batch(data, config.vocab_size, batch, generator)
        loss = F.cross_entropy(model(x)[:, :-1].transpose(1, 2), x[:, 1:])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        history.append(float(loss.detach()))
    return model.eval(), history
