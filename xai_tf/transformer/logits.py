"""From a model's logits to what lesson 00 reads off them, on plain tensors (no model needed).

For logits z [T, D] (one row per position t, one score per token of a vocabulary of D):

- the next-token distribution: p(x_{T+1} = v | x_1..x_T) = exp z_{T,v} / Σ_u exp z_{T,u};
- the k most likely next tokens: the k largest p_v, most likely first;
- the surprisal of the text itself: position t predicts token t + 1, so
  s_t = −log p(x_{t+1} | x_1..x_t) = −log softmax(z_t)_{x_{t+1}} for t = 1..T−1 (in nats);
- the perplexity: PPL = exp((1/(T−1)) Σ_t s_t), the exponential of the mean surprisal (D for a model
  that gives every token 1/D).

Temperature, softmax(z / τ), is ``xai_tf.transformer.decoding.filtered_probs``.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks


def _logits(logits: object) -> Tensor:
    z = _checks.real_tensor("logits", logits, dims=2)
    if 0 in z.shape:
        raise ValueError(f"logits must be [T, D] with T ≥ 1 and D ≥ 1, got {tuple(z.shape)}")
    return z


def last_position_probs(logits: Tensor) -> Tensor:
    """p(x_{T+1} | x_1..x_T) = softmax(z_T) [D] from the logits [T, D] of one prompt."""
    return _logits(logits)[-1].softmax(-1)


def top_tokens(probs: Tensor, k: int) -> tuple[Tensor, Tensor]:
    """The ``k`` largest entries of a distribution ``probs`` [D]: (ids, probabilities), most likely first."""
    p = _checks.real_tensor("probs", probs, dims=1)
    values, ids = p.topk(_checks.integer("k", k, 1, p.numel()))
    return ids, values


def surprisal(logits: Tensor, ids: Tensor) -> Tensor:
    """s_t = −log softmax(z_t)_{x_{t+1}} [T − 1] (nats): how surprised the model was by each token of
    the text after the first, from the logits [T, D] of the text ``ids`` [T]."""
    z = _logits(logits)
    if z.size(0) < 2:
        raise ValueError(f"logits must have T ≥ 2 positions to score a next token, got {tuple(z.shape)}")
    x = _checks.token_ids("ids", ids, z.size(1))
    if x.shape != z.shape[:1]:
        raise ValueError(
            f"ids must be [T] = [{z.size(0)}], one id per position of logits, got {tuple(x.shape)}"
        )
    log_p = torch.log_softmax(z[:-1], -1)
    return -log_p.gather(-1, x[1:, None].to(z.device))[:, 0]


def perplexity(logits: Tensor, ids: Tensor) -> Tensor:
    """PPL = exp(mean_t s_t), the exponential of the mean ``surprisal`` of the text ``ids`` [T]."""
    return surprisal(logits, ids).mean().exp()
