"""One step of each decoder, written out on its own (lesson 05's exercises and their references).

The decoders of ``xai_tf.transformer.decoding`` run these steps inside their loops; here each is a
function of plain tensors, so a student's version can be checked against it and the lesson can go on
with either:

- greedy:          x_{t+1} = argmax_v z_{t,v};
- sampling:        x_{t+1} ~ p by the inverse of its cumulative distribution: with u ~ U[0, 1),
                   x = min { v : Σ_{j ≤ v} p_j > u } (``torch.multinomial`` draws from the same p);
- beam search:     extend every live hypothesis y_b (log-probability ℓ_b) by every token v and keep
                   the β best extensions by ℓ_b + log softmax(z_b)_v;
- length penalty:  the final choice maximises s(y) = log p(y | prompt) / n^α, n = len(y);
- key/value cache: a step appends the new positions' keys and values to those already stored,
                   K ← [K_past; k], V ← [V_past; v] along the positions.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.kv_cache import KVCache


def greedy_step(logits: Tensor) -> Tensor:
    """x = argmax_v z_v over the last dim: the token id(s) greedy decoding appends, shape
    ``logits.shape[:-1]`` (ties: the lower id, as ``torch.argmax``)."""
    return _checks.scores("logits", logits).argmax(-1)


def sample_by_inverse_cdf(probs: Tensor, u: Tensor) -> Tensor:
    """x = min { v : Σ_{j ≤ v} p_j > u }: the token a uniform draw ``u`` ∈ [0, 1) picks from the
    distribution ``probs`` ``[..., V]`` (last dim), shape ``u.shape`` = ``probs.shape[:-1]``. Token v
    is picked for u in [Σ_{j<v} p_j, Σ_{j≤v} p_j), an interval of length p_v, so u ~ U[0, 1) draws
    x ~ p. Where rounding leaves the total just below u, the last token of positive probability."""
    probs, u = _checks.tensor("probs", probs), _checks.tensor("u", u)
    if probs.dim() == 0 or u.shape != probs.shape[:-1]:
        raise ValueError(
            f"u must have probs' shape without its last dim, {tuple(probs.shape[:-1])}, got {tuple(u.shape)}"
        )
    if not bool(((u >= 0) & (u < 1)).all()):
        raise ValueError("u must lie in [0, 1): one uniform draw per distribution")
    if not bool((probs >= 0).all()):
        raise ValueError("probs must be a distribution along the last dim: no negative (or NaN) entries")
    picked = (probs.cumsum(-1) <= u[..., None]).sum(-1).clamp(max=probs.size(-1) - 1)
    stray = probs.gather(-1, picked[..., None])[..., 0] == 0  # only where the total stayed below u
    if bool(stray.any()):
        last = (torch.arange(probs.size(-1), device=probs.device) * (probs > 0)).max(-1).values
        picked = torch.where(stray, last, picked)
    return picked


def beam_step(log_p: Tensor, logits: Tensor, beam_width: int) -> tuple[Tensor, Tensor, Tensor]:
    """One step of beam search over B live hypotheses and a vocabulary of V tokens.

    Every extension (b, v) scores ℓ_b + log softmax(z_b)_v, with ℓ = ``log_p`` ``[B]`` the
    hypotheses' log-probabilities so far and z = ``logits`` ``[B, V]`` their next-token logits. The
    ``beam_width`` best of all B·V extensions are kept, best first (ties: the earlier hypothesis, then
    the lower id). Returns ``(rows, tokens, new_log_p)``, each ``[beam_width]``: the hypothesis each
    extends, the token it appends and its log-probability.
    """
    logits = _checks.scores("logits", logits)
    log_p = _checks.tensor("log_p", log_p)
    if logits.dim() != 2 or log_p.shape != logits.shape[:1]:
        raise ValueError(
            f"log_p must be [B] and logits [B, V] for the same B hypotheses, got {tuple(log_p.shape)} "
            f"and {tuple(logits.shape)}"
        )
    vocab = logits.size(-1)
    _checks.integer("beam_width", beam_width, 1, logits.numel())
    total = (log_p[:, None] + logits.log_softmax(-1)).flatten()
    best = total.argsort(descending=True, stable=True)[:beam_width]
    return best // vocab, best % vocab, total[best]


def length_penalised(log_p: Tensor, n: Tensor, alpha: float) -> Tensor:
    """s(y) = log p(y | prompt) / n^α for hypotheses of log-probability ``log_p`` and ``n`` new tokens
    (α = ``alpha``; α = 0: the plain log-probability, which favours short texts)."""
    log_p, n = _checks.tensor("log_p", log_p), _checks.tensor("n", n)
    if n.numel() and bool((n < 1).any()):
        raise ValueError(f"n must count at least one new token per hypothesis, got {n.tolist()}")
    return log_p / n.to(log_p.dtype) ** _checks.finite("alpha", alpha)


def append_kv(past_k: Tensor, past_v: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
    """K = [K_past; k], V = [V_past; v]: the new positions' keys and values appended after the stored
    ones along the positions (dim 2 of ``[batch, heads, T, d_h]``)."""
    for name, x in (("past_k", past_k), ("past_v", past_v), ("k", k), ("v", v)):
        if _checks.tensor(name, x).dim() != 4:
            raise ValueError(f"{name} must be [batch, heads, T, d_h], got shape {tuple(x.shape)}")
    rest = [(x.shape[:2], x.shape[3]) for x in (past_k, past_v, k, v)]
    if len(set(rest)) != 1 or past_k.shape != past_v.shape or k.shape != v.shape:
        shapes = ", ".join(str(tuple(x.shape)) for x in (past_k, past_v, k, v))
        raise ValueError(
            f"past_k, past_v, k, v must share batch, heads and d_h (and K, V their T), got {shapes}"
        )
    return torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)


class KVCacheWith(KVCache):
    """A ``KVCache`` that appends with ``append(past_k, past_v, k, v) -> (K, V)`` (``append_kv`` or a
    student's version of it), so that a model decoding through it runs on that function."""

    def __init__(self, append: Callable[[Tensor, Tensor, Tensor, Tensor], tuple[Tensor, Tensor]]) -> None:
        if not callable(append):
            raise TypeError(f"append must be a function (past_k, past_v, k, v) -> (K, V), got {append!r}")
        super().__init__()
        self.append = append

    def extend(self, layer: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Store the new positions' k, v of layer ``layer`` through ``append``; return all so far."""
        if layer in self.keys:
            k, v = self.append(self.keys[layer], self.values[layer], k, v)
        self.keys[layer], self.values[layer] = k, v
        return k, v
