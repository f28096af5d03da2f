"""How good a translation and an alignment are (lessons 16 and 17).

- **Alignment error rate** (Och & Ney 2003, "A systematic comparison of various statistical alignment
  models"): with A the predicted links, S the sure and P ⊇ S the possible gold links, summed over a
  corpus,

      AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|).

  Our grammar knows every correspondence, so it gives sure links only and P = S: then
  AER = 1 − 2|A ∩ S| / (|A| + |S|), one minus the F1 of the links. 0 is perfect.
- **Argmax alignment** of an attention matrix α [target, source]: target word i links to source word
  argmax_j α_ij (one link per target word; the row of <eos> is left out).
- **BLEU** (Papineni et al. 2002) on word lists, from ``sacrebleu`` (corpus BLEU, 0–100, the words
  joined by spaces and not re-tokenised: ``tokenize="none"``).
- **Exact match**: the share of translations equal to their reference word for word.
- **By length**: exact match and BLEU per bucket of source lengths (the shape of Bahdanau et al.'s
  Figure 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import sacrebleu
import torch
from torch import Tensor

from xai_tf import _checks

Links = set[tuple[int, int]]


def _link_sets(name: str, x: object) -> list[Links]:
    if not isinstance(x, list | tuple) or not all(isinstance(s, set | frozenset) for s in x):
        raise TypeError(f"{name} must be a list of link sets (one set of (i, j) pairs per sentence)")
    return [set(s) for s in x]


def alignment_error_rate(
    predicted: Sequence[Links], sure: Sequence[Links], possible: Sequence[Links] | None = None
) -> float:
    """AER = 1 − (|A∩S| + |A∩P|)/(|A| + |S|) over a corpus (one link set per sentence in each list);
    ``possible`` None means P = S (sure links only). P is taken as P ∪ S."""
    a, s = _link_sets("predicted", predicted), _link_sets("sure", sure)
    p = s if possible is None else _link_sets("possible", possible)
    _checks.same_length("AER", "predicted", a, "sure", s)
    _checks.same_length("AER", "sure", s, "possible", p)
    both = sum(len(ak & sk) for ak, sk in zip(a, s, strict=True))
    both_possible = sum(len(ak & (pk | sk)) for ak, pk, sk in zip(a, p, s, strict=True))
    total = sum(map(len, a)) + sum(map(len, s))
    if total == 0:
        raise ValueError("predicted and sure have no link at all: AER is undefined")
    return 1.0 - (both + both_possible) / total


def argmax_links(
    attention: Tensor, target_length: int | None = None, source_length: int | None = None
) -> Links:
    """{(i, argmax_j α_ij)} for the first ``target_length`` rows of α [target, source], over its first
    ``source_length`` columns (None: all; pass the true lengths to leave out <eos> and padding)."""
    a = _checks.real_tensor("attention", attention, dims=2)
    if a.numel() == 0:
        raise ValueError(f"attention must be α [target, source] with both ≥ 1, got shape {tuple(a.shape)}")
    rows = (
        a.size(0) if target_length is None else _checks.integer("target_length", target_length, 1, a.size(0))
    )
    cols = (
        a.size(1) if source_length is None else _checks.integer("source_length", source_length, 1, a.size(1))
    )
    best = torch.argmax(a[:rows, :cols], dim=1)
    return {(i, int(j)) for i, j in enumerate(best)}


def _sentences(name: str, x: object) -> list[list[str]]:
    if not isinstance(x, list | tuple) or not all(
        isinstance(s, list | tuple) and all(isinstance(w, str) for w in s) for s in x
    ):
        raise TypeError(f"{name} must be a list of sentences, each a list of words (str)")
    return [list(s) for s in x]


def _pairs(hypotheses: object, references: object) -> tuple[list[list[str]], list[list[str]]]:
    h, r = _sentences("hypotheses", hypotheses), _sentences("references", references)
    _checks.same_length("scoring", "hypotheses", h, "references", r)
    if not h:
        raise ValueError("hypotheses is empty: give at least one translation")
    return h, r


def bleu(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """Corpus BLEU (0–100) of word-list translations against one reference each, by sacrebleu."""
    h, r = _pairs(hypotheses, references)
    scorer = sacrebleu.metrics.BLEU(tokenize="none")
    return float(scorer.corpus_score([" ".join(s) for s in h], [[" ".join(s) for s in r]]).score)


def exact_match(hypotheses: Sequence[Sequence[str]], references: Sequence[Sequence[str]]) -> float:
    """The share (0–1) of hypotheses equal to their reference word for word."""
    h, r = _pairs(hypotheses, references)
    return sum(a == b for a, b in zip(h, r, strict=True)) / len(h)


class LengthRow(NamedTuple):
    """One bucket of source lengths lo..hi: its number of sentences, exact match (0–1) and BLEU."""

    lo: int
    hi: int
    n: int
    exact: float
    bleu: float


def by_length(
    sources: Sequence[Sequence[str]],
    hypotheses: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    width: int = 5,
) -> list[LengthRow]:
    """Exact match and BLEU per bucket of ``width`` source lengths (3–7, 8–12, … for width 5 from the
    shortest source); empty buckets are left out."""
    s = _sentences("sources", sources)
    h, r = _pairs(hypotheses, references)
    _checks.same_length("scoring", "sources", s, "hypotheses", h)
    width = _checks.integer("width", width, 1)
    start = min(len(x) for x in s)
    rows = []
    for lo in range(start, max(len(x) for x in s) + 1, width):
        keep = [k for k, x in enumerate(s) if lo <= len(x) < lo + width]
        if keep:
            hk, rk = [h[k] for k in keep], [r[k] for k in keep]
            rows.append(LengthRow(lo, lo + width - 1, len(keep), exact_match(hk, rk), bleu(hk, rk)))
    return rows
