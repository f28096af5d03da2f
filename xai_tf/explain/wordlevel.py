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
Â_l = (1 − r) mean_h A_l + r I, r = ½ by default (rows still sum to 1; a row of A that is all
zeros, a query that sees nothing, becomes r on the diagonal and nothing else):
- rollout: R = Â_L Â_{L−1} ⋯ Â_1, so R[s, t] sums over every path from input t to output s the
  product of its edge weights;
- flow: the layered graph has a node per (layer, position) and an edge from (l−1, t) to (l, s) of
  capacity Â_l[s, t]; flow[s, t] is the maximum flow from input t to output s.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence

import numpy as np
import tiktoken
import torch
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_flow
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.models.tokenizer_json import JSONTokenizer

PUNCTUATION = set(string.punctuation) | {"’", "‘", "“", "”", "—", "–", "…"}
NEWLINES = ("\n", "↵")  # ↵: how xai_tf's token labels show a newline
SPECIAL_TOKENS = {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]", "<|endoftext|>"}


def _is_punctuation(token: str) -> bool:
    stripped = token.strip()
    return bool(stripped) and all(c in PUNCTUATION for c in stripped)


def _check_scheme(scheme: str) -> None:
    if scheme not in ("bpe", "wordpiece"):
        raise ValueError(f"scheme must be 'bpe' or 'wordpiece', got {scheme!r}")


def word_groups(tokens: Sequence[str], scheme: str = "bpe") -> list[list[int]]:
    """Token indices grouped into words, in order, covering 0..T−1. ``tokens`` are the tokens' text
    (GPT-2: decoded bytes, e.g. " soft", a newline as "\n" or "↵"; WordPiece: "soft", "##ly");
    ``scheme`` is "bpe" or "wordpiece"."""
    _check_scheme(scheme)
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
    if len(ids) == 0:
        raise ValueError("ids is empty: a text needs at least one token")
    tokens = lm.token_strings(list(ids))
    # tiktoken's and a checkpoint's tokenizer.json label tokens by their bytes: a word starts with a space
    scheme = "bpe" if isinstance(lm.tokenizer, (tiktoken.Encoding, JSONTokenizer)) else "wordpiece"
    groups = word_groups(tokens, scheme)
    return tokens, groups, word_strings(tokens, groups, scheme)


def attention_of(lm: LoadedModel, text: str) -> tuple[list[str], list[list[int]], list[str], Tensor]:
    """``(token labels, word groups, word labels, attentions [layers, heads, T, T])`` of one text."""
    ids = lm.encode(text)
    return (*words_of(lm, ids), lm.attentions(ids))


def word_strings(tokens: Sequence[str], groups: list[list[int]], scheme: str = "bpe") -> list[str]:
    """Each word's text: its tokens joined (WordPiece's "##" removed, GPT-2's spaces stripped)."""
    _check_scheme(scheme)
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
    if not isinstance(attentions, Tensor):
        raise TypeError(
            f"attentions must be a torch.Tensor [layers, heads, T, T], got {type(attentions).__name__}"
        )
    if attentions.dim() != 4 or attentions.size(-1) != attentions.size(-2) or 0 in attentions.shape:
        raise ValueError(
            "attentions must be [layers, heads, T, T] with at least one of each, "
            f"got {tuple(attentions.shape)}"
        )
    if not attentions.is_floating_point() or not torch.isfinite(attentions).all():
        raise ValueError("attentions must hold finite floating-point weights (no NaN or inf)")


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
    residual = _checks.real("residual", residual, 0, 1)
    eye = torch.eye(attentions.size(-1), dtype=attentions.dtype, device=attentions.device)
    return (1 - residual) * attentions.mean(1) + residual * eye


def attention_rollout(attentions: Tensor, residual: float = 0.5) -> Tensor:
    """R = Â_L ⋯ Â_1 [T, T] from [layers, heads, T, T]: R[s, t] is how much output position s draws
    on input position t through all paths."""
    rollout = torch.eye(attentions.size(-1), dtype=attentions.dtype, device=attentions.device)
    for A_hat in residual_attention(attentions, residual):
        rollout = A_hat @ rollout
    return rollout


#: scipy's exact max-flow takes int32 capacities (int64 ones are silently cut to int32), so
#: capacities are scaled to integers below this bound (see ``attention_flow``).
INT32_MAX = 2**31 - 1


def attention_flow(attentions: Tensor, residual: float = 0.5, normalize: bool = False) -> Tensor:
    """flow [T, T] from [layers, heads, T, T]: flow[s, t] = max-flow from input position t to
    output position s through the layered graph with capacities Â_l (see the module docstring).

    Unnormalised by default: with attention rows that sum to 1 each flow is at most 1. With
    ``normalize`` each row is divided by its sum, to compare with rollout; a row with no flow at all
    stays 0. Attentions must be finite and ≥ 0 (any weights, not only rows summing to 1).

    Exactness: capacities are scaled by 2^k, the largest power of two that keeps every capacity and
    every flow (≤ the largest row sum B of any Â_l) within int32, and rounded; a flow value is then
    off by at most (edges in its minimum cut) × 2^−(k+1). For rows that sum to 1, B = 1 and k = 30.
    """
    _check_stack(attentions)
    if (attentions < 0).any():
        raise ValueError("attentions must be ≥ 0: flow capacities cannot be negative")
    A_hat = residual_attention(attentions, residual).double().cpu().numpy()
    L, T, _ = A_hat.shape
    bound = A_hat.sum(-1).max()
    scale = 2.0 ** np.floor(np.log2(INT32_MAX / bound)) if bound > 0 else 1.0
    rows, cols, caps = [], [], []
    for layer in range(L):  # edge (layer, t) → (layer + 1, s) with capacity Â_{layer+1}[s, t]
        ss, ts = np.nonzero(A_hat[layer] > 0)  # every edge's s and t
        rows.append(layer * T + ts)
        cols.append((layer + 1) * T + ss)
        caps.append(np.rint(A_hat[layer][ss, ts] * scale).astype(np.int32))
    n = (L + 1) * T
    graph = csr_matrix((np.concatenate(caps), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))
    flow = np.zeros((T, T))
    for s in range(T):
        for t in range(T):
            flow[s, t] = maximum_flow(graph, t, L * T + s).flow_value / scale
    if normalize:
        totals = flow.sum(-1, keepdims=True)
        flow = np.divide(flow, totals, out=np.zeros_like(flow), where=totals > 0)
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
    return {
        "special": attentions[..., special].sum(-1).mean(-1),
        "punctuation": attentions[..., punctuation].sum(-1).mean(-1),
        "previous": previous_token_share(attentions),
        "first": attentions[..., 0].mean(-1),
    }


def previous_token_share(attentions: Tensor) -> Tensor:
    """prev_{l,h} = (1/(T−1)) Σ_{i=1}^{T−1} A_{l,h}[i, i − 1] [layers, heads]: the attention a query
    gives the token just before it, averaged over the queries that have one (0 when T = 1)."""
    _check_stack(attentions)
    if attentions.size(-1) == 1:
        return attentions.new_zeros(attentions.shape[:2])
    return attentions.diagonal(offset=-1, dim1=-2, dim2=-1).mean(-1)


def received_per_word(attentions: Tensor, groups: list[list[int]]) -> Tensor:
    """received(w) = mean_{l,h} (1/T) Σ_s Σ_{i ∈ w} A_{l,h}[s, i] [W]: the attention each word receives
    (to its pieces, summed), averaged over the queries s, the heads and the layers. Sums to 1 over the
    words when A's rows sum to 1."""
    _check_stack(attentions)
    _check_groups(groups, attentions.size(-1))
    to_token = attentions.mean((0, 1)).mean(0)  # [T]: attention each token receives, per query
    return torch.stack([to_token[g].sum() for g in groups])


def attention_received(
    attentions: Tensor, tokens: Sequence[str], groups: list[list[int]]
) -> dict[str, float]:
    """How much attention a word receives, averaged over the words of each kind — lesson 07's test of
    the lecture's conjecture that special tokens draw attention *because they are never split*:

        received(w) = mean_{l,h} (1/T) Σ_s Σ_{i ∈ w} A_{l,h}[s, i]   (to w's pieces; mean over queries)

    for the kinds "special" ([CLS], [SEP], …), "one piece" (an ordinary word of one token) and "several
    pieces". Uniform attention gives a one-piece word 1/T and a k-piece word k/T; if being unsplit were
    what draws attention, one-piece words would receive about what special tokens do. A kind with no
    word is left out. Σ_w received(w) = 1 over all words when A's rows sum to 1."""
    _check_stack(attentions)
    T = attentions.size(-1)
    if len(tokens) != T:
        raise ValueError(f"{len(tokens)} tokens for attention over {T} positions")
    received = received_per_word(attentions, groups)
    kinds: dict[str, list[float]] = {"special": [], "one piece": [], "several pieces": []}
    for g, r in zip(groups, received.tolist(), strict=True):
        kind = (
            "special" if tokens[g[0]] in SPECIAL_TOKENS else "one piece" if len(g) == 1 else "several pieces"
        )
        kinds[kind].append(r)
    return {kind: sum(values) / len(values) for kind, values in kinds.items() if values}


#: One [T, T] map from every layer's and head's attention (lesson 07's panel):
#: ``(attentions [L, H, T, T], layer, head) -> (A, what)``.
Aggregate = Callable[[Tensor, int, int], tuple[Tensor, str]]

#: Flow solves T² max-flow problems on a graph of L·T² edges: it is offered up to this many tokens
#: (0.47 s for 40 tokens on the bundled model, measured; about 30 s for 120).
FLOW_MAX_TOKENS = 40


def _flow(attentions: Tensor) -> Tensor:
    T = attentions.size(-1)
    if T > FLOW_MAX_TOKENS:
        raise ValueError(
            f"flow is offered for up to {FLOW_MAX_TOKENS} tokens, this text has {T}: use rollout"
        )
    return attention_flow(attentions, normalize=True)


AGGREGATIONS: dict[str, Aggregate] = {
    "one head": lambda A, layer, head: (A[layer, head], f"layer {layer}, head {head}"),
    "mean of heads": lambda A, layer, head: (
        aggregate_heads(A, "mean")[layer],
        f"layer {layer}, mean of heads",
    ),
    "max of heads": lambda A, layer, head: (
        aggregate_heads(A, "max")[layer],
        f"layer {layer}, max of heads",
    ),
    "rollout": lambda A, layer, head: (attention_rollout(A), "rollout over all layers"),
    "flow": lambda A, layer, head: (_flow(A), "flow over all layers (rows normalised)"),
}
