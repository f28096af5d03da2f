"""Cross-attention read as a word alignment (lesson 17, section 3), as functions.

For the decoder position that predicts target word i, layer l and head h give one link (i, j*) with

    j*_{l,h}(i) = argmax_j α^{l,h}_{ij},   and for the heads' mean   j*_l(i) = argmax_j (1/H) Σ_h α^{l,h}_{ij}

(Garg et al. 2019 average the heads before the argmax). ``argmax_sources`` returns these for one
sentence; ``aer_table`` scores them with the alignment error rate of lesson 16 against the gold links.
``xai_tf.encdec.evaluate.alignment_error_rates`` computes the same table inside the recorded scoring
code; this module lets a lesson pass its own link extraction, and lives apart so that the recorded
runs' fingerprint is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.seq2seq import data, metrics


def argmax_sources(A: Tensor) -> Tensor:
    """j*[l, h, i] = argmax_j A[l, h, i, j] for one sentence's cross-attention ``A [L, H, T, S]`` (the rows
    of the T decoder positions that predict its words, the columns of its S source words), and as head
    H the argmax of the heads' mean (1/H) Σ_h A[l, h, i, j]: a long tensor ``[L, H + 1, T]``."""
    A = _checks.real_tensor("A", A, dims=4)
    if 0 in A.shape:
        raise ValueError(f"A must be [L, H, T, S] with no empty axis, got shape {tuple(A.shape)}")
    with_mean = torch.cat([A, A.mean(1, keepdim=True)], dim=1)
    return with_mean.argmax(-1)


def aer_table(
    cross: Tensor,
    pairs: Sequence[data.Pair],
    sources: Callable[[Tensor], Tensor] = argmax_sources,
) -> Tensor:
    """AER ``[L, H + 1]`` of the links {(i, sources(A)[l, h, i])} against each pair's gold links, per layer
    and head (last column: the heads' mean), from teacher-forced cross-attention ``cross [L, N, H, T', S']``
    (``evaluate.cross_attention``; each pair's map cut to its words before ``sources`` sees it)."""
    cross = _checks.real_tensor("cross", cross, dims=5)
    if not isinstance(pairs, Sequence) or not pairs or not all(isinstance(p, data.Pair) for p in pairs):
        raise ValueError("pairs must be a non-empty list of Pair (the pairs cross was computed on)")
    if cross.size(1) != len(pairs):
        raise ValueError(f"cross holds {cross.size(1)} sentences (dim 1) but pairs has {len(pairs)}")
    found = [sources(cross[:, k, :, : len(p.target), : len(p.source)]) for k, p in enumerate(pairs)]
    gold = [p.links for p in pairs]
    L, H1 = found[0].shape[:2]
    table = torch.empty(L, H1, dtype=torch.float64)
    for layer in range(L):
        for head in range(H1):
            links = [{(i, int(j)) for i, j in enumerate(f[layer, head].tolist())} for f in found]
            table[layer, head] = metrics.alignment_error_rate(links, gold)
    return table
