"""The structural bias, computed (lesson 18, lecture 001's "can we consider the sequential structure
of our input/output?"): how monotone and contiguous lesson 16's gold alignments are, and where
softmax, sparsemax and fusedmax put the weight of a trained decoder's scores.

For one sentence pair with gold links L = {(i, j)} (target word i, source word j):

- **monotone share** = #{(i, j), (i′, j′) ∈ L : i < i′, j ≤ j′} / #{(i, j), (i′, j′) ∈ L : i < i′}:
  1 when the alignment never goes back (the lecture's "I am going to the store → vou à loja");
- **jump** δ_i = min{j : (i + 1, j) ∈ L} − min{j : (i, j) ∈ L} between consecutive target words:
  δ = 1 is the next source word (a diagonal step), δ = 0 the same one, δ < 0 a step back;
- for a row of attention weights α_i· ∈ [0, 1]^S: the **support** {j : α_ij > ε}, its number of
  **runs** (maximal blocks of neighbouring positions: 1 = contiguous), and the **gold mass**
  Σ_{j : (i, j) ∈ L} α_ij;
- a **tied maximum**: #{j : α_ij = max_j′ α_ij′} ≥ 2, where argmax (and so AER's link) takes the first.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.attention.maps import fusedmax, softmax, sparsemax
from xai_tf.seq2seq import data
from xai_tf.seq2seq.decoding import _checked, _encode
from xai_tf.seq2seq.model import Seq2Seq

Links = set[tuple[int, int]]
MAPS = ("softmax", "sparsemax", "fusedmax")


def _links(links: object) -> Links:
    if not isinstance(links, set | frozenset) or not links:
        raise TypeError("links must be a non-empty set of (i, j) pairs (target i, source j)")
    return set(links)


def monotone_share(links: Links) -> float:
    """The share of ordered link pairs (i < i′) whose source positions do not go back (j ≤ j′);
    1.0 for a sentence with a single target word."""
    pairs = [(j, j2) for i, j in _links(links) for i2, j2 in links if i < i2]
    return 1.0 if not pairs else sum(j <= j2 for j, j2 in pairs) / len(pairs)


def jumps(links: Links) -> list[int]:
    """δ_i = min{j : (i + 1, j) ∈ L} − min{j : (i, j) ∈ L} for consecutive linked target words."""
    first: dict[int, int] = {}
    for i, j in sorted(_links(links)):
        first.setdefault(i, j)
    rows = sorted(first)
    return [first[b] - first[a] for a, b in zip(rows, rows[1:], strict=False) if b == a + 1]


def runs(alpha: Tensor, eps: float = 1e-3) -> Tensor:
    """The number of maximal runs of neighbouring positions with α_j > ε, per row of α [..., S]."""
    alpha = _checks.real_tensor("alpha", alpha)
    if alpha.dim() == 0 or alpha.size(-1) == 0:
        raise ValueError(f"alpha must be [..., S] with S ≥ 1, got shape {tuple(alpha.shape)}")
    eps = _checks.real("eps", eps, 0.0, 1.0)
    on = (alpha > eps).long()
    starts = on[..., :1] + (on[..., 1:] - on[..., :-1]).clamp_min(0).sum(-1, keepdim=True)
    return starts.squeeze(-1)


def tied_max(alpha: Tensor) -> Tensor:
    """For each row of α [..., S]: True where its largest weight is attained at two or more positions
    (exactly equal, as fusedmax's fused blocks are)."""
    alpha = _checks.real_tensor("alpha", alpha)
    if alpha.dim() == 0 or alpha.size(-1) == 0:
        raise ValueError(f"alpha must be [..., S] with S ≥ 1 positions, got shape {tuple(alpha.shape)}")
    return (alpha == alpha.amax(-1, keepdim=True)).sum(-1) >= 2


def gold_mass(alpha: Tensor, links: Links) -> Tensor:
    """Σ_{j : (i, j) ∈ L} α_ij for every row i of α [|y|, |x|]."""
    alpha = _checks.real_tensor("alpha", alpha, dims=2)
    gold = torch.zeros_like(alpha)
    for i, j in _links(links):
        if not (0 <= i < alpha.size(0) and 0 <= j < alpha.size(1)):
            raise ValueError(f"link {(i, j)} lies outside alpha's shape {tuple(alpha.shape)}")
        gold[i, j] = 1.0
    return (alpha * gold).sum(-1)


@torch.no_grad()
def forced_scores(model: Seq2Seq, corpus: data.Corpus, pairs: Sequence[data.Pair]) -> list[Tensor]:
    """The scores e_ij = score(s_{i−1}, h_j) [|y|, |x|] of a lesson-16 model with attention under
    teacher forcing on each pair's reference (the <eos> row left out)."""
    pairs = _checked(model, corpus, pairs)
    source, mask = _encode(
        model, corpus, [p.source for p in pairs], [f"pairs[{k}].source" for k in range(len(pairs))]
    )
    if model.scorer is None:
        raise ValueError("this model has no attention (score=None): there are no scores to read")
    b = data.batch(list(pairs), corpus)
    h, s, keys, c = model.encode(source, mask)
    assert keys is not None
    rows = []
    for i in range(b.target_in.size(1) - 1):
        rows.append(model.scorer(s, keys))
        _, s, _ = model.step(b.target_in[:, i].to(source.device), s, h, keys, c, mask)
    e = torch.stack(rows, 1)
    return [e[k, : len(p.target), : len(p.source)] for k, p in enumerate(pairs)]


def map_scores(e: Tensor, name: str, lam: float = 0.5) -> Tensor:
    """α = softmax(e), sparsemax(e) or fusedmax(e, λ) along the last axis (``name`` in ``MAPS``); λ is
    checked whichever map is chosen (a λ = "big" passed with softmax would be silently ignored)."""
    if name not in MAPS:
        raise ValueError(f"name must be one of {', '.join(MAPS)}, got {name!r}")
    _checks.at_least("lam", lam, 0.0)
    if name == "fusedmax":
        return fusedmax(e, lam)
    return softmax(e) if name == "softmax" else sparsemax(e)


def structure_table(
    scores: Sequence[Tensor], pairs: Sequence[data.Pair], lam: float = 0.5, eps: float = 1e-3
) -> dict[str, dict[str, float]]:
    """Per map of ``MAPS``, over every target word of ``pairs`` (scores from ``forced_scores``): mean
    support size, share of rows whose support is one run (contiguous), mean gold mass, and the share of
    rows whose argmax is a gold link."""
    if not isinstance(scores, list | tuple) or not all(isinstance(e, Tensor) for e in scores):
        raise TypeError("scores must be a list of tensors [|y|, |x|] (forced_scores), one per pair")
    if not isinstance(pairs, list | tuple):
        raise TypeError(f"pairs must be a list of Pairs (one per score), got {type(pairs).__name__}")
    _checks.real("eps", eps, 0.0, 1.0, open_lo=True, open_hi=True)
    _checks.same_length("structure_table", "scores", list(scores), "pairs", list(pairs))
    if not pairs:
        raise ValueError("scores and pairs are empty: give at least one pair")
    pairs = data._check_pairs(pairs)
    table = {}
    for name in MAPS:
        alphas = [map_scores(e.double(), name, lam) for e in scores]
        golds = [gold_mass(a, p.links) for a, p in zip(alphas, pairs, strict=True)]
        hits = [
            float((i, int(j)) in p.links)
            for a, p in zip(alphas, pairs, strict=True)
            for i, j in enumerate(a.argmax(-1))
        ]
        table[name] = {
            "support": float(torch.cat([(a > eps).sum(-1) for a in alphas]).double().mean()),
            "contiguous": float(torch.cat([runs(a, eps) == 1 for a in alphas]).double().mean()),
            "gold mass": float(torch.cat(golds).mean()),
            "argmax on gold": sum(hits) / len(hits),
        }
    return table
