"""Jain & Wallace's (2019) attention classifier, the lecture's "basic architecture" (lessons 08, 11):

    h_t = BiLSTM(E(x))_t  (or, with no recurrence, h_t = ReLU(W_h e_t + b_h): each word alone),
    θ_t = vᵀ tanh(W_a h_t + b_a)            (additive attention; θ for the scores),
    α = softmax(θ),  c = Σ_t α_t h_t,  s = W_c c + b_c  (class scores; f = softmax(s)_1).

``attention="uniform"`` fixes α_t = 1/T (Wiegreffe & Pinter's baseline: is attention needed at
all?); ``guide`` (of ``train_attention_classifier``) replaces α by another model's attention, frozen
(W&P's diagnostic, ``xai_tf.faithfulness.diagnostic``). Every readout can also take an α of its own,
the encoder's states fixed (``readout``): the adversaries and erasures of ``xai_tf.faithfulness`` act
there. The model has the interface the attribution helpers of lesson 06 read (``embedding``, ``embed``,
``check_input_ids``, ``forward_embeddings``, a ``config.backward_bytes``), so gradients, leave-one-out and
IG come from ``xai_tf.explain.attribution``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

OPTIONS = TrainOptions(steps=150, lr=0.02, batch_size=32)  # train_attention_classifier's defaults
ENCODERS = ("bilstm", "none")
#: α ``[batch, T]`` for padded ids ``[batch, T]`` and lengths ``[batch]`` (or None): a frozen attention.
Guide = Callable[[Tensor, Tensor | None], Tensor]
ATTENTIONS = ("additive", "uniform")


@dataclass(frozen=True)
class RecurrentConfig:
    vocab_size: int
    d_e: int = 32
    d_h: int = 32
    d_att: int = 32
    n_classes: int = 2
    encoder: str = "bilstm"
    attention: str = "additive"

    def backward_bytes(self, T: int) -> int:
        """A generous bound on the bytes one sequence of length T keeps for its backward pass."""
        return 4 * T * 16 * (self.d_e + 8 * self.d_h + self.d_att)


class AttentionClassifier(nn.Module):
    """Embedding → encoder (BiLSTM or none) → additive (or uniform) attention → linear."""

    kind = "attention"  # the explanation registry's model kind (explain/method.MODEL_KINDS)

    def __init__(self, config: RecurrentConfig, device: torch.device | str = "cpu"):
        super().__init__()
        if config.encoder not in ENCODERS:
            raise ValueError(f"encoder must be one of {ENCODERS}, got {config.encoder!r}")
        if config.attention not in ATTENTIONS:
            raise ValueError(f"attention must be one of {ATTENTIONS}, got {config.attention!r}")
        self.config = config
        self.word_embeddings = nn.Embedding(config.vocab_size, config.d_e, padding_idx=0, device=device)
        if config.encoder == "bilstm":
            self.lstm = nn.LSTM(config.d_e, config.d_h, batch_first=True, bidirectional=True, device=device)
            d = 2 * config.d_h
        else:
            self.proj = nn.Linear(config.d_e, config.d_h, device=device)
            d = config.d_h
        self.W_a = nn.Linear(d, config.d_att, device=device)
        self.v = nn.Linear(config.d_att, 1, bias=False, device=device)
        self.head = nn.Linear(d, config.n_classes, device=device)
        self.guide: Guide | None = None  # α from elsewhere, frozen (see ``train_attention_classifier``)

    @property
    def embedding(self) -> Tensor:
        """W_e ``[vocab, d_e]``: what the attributions read (``explain.attribution.Explained``)."""
        return self.word_embeddings.weight

    def embed(self, input_ids: Tensor) -> Tensor:
        """E = W_e[x] ``[..., d_e]``."""
        return self.word_embeddings(input_ids)

    def backward_bytes(self, T: int) -> int:
        """``RecurrentConfig.backward_bytes``."""
        return self.config.backward_bytes(T)

    def check_input_ids(self, input_ids: Sequence[int] | Tensor) -> Tensor:
        """``input_ids`` as a long tensor ``[batch, T]`` of ids in 1..vocab_size − 1."""
        ids = torch.as_tensor(input_ids, device=self.word_embeddings.weight.device)
        if ids.dim() == 1:
            ids = ids[None]
        if ids.dim() != 2 or ids.size(1) == 0 or ids.dtype.is_floating_point:
            raise ValueError(
                f"input_ids must be word ids [T] or [batch, T], T ≥ 1, got shape {tuple(ids.shape)}"
            )
        if ids.min() < 1 or ids.max() >= self.config.vocab_size:
            raise ValueError(f"input_ids must lie in 1..{self.config.vocab_size - 1} (0 is padding)")
        return ids.long()

    def states(self, E: Tensor, lengths: Tensor | None = None) -> Tensor:
        """h ``[batch, T, d]`` from embeddings E ``[batch, T, d_e]`` (rows padded after ``lengths``)."""
        if self.config.encoder == "none":
            return torch.relu(self.proj(E))
        # cuDNN's LSTM has no backward pass in eval mode, and lessons 08 and 11 take gradients of a
        # trained (eval-mode) model's output: there the LSTM runs on PyTorch's own kernels.
        with torch.backends.cudnn.flags(enabled=self.training or not torch.is_grad_enabled()):
            if lengths is None:
                return self.lstm(E)[0]
            packed = pack_padded_sequence(E, lengths.cpu(), batch_first=True, enforce_sorted=False)
            return pad_packed_sequence(self.lstm(packed)[0], batch_first=True, total_length=E.size(1))[0]

    def attention(self, h: Tensor, lengths: Tensor | None = None) -> Tensor:
        """α ``[batch, T]``: softmax of θ_t = vᵀ tanh(W_a h_t + b_a), 0 on padding (or uniform)."""
        T = h.size(1)
        valid = torch.ones(h.shape[:2], dtype=torch.bool, device=h.device)
        if lengths is not None:
            valid = torch.arange(T, device=h.device) < lengths.to(h.device)[:, None]
        if self.config.attention == "uniform":
            theta = torch.zeros(h.shape[:2], device=h.device, dtype=h.dtype)
        else:
            theta = self.v(torch.tanh(self.W_a(h))).squeeze(-1)
        return theta.masked_fill(~valid, float("-inf")).softmax(-1)

    def readout(self, h: Tensor, alpha: Tensor) -> Tensor:
        """s = W_c Σ_t α_t h_t + b_c ``[batch, classes]`` for states h and any weights α ``[batch, T]``."""
        return self.head(torch.einsum("bt,btd->bd", alpha, h))

    def run(self, ids: Tensor, lengths: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """``(scores, α, h)`` for padded ids ``[batch, T]`` (moved to the model's device)."""
        ids = ids.to(self.word_embeddings.weight.device)
        lengths = None if lengths is None else lengths.to(ids.device)
        h = self.states(self.word_embeddings(ids), lengths)
        if self.guide is None:
            alpha = self.attention(h, lengths)
        else:
            with torch.no_grad():
                alpha = self.guide(ids, lengths).to(h)
        return self.readout(h, alpha), alpha, h

    def forward_embeddings(self, E: Tensor) -> Tensor:
        """Class scores ``[batch, classes]`` for unpadded embeddings ``[batch, T, d_e]``."""
        if self.guide is not None:
            raise ValueError("a guided model reads its α from word ids: call run(ids), not embeddings")
        h = self.states(E)
        return self.readout(h, self.attention(h))

    def forward(self, input_ids: Sequence[int] | Tensor) -> Tensor:
        return self.forward_embeddings(self.word_embeddings(self.check_input_ids(input_ids)))


@dataclass
class Batch:
    """Padded examples: ids and cue masks ``[n, T]``, lengths and labels ``[n]``, and ``index``,
    the examples' positions in the training set (for losses that look up per-example targets)."""

    ids: Tensor
    cues: Tensor
    lengths: Tensor
    labels: Tensor
    index: Tensor

    def to(self, device: torch.device | str) -> Batch:
        """The same batch on ``device``."""
        return Batch(*(getattr(self, f).to(device) for f in ("ids", "cues", "lengths", "labels", "index")))


def batch(data: Sequence[Example], index: Sequence[int] | None = None) -> Batch:
    """``data`` (or its items at ``index``) padded with id 0 into one ``Batch`` on the CPU."""
    if not data:
        raise ValueError("data is empty: give at least one Example")
    index = list(range(len(data))) if index is None else [int(i) for i in index]
    rows = [data[i] for i in index]
    T = max(len(e.ids) for e in rows)
    ids = torch.zeros(len(rows), T, dtype=torch.long, device="cpu")
    cues = torch.zeros(len(rows), T, device="cpu")
    for r, e in enumerate(rows):
        ids[r, : len(e.ids)] = torch.tensor(e.ids, device="cpu")
        cues[r, : len(e.cues)] = torch.tensor(e.cues, dtype=torch.float, device="cpu")
    lengths = torch.tensor([len(e.ids) for e in rows], device="cpu")
    labels = torch.tensor([e.label for e in rows], device="cpu")
    return Batch(ids, cues, lengths, labels, torch.tensor(index, device="cpu"))


#: A training loss from the class scores ``[n, classes]``, the attention α ``[n, T]`` and the batch.
Loss = Callable[[Tensor, Tensor, Batch], Tensor]


def nll(scores: Tensor, alpha: Tensor, b: Batch) -> Tensor:
    """The negative log-likelihood of the labels, −(1/n) Σ log softmax(s)_y."""
    _checks.tensor("scores", scores)
    return nn.functional.cross_entropy(scores, b.labels)


def train_attention_classifier(
    data: Sequence[Example],
    vocab_size: int,
    encoder: str = "bilstm",
    attention: str = "additive",
    loss: Loss = nll,
    options: TrainOptions = OPTIONS,
    device: torch.device | str = "cpu",
    guide: Guide | None = None,
) -> AttentionClassifier:
    """Train by Adam on seeded minibatches of ``options.batch_size`` (``xai_tf.training.minibatches``:
    all of ``data`` each step when it holds no more, or None) for ``options.steps`` steps on one thread
    (``xai_tf.training.fit``; ``OPTIONS`` by default), on ``device``. With a ``guide``, α is
    ``guide(ids, lengths)``, computed without gradient (frozen), in training and after."""
    _checks.integer("vocab_size", vocab_size, 2)
    seed = checked_options(options).seed
    data = check_examples("data", data, vocab_size)  # ids of the vocabulary, labels of the 2 classes
    if guide is not None and not callable(guide):
        raise TypeError(f"guide must be a callable (ids, lengths) → α or None, got {type(guide).__name__}")
    with seeds.seeded(seed):
        model = AttentionClassifier(RecurrentConfig(vocab_size, encoder=encoder, attention=attention), device)
    model.guide = guide
    draw = minibatches(len(data), options.batch_size, seed)

    def step_loss(k: int) -> Tensor:
        with torch.device("cpu"):  # the draws stay on the CPU whatever torch's default device
            b = batch(data, draw(k).tolist()).to(device)
        scores, alpha, _ = model.run(b.ids, b.lengths)
        return loss(scores, alpha, b)

    with one_thread():
        fit(model.parameters(), step_loss, options)
    return model.eval()


def checked_data(model: AttentionClassifier, data: object, labelled: bool = False) -> list[Example]:
    """``data`` checked against ``model`` (an attention classifier): word ids in its vocabulary
    1..V − 1 (0 is padding) and, if ``labelled``, labels among its classes."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")
    return check_examples("data", data, model.config.vocab_size, model.config.n_classes if labelled else None)


@torch.no_grad()
@one_thread()
def predict(model: AttentionClassifier, data: Sequence[Example]) -> tuple[Tensor, Tensor]:
    """``(probabilities [n, classes], α [n, T])`` of every example (α padded with zeros), on the
    model's device. Word ids must be the model's (another task's ids are refused, by name)."""
    b = batch(checked_data(model, data))
    scores, alpha, _ = model.run(b.ids, b.lengths)
    return scores.softmax(-1), alpha


def accuracy(model: AttentionClassifier, data: Sequence[Example]) -> float:
    """The share of examples whose most probable class is their label (labels of the model's classes)."""
    data = checked_data(model, data, labelled=True)
    probs, _ = predict(model, data)
    labels = torch.tensor([e.label for e in data], device=probs.device)
    return float((probs.argmax(-1) == labels).float().mean())
