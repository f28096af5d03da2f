"""Hierarchical attention (Yang et al. 2016, "Hierarchical attention networks for document
classification"; lecture 001's list of flavours): attention over the words inside each sentence, then
over the sentences of a document, on a seeded synthetic document task.

**The task** (``make_documents``): a document is ``N_SENTENCES`` sentences of ``SENTENCE_LENGTH``
words drawn from filler words; it is positive (label 1) when one sentence holds both ``KEY`` words,
negative when they are missing, alone, or in two different sentences (half of the negatives). So the
label depends on which sentence a word is in: the structure the hierarchy encodes.

**Hierarchical model** (``Hierarchical``), word level then sentence level, for document x:

    h_it = BiGRU_w(E(x_i))_t,  u_it = tanh(W_w h_it + b_w),  α_it = softmax_t(u_itᵀ u_w),
    s_i = Σ_t α_it h_it,       h_i = BiGRU_s(s)_i,          u_i = tanh(W_s h_i + b_s),
    β_i = softmax_i(u_iᵀ u_s),  v = Σ_i β_i h_i,
    p(y | x) = softmax(W_c v + b_c).

**Flat model** (``Flat``), the same size: the document as one word sequence with a separator "." after
each sentence, a two-layer BiGRU and one word-level attention over all of it, then the same classifier.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

N_SENTENCES, SENTENCE_LENGTH = 6, 5
KEY = ("good", "service")
FILLER = tuple(
    "the food was a table staff we came back late price menu our night room it very place wine view".split()
)
WORDS = ("<pad>", ".", *KEY, *FILLER)
SEPARATOR = 1


class Documents(NamedTuple):
    """ids [n, N_SENTENCES, SENTENCE_LENGTH] (word ids of ``WORDS``), labels [n] and, per document,
    the index of the sentence that holds both key words (−1 for a negative)."""

    ids: Tensor
    labels: Tensor
    key_sentence: Tensor


def make_documents(n: int, seed: int = 0) -> Documents:
    """``n`` documents, half positive, drawn by a generator seeded with ``seed`` (data, not a draw of a
    result: ``XAI_TF_SEED_OFFSET`` does not move it)."""
    n, seed = _checks.integer("n", n, 1, 100_000), _checks.integer("seed", seed, 0, 2**32 - 1)
    return _documents(n, seed)


@cache
def _documents(n: int, seed: int) -> Documents:
    rng = np.random.default_rng(seed)
    ids = rng.integers(4, len(WORDS), size=(n, N_SENTENCES, SENTENCE_LENGTH))
    labels = np.arange(n) % 2
    key = np.full(n, -1)
    for d in range(n):
        where = rng.choice(N_SENTENCES, size=2, replace=False)
        slots = rng.choice(SENTENCE_LENGTH, size=2, replace=False)
        if labels[d] == 1:  # both in one sentence
            ids[d, where[0], slots] = (2, 3)
            key[d] = where[0]
        elif d % 4 == 0:  # both, in two sentences: the hard negatives
            ids[d, where[0], slots[0]], ids[d, where[1], slots[1]] = 2, 3
        else:  # one key word alone
            ids[d, where[0], slots[0]] = 2 + rng.integers(2)
    order = rng.permutation(n)
    return Documents(
        torch.from_numpy(ids[order]), torch.from_numpy(labels[order]), torch.from_numpy(key[order])
    )


MAX_WIDTH = 4096  # the widest d, d_e, d_h a model here accepts (lesson 18 uses 8 to 32)


def _widths(**sizes: object) -> list[int]:
    return [_checks.integer(name, v, 1, MAX_WIDTH) for name, v in sizes.items()]


def _document_ids(ids: object) -> Tensor:
    """Word ids ``[B, N, L]`` of ``WORDS`` (``make_documents``), none empty."""
    ids = _checks.token_ids("ids", ids, len(WORDS))
    if ids.dim() != 3 or ids.numel() == 0:
        raise ValueError(f"ids must be [B, N, L] word ids (make_documents), got shape {tuple(ids.shape)}")
    return ids


class Attention(nn.Module):
    """u_t = tanh(W h_t + b), α_t = softmax_t(u_tᵀ u_ctx), pooled = Σ_t α_t h_t (Yang et al.'s pooling)."""

    def __init__(self, d: int):
        super().__init__()
        (d,) = _widths(d=d)
        self.W = nn.Linear(d, d)
        self.u_ctx = nn.Parameter(torch.randn(d) / d**0.5)

    def forward(self, h: Tensor) -> tuple[Tensor, Tensor]:  # h [B, T, d] → pooled [B, d], α [B, T]
        alpha = torch.softmax(torch.tanh(self.W(h)) @ self.u_ctx, dim=-1)
        return torch.einsum("bt,btd->bd", alpha, h), alpha


class Hierarchical(nn.Module):
    """Word-level BiGRU + attention inside each sentence, sentence-level BiGRU + attention over them."""

    def __init__(self, d_e: int = 16, d_h: int = 8):
        super().__init__()
        d_e, d_h = _widths(d_e=d_e, d_h=d_h)
        self.E = nn.Embedding(len(WORDS), d_e, padding_idx=0)
        self.word_gru = nn.GRU(d_e, d_h, batch_first=True, bidirectional=True)
        self.word_attention = Attention(2 * d_h)
        self.sentence_gru = nn.GRU(2 * d_h, d_h, batch_first=True, bidirectional=True)
        self.sentence_attention = Attention(2 * d_h)
        self.classifier = nn.Linear(2 * d_h, 2)

    def forward(self, ids: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """ids [B, N, L] → logits [B, 2], word weights α [B, N, L], sentence weights β [B, N]."""
        ids = _document_ids(ids)
        b, n, length = ids.shape
        h, _ = self.word_gru(self.E(ids.reshape(b * n, length)))
        s, alpha = self.word_attention(h)
        h_s, _ = self.sentence_gru(s.reshape(b, n, -1))
        v, beta = self.sentence_attention(h_s)
        return self.classifier(v), alpha.reshape(b, n, length), beta


def flatten(ids: Tensor) -> Tensor:
    """ids [B, N, L] → [B, N (L + 1)]: every sentence followed by the separator "."."""
    if not isinstance(ids, Tensor) or ids.dim() != 3 or ids.dtype != torch.long:
        shape = tuple(ids.shape) if isinstance(ids, Tensor) else type(ids).__name__
        raise ValueError(f"ids must be [B, N, L] word ids (torch.long), got {shape}")
    ids = _document_ids(ids)
    sep = torch.full((*ids.shape[:2], 1), SEPARATOR, dtype=ids.dtype, device=ids.device)
    return torch.cat([ids, sep], -1).flatten(1)


class Flat(nn.Module):
    """The document as one sequence (sentences joined by "."): a two-layer BiGRU and one attention."""

    def __init__(self, d_e: int = 16, d_h: int = 8):
        super().__init__()
        d_e, d_h = _widths(d_e=d_e, d_h=d_h)
        self.E = nn.Embedding(len(WORDS), d_e, padding_idx=0)
        self.gru = nn.GRU(d_e, d_h, num_layers=2, batch_first=True, bidirectional=True)
        self.attention = Attention(2 * d_h)
        self.classifier = nn.Linear(2 * d_h, 2)

    def forward(self, ids: Tensor) -> tuple[Tensor, Tensor]:
        """ids [B, N, L] → logits [B, 2] and the weights over the N (L + 1) flattened words."""
        h, _ = self.gru(self.E(flatten(ids)))
        v, alpha = self.attention(h)
        return self.classifier(v), alpha


MODELS = {"hierarchical": Hierarchical, "flat": Flat}
TRAIN, TEST = 3000, 1000
#: Every draw of ``scripts/train_hierarchy.py`` and the fingerprint of the code that made them.
METRICS = Path(str(files("xai_tf") / "data")) / "hierarchy.json"
TRAINED_BY = ("xai_tf.structured.hierarchy",)
OPTIONS = TrainOptions(steps=200, lr=0.01, batch_size=32)  # train's defaults


def recorded() -> dict:
    """What ``hierarchy.json`` records: fingerprint and every draw's accuracy curve."""
    return json.loads(METRICS.read_text())


class Trained(NamedTuple):
    """A trained model and its test accuracy after each step count in ``curve`` (step → accuracy)."""

    model: nn.Module
    curve: dict[int, float]


def train(kind: str, options: TrainOptions = OPTIONS, every: int = 25) -> Trained:
    """A ``kind`` model ("hierarchical" or "flat") trained by Adam on ``make_documents(TRAIN, 0)``
    with ``options`` (``OPTIONS`` by default; the seed shifted by ``XAI_TF_SEED_OFFSET``), its
    accuracy on ``make_documents(TEST, 1)`` measured every ``every`` steps; cached per arguments and
    offset."""
    if kind not in MODELS:
        raise ValueError(f"kind must be one of {', '.join(MODELS)}, got {kind!r}")
    seed = checked_options(options).seed
    every = _checks.integer("every", every, 1, options.steps)
    return _train(kind, options.replace(seed=seeds.effective(seed)), every)


@cache
def _train(kind: str, options: TrainOptions, every: int) -> Trained:
    docs, test = make_documents(TRAIN, 0), make_documents(TEST, 1)
    seed, steps = options.seed, options.steps
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = MODELS[kind]()
    draw = minibatches(TRAIN, options.batch_size, seed)
    curve: dict[int, float] = {}

    def loss(k: int) -> Tensor:
        if k % every == 0:
            curve[k] = accuracy(model, test)
        idx = draw(k)
        return F.cross_entropy(model(docs.ids[idx])[0], docs.labels[idx])

    fit(model.parameters(), loss, options)
    curve[steps] = accuracy(model.eval(), test)
    return Trained(model, curve)


@torch.no_grad()
def accuracy(model: nn.Module, docs: Documents) -> float:
    """The share of ``docs`` whose argmax label is right."""
    if not isinstance(model, Hierarchical | Flat):
        raise TypeError(f"model must be a Hierarchical or Flat model, got {type(model).__name__}")
    if not isinstance(docs, Documents):
        raise TypeError(f"docs must be Documents (make_documents), got {type(docs).__name__}")
    device = next(model.parameters()).device
    return float((model(docs.ids.to(device))[0].argmax(-1) == docs.labels.to(device)).double().mean())


def recorded_curves(kind: str) -> tuple[list[int], list[list[float]]]:
    """The recorded test accuracy of every draw of ``kind``: the step counts and one curve per seed."""
    if kind not in MODELS:
        raise ValueError(f"kind must be one of {', '.join(MODELS)}, got {kind!r}")
    rows = sorted((d for d in recorded()["draws"] if d["kind"] == kind), key=lambda d: d["seed"])
    steps = sorted(int(k) for k in rows[0]["curve"])
    return steps, [[float(d["curve"][str(s)]) for s in steps] for d in rows]


class Reading(NamedTuple):
    """How a hierarchical model's weights read the positive documents: the share whose largest β_i is
    on the key sentence, the share whose two largest α_it inside the key sentence are the two key words,
    and the mean Σ α_it over the key words of the key sentence."""

    beta_on_key: float
    top2_are_keys: float
    alpha_on_keys: float


@torch.no_grad()
def reading(model: Hierarchical, docs: Documents) -> Reading:
    """The ``Reading`` of ``model`` on the positive documents of ``docs``."""
    if not isinstance(model, Hierarchical):
        raise TypeError(f"model must be a Hierarchical model, got {type(model).__name__}")
    if not isinstance(docs, Documents) or not bool((docs.labels == 1).any()):
        raise ValueError("docs must be Documents (make_documents) with at least one positive document")
    device = next(model.parameters()).device
    positive = torch.nonzero(docs.labels == 1).flatten()
    key = docs.key_sentence[positive]
    _, alpha, beta = model(docs.ids[positive].to(device))
    alpha, beta = alpha.cpu()[torch.arange(len(positive)), key], beta.cpu()
    is_key = (docs.ids[positive, key] == 2) | (docs.ids[positive, key] == 3)
    return Reading(
        float((beta.argmax(-1) == key).double().mean()),
        float(is_key.gather(1, alpha.topk(2, -1).indices).all(1).double().mean()),
        float((alpha * is_key).sum(1).mean()),
    )
