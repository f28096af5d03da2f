"""Two fixes for attention that does not explain, trained into lesson 08's BiLSTM classifier (lesson 11):

    diversity  (Mohankumar et al., 2020; conicity):          L = NLL + λ · conicity(h)
               — pushes one sentence's states h_1 … h_T apart, so weighting them differently matters;
    tying      (Tutek & Šnajder, 2020; the vertical issue): L = NLL + (λ/T) Σ_t ‖h_t − e_t‖²
               — keeps the state h_t close to its own word's embedding e_t (the lecture's vertical issue
               is h_t losing its input; its horizontal issue, other words leaking into h_t, is what
               a state tied to its word leaves less room for), so α_t weights word t.

The tying term is *added* to the NLL we minimise (λ ≥ 0): minimising L then makes ‖h_t − e_t‖ small.
Subtracting it (the slide's minus sign, with the loss minimised) would reward pushing h_t away from e_t
without bound. Tying needs d_h = d_e / 2 so that the BiLSTM's [→h; ←h] has the embedding's size.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.faithfulness.conicity import conicity, recurrent_conicity
from xai_tf.faithfulness.correlation import correlation_study
from xai_tf.tasks.recurrent import (
    OPTIONS,
    AttentionClassifier,
    RecurrentConfig,
    accuracy,
    batch,
    checked_data,
)
from xai_tf.tasks.words import Example, check_examples
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

PENALTIES = ("diversity", "tying")
#: The pairs of importances whose Kendall τ ``describe`` reports (lesson 08's τ).
PAIRS = (("attention", "LOO"), ("attention", "IG"))


def tying_penalty(h: Tensor, E: Tensor, mask: Tensor) -> Tensor:
    """(1/T) Σ_t ‖h_t − e_t‖² per sentence ``[n]`` (T = its length, padding left out by ``mask [n, T]``)."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"mask must be a tensor [n, T] (1 = a word, 0 = padding), got {type(mask).__name__}")
    if mask.shape != h.shape[:-1] or not (mask.sum(-1) > 0).all():
        raise ValueError(f"mask must have shape {tuple(h.shape[:-1])} and keep a word of each sentence")
    if h.shape != E.shape:
        raise ValueError(
            f"h and E must have one shape (d_h = d_e / 2), got {tuple(h.shape)} and {tuple(E.shape)}"
        )
    w = mask.to(h.dtype)
    return (((h - E) ** 2).sum(-1) * w).sum(-1) / w.sum(-1)


def train_regularised(
    data: Sequence[Example],
    vocab_size: int,
    penalty: str,
    lam: float,
    sign: int = 1,
    options: TrainOptions = OPTIONS,
) -> AttentionClassifier:
    """Lesson 08's BiLSTM classifier (d_e = 32, d_h = 16) trained on NLL + sign · λ · penalty, as
    ``train_attention_classifier`` does (same options, seeds and batches). ``sign = −1`` is the
    slide's version."""
    if penalty not in PENALTIES:
        raise ValueError(f"penalty must be one of {PENALTIES}, got {penalty!r}")
    lam = _checks.real("lam", lam, 0.0, float("inf"), open_hi=True)
    if sign not in (1, -1):
        raise ValueError(f"sign must be 1 or -1, got {sign!r}")
    data = check_examples("data", data, vocab_size)
    options = checked_options(options)
    with seeds.seeded(options.seed):
        model = AttentionClassifier(RecurrentConfig(vocab_size, d_e=32, d_h=16))
    draw = minibatches(len(data), options.batch_size, options.seed)

    def step_loss(k: int) -> Tensor:
        b = batch(data, draw(k).tolist())
        mask = torch.arange(b.ids.size(1)) < b.lengths[:, None]
        E = model.embed(b.ids)
        h = model.states(E, b.lengths)
        scores = model.readout(h, model.attention(h, b.lengths))
        extra = conicity(h, mask) if penalty == "diversity" else tying_penalty(h, E, mask)
        return nn.functional.cross_entropy(scores, b.labels) + sign * lam * extra.mean()

    with one_thread():
        fit(model.parameters(), step_loss, options)
    return model.eval()


@torch.no_grad()
def mean_tying_distance(model: AttentionClassifier, data: Sequence[Example]) -> float:
    """The mean over sentences of (1/T) Σ_t ‖h_t − e_t‖²."""
    b = batch(checked_data(model, data))
    mask = torch.arange(b.ids.size(1)) < b.lengths[:, None]
    E = model.embed(b.ids)
    return float(tying_penalty(model.states(E, b.lengths), E, mask).mean())


def describe(
    model: AttentionClassifier,
    data: Sequence[Example],
    tau_sample: Sequence[Example],
    pairs: Sequence[tuple[str, str]] = PAIRS,
) -> dict[str, float]:
    """One row of lesson 11's table: test accuracy, the states' mean conicity and the mean
    (1/T) Σ_t ‖h_t − e_t‖² on ``data``, and the mean Kendall τ of each pair of importances on
    ``tau_sample`` (keys "τ a–b")."""
    if not data:
        raise ValueError("data is empty: give at least one Example")
    study = correlation_study(model, tau_sample, pairs)
    return {
        "accuracy": accuracy(model, data),
        "conicity": recurrent_conicity(model, data)[1],
        "distance": mean_tying_distance(model, data),
        **{f"τ {a}–{b}": study.summary((a, b))[0] for a, b in pairs},
    }
