"""Attention from scratch (lessons 01–02): score functions, masks, single-, multi-head and cross attention.

Notation of the lecture: a query q ∈ ℝ^{d_att}, keys k_1..k_T and values v_1..v_T (rows of K and V).
Attention scores z_t = score(k_t, q), weights α = π(z) on the probability simplex (a map of
``xai_tf.attention.maps``), output ṽ = Σ_t α_t v_t. For a whole sequence E = E(x) ∈ ℝ^{T×d_e} and
W_q, W_k ∈ ℝ^{d_att×d_e}, W_v ∈ ℝ^{d_out×d_e} (stored [out, in], as ``torch.nn.Linear`` stores them):
Q = E W_qᵀ, K = E W_kᵀ, V = E W_vᵀ and A = π(Q Kᵀ / √d_att).

Masks are boolean and say where a query **may** attend (True = visible). A masked score becomes
−∞, which every map sends to probability 0; a row with no visible position gives all zeros. A bad
argument (a float mask, ``n_heads`` not dividing d_att, a negative T) gets a TypeError or ValueError
that names it and what is allowed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.attention.maps import softmax

# ---------------------------------------------------------------- score functions


def _sizes(**named: tuple[Tensor, tuple[int | None, ...]]) -> None:
    """Each tensor has the trailing sizes given (None: any), else a ValueError naming it."""
    for name, (x, want) in named.items():
        got = tuple(_checks.tensor(name, x).shape[-len(want) :]) if x.dim() >= len(want) else ()
        if len(got) != len(want) or any(w is not None and g != w for g, w in zip(got, want, strict=True)):
            shown = ", ".join("…" if w is None else str(w) for w in want)
            raise ValueError(f"{name} must be [{shown}], got {tuple(x.shape)}")


def _project(x_name: str, X: Tensor, w_name: str, W: Tensor, b: Tensor | None = None) -> Tensor:
    """E Wᵀ (+ b) for ``E [..., d_e]``, ``W [d_att, d_e]`` (the lecture's orientation) and ``b [d_att]``."""
    if _checks.tensor(w_name, W).dim() != 2:
        raise ValueError(f"{w_name} must be a matrix [d_att, d_e], got shape {tuple(W.shape)}")
    if _checks.tensor(x_name, X).size(-1) != W.size(1):
        raise ValueError(
            f"{x_name} has size {X.size(-1)} but {w_name} [d_att, d_e] expects d_e = {W.size(1)}"
        )
    if b is None:
        return X @ W.T
    if _checks.tensor(f"the bias of {w_name}", b).shape != (W.size(0),):
        raise ValueError(f"the bias of {w_name} must have shape ({W.size(0)},), got {tuple(b.shape)}")
    return X @ W.T + b


def dot_scores(Q: Tensor, K: Tensor) -> Tensor:
    """z_ij = k_jᵀ q_i. ``Q [..., n, d]``, ``K [..., m, d]`` → ``[..., n, m]``."""
    if _checks.tensor("Q", Q).size(-1) != _checks.tensor("K", K).size(-1):
        raise ValueError(f"queries have size {Q.size(-1)} but keys {K.size(-1)}: they must match")
    return Q @ K.transpose(-2, -1)


def scaled_dot_scores(Q: Tensor, K: Tensor) -> Tensor:
    """z_ij = k_jᵀ q_i / √d, which keeps the scores' variance near 1 for random unit-variance q, k."""
    return dot_scores(Q, K) / math.sqrt(Q.size(-1))


def bilinear_scores(Q: Tensor, K: Tensor, W: Tensor) -> Tensor:
    """z_ij = k_jᵀ W q_i with ``W [d_k, d_q]`` (Luong et al., 2015)."""
    _sizes(W=(W, (K.size(-1), Q.size(-1))))
    return K.unsqueeze(-3).matmul((Q @ W.T).unsqueeze(-1)).squeeze(-1)


def additive_scores(Q: Tensor, K: Tensor, W1: Tensor, W2: Tensor, v: Tensor) -> Tensor:
    """z_ij = vᵀ tanh(W₁ k_j + W₂ q_i) (Bahdanau et al., 2015).

    ``W1 [h, d_k]``, ``W2 [h, d_q]``, ``v [h]``."""
    h = _checks.tensor("W1", W1).size(0)
    _sizes(W1=(W1, (h, K.size(-1))), W2=(W2, (h, Q.size(-1))), v=(v, (h,)))
    hidden = torch.tanh((K @ W1.T).unsqueeze(-3) + (Q @ W2.T).unsqueeze(-2))  # [..., n, m, h]
    return hidden @ v


# ---------------------------------------------------------------- masks


def causal_mask(T: int, device: torch.device | None = None) -> Tensor:
    """M_ij = (j ≤ i): position i sees itself and the past, never the future (GPT-2). ``[T, T]``."""
    T = _checks.integer("T", T, 0)
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: Tensor | list[int], T: int) -> Tensor:
    """Keys j < length of each sequence are visible: ``[batch, 1, T]`` (broadcasts over queries),
    on the device of ``lengths`` (the CPU for a list)."""
    T = _checks.integer("T", T, 0)
    lengths = torch.as_tensor(lengths, device=lengths.device if isinstance(lengths, Tensor) else "cpu")
    if lengths.is_floating_point() or lengths.is_complex() or lengths.dtype == torch.bool:
        raise TypeError(f"lengths must be integers, got {lengths.dtype}")
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be 1-D (one length per sequence), got shape {tuple(lengths.shape)}")
    if (lengths < 0).any() or (lengths > T).any():
        raise ValueError(f"lengths must lie in 0..{T}, got {lengths.tolist()}")
    return (torch.arange(T, device=lengths.device) < lengths[:, None]).unsqueeze(-2)


def masked_softmax(scores: Tensor, mask: Tensor) -> Tensor:
    """A(x, M) = softmax(z + M), M = 0 where ``mask`` is True (visible) and −∞ elsewhere: masked weights
    are exactly 0 and a row with nothing visible is all zeros. ``mask`` (bool) broadcasts to ``scores``."""
    if not (isinstance(mask, Tensor) and mask.dtype == torch.bool):
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise TypeError(f"mask must be a bool tensor (True = visible), got {got}")
    return softmax(scores.masked_fill(~mask, float("-inf")))


def lecture_causal_mask(T: int) -> Tensor:
    """The causal mask **as the lecture writes it** (lesson 02's errata), float ``[T, T]``:

        M_{s,t} = −∞ if s ≤ t,  1 otherwise      (s the query, t the key)

    It is the wrong way round — it hides the key at the query's own position and every later one,
    and keeps the past — and "1" cannot be both added and multiplied: see ``lecture_masked_attention``.
    The mask the package uses is ``causal_mask`` (visible iff t ≤ s, add −∞ elsewhere).
    """
    T = _checks.integer("T", T, 1)
    s, t = torch.arange(T)[:, None], torch.arange(T)[None, :]
    return torch.where(s <= t, float("-inf"), 1.0)


def lecture_masked_attention(Q: Tensor, K: Tensor, combine: str = "add") -> Tensor:
    """The weights A the lecture's causal mask M (``lecture_causal_mask``) gives, combined with the
    scores as the lecture says — either way it says it:

        "add":      A = softmax((M + Q Kᵀ) / √d_att)    row 0 sees nothing: 0/0 = NaN; the diagonal is hidden
        "multiply": A = softmax(M ⊙ Q Kᵀ / √d_att)      −∞ × a negative score = +∞ and −∞ × 0 = NaN: NaN rows

    ``Q [T, d]``, ``K [T, d]``. Returned as computed, NaNs included, so a lesson can show them.
    """
    if combine not in ("add", "multiply"):
        raise ValueError(f"combine must be 'add' or 'multiply', got {combine!r}")
    _sizes(Q=(Q, (None, None)), K=(K, (Q.size(0), Q.size(-1))))
    M = lecture_causal_mask(Q.size(0)).to(Q.device, Q.dtype)
    scores = Q @ K.T
    combined = M + scores if combine == "add" else M * scores
    return torch.softmax(combined / math.sqrt(Q.size(-1)), dim=-1)


# ---------------------------------------------------------------- attention


def attention(
    Q: Tensor,
    K: Tensor,
    V: Tensor,
    mask: Tensor | None = None,
    normalizer=softmax,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """(A V, A) with A = π(Q Kᵀ · scale), masked positions set to −∞ before π.

    ``Q [..., n, d]``, ``K [..., m, d]``, ``V [..., m, d_v]``; ``mask`` broadcasts to
    ``[..., n, m]`` (True = visible); ``scale`` defaults to 1/√d; ``normalizer`` is any map
    above (e.g. ``sparsemax`` or ``lambda z: entmax(z, 1.5)``).
    """
    if Q.size(-1) != K.size(-1):
        raise ValueError(f"queries have size {Q.size(-1)} but keys {K.size(-1)}: they must match")
    if K.size(-2) != V.size(-2):
        raise ValueError(f"{K.size(-2)} keys but {V.size(-2)} values: they must match")
    if mask is not None and not (isinstance(mask, Tensor) and mask.dtype == torch.bool):
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise TypeError(f"mask must be a bool tensor (True = visible), got {got}")
    scores = dot_scores(Q, K) * (scale if scale is not None else 1 / math.sqrt(Q.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    A = normalizer(scores)
    return A @ V, A


def single_query_attention(q: Tensor, K: Tensor, V: Tensor, normalizer=softmax) -> tuple[Tensor, Tensor]:
    """One query: p = π(K q / √d), output Σ_j p_j v_j. ``q [d]``, ``K [T, d]``, ``V [T, d_v]``."""
    out, p = attention(q.unsqueeze(0), K, V, normalizer=normalizer)
    return out[0], p[0]


def self_attention(
    X: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    mask: Tensor | None = None,
    normalizer=softmax,
    biases: tuple[Tensor, Tensor, Tensor] | None = None,
) -> tuple[Tensor, Tensor]:
    """Q = E W_qᵀ + b_q, K = E W_kᵀ + b_k, V = E W_vᵀ + b_v for ``X`` = E ``[..., T, d_e]``; returns
    (A V, A), A = π(Q Kᵀ / √d_att).

    ``W_q, W_k [d_att, d_e]``; ``W_v [d_out, d_e]`` may have its own width d_out ≠ d_att (the lecture
    has both); ``biases = (b_q, b_k, b_v)`` as in the lecture's q_t = W_q e_t + b_q (default: none)."""
    b_q, b_k, b_v = (None, None, None) if biases is None else biases
    return attention(
        _project("X", X, "W_q", W_q, b_q),
        _project("X", X, "W_k", W_k, b_k),
        _project("X", X, "W_v", W_v, b_v),
        mask,
        normalizer,
    )


def cross_attention(
    X: Tensor, Y: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """Queries from X (e.g. the decoder), keys and values from Y (the encoder): Q = X W_qᵀ, K = Y W_kᵀ,
    V = Y W_vᵀ with the weights as in ``self_attention``; A is ``[n_X, n_Y]``."""
    return attention(
        _project("X", X, "W_q", W_q), _project("Y", Y, "W_k", W_k), _project("Y", Y, "W_v", W_v), mask
    )


def multi_head_attention(
    X: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor,
    n_heads: int,
    mask: Tensor | None = None,
    Y: Tensor | None = None,
    biases: tuple[Tensor, Tensor, Tensor, Tensor] | None = None,
    normalizer: Callable[[Tensor], Tensor] = softmax,
) -> tuple[Tensor, Tensor]:
    """MultiHead(X) = Concat(head_1, …, head_H) W_oᵀ (+ b_o),
    head_h = Attention(X W_q^hᵀ, Y W_k^hᵀ, Y W_v^hᵀ).

    The projections ``W_q, W_k, W_v [d_att, d_e]`` are split into H heads of d_att / H rows each (as in
    GPT-2), ``W_o [d_o, d_att]``; Y defaults to X (self-attention). ``biases`` (b_q, b_k, b_v, b_o), when
    given, are added to the four projections (as ``torch.nn.MultiheadAttention`` does); ``normalizer`` is
    π in ``attention``. Returns (output ``[..., n, d_o]``, A ``[..., H, n, m]``).
    """
    Y = X if Y is None else Y
    d_att = _checks.tensor("W_q", W_q).size(0)
    if d_att % _checks.integer("n_heads", n_heads, 1):
        raise ValueError(f"n_heads must divide d_att={d_att}, got {n_heads}")
    b_q, b_k, b_v, b_o = (None,) * 4 if biases is None else biases

    def heads(t: Tensor) -> Tensor:  # [..., T, d_att] → [..., H, T, d_att / H]
        return t.unflatten(-1, (n_heads, d_att // n_heads)).transpose(-3, -2)

    Q, K, V = (
        _project("X", X, "W_q", W_q, b_q),
        _project("Y", Y, "W_k", W_k, b_k),
        _project("Y", Y, "W_v", W_v, b_v),
    )
    out, A = attention(heads(Q), heads(K), heads(V), mask, normalizer)
    return _project("the heads' output", out.transpose(-3, -2).flatten(-2), "W_o", W_o, b_o), A


# ---------------------------------------------------------------- reading attention


def sensitivity_to_token(attend, X: Tensor, t: int, replacement: Tensor) -> Tensor:
    """max_k |attend(X')_{i,k} − attend(X)_{i,k}| for each position i, where X' is X with row t
    replaced: which outputs can "see" token t. With a causal mask, positions i < t give 0."""
    t = _checks.integer("t", t, 0, _checks.tensor("X", X).size(0) - 1)
    X_new = X.clone()
    X_new[t] = replacement
    return (attend(X_new) - attend(X)).abs().amax(-1)
