"""A small sentiment classifier on top of a frozen language model — the classification setting
of the attribution lesson (06).

The class scores are s = W_c · (1/T) Σ_t LN_f(h_L)[t] + b: the model's final states averaged over the
tokens, then one linear layer, trained here in seconds. The phrases are generated from templates
of our own; the test phrases use a sentence frame the classifier never saw. (With the bundled
model, phrases with adjectives never seen in training are classified right only about 62% of the
time: the small model's states do not carry much sentiment of their own; the classifier learns
which adjectives are which.)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from itertools import product

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.models.architecture import CausalLM, Sizes
from xai_tf.models.hooks import Hooks
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.tasks.words import CLASSES
from xai_tf.training import TrainOptions, checked_options, fit

OPTIONS = TrainOptions(steps=300, lr=0.05)  # train_classifier's defaults (full batch)
#: At most this many tokens in one forward pass of ``phrase_features`` (bounds its activations' memory).
MAX_BATCH_TOKENS = 4096
ADJECTIVES = {
    "positive": ["sweet", "gentle", "noble", "fair", "good", "kind", "brave", "honest", "lovely", "true"],
    "negative": [
        "foul",
        "vile",
        "wicked",
        "false",
        "cruel",
        "base",
        "damned",
        "cursed",
        "rotten",
        "wretched",
    ],
}
NOUNS = ["lord", "friend", "lady", "knave", "man", "heart", "soul", "prince"]
TEMPLATES = ["Thou art a {a} {n}.", "O {a} {n}!", "What a {a} {n} is he.", "My {a} {n}, come hither."]


def sentiment_phrases() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """``(train, test)`` lists of (phrase, label), label 1 = positive: every adjective × noun ×
    template; the phrases of the last template are the test set."""
    train: list[tuple[str, int]] = []
    test: list[tuple[str, int]] = []
    for label, name in enumerate(CLASSES):
        for a, n, template in product(ADJECTIVES[name], NOUNS, TEMPLATES):
            (test if template == TEMPLATES[-1] else train).append((template.format(a=a, n=n), label))
    return train, test


class SequenceClassifier(nn.Module):
    """Class scores ``[batch, classes]`` from a causal language model's body (frozen) and a linear head."""

    kind = "sequence"  # the explanation registry's model kind (explain/method.MODEL_KINDS)

    def __init__(self, body: CausalLM, n_classes: int = len(CLASSES)):
        super().__init__()
        body.requires_grad_(False)
        self.body = body
        self.head = nn.Linear(body.sizes.d_model, n_classes, device=body.embedding.device)

    @property
    def sizes(self) -> Sizes:
        """The body's sizes (the classifier's blocks are the body's)."""
        return self.body.sizes

    @property
    def embedding(self) -> Tensor:
        """The body's W_E ``[vocab, d]``."""
        return self.body.embedding

    def embed(self, input_ids: Tensor) -> Tensor:
        """The body's token embeddings W_E[x]."""
        return self.body.embed(input_ids)

    def backward_bytes(self, T: int) -> int:
        """The body's estimate (every position runs through every block, as the head reads them all)."""
        return self.body.backward_bytes(T)

    def check_input_ids(self, input_ids: Sequence[int] | Tensor) -> Tensor:
        return self.body.check_input_ids(input_ids)

    def features(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor:
        """mean_t LN_f(h_L)[t] ``[batch, d]``: what the head reads (``hooks`` as the body's forward's)."""
        return self.body.final_states(token_embeddings, hooks).mean(1)

    def forward_embeddings(self, token_embeddings: Tensor, hooks: Hooks | None = None) -> Tensor:
        """s = W_c · mean_t LN_f(h_L)[t] + b for token embeddings ``[batch, T, d]``; ``hooks`` read or
        replace the body's activations (Grad-CAM, lesson 20)."""
        return self.head(self.features(token_embeddings, hooks))

    def forward(self, input_ids: Sequence[int] | Tensor) -> Tensor:
        return self.forward_embeddings(self.embed(self.check_input_ids(input_ids)))


def train_classifier(
    lm: LoadedModel, data: list[tuple[str, int]], options: TrainOptions = OPTIONS
) -> SequenceClassifier:
    """Fit the head by full-batch Adam on the cross-entropy (``OPTIONS`` by default); the body's
    features are computed once. Labels are class indices 0..len(CLASSES)−1."""
    seed = checked_options(options).seed
    if not data:
        raise ValueError("data is empty: give at least one (phrase, label) pair")
    for i, (_, y) in enumerate(data):
        _checks.integer(f"the label of data[{i}]", y, 0, len(CLASSES) - 1)
    lm = causal(lm, "the sentiment classifier")
    with seeds.seeded(seed):
        clf = SequenceClassifier(lm.model)
    features = phrase_features(clf, lm, [t for t, _ in data])
    labels = torch.tensor([y for _, y in data], device=lm.device)
    fit(
        clf.head.parameters(),
        lambda _step: nn.functional.cross_entropy(clf.head(features), labels),
        options,
    )
    return clf.eval()


@torch.no_grad()
def phrase_features(clf: SequenceClassifier, lm: LoadedModel, texts: Sequence[str]) -> Tensor:
    """mean_t LN_f(h_L)[t] of every phrase ``[len(texts), d]``, row i for ``texts[i]``: what the head reads.

    Phrases with the same number of tokens T run as one batch ``[n, T]`` (at most ``MAX_BATCH_TOKENS``
    tokens): no padding, so every row is the one-phrase forward pass, up to the float rounding of a
    batched matrix product (5× to 7× less CPU time than one phrase at a time, one thread)."""
    if not texts:
        raise ValueError("texts is empty: give at least one phrase")
    ids = [lm.encode(text) for text in texts]
    by_length: dict[int, list[int]] = defaultdict(list)
    for i, phrase in enumerate(ids):
        by_length[len(phrase)].append(i)
    rows: list[Tensor] = [torch.empty(0)] * len(ids)
    for T, members in by_length.items():
        step = max(1, MAX_BATCH_TOKENS // T)
        for start in range(0, len(members), step):
            batch = members[start : start + step]
            ids_batch = torch.tensor([ids[i] for i in batch], device="cpu")  # the checks move it to the model
            found = clf.features(clf.embed(clf.check_input_ids(ids_batch)))
            for i, row in zip(batch, found, strict=True):
                rows[i] = row
    return torch.stack(rows)


@torch.no_grad()
def accuracy(clf: SequenceClassifier, lm: LoadedModel, data: list[tuple[str, int]]) -> float:
    """The share of phrases whose highest class score is their label."""
    if not data:
        raise ValueError("data is empty: give at least one (phrase, label) pair")
    predicted = clf.head(phrase_features(clf, lm, [text for text, _ in data])).argmax(-1).tolist()
    return sum(p == label for p, (_, label) in zip(predicted, data, strict=True)) / len(data)
