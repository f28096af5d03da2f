"""Lesson 16's numbers over draws: what ``scripts/train_seq2seq.py`` recorded for every seed of every
model (``shipped.recorded()``), as arrays a lesson plots and a claim test bounds; and where one
attention map disagrees with the gold alignment.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

from xai_tf import _checks
from xai_tf.seq2seq import data, shipped


def draws(name: str) -> list[dict]:
    """The recorded draws (one per seed, in seed order) of model ``name`` (one of ``shipped.NAMES``)."""
    if name not in shipped.NAMES:
        raise ValueError(f"name must be one of {', '.join(shipped.NAMES)}, got {name!r}")
    return [d for d in shipped.recorded()["draws"] if d["name"] == name]


def by_length(name: str, metric: str = "bleu") -> tuple[list[str], np.ndarray]:
    """Bucket labels ("3–7", …) and ``metric`` ("bleu" or "exact") per draw and bucket [draws, buckets]."""
    if metric not in ("bleu", "exact"):
        raise ValueError(f"metric must be 'bleu' or 'exact', got {metric!r}")
    rows = [d["by_length"] for d in draws(name)]
    labels = [f"{r['lo']}–{r['hi']}" for r in rows[0]]
    return labels, np.array([[r[metric] for r in row] for row in rows])


def per_draw(name: str, key: str) -> np.ndarray:
    """One recorded number per draw: ``key`` is "exact", "bleu" or "aer" (attention models only)."""
    if key not in ("exact", "bleu", "aer"):
        raise ValueError(f"key must be 'exact', 'bleu' or 'aer', got {key!r}")
    ds = draws(name)
    if key not in ds[0]:
        raise ValueError(f"model {name!r} has no attention: it has no {key}")
    return np.array([d[key] for d in ds])


def exposure(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Mean word accuracy per draw under teacher forcing and under free running (weighted by how many
    references reach each position)."""
    forced, free = [], []
    for d in draws(name):
        n = np.array(d["n"])
        forced.append(float(np.dot(d["forced"], n) / n.sum()))
        free.append(float(np.dot(d["free"], n) / n.sum()))
    return np.array(forced), np.array(free)


def beam_rows(name: str, key: str = "bleu") -> dict[str, np.ndarray]:
    """``key`` ("bleu", "exact" or "length_ratio") of greedy decoding and of beam search (width 5,
    α = 0 and 1) on the first 150 test sentences, one number per draw that has them (seed 0 always;
    ``scripts/train_seq2seq.py --beam-draws`` adds seeds 1–19): {"greedy": […], "beam5 alpha=0": […], …}."""
    if key not in ("bleu", "exact", "length_ratio"):
        raise ValueError(f"key must be 'bleu', 'exact' or 'length_ratio', got {key!r}")
    ds = [d for d in draws(name) if "beam" in d]
    return {setting: np.array([d["beam"][setting][key] for d in ds]) for setting in ds[0]["beam"]}


def aer_curves(name: str) -> tuple[list[int], np.ndarray]:
    """Training steps and the dev AER at each, per draw [draws, steps] (attention models only)."""
    ds = draws(name)
    if "dev_aer_curve" not in ds[0]:
        raise ValueError(f"model {name!r} has no attention: it has no AER curve")
    steps = sorted(int(k) for k in ds[0]["dev_aer_curve"])
    return steps, np.array([[d["dev_aer_curve"][str(k)] for k in steps] for d in ds])


def disagreements(attention: torch.Tensor, links: set[tuple[int, int]]) -> list[tuple[int, int, list[int]]]:
    """The target words i whose argmax attention j is not one of their gold source words:
    (i, argmax_j α_ij, sorted gold j's) for each."""
    a = _checks.real_tensor("attention", attention, dims=2)
    if a.numel() == 0:
        raise ValueError(f"attention must be α [|y|, |x|] with both ≥ 1, got shape {tuple(a.shape)}")
    if not isinstance(links, set | frozenset):
        raise TypeError(f"links must be a set of (i, j) pairs, got {type(links).__name__}")
    out = []
    for i in range(a.size(0)):
        j = int(a[i].argmax())
        gold = sorted(jj for ii, jj in links if ii == i)
        if j not in gold:
            out.append((i, j, gold))
    return out


def disagreement_kinds(maps: list[torch.Tensor], links: list[set[tuple[int, int]]]) -> dict[str, int]:
    """Over many attention maps: how many target words there are, how many disagree with the gold
    alignment (``disagreements``), and of those how many attend to the source word just before their
    first gold partner, just after their last, or elsewhere."""
    if not isinstance(maps, list | tuple) or not isinstance(links, list | tuple) or len(maps) != len(links):
        raise TypeError("maps and links must be lists of one attention map and one link set per sentence")
    for k, a in enumerate(maps):
        _checks.real_tensor(f"maps[{k}]", a, dims=2)
    kinds = {"words": 0, "disagree": 0, "just before": 0, "just after": 0, "elsewhere": 0}
    for a, gold_links in zip(maps, links, strict=True):
        kinds["words"] += int(a.size(0))
        for _, j, gold in disagreements(a, gold_links):
            kinds["disagree"] += 1
            kinds[_kind(j, gold)] += 1
    return kinds


def early_words(maps: list[torch.Tensor], pairs: list[data.Pair]) -> Counter[str]:
    """How often each target word attends most to the source word just before its first gold partner
    (``disagreement_kinds``' "just before"), over one attention map [|y|, |x|] per pair."""
    if not isinstance(maps, list | tuple) or not isinstance(pairs, list | tuple) or len(maps) != len(pairs):
        raise TypeError("maps and pairs must be lists of one attention map and one pair per sentence")
    for k, a in enumerate(maps):
        _checks.real_tensor(f"maps[{k}]", a, dims=2)
    return Counter(
        pair.target[i]
        for a, pair in zip(maps, pairs, strict=True)
        for i, j, gold in disagreements(a, pair.links)
        if _kind(j, gold) == "just before"
    )


def _kind(j: int, gold: list[int]) -> str:
    """Where the argmax j of a disagreeing row lies against its sorted gold source words."""
    if gold and j == gold[0] - 1:
        return "just before"
    return "just after" if gold and j == gold[-1] + 1 else "elsewhere"
