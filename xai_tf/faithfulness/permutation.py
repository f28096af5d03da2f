"""Jain & Wallace (2019), section 4.2.1, random attention weights (lesson 08; the lecture's
"counterfactual attention weight configuration"): with the encoder's states h fixed, shuffle the
model's weights over the words, α^π_t = α_{π(t)}, and measure how far the output moves,

    Δŷ(π) = |f_{α^π}(x) − f_α(x)|,   f_α(x) = softmax(W_c Σ_t α_t h_t + b_c)_1,

reporting per sentence the median of Δŷ over ``n_permutations`` random permutations π, against the
largest weight max_t α_t (J&W's figure 4: a peaked attention that can be shuffled freely does not
decide the output).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.faithfulness.erasure import sentence_states
from xai_tf.faithfulness.importance import vocabulary_size
from xai_tf.tasks.recurrent import AttentionClassifier
from xai_tf.tasks.words import Example, check_examples

#: J&W draw 100 permutations a sentence; each is one readout, and their draws are a Python loop.
MAX_PERMUTATIONS = 100_000


@torch.no_grad()
def permuted_outputs(
    model: AttentionClassifier, ids: Sequence[int], n_permutations: int, seed: int
) -> np.ndarray:
    """Δŷ(π) ``[n_permutations]`` of one sentence for seeded random permutations π."""
    _checks.integer("n_permutations", n_permutations, 1, MAX_PERMUTATIONS)
    h, alpha = sentence_states(model, ids)
    g = seeds.generator(seed)
    order = torch.stack(
        [torch.randperm(len(alpha), generator=g, device="cpu") for _ in range(n_permutations)]
    )
    permuted = alpha[order.to(alpha.device)]  # [n_permutations, T]
    f = model.readout(h, alpha[None]).softmax(-1)[0, 1]
    f_perm = model.readout(h.expand(n_permutations, -1, -1), permuted).softmax(-1)[:, 1]
    return (f_perm - f).abs().double().cpu().numpy()


def permutation_study(
    model: AttentionClassifier, data: Sequence[Example], n_permutations: int = 100, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """``(median Δŷ [n], max_t α_t [n])`` over the sentences of ``data`` with at least 2 words."""
    _checks.integer("n_permutations", n_permutations, 1, MAX_PERMUTATIONS)
    _checks.integer("seed", seed, 0)
    data = [e for e in check_examples("data", data, vocabulary_size(model), None) if len(e.ids) >= 2]
    if not data:
        raise ValueError("data has no sentence of at least 2 words")
    median, peak = np.empty(len(data)), np.empty(len(data))
    with one_thread():
        for i, e in enumerate(data):
            median[i] = np.median(permuted_outputs(model, e.ids, n_permutations, seed + i))
            peak[i] = float(sentence_states(model, e.ids)[1].max())
    return median, peak
