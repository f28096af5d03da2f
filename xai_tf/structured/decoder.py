"""Structured attention plugged into lesson 16's decoder (lesson 18), in lecture 001's notation.

The decoder is lesson 16's ``Seq2Seq`` with additive scores e_ij = v_aᵀ tanh(W_a s_{i−1} + U_a h_j);
only the map from scores to weights changes (``NORMALIZERS``):

- ``softmax``: α_ij = exp(e_ij) / Σ_j′ exp(e_ij′);
- ``sparsemax``: α_i· = argmin_{p ∈ Δ} ‖p − e_i·‖² (Martins & Astudillo 2016; lesson 03);
- ``fusedmax``: α_i· = sparsemax(prox_TV(e_i·, λ)) with λ = ``FUSEDMAX_LAMBDA`` (Niculae & Blondel 2017;
  lesson 03): neighbouring source words with close scores get equal weight;
- ``sigmoid``: independent z_j, α_ij = p(z_j = 1) = σ(e_ij) (no normalisation: Σ_j α_ij is free);
- ``crf``: a linear-chain CRF over z_1..z_S with unaries θ_j = e_ij and a learned 2 × 2 transition
  score A, α_ij = p(z_j = 1) by forward–backward (the lecture's slide: the raw marginals); c_i = Σ_j α_ij h_j
  as before;
- ``crf_normalized``: the same marginals divided by their sum, α_ij = p(z_j = 1) / Σ_j′ p(z_j′ = 1),
  a distribution over the source again (the CRF's neighbour structure kept): Kim et al. 2017's recipe
  (their translation code normalises the marginals, then scales them by λ = 2) with λ = 1;
- ``sparsemap``: the same chain's structures and scores, α_i· = μ* = argmax_{μ ∈ M} θᵀμ + ψᵀν − ½‖μ‖² over its
  marginal polytope (SparseMAP, Niculae et al. 2018, solved by ``sparsemap.sparsemap_chain_marginals``): a
  sparse combination of a few 0/1 structures, so exact zeros; Σ_j α_ij is free as for the CRF.

The CRF's chain must not run through padding, so these models read batches whose sources all have one
length (``same_length_batches``); a padded batch is refused.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.attention.maps import fusedmax, sparsemax
from xai_tf.seq2seq import data
from xai_tf.seq2seq.model import Config, Seq2Seq
from xai_tf.structured.chain import chain_marginals
from xai_tf.structured.sparsemap import sparsemap_chain_marginals

NORMALIZERS = ("softmax", "sparsemax", "fusedmax", "sigmoid", "crf", "crf_normalized", "sparsemap")
CHAINS = ("crf", "crf_normalized", "sparsemap")  # the normalizers with a learned transition score A
FUSEDMAX_LAMBDA = 0.5  # compare.attention_map's default, the λ of lesson 18's side-by-side maps


def normalize(e: Tensor, normalizer: str, transition: Tensor | None = None) -> Tensor:
    """α [..., S] from scores e [..., S] by ``normalizer`` (one of ``NORMALIZERS``; ``transition``
    A [2, 2] for the ``CHAINS``, zeros if None)."""
    if normalizer not in NORMALIZERS:
        raise ValueError(f"normalizer must be one of {', '.join(NORMALIZERS)}, got {normalizer!r}")
    e = _checks.real_tensor("e", e)
    if normalizer == "softmax":
        return torch.softmax(e, dim=-1)
    if normalizer == "sparsemax":
        return sparsemax(e, dim=-1)
    if normalizer == "fusedmax":
        return fusedmax(e, FUSEDMAX_LAMBDA)
    if normalizer == "sigmoid":
        return torch.sigmoid(e)
    a = e.new_zeros(2, 2) if transition is None else transition
    if normalizer == "sparsemap":
        return sparsemap_chain_marginals(e, a)
    p = chain_marginals(e, a)
    return p / p.sum(-1, keepdim=True) if normalizer == "crf_normalized" else p


class StructuredSeq2Seq(Seq2Seq):
    """Lesson 16's encoder–decoder with additive scores and the attention map ``normalizer``."""

    def __init__(self, config: Config, normalizer: str):
        if not isinstance(config, Config):
            raise TypeError(f"config must be a seq2seq Config, got {type(config).__name__}")
        if config.score != "additive":
            raise ValueError(
                f"config.score must be 'additive' (only the normalizer changes), got {config.score!r}"
            )
        if normalizer not in NORMALIZERS:
            raise ValueError(f"normalizer must be one of {', '.join(NORMALIZERS)}, got {normalizer!r}")
        super().__init__(config)
        self.normalizer = normalizer
        self.transition = nn.Parameter(torch.zeros(2, 2)) if normalizer in CHAINS else None

    def attend(self, e: Tensor, source_mask: Tensor) -> Tensor:
        """α_i· = normalize(e_i·) in ``Seq2Seq.step``: the chain runs over the whole source, so the
        batch must be unpadded."""
        if not bool(source_mask.all()):
            raise ValueError("structured decoders read unpadded batches: use same_length_batches")
        return normalize(e, self.normalizer, self.transition)


def same_length_batches(pairs: list[data.Pair], batch_size: int) -> list[list[data.Pair]]:
    """The pairs grouped by source length and cut into batches of at most ``batch_size``: no padding
    in the source, so the chain over z_1..z_S is exactly the sentence."""
    batch_size = _checks.integer("batch_size", batch_size, 1)
    pairs = data._check_pairs(pairs)
    by_length: dict[int, list[data.Pair]] = {}
    for p in pairs:
        by_length.setdefault(len(p.source), []).append(p)
    return [
        group[k : k + batch_size]
        for _, group in sorted(by_length.items())
        for k in range(0, len(group), batch_size)
    ]
