"""Syntactic heads by a part-of-speech proxy (lesson 19), in the style of Clark et al. (2019).

Clark et al. ask, per dependency relation, how often a head's most attended word is the related word.
Attention between words: from a word w (tokens i ∈ w) to a word u (tokens j ∈ u),

    α(w → u) = mean_{i ∈ w} Σ_{j ∈ u} A[i, j]     (their conversion: sum over the to-word's pieces,
                                                      mean over the from-word's),

and a head "finds" the relation for a pair (w, u) when argmax_{u′} α(w → u′) = u. Its accuracy is the
share of the relation's pairs it finds, set against Clark et al.'s **fixed-offset baseline**: always
predict the word at the relation's most common offset o* = index(u) − index(w), whose accuracy is the
share of pairs at offset o*.

Here there are no dependency parses (no parser or treebank installs offline), so the pairs are defined
by part of speech (``pos``: TextBlob's PatternTagger, noisy on Early Modern English): a **proxy**, not a
dependency relation. A pair is a determiner followed by a noun with only adjectives and adverbs between
them ("the spirit", "this most noble lord"; a line break is a word tagged "other" and ends a pair): the
noun is the query w, the determiner the target u — the direction a causal head can see (in Clark et
al.'s terms the head word attending to its dependent, "det"). Word groups as lesson 07's ``word_groups``.

Where the baseline cannot help — the pairs at any other offset than o* ("away": determiners separated
from their noun by adjectives) — a head's "accuracy away" says whether it finds the determiner beyond
a fixed offset.
"""

from __future__ import annotations

from collections import Counter

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain.wordlevel import words_of
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows
from xai_tf.probing.pos import COARSE

_BETWEEN = {"adj", "adv"}


def pos_pairs(tags: list[str]) -> list[tuple[int, int]]:
    """``(noun, determiner)`` word index pairs of one window, given each word's coarse tag: every noun
    whose nearest preceding word not tagged adj or adv is a determiner."""
    if not isinstance(tags, list) or any(t not in COARSE for t in tags):
        raise ValueError(f"tags must be a list of coarse tags from {COARSE}")
    pairs = []
    for w, tag in enumerate(tags):
        u = w - 1
        while tag == "noun" and u >= 0 and tags[u] in _BETWEEN:
            u -= 1
        if tag == "noun" and u >= 0 and tags[u] == "det":
            pairs.append((w, u))
    return pairs


def word_attention(A: Tensor, groups: list[list[int]]) -> Tensor:
    """α(w → u) ``[..., W, W]`` from token attention ``A [..., T, T]`` and the window's word groups."""
    A = _checks.real_tensor("A", A)
    T = A.size(-1) if A.dim() else 0
    if not isinstance(groups, list | tuple) or not all(
        isinstance(g, list | tuple) and all(isinstance(i, int) and not isinstance(i, bool) for i in g)
        for g in groups
    ):
        raise TypeError("groups must be a list of words, each a list of token positions (integers)")
    if sorted(i for g in groups for i in g) != list(range(T)):
        raise ValueError(f"groups must split the window's {T} tokens into words, each token once")
    member = torch.zeros(len(groups), T, dtype=A.dtype)
    for k, g in enumerate(groups):
        member[k, g] = 1
    to_words = A @ member.T  # [..., T, W]: Σ_{j ∈ u} A[i, j]
    return (member / member.sum(-1, keepdim=True)) @ to_words  # mean over i ∈ w


def determiner_heads(lm: LoadedModel, windows: Tensor, pos_labels: Tensor) -> dict[str, object]:
    """Per head ``[L, H]`` the share of pairs it finds ("accuracy"), the fixed-offset baseline
        ("baseline", with its "offset" o*), the number of "pairs", and the same on the pairs away from o*
    ("accuracy away", NaN where there are none, and "pairs away"), over token windows ``[n, T]`` with
        their coarse tags per token (``pos.pos_labels``, flattened)."""
    lm = _windows.loaded(lm)
    windows = _windows.checked(lm, windows)
    n, T = windows.shape
    if (
        not isinstance(pos_labels, Tensor)
        or pos_labels.shape != (n * T,)
        or pos_labels.is_floating_point()
        or (pos_labels.numel() and not 0 <= int(pos_labels.min()) <= int(pos_labels.max()) < len(COARSE))
    ):
        raise ValueError(f"pos_labels must be a tensor of {n * T} tags, one per token of windows")
    tags = pos_labels.view(n, T).tolist()
    found, offsets = [], []
    for w, row in zip(windows, tags, strict=True):
        groups = words_of(lm, w.tolist())[1]
        pairs = pos_pairs([COARSE[row[g[0]]] for g in groups])
        if not pairs:
            continue
        alpha = word_attention(lm.attentions(w[None]).float().cpu(), groups)  # [L, H, W, W]
        query, target = torch.tensor(pairs).T
        found.append(alpha[..., query, :].argmax(-1) == target)  # [L, H, pairs]
        offsets += [u - q for q, u in pairs]
    if not offsets:
        raise ValueError("windows hold no determiner–noun pair: give more text")
    hit, offset = torch.cat(found, -1).float(), torch.tensor(offsets)
    best, at_best = Counter(offsets).most_common(1)[0]
    away = offset != best
    return {
        "accuracy": hit.mean(-1),
        "baseline": at_best / len(offsets),
        "offset": best,
        "pairs": len(offsets),
        "accuracy away": hit[..., away].mean(-1) if away.any() else torch.full(hit.shape[:2], float("nan")),
        "pairs away": int(away.sum()),
    }
