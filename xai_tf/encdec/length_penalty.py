"""GNMT's length-normalised score of finished translations (lesson 17, section 6), as a function.

Beam search ranks each finished translation Y by

    score(Y) = log p(Y | X) / lp(Y),   lp(Y) = (5 + |Y|)^α / (5 + 1)^α   (Wu et al. 2016)

with |Y| the words and the <eos> that ends them. ``xai_tf.seq2seq.decoding.beam_search`` computes it one
candidate at a time inside the search; this module scores K given candidates at once, for lesson 17's
exercise and its ranking of greedy's and the beam's outputs. It lives apart from the search so that the
recorded beam runs' fingerprint (the code of ``seq2seq.decoding`` and ``encdec.beam``) is unchanged.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def beam_scores(log_p: Tensor, n_words: Tensor, alpha: float) -> Tensor:
    """score(Y_k) = log p(Y_k | X) / lp(Y_k) with lp(Y) = (5 + |Y|)^α / (5 + 1)^α and |Y_k| = ``n_words[k]``
    + 1 (the words and <eos>), for the log-probabilities ``log_p [K]`` (floating, ≤ 0, −inf allowed for an
    impossible translation) of K finished translations of ``n_words [K]`` words; α = ``alpha`` in [0, 10]
    (α = 0: the log-probability itself)."""
    log_p = _checks.tensor("log_p", log_p)
    if not log_p.is_floating_point():
        raise TypeError(f"log_p must be a floating-point tensor (float32 or float64), got {log_p.dtype}")
    if bool((log_p.isnan() | (log_p > 0)).any()):
        raise ValueError("log_p must hold log-probabilities (≤ 0, −inf allowed), got NaN or a positive value")
    n_words = _checks.tensor("n_words", n_words)
    if n_words.is_floating_point() or n_words.dtype == torch.bool or n_words.is_complex():
        raise TypeError(f"n_words must be an integer tensor of word counts, got {n_words.dtype}")
    _checks.same_shape("beam_scores", "log_p", log_p, "n_words", n_words)
    if bool((n_words < 0).any()):
        raise ValueError(f"n_words must count words (≥ 0; <eos> is added here), got {n_words.tolist()}")
    alpha = _checks.real("alpha", alpha, 0.0, 10.0)
    length = (n_words + 1).to(log_p.dtype)
    return log_p / ((5 + length) / 6) ** alpha
