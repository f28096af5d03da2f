"""Lei et al.'s (2016) rationalizer on the word-level tasks of lesson 08 (lesson 11). A generator g_φ
scores each word; a selection z is drawn; a predictor sees only x ⊙ z:

    generator   φ_t = w · ReLU(Conv₃(E(x)))_t   (each word with its two neighbours)
    predictor   s = W_c Σ_t z_t e′_t + b_c      (a bag of the selected words' embeddings)
    objective   E_{P(z|x)}[−log P(y | x ⊙ z)] + Ω(z)        (Ω of ``penalty``)

Three ways to train through the discrete choice (``ESTIMATORS``):
  "reinforce"  Z_t ~ Bernoulli(σ(φ_t)); the generator gets (cost − b) ∇ log P(z) (``reinforce``),
               b the running mean of the cost;
  "hardkuma"   Z_t ~ HardKuma(a_t, b_t), reparameterised (``hardkuma``); Ω in expectation:
               λ₁ Σ P(z_t ≠ 0) + λ₂ Σ [P_t(1 − P_{t+1}) + (1 − P_t)P_{t+1}], P_t = P(z_t ≠ 0);
               or, with a target share ξ (``selection``), Bastings et al.'s controlled sparsity: the
               λ₁ term replaced by a Lagrange multiplier's λ · C (``sparsity``);
  "sparsemax"  z = sparsemax(φ) (Treviso & Martins, 2020): a relaxation, sparse by itself (Ω unused).
At test time the rationale is σ(φ_t) > ½, P(z_t ≠ 0) > ½, or the support of sparsemax(φ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.attention.maps import sparsemax
from xai_tf.rationales import hardkuma, reinforce
from xai_tf.rationales.penalty import check_lambdas, omega
from xai_tf.rationales.sparsity import Lagrangian
from xai_tf.tasks.recurrent import Batch, batch
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

ESTIMATORS = ("reinforce", "hardkuma", "sparsemax")
OPTIONS = TrainOptions(steps=300, lr=0.01, batch_size=32)  # train_rationalizer's defaults
MAX_D = 1024  # the width of a lesson's toy generator: 16 in the lesson, 1024 already slow on a CPU
MAX_SAMPLES = 10_000  # draws of z for gradient_variance: one backward pass each


class Rationalizer(nn.Module):
    """Generator and predictor (see the module docstring); ``baseline`` is REINFORCE's running b,
    ``sparsity`` HardKuma's Lagrange multiplier when a target share ``selection`` = ξ is given."""

    def __init__(
        self,
        vocab_size: int,
        estimator: str,
        lam1: float,
        lam2: float,
        d: int = 16,
        selection: float | None = None,
    ):
        super().__init__()
        vocab_size, d = _checks.integer("vocab_size", vocab_size, 2), _checks.integer("d", d, 1, MAX_D)
        _checks.fits(
            f"a rationalizer of {vocab_size} words",
            4 * 2 * vocab_size * d * 4,  # two float32 embedding tables, with gradients and Adam's moments
            "give vocab_size = len(vocab), the vocabulary of the data",
        )
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
        if selection is not None and estimator != "hardkuma":
            raise ValueError(f"selection (a target share) needs estimator 'hardkuma', got {estimator!r}")
        self.sparsity = None if selection is None else Lagrangian(selection)
        self.estimator, (self.lam1, self.lam2) = estimator, check_lambdas(lam1, lam2)
        self.gen_embed = nn.Embedding(vocab_size, d, padding_idx=0)
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.gen_out = nn.Linear(d, 2)  # φ (or HardKuma's log a, log b)
        self.pred_embed = nn.Embedding(vocab_size, d, padding_idx=0)
        self.head = nn.Linear(d, 2)
        self.baseline = 0.0

    def generator(self, ids: Tensor) -> Tensor:
        """``[n, T, 2]`` per-word outputs of g_φ."""
        x = self.gen_embed(ids).transpose(1, 2)
        return self.gen_out(torch.relu(self.conv(x)).transpose(1, 2))

    def predict(self, ids: Tensor, z: Tensor) -> Tensor:
        """Class scores ``[n, 2]`` from x ⊙ z."""
        return self.head(torch.einsum("nt,ntd->nd", z, self.pred_embed(ids)))

    def select(self, ids: Tensor, mask: Tensor) -> Tensor:
        """The test-time rationale z ∈ {0, 1} ``[n, T]`` (0 on padding)."""
        g = self.generator(ids)
        if self.estimator == "reinforce":
            keep = g[..., 0] > 0
        elif self.estimator == "hardkuma":
            a, b = _shapes(g)
            keep = hardkuma.prob_zero(a, b) < 0.5
        else:
            keep = _relaxed(g, mask) > 0
        return (keep & mask).float()

    def forward(self, ids: Tensor, mask: Tensor) -> Tensor:
        """Class scores ``[n, 2]`` on the test-time rationale (sparsemax: its weights)."""
        z = _relaxed(self.generator(ids), mask) if self.estimator == "sparsemax" else self.select(ids, mask)
        return self.predict(ids, z)


def _shapes(g: Tensor) -> tuple[Tensor, Tensor]:
    return g[..., 0].exp().clamp(1e-3, 1e3), g[..., 1].exp().clamp(1e-3, 1e3)


def _relaxed(g: Tensor, mask: Tensor) -> Tensor:
    return sparsemax(g[..., 0].masked_fill(~mask, float("-inf")))


def _mask(b: Batch) -> Tensor:
    return torch.arange(b.ids.size(1)) < b.lengths[:, None]


def _objective(
    model: Rationalizer, b: Batch, generator: torch.Generator | None = None, update: bool = True
) -> Tensor:
    """One minibatch's training loss (its gradient is the chosen estimator's); with ``update``
    (training) it moves REINFORCE's running baseline and the Lagrange multiplier."""
    mask, g = _mask(b), model.generator(b.ids)
    nll = nn.functional.cross_entropy
    if model.estimator == "sparsemax":
        return nll(model.predict(b.ids, _relaxed(g, mask)), b.labels)
    if model.estimator == "hardkuma":
        a, bb = _shapes(g)
        z = hardkuma.sample(a, bb, generator) * mask
        p = (1 - hardkuma.prob_zero(a, bb)) * mask
        jumps = (p[:, 1:] * (1 - p[:, :-1]) + (1 - p[:, 1:]) * p[:, :-1]) * mask[:, 1:]
        if model.sparsity is None:
            compact = model.lam1 * p.sum(-1).mean()
        else:
            compact = model.sparsity.term((p.sum(-1) / b.lengths).mean(), update)
        return nll(model.predict(b.ids, z), b.labels) + compact + model.lam2 * jumps.sum(-1).mean()
    phi = g[..., 0]
    z = torch.bernoulli(torch.sigmoid(phi).detach(), generator=generator) * mask
    losses = nll(model.predict(b.ids, z), b.labels, reduction="none")
    cost = (losses + omega(z, model.lam1, model.lam2, mask)).detach()
    logp = reinforce.log_prob(phi.masked_fill(~mask, 0.0), z)  # padding: z = 0 at φ = 0 adds a constant
    surrogate = losses.mean() + ((cost - model.baseline) * logp).mean()
    if update:
        model.baseline = 0.9 * model.baseline + 0.1 * float(cost.mean())
    return surrogate


def train_rationalizer(
    data: Sequence[Example],
    vocab_size: int,
    estimator: str,
    lam1: float = 0.02,
    lam2: float = 0.01,
    options: TrainOptions = OPTIONS,
    selection: float | None = None,
) -> Rationalizer:
    """Train generator and predictor together by ``fit`` (Adam) on seeded minibatches
    (``xai_tf.training.minibatches``; ``OPTIONS`` by default), one thread. ``data``: labelled
    sentences (labels 0 and 1) of the model's vocabulary (ids < ``vocab_size``). ``selection`` =
    ξ ∈ (0, 1) (HardKuma only): aim at that share of selected words by controlled sparsity
    (``sparsity``; λ₁ is then unused)."""
    seed = checked_options(options).seed
    data = check_examples("data", data, vocab_size)
    with seeds.seeded(seed):
        model = Rationalizer(vocab_size, estimator, lam1, lam2, selection=selection)
    draw, noise = minibatches(len(data), options.batch_size, seed), seeds.generator(seed + 1)
    with one_thread():
        fit(model.parameters(), lambda k: _objective(model, batch(data, draw(k).tolist()), noise), options)
    return model.eval()


def _words(model: object) -> int:
    """The size of ``model``'s vocabulary; ``model`` must be a ``Rationalizer``."""
    if not isinstance(model, Rationalizer):
        raise TypeError(f"model must be a Rationalizer, got {type(model).__name__}")
    return model.gen_embed.num_embeddings


def _checked(model: object, data: object) -> list[Example]:
    """``model`` a ``Rationalizer`` and ``data`` labelled sentences of its vocabulary."""
    return check_examples("data", data, _words(model))


@dataclass
class RationaleScores:
    """Over a test set: accuracy of the predictor on the rationale, and the rationale against the
    planted cues: precision |z ∩ cues| / |z|, recall |z ∩ cues| / |cues| (pooled over words), and
    sparsity |z| / T (mean share of words selected). Precision and recall are NaN where no word is a
    known cue (real text)."""

    accuracy: float
    precision: float
    recall: float
    sparsity: float


@torch.no_grad()
def evaluate(model: Rationalizer, data: Sequence[Example]) -> RationaleScores:
    """``RationaleScores`` of the test-time rationales on ``data``."""
    b = batch(_checked(model, data))
    mask = _mask(b)
    z = model.select(b.ids, mask)
    hits = float((z * b.cues).sum())
    if float(z.sum()) == 0:
        raise ValueError("every rationale is empty: the generator selects no word (λ₁ too large?)")
    accuracy = float((model(b.ids, mask).argmax(-1) == b.labels).float().mean())
    sparsity = float((z.sum(-1) / b.lengths).mean())
    if float(b.cues.sum()) == 0:
        return RationaleScores(accuracy, float("nan"), float("nan"), sparsity)
    return RationaleScores(accuracy, hits / float(z.sum()), hits / float(b.cues.sum()), sparsity)


def rationale(model: Rationalizer, ids: Sequence[int]) -> list[int]:
    """The positions the generator selects in one sentence (word ids of the model's vocabulary)."""
    words = _sentence(ids, _words(model))
    b = batch([Example(words, 0, [0] * len(words))])
    with torch.no_grad():
        return [int(t) for t in model.select(b.ids, _mask(b))[0].nonzero()[:, 0]]


def check_rationalizers(rationalizers: object) -> dict[str, Rationalizer]:
    """``{name: Rationalizer}`` (None: none), each checked: the rationales a table or panel compares."""
    if rationalizers is None:
        return {}
    if not isinstance(rationalizers, Mapping):
        raise TypeError(
            f"rationalizers must be a dict {{name: Rationalizer}}, got {type(rationalizers).__name__}"
        )
    for name, r in rationalizers.items():
        if not isinstance(r, Rationalizer):
            raise TypeError(f"rationalizers[{name!r}] must be a Rationalizer, got {type(r).__name__}")
    return dict(rationalizers)


def rationale_mask(model: Rationalizer, ids: Sequence[int]) -> Tensor:
    """The rationale as word scores ``[T]``: 1 on the words the generator selects, 0 elsewhere (how
    ERASER's tables rank a rationalizer's selection beside scoring explanations)."""
    chosen = set(rationale(model, ids))
    return torch.tensor([float(t in chosen) for t in range(len(ids))], device="cpu")


def gradient_variance(
    model: Rationalizer, data: Sequence[Example], samples: int = 32, seed: int = 0
) -> float:
    """Σ_p Var[ĝ_p] over the generator's parameters p: the spread of the gradient estimate of one
    minibatch (``data``) across ``samples`` draws of z (REINFORCE with b = its running baseline,
    or HardKuma); Var is the unbiased sample variance (divided by samples − 1). Sparsemax draws
    nothing, so its variance is 0."""
    samples = _checks.integer("samples", samples, 2, MAX_SAMPLES)
    b, noise, grads = batch(_checked(model, data)), seeds.generator(seed), []
    params = [*model.gen_embed.parameters(), *model.conv.parameters(), *model.gen_out.parameters()]
    with one_thread():
        for _ in range(samples):
            flat = torch.autograd.grad(_objective(model, b, noise, update=False), params)
            grads.append(torch.cat([g.flatten() for g in flat]))
    return float(torch.stack(grads).var(0).sum())


def _sentence(ids: object, vocab_size: int) -> list[int]:
    """One sentence's word ids (a list, tuple or 1-d integer tensor, at least one word)."""
    if not isinstance(ids, list | tuple | torch.Tensor):
        raise TypeError(
            f"ids must be the word ids of one sentence (a list of ints), got {type(ids).__name__}"
        )
    words = _checks.token_ids("ids", ids, vocab_size)
    if words.dim() != 1 or words.numel() == 0:
        raise ValueError(
            f"ids must be the word ids of one sentence, at least 1 word, got shape {tuple(words.shape)}"
        )
    return words.tolist()
