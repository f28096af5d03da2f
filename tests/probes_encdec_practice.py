"""Bad-input probes for the functions behind lessons 17 and 18's later exercises (``encdec.alignment``,
``encdec.length_penalty``, ``structured.normalized``) and their checkers, collected by
``test_bad_inputs.py``."""

import torch
from probe_kit import NAN, TE, VE, z

from xai_tf.encdec import alignment
from xai_tf.encdec.length_penalty import beam_scores
from xai_tf.seq2seq import data
from xai_tf.structured.normalized import normalized_marginals

EXEMPT: dict = {}

_PAIR = data.Pair(["a", "b"], ["x"], {(0, 0)})

RAISES = [
    (
        "xai_tf.encdec.length_penalty.beam_scores",
        lambda: beam_scores(torch.tensor([-1.0, 0.5]), torch.tensor([1, 2]), 1.0),
        VE,
        r"log_p must hold log-probabilities \(≤ 0, −inf allowed\)",
    ),
    (
        "xai_tf.encdec.length_penalty.beam_scores",
        lambda: beam_scores(torch.tensor([-1.0, -2.0]), torch.tensor([1.0, 2.0]), 1.0),
        TE,
        "n_words must be an integer tensor of word counts, got torch.float32",
    ),
    (
        "xai_tf.encdec.length_penalty.beam_scores",
        lambda: beam_scores(torch.tensor([-1.0, -2.0]), torch.tensor([1, 2, 3]), 1.0),
        VE,
        r"log_p is \(2,\) but n_words is \(3,\)",
    ),
    (
        "xai_tf.encdec.length_penalty.beam_scores",
        lambda: beam_scores(torch.tensor([-1.0]), torch.tensor([-1]), 1.0),
        VE,
        r"n_words must count words \(≥ 0",
    ),
    (
        "xai_tf.encdec.length_penalty.beam_scores",
        lambda: beam_scores(torch.tensor([-1.0]), torch.tensor([1]), NAN),
        VE,
        r"alpha must be a finite number in \[0, 10\], got nan",
    ),
    (
        "xai_tf.encdec.alignment.argmax_sources",
        lambda: alignment.argmax_sources(z(2, 5, 7)),
        VE,
        r"A must have 4 dimensions, got shape \(2, 5, 7\)",
    ),
    (
        "xai_tf.encdec.alignment.argmax_sources",
        lambda: alignment.argmax_sources(torch.zeros(1, 2, 0, 3)),
        VE,
        r"A must be \[L, H, T, S\] with no empty axis",
    ),
    (
        "xai_tf.encdec.alignment.aer_table",
        lambda: alignment.aer_table(z(1, 2, 1, 2, 2), [_PAIR]),
        VE,
        r"cross holds 2 sentences \(dim 1\) but pairs has 1",
    ),
    (
        "xai_tf.encdec.alignment.aer_table",
        lambda: alignment.aer_table(z(1, 1, 1, 2, 2), []),
        VE,
        "pairs must be a non-empty list of Pair",
    ),
    (
        "xai_tf.structured.normalized.normalized_marginals",
        lambda: normalized_marginals(torch.tensor([[0.2, 1.5]])),
        VE,
        r"p must hold marginals p\(z_j = 1\) in \[0, 1\]",
    ),
    (
        "xai_tf.structured.normalized.normalized_marginals",
        lambda: normalized_marginals(torch.zeros(2, 3)),
        VE,
        "p has a row of zeros",
    ),
    (
        "xai_tf.structured.normalized.normalized_marginals",
        lambda: normalized_marginals(torch.tensor([0.2, 0.5]), 0.0),
        VE,
        "lam must be a finite number > 0, got 0.0",
    ),
    (
        "xai_tf.structured.normalized.normalized_marginals",
        lambda: normalized_marginals(torch.tensor([1, 0])),
        TE,
        "p must be a floating-point tensor",
    ),
]

CHECKERS = {
    "xai_tf.exercises.encdec_reading.check_alignment_sources": r"j\* for L = 2, H = 3, T = 4, S = 6 is None",
    "xai_tf.exercises.encdec_reading.check_beam_scores": r"score \(α = 0.6\) is None",
    "xai_tf.exercises.encdec_reading.check_family_mask": "encoder-only mask for S = 3, T = 4 is None",
    "xai_tf.exercises.structured.check_normalized_marginals": r"α for λ = 2 is None",
}

PANELS: dict = {}
