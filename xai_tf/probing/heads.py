"""Specialised heads (Voita et al. 2019; lesson 19), each measured against position alone.

For a head with attention A (rows sum to 1) over a window of T tokens, and a query s with a set of
key positions S(s) ("targets"), the head's share is the attention mass on the targets, averaged over
the queries that have targets:

    share = mean_s Σ_{t ∈ S(s)} A[s, t].

Targets: "previous" S(s) = {s − 1}; "next" {s + 1} (an encoder only: a causal head cannot see it);
"rare" {the rarest token among the keys t ≠ s the query sees}, rarity by count in the probing text
(ties: the earliest); "same word" {the other pieces t ≠ s of the query's own word} (sub-word merging,
words as lesson 07's ``word_groups``).

Position alone. A head that looked only at relative offsets would put P[s − t] on key t, P[o] the
head's mean attention at offset o over all windows; renormalised over the keys the query sees
(V(s): t ≤ s for a causal model, all t for an encoder), it expects

    expected = mean_s Σ_{t ∈ S(s)} P[s − t] / Σ_{t ∈ V(s)} P[s − t].

A ratio share / expected well above 1 says the head seeks the targets for what they are, not where.
For "previous" and "next" the targets *are* an offset, so position alone explains them by definition
(expected = share): those are compared with uniform attention, Σ_{t ∈ S(s)} 1 / |V(s)|, instead. Voita
et al.'s own criterion is also given: "top", the share of queries whose most attended key is a target.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain.wordlevel import words_of
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows

KINDS = ("previous", "next", "rare", "same word")


def _targets(kind: str, T: int, groups: list[list[int]], counts: Sequence[int], causal: bool) -> Tensor:
    """The [T, T] 0/1 mask of S(s) (rows: queries s, columns: keys t) for one window; ``counts[i]`` is
    the count of token i's type (used by "rare")."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    S = torch.zeros(T, T)
    idx = torch.arange(T - 1)
    if kind == "previous":
        S[idx + 1, idx] = 1
    elif kind == "next" and not causal:
        S[idx, idx + 1] = 1
    elif kind == "rare":
        for s in range(T):
            keys = [t for t in (range(s) if causal else range(T)) if t != s]
            if len(keys) >= 2:
                S[s, min(keys, key=lambda t: (counts[t], t))] = 1
    elif kind == "same word":
        for g in groups:
            for s in g:
                S[s, [t for t in g if t != s and (t < s or not causal)]] = 1
    return S


def target_share(A: Tensor, S: Tensor) -> Tensor:
    """share = mean_s Σ_{t ∈ S(s)} A[s, t] over the queries s that have targets: attention ``A [..., T, T]``
    (rows: queries s, columns: keys t) and the 0/1 targets ``S [T, T]`` → ``[...]`` (one value per head)."""
    A = _checks.real_tensor("A", A)
    if A.dim() < 2 or A.shape[-1] != A.shape[-2] or not isinstance(S, Tensor) or S.shape != A.shape[-2:]:
        raise ValueError(
            f"A must be [..., T, T] and S [T, T], got {tuple(A.shape)} and {getattr(S, 'shape', S)}"
        )
    if S.is_complex() or (S.is_floating_point() and not torch.isfinite(S).all()):
        raise ValueError("S must hold 0/1 targets (finite), got NaN or ±inf")
    rows = S.sum(-1) > 0
    if not bool(rows.any()):
        raise ValueError("S has no targets: no query to average over")
    return (A * S.to(A)).sum(-1)[..., rows].mean(-1)


def _offset_profile(A: Tensor) -> Tensor:
    """P[l, h, o] for o = −(T−1)..T−1 (index o + T − 1): mean attention at offset o = s − t over the
    queries that have a key there, from attentions ``A [windows, L, H, T, T]``."""
    T = A.size(-1)
    s, t = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="ij")
    offset = (s - t + T - 1).flatten()
    total = torch.zeros(*A.shape[1:3], 2 * T - 1).index_add_(-1, offset, A.sum(0).flatten(-2).float())
    n = torch.bincount(offset, minlength=2 * T - 1) * A.size(0)
    return total / n


def head_shares(
    lm: LoadedModel, windows: Tensor, counts: Tensor, share: Callable[[Tensor, Tensor], Tensor] = target_share
) -> dict[str, dict[str, Tensor]]:
    """For each kind of target: "share", "expected" (position alone), "uniform" and "top" ``[L, H]``,
    and "queries" (how many queries had targets), over token windows ``[n, T]``; ``counts[v]`` is how
    often token id v occurs. ``share(A, S)`` is ``target_share`` (a lesson passes a student's): each
    window's value is weighted by its number of queries with targets."""
    lm = _windows.loaded(lm)
    windows = _windows.checked(lm, windows)
    if (
        not isinstance(counts, Tensor)
        or counts.shape != (lm.vocab_size,)
        or counts.is_floating_point()
        or bool((counts < 0).any())
    ):
        raise ValueError(
            f"counts must be a tensor of {lm.vocab_size} token counts (one per id), e.g. text_windows'"
        )
    T, causal = windows.size(1), lm.kind == "causal"
    A = torch.stack([lm.attentions(w[None]).float().cpu() for w in windows])  # [n, L, H, T, T]
    P = _offset_profile(A)
    s, t = torch.meshgrid(torch.arange(T), torch.arange(T), indexing="ij")
    expect_map = P[..., s - t + T - 1]  # [L, H, T, T]: P[s − t]
    if causal:
        expect_map = expect_map * (t <= s)
    expect_map = expect_map / expect_map.sum(-1, keepdim=True)
    uniform = (t <= s).float() if causal else torch.ones(T, T)
    uniform = uniform / uniform.sum(-1, keepdim=True)
    groups = [words_of(lm, w.tolist())[1] for w in windows.cpu()]
    out = {}
    for kind in KINDS:
        sums = {key: torch.zeros(A.shape[1:3]) for key in ("share", "expected", "uniform", "top")}
        n = 0
        for a, w, g in zip(A, windows.cpu(), groups, strict=True):
            S = _targets(kind, T, g, counts[w].tolist(), causal)
            rows = S.sum(-1) > 0
            k = int(rows.sum())
            if k == 0:
                continue
            sums["share"] += share(a, S) * k
            sums["expected"] += share(expect_map, S) * k
            sums["uniform"] += share(uniform, S) * k
            sums["top"] += S[torch.arange(T), a.argmax(-1)][..., rows].sum(-1)
            n += k
        out[kind] = {key: v / max(n, 1) for key, v in sums.items()} | {"queries": torch.tensor(n)}
    return out


def text_windows(lm: LoadedModel, text: str, n: int = 16, T: int = 48) -> tuple[Tensor, Tensor]:
    """(``n`` windows of ``T`` token ids spread evenly over ``text``, counts of every token id in the
    whole text). An encoder's windows open with its [CLS] and close with [SEP], as it was trained; its
    special tokens count as the commonest, never as rare."""
    lm = _windows.loaded(lm)
    _checks.integer("n", n, 1)
    _checks.integer("T", T, 3, lm.n_ctx)
    if not isinstance(text, str) or not text.strip():
        raise ValueError("text is empty: pass a play's text (corpus.read_plays())")
    tok = lm.tokenizer
    encoder = lm.kind == "encoder"
    ids = tok(text, add_special_tokens=False, verbose=False)["input_ids"] if encoder else tok.encode(text)
    width = T - 2 if encoder else T
    if len(ids) < n * width:
        raise ValueError(f"text has {len(ids)} tokens: too short for n = {n} windows of T = {T}")
    counts = torch.bincount(torch.tensor(ids), minlength=lm.vocab_size)
    starts = [round(k * (len(ids) - width) / max(1, n - 1)) for k in range(n)]
    chunks = [ids[s : s + width] for s in starts]
    if encoder:
        chunks = [[tok.cls_token_id, *c, tok.sep_token_id] for c in chunks]
        counts[tok.all_special_ids] = counts.max() + 1
    return torch.tensor(chunks), counts
