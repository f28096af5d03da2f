"""Attention between words, and attention aggregated over heads and layers (lesson 07).

Word grouping. GPT-2's byte-level BPE marks a word start with a leading space: a new word starts at
a token that begins with a space or a newline, at the token after a newline, and at a token made
only of punctuation (so "soft," is the two words "soft" and ","). WordPiece marks continuations
with "##". Special tokens ([CLS], [SEP], <|endoftext|>, …) are words of their own.

Word-level attention (Clark et al., 2019). For words s = {s_1..s_a} and t = {t_1..t_b} (token
indices), attention *to* a split word is summed over its pieces and attention *from* a split word
is averaged over its pieces:

    Ã[s, t] = (1/a) Σ_i Σ_j A[s_i, t_j].

If A's rows sum to 1, so do Ã's: Σ_t Ã[s, t] = (1/a) Σ_i Σ_{all j} A[s_i, j] = (1/a) · a = 1.

Across heads and layers (Abnar & Zuidema, 2020), with the residual connection folded in as
Â_l = (1 − r) mean_h A_l + r I, r = ½ by default (rows still sum to 1):
- rollout: R = Â_L Â_{L−1} ⋯ Â_1, so R[s, t] sums over every path from input t to output s the
  product of its edge weights;
- flow: the layered graph has a node per (layer, position) and an edge from (l−1, t) to (l, s) of
  capacity Â_l[s, t]; flow[s, t] is the maximum flow from input t to output s.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
import tiktoken
import torch
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow
from torch import Tensor

from xai_tf.models.loaded import LoadedModel

PUNCTUATION = set(string.punctuation) | {"’", "‘", "“", "”", "—", "–", "…"}
NEWLINES = ("\n", "↵")  # ↵: how xai_tf's token labels show a newline
SPECIAL_TOKENS = {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "<|endoftext|>"}


def _is_punctuation(token: str) -> bool:
    stripped = token.strip()
    return bool(stripped) and all(c in PUNCTUATION for c in stripped)


def word_groups(tokens: Sequence[str], scheme: str = "bpe") -> list[list[int]]:
    """Token indices grouped into words, in order, covering 0..T−1. ``tokens`` are the tokens' text
    (GPT-2: decoded bytes, e.g. " soft", a newline as "\n" or "↵"; WordPiece: "soft", "##ly");
    ``scheme`` is "bpe" or "wordpiece"."""
    if scheme not in ("bpe", "wordpiece"):
        raise ValueError(f"scheme must be 'bpe' or 'wordpiece', got {scheme!r}")
    groups: list[list[int]] = []
    previous = ""
    for i, token in enumerate(tokens):
        if scheme == "wordpiece":
            continues = token.startswith("##")
        else:
            starts = (
                token[:1] in NEWLINES + (" ", "\t") or previous.endswith(NEWLINES) or _is_punctuation(token)
            )
            continues = not starts and not _is_punctuation(previous)
        special = token in SPECIAL_TOKENS or previous in SPECIAL_TOKENS
        if groups and continues and not special:
            groups[-1].append(i)
        else:
            groups.append([i])
        previous = token
    return groups


def words_of(lm: LoadedModel, ids: Sequence[int]) -> tuple[list[str], list[list[int]], list[str]]:
    """``(token labels, word groups, word labels)`` for a loaded model's token ids."""
    tokens = lm.token_strings(list(ids))
    scheme = "bpe" if isinstance(lm.tokenizer, tiktoken.Encoding) else "wordpiece"
    groups = word_groups(tokens, scheme)
    return tokens, groups, word_strings(tokens, groups, scheme)


def attention_of(lm: LoadedModel, text: str) -> tuple[list[str], list[list[int]], list[str], Tensor]:
    """``(token labels, word groups, word labels, attentions [layers, heads, T, T])`` of one text."""
    ids = lm.encode(text)
    return (*words_of(lm, ids), lm.attentions(ids))


def word_strings(tokens: Sequence[str], groups: list[list[int]], scheme: str = "bpe") -> list[str]:
    """Each word's text: its tokens joined (WordPiece's "##" removed, GPT-2's spaces stripped)."""
    if scheme == "wordpiece":
        return ["".join(tokens[i].removeprefix("##") for i in g) for g in groups]
    return ["".join(tokens[i] for i in g).strip() or repr(tokens[g[0]]) for g in groups]


def _check_groups(groups: list[list[int]], T: int) -> None:
    flat = [i for g in groups for i in g]
    if flat != list(range(T)) or any(not g for g in groups):
        raise ValueError(f"groups must be non-empty lists of token indices covering 0..{T - 1} in order")


def word_attention(attn: Tensor, groups: list[list[int]]) -> Tensor:
    """Ã [..., W, W] from token attention A [..., T, T]: summed over the pieces of the attended
    word, averaged over the pieces of the attending word."""
    if attn.dim() < 2 or attn.size(-1) != attn.size(-2):
        raise ValueError(f"attn must be [..., T, T], got {tuple(attn.shape)}")
    _check_groups(groups, attn.size(-1))
    membership = torch.zeros(len(groups), attn.size(-1), dtype=attn.dtype, device=attn.device)
    for w, g in enumerate(groups):
        membership[w, g] = 1.0
    mean_from = membership / membership.sum(-1, keepdim=True)
    return mean_from @ attn @ membership.T


def _check_stack(attentions: Tensor) -> None:
    if attentions.dim() != 4 or attentions.size(-1) != attentions.size(-2):
        raise ValueError(f"attentions must be [layers, heads, T, T], got {tuple(attentions.shape)}")


def aggregate_heads(attentions: Tensor, how: str = "mean") -> Tensor:
    """One [T, T] map per layer from [layers, heads, T, T]: the mean or the max over heads."""
    _check_stack(attentions)
    if how == "mean":
        return attentions.mean(1)
    if how == "max":
        return attentions.amax(1)
    raise ValueError(f"how must be 'mean' or 'max', got {how!r}")


def residual_attention(attentions: Tensor, residual: float = 0.5) -> Tensor:
    """Â_l = (1 − r) mean_h A_l + r I for every layer: [layers, T, T]. r = ``residual`` in [0, 1]
    (½ in Abnar & Zuidema; 0 ignores the residual connection)."""
    _check_stack(attentions)
    if not 0 <= residual <= 1:
        raise ValueError(f"residual must lie in [0, 1], got {residual}")
    eye = torch.eye(attentions.size(-1), dtype=attentions.dtype, device=attentions.device)
    return (1 - residual) * attentions.mean(1) + residual * eye


def attention_rollout(attentions: Tensor, residual: float = 0.5) -> Tensor:
    """R = Â_L ⋯ Â_1 [T, T] from [layers, heads, T, T]: R[s, t] is how much output position s draws
    on input position t through all paths."""
    rollout = torch.eye(attentions.size(-1), dtype=attentions.dtype, device=attentions.device)
    for A_hat in residual_attention(attentions, residual):
        rollout = A_hat @ rollout
    return rollout


#: Capacities are scaled to integers for scipy's exact max-flow: each is rounded by at most
#: 2⁻³¹, so a flow value is off by at most (edges in its minimum cut) × 2⁻³¹ (< 1e-6 for up to
#: 2,000 cut edges). All capacities are ≤ 1 and a flow never exceeds 1 (the rows into an output
#: node sum to 1), so the integers stay below 2³⁰ < 2³¹ − 1.
FLOW_SCALE = 2**30


def attention_flow(attentions: Tensor, residual: float = 0.5, normalize: bool = False) -> Tensor:
    """flow [T, T] from [layers, heads, T, T]: flow[s, t] = max-flow from input position t to
    output position s through the layered graph with capacities Â_l (see the module docstring).
    Each flow is at most 1; with ``normalize`` each row is divided by its sum, to compare with rollout."""
    A_hat = residual_attention(attentions, residual).double().cpu().numpy()
    L, T, _ = A_hat.shape
    rows, cols, caps = [], [], []
    for layer in range(L):  # edge (layer, t) → (layer + 1, s) with capacity Â_{layer+1}[s, t]
        s, t = np.nonzero(A_hat[layer] > 0)
        rows.append(layer * T + t)
        cols.append((layer + 1) * T + s)
        caps.append(np.rint(A_hat[layer][s, t] * FLOW_SCALE).astype(np.int32))
    n = (L + 1) * T
    graph = csr_matrix((np.concatenate(caps), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    flow = np.zeros((T, T))
    for s in range(T):
        for t in range(T):
            flow[s, t] = maximum_flow(graph, t, L * T + s).flow_value / FLOW_SCALE
    if normalize:
        flow /= flow.sum(-1, keepdims=True)
    return torch.from_numpy(flow).to(attentions)


def head_statistics(attentions: Tensor, tokens: Sequence[str]) -> dict[str, Tensor]:
    """For each layer and head ([layers, heads] each), the attention averaged over the queries that
    goes to special tokens ([CLS], [SEP], <|endoftext|>), to punctuation tokens, to the previous
    token (queries 1..T−1) and to the first token."""
    _check_stack(attentions)
    T = attentions.size(-1)
    if len(tokens) != T:
        raise ValueError(f"{len(tokens)} tokens for attention over {T} positions")
    special = torch.tensor([t in SPECIAL_TOKENS for t in tokens], device=attentions.device)
    punctuation = torch.tensor([_is_punctuation(t) for t in tokens], device=attentions.device)
    previous = attentions.diagonal(offset=-1, dim1=-2, dim2=-1)  # A[i, i − 1]
    return {
        "special": attentions[..., special].sum(-1).mean(-1),
        "punctuation": attentions[..., punctuation].sum(-1).mean(-1),
        "previous": previous.mean(-1) if T > 1 else attentions.new_zeros(attentions.shape[:2]),
        "first": attentions[..., 0].mean(-1),
    }
