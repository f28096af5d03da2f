"""Steering by clamping a feature (lesson 10), as in Anthropic's "Scaling Monosemanticity" (2024).

With the SAE's error term e(h) = h − s(h) kept, the stream is replaced by s′(h) + e(h), where s′ is
the reconstruction with feature j's code clamped to v:

    h′ = s′(h) + (h − s(h)) = h + (v − a_j(h)) W^dec_{:,j}

(in the SAE's scaled units; divided by the scale c in the model's). So clamping moves the stream
along W^dec_{:,j} only, and an unclamped run (v = a_j(h)) is the clean run exactly. The clamp value is
a multiple of the feature's largest code on the held-out text (the lecture's "clamped to 5× its max").
"""

from __future__ import annotations

from collections.abc import Callable, Collection

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.models.hooks import Hook
from xai_tf.models.loaded import LoadedModel, as_model, causal
from xai_tf.sae.activations import check_point
from xai_tf.sae.model import SparseAutoencoder, _sae
from xai_tf.transformer.decoding import sample_next_token

MAX_NEW_TOKENS = 1000  # one forward pass each: the lesson and the panel generate 30


def clamp_hook(sae: SparseAutoencoder, j: int, value: float | None) -> Hook:
    """h ↦ h + (v − a_j(c h)) W^dec_{:,j} / c at every position; ``value=None`` leaves h as it is."""
    j = _sae(sae).feature(j)
    if value is None:
        return lambda h: h
    value = _checks.finite("value", value)
    c = sae.config.scale

    def hook(h: Tensor) -> Tensor:
        a_j = torch.relu(h.to(sae.W_enc) * c @ sae.W_enc[j] + sae.b_enc[j])
        return h + ((value - a_j)[..., None] * sae.W_dec[:, j] / c).to(h)

    return hook


@torch.no_grad()
def generate_clamped(
    lm: LoadedModel,
    sae: SparseAutoencoder,
    prompt: str,
    j: int,
    factor: float | None,
    max_code: float,
    max_new_tokens: int = 30,
    temperature: float = 0.8,
    seed: int = 0,
    on_step: Callable[[], None] | None = None,
) -> str:
    """The continuation of ``prompt`` sampled (τ, ``seed``) with feature j clamped to
    ``factor · max_code`` at the SAE's hook, or unclamped for ``factor=None``; the same seed gives
    the clean model's text for ``factor=None``. ``on_step()``, when given, is called before each
    forward pass (one per new token) and its return value is ignored: it can stop the generation by
    raising (lesson 10's panel passes ``_cancel.checkpoint``), never change the text."""
    lm = causal(lm, "generation")
    _checks.optional_callback("on_step", on_step)
    _checks.integer("max_new_tokens", max_new_tokens, 1, MAX_NEW_TOKENS)
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a non-empty string, got {type(prompt).__name__}")
    cfg = _sae(sae).config
    check_point(lm, cfg.layer, cfg.hook)
    if factor is not None:
        _checks.finite("factor", factor)
    value = None if factor is None else factor * _checks.finite("max_code", max_code)
    hooks = {(cfg.hook, cfg.layer): clamp_hook(sae, j, value)}
    generator = seeds.generator(seed)
    ids = lm.encode(prompt)
    start = len(ids)
    for _ in range(max_new_tokens):
        if on_step is not None:
            on_step()
        logits = lm(ids[-lm.n_ctx :], hooks=hooks)[0, -1]
        ids.append(sample_next_token(logits, temperature, generator=generator))
    return lm.tokenizer.decode(ids[start:])


def token_share(lm: LoadedModel, text: str, tokens: Collection[str]) -> float:
    """The share of ``text``'s tokens (as ``lm.token_strings`` writes them, e.g. ' hast') that are in
    ``tokens``: how much of a steered continuation is what the feature boosts. The text's own tokens only:
    a beginning-of-sequence token that ``lm.encode`` puts first (the Llama family's ``<s>``) is not
    counted."""
    lm = as_model(lm)
    if not isinstance(text, str):
        raise TypeError(f"text must be a non-empty string, got {text!r}")
    if not text:
        raise ValueError("text must be a non-empty string, got ''")
    if isinstance(tokens, str) or not all(isinstance(t, str) for t in tokens):
        raise TypeError(f"tokens must be a collection of token strings such as {{' hast'}}, got {tokens!r}")
    strings = lm.token_strings(lm.tokenizer.encode(text))
    wanted = set(tokens)
    return sum(t in wanted for t in strings) / len(strings)
