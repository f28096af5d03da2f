"""Turning next-token distributions into text.

Sampling with temperature τ draws x_{t+1} ~ softmax(z / τ), where z are the logits of the last
position. Top-k keeps only the k largest logits before sampling; nucleus (top-p) sampling keeps the
smallest set of most likely tokens whose probability reaches p (Holtzman et al., 2020). Greedy
decoding is the limit τ → 0: x_{t+1} = argmax z. Removed tokens get the logit −∞. Beam search
keeps the B most likely continuations instead of one (see ``beam_search``).

Every decoder reads the prompt once and then feeds one token per step through a key/value cache
(``xai_tf.models.KVCache``), and stops after ``max_new_tokens`` or at the end-of-text token. The
functions take the model handle (``xai_tf.load_model``) or a bare causal module (``GPT2``, ``Llama``:
it knows no end-of-text token); an encoder is refused with one line. Lessons 00 and 05 use this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.models.architecture import CausalLM
from xai_tf.models.kv_cache import KVCache
from xai_tf.models.loaded import LoadedModel, causal

Model = LoadedModel | nn.Module


def _prompt(model: CausalLM, input_ids: Sequence[int] | Tensor) -> Tensor:
    """The one prompt ``[T]`` in ``input_ids``; a batch of several is refused, not cut to its first."""
    ids = model.check_input_ids(input_ids)
    if ids.size(0) != 1:
        raise ValueError(
            f"input_ids must be one prompt, [T] or [1, T], got shape {tuple(ids.shape)}: decode one at a time"
        )
    return ids[0]


def _last_logits(model: CausalLM, ids: list[int], use_cache: bool = True) -> Iterator[Tensor]:
    """The logits z_t of the last position, once per step, for a text the caller extends.

    Yields z for ``ids``; the caller appends the chosen token to ``ids`` and asks for the next.
    With the cache a step feeds only the new token; once the text outgrows the context, the
    window slides: the last n_ctx tokens are read again from scratch (positions shift by one).
    Without the cache every step is a full forward pass over the last n_ctx tokens.
    """
    n_ctx, cache = model.sizes.n_ctx, KVCache()
    logits = model(ids[-n_ctx:], kv_cache=cache if use_cache else None)[0, -1]
    while True:
        yield logits
        if use_cache and len(cache) < n_ctx:
            logits = model(ids[-1:], kv_cache=cache)[0, -1]
        else:
            cache = KVCache()
            logits = model(ids[-n_ctx:], kv_cache=cache if use_cache else None)[0, -1]


def _decode(
    model: Model,
    input_ids: Sequence[int] | Tensor,
    max_new_tokens: int,
    choose: Callable[[Tensor], int],
    stop_at_eot: bool,
    use_cache: bool,
) -> list[int]:
    lm = causal(model, "decoding")
    net, eot = lm.model, lm.eot_token
    ids = _prompt(net, input_ids).tolist()
    steps = _last_logits(net, ids, use_cache)
    for _ in range(max_new_tokens):
        ids.append(choose(next(steps)))
        if stop_at_eot and ids[-1] == eot:
            break
    return ids


@torch.no_grad()
def greedy(
    model: Model,
    input_ids: Sequence[int] | Tensor,
    max_new_tokens: int,
    stop_at_eot: bool = True,
    use_cache: bool = True,
) -> list[int]:
    """Prompt + up to ``max_new_tokens`` tokens, each x_{t+1} = argmax_v z_{t,v}."""
    _checks.integer("max_new_tokens", max_new_tokens, 0)
    return _decode(model, input_ids, max_new_tokens, lambda z: int(z.argmax()), stop_at_eot, use_cache)


def top_k_filter(logits: Tensor, k: int) -> Tensor:
    """Keep the k largest logits (last dim), −∞ elsewhere. Exactly k survive: ties at the k-th
    value go to the lower token id. (Hugging Face's ``TopKLogitsWarper`` keeps every token tied with
    the k-th, so it can keep more than k.)"""
    return _keep_top_k(logits, _checks.integer("k", k, 1, _checks.scores("logits", logits).size(-1)))


def _keep_top_k(logits: Tensor, k: int) -> Tensor:
    order = logits.argsort(dim=-1, descending=True, stable=True)
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, order[..., :k], True)
    return logits.masked_fill(~keep, float("-inf"))


def top_p_filter(logits: Tensor, p: float) -> Tensor:
    """Nucleus filter: keep the most likely tokens, in order, until their probability reaches p.

    A token is kept when the mass of the strictly more likely tokens is below p, so the most likely
    token always survives; p = 1 keeps everything. Ties are ordered by token id, lower first
    (Hugging Face's ``TopPLogitsWarper`` sorts ascending, so among tied tokens at the edge of the
    nucleus it keeps the higher ids).
    """
    return _keep_top_p(_checks.scores("logits", logits), _checks.real("p", p, 0, 1, open_lo=True))


def _keep_top_p(logits: Tensor, p: float) -> Tensor:
    if p == 1:
        return logits
    order = logits.argsort(dim=-1, descending=True, stable=True)
    probs = logits.gather(-1, order).softmax(-1)
    keep_sorted = probs.cumsum(-1) - probs < p
    keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))


def filtered_probs(
    logits: Tensor, temperature: float = 1.0, top_k: int | None = None, top_p: float | None = None
) -> Tensor:
    """The distribution a sampler draws from: softmax(filter(z / τ)), top-k first, then top-p.

    z / τ is computed as (z − max z) / τ (the same softmax), so that a tiny τ cannot overflow to +∞.
    """
    temperature = _checks.positive("temperature", temperature)
    logits = _checks.scores("logits", logits)
    if top_k is not None:
        _checks.integer("top_k", top_k, 1, logits.size(-1))
    if top_p is not None:
        _checks.real("top_p", top_p, 0, 1, open_lo=True)
    logits = (logits - logits.max(-1, keepdim=True).values) / temperature
    if top_k is not None:  # checked above: the filters' cores, without a second scan of the logits
        logits = _keep_top_k(logits, top_k)
    if top_p is not None:
        logits = _keep_top_p(logits, top_p)
    return logits.softmax(-1)


def sample_next_token(
    logits: Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    generator: torch.Generator | None = None,
) -> int:
    """One draw x ~ softmax(filter(z / τ)) from the logits ``[vocab]`` of the last position."""
    probs = filtered_probs(logits, temperature, top_k, top_p)
    return int(torch.multinomial(probs.cpu(), 1, generator=generator))


@torch.no_grad()
def generate(
    model: Model,
    input_ids: Sequence[int] | Tensor,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    stop_at_eot: bool = True,
    use_cache: bool = True,
) -> list[int]:
    """Prompt + up to ``max_new_tokens`` tokens sampled from softmax(filter(z / τ)).

    Pure sampling is the default (τ = 1, no filter); the same ``seed`` gives the same text.
    """
    vocab = causal(model, "sampling").vocab_size
    _checks.integer("max_new_tokens", max_new_tokens, 0)
    _checks.positive("temperature", temperature)
    if top_k is not None:
        _checks.integer("top_k", top_k, 1, vocab)
    if top_p is not None:
        _checks.real("top_p", top_p, 0, 1, open_lo=True)
    generator = seeds.generator(seed) if seed is not None else None

    def choose(z: Tensor) -> int:
        return sample_next_token(z, temperature, top_k, top_p, generator)

    return _decode(model, input_ids, max_new_tokens, choose, stop_at_eot, use_cache)


@torch.no_grad()
def beam_search(
    model: Model,
    input_ids: Sequence[int] | Tensor,
    beam_width: int,
    max_new_tokens: int,
    length_penalty: float = 1.0,
    stop_at_eot: bool = True,
) -> list[int]:
    """Prompt + the best continuation found by beam search.

    A hypothesis y of n new tokens scores s(y) = log p(y | prompt) / n^α (α = ``length_penalty``;
    α = 0 is the plain log-probability, α > 0 favours longer texts). Each step extends every live
    hypothesis by every token and keeps the B = ``beam_width`` best extensions by log-probability
    (ties to the earlier beam, then the lower id); a kept extension that ends in end-of-text is
    finished and leaves the beam, so the beam shrinks. The search ends after ``max_new_tokens``
    or when no hypothesis is live; the answer is the finished or live hypothesis of highest s.
    B = 1 is greedy decoding; a beam as large as the number of possible texts is exhaustive.
    (Hugging Face's ``num_beams`` search differs: it refills the beam to B live hypotheses from the
    2B best extensions and, with ``early_stopping``, stops once B hypotheses are finished; ours
    shrinks by one per finished hypothesis. Without end-of-text both give the same answer.)
    """
    lm = causal(model, "beam search")
    net, eot = lm.model, lm.eot_token
    _checks.integer("max_new_tokens", max_new_tokens, 0)
    _checks.integer("beam_width", beam_width, 1)
    _checks.finite("length_penalty", length_penalty)
    prompt = _prompt(net, input_ids)
    if len(prompt) + max_new_tokens > lm.n_ctx:
        raise ValueError(
            f"max_new_tokens must lie in 0..{lm.n_ctx - len(prompt)}: beam search keeps the "
            f"{len(prompt)}-token prompt and its continuation within the {lm.n_ctx}-token context"
        )
    if max_new_tokens == 0:
        return prompt.tolist()
    cache = KVCache()
    logits = net(prompt, kv_cache=cache)[:, -1]
    beams = prompt.new_empty(1, 0)
    log_p = logits.new_zeros(1)
    finished: list[tuple[float, list[int]]] = []
    for n in range(1, max_new_tokens + 1):
        vocab = logits.size(-1)
        total = (log_p[:, None] + logits.log_softmax(-1)).flatten()
        best = total.argsort(descending=True, stable=True)[:beam_width]
        rows, tokens = best // vocab, best % vocab
        beams = torch.cat([beams[rows], tokens[:, None]], dim=1)
        log_p = total[best]
        done = (
            tokens == eot if stop_at_eot and eot is not None else torch.zeros_like(tokens, dtype=torch.bool)
        )
        finished += [(float(log_p[i]) / n**length_penalty, beams[i].tolist()) for i in done.nonzero()[:, 0]]
        beams, log_p, rows, tokens = beams[~done], log_p[~done], rows[~done], tokens[~done]
        if len(beams) == 0 or n == max_new_tokens:
            break
        cache.select(rows)
        logits = net(tokens[:, None], kv_cache=cache)[:, -1]
    live = [
        (float(s) / beams.size(1) ** length_penalty, b.tolist()) for s, b in zip(log_p, beams, strict=True)
    ]
    best_tokens: list[int] = max(finished + live, key=lambda scored: scored[0], default=(0.0, []))[1]
    return prompt.tolist() + best_tokens


@torch.no_grad()
def continuation_log_prob(model: Model, input_ids: Sequence[int] | Tensor, prompt_length: int) -> float:
    """log p(x_{P+1..T} | x_1..x_P) = Σ_{t>P} log softmax(z_{t−1})[x_t], P = ``prompt_length`` —
    the score beam search maximises (before its length penalty)."""
    net = causal(model, "scoring a continuation").model
    ids = _prompt(net, input_ids)
    _checks.integer("prompt_length", prompt_length, 1, len(ids))
    log_p = net(ids)[0, :-1].log_softmax(-1)
    picked = log_p.gather(-1, ids[1:, None])[:, 0]
    return float(picked[prompt_length - 1 :].sum())


@torch.no_grad()
def next_token_probs(model: Model, input_ids: Sequence[int] | Tensor) -> Tensor:
    """p(x_{T+1} | x_1..x_T) = softmax(z_T): the distribution over the next token, ``[vocab]``."""
    net = causal(model, "next-token prediction").model
    return net(_prompt(net, input_ids))[0, -1].softmax(-1)


def top_next_tokens(model: Model, input_ids: Sequence[int] | Tensor, k: int) -> tuple[Tensor, Tensor]:
    """The ``k`` most likely next tokens: ``(ids, probabilities)``, most likely first."""
    _checks.integer("k", k, 1, causal(model, "next-token prediction").vocab_size)
    probs, ids = next_token_probs(model, input_ids).topk(k)
    return ids, probs
