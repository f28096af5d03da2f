"""Browsing a sparse autoencoder's features (lesson 10), as Anthropic's feature views and
sae-dashboard show them: for feature j, its top-activating contexts with the token highlighted, the
histogram of its activations, its logit effects and a short label from its top tokens.

The feature activation is f_j(h) = a_j(c h) ‖W^dec_{:,j}‖ (``model.feature_activations``, c the
scale). The logit effect of feature j is W_U W^dec_{:,j} ∈ ℝ^D: how much one unit of the feature,
written into the stream, raises (or lowers) each token's logit if it went straight to the unembedding.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, as_model, causal
from xai_tf.sae.model import SparseAutoencoder, _sae, feature_activations


@dataclass
class Context:
    """One top-activating context: its tokens, the feature's activation at each, the peak token."""

    tokens: list[str]
    values: list[float]
    peak: int

    @property
    def value(self) -> float:
        return self.values[self.peak]


@torch.no_grad()
def feature_values(sae: SparseAutoencoder, H: Tensor, j: int) -> Tensor:
    """f_j = a_j(h) ‖W^dec_{:,j}‖ at every token of the scaled activations ``H [..., d]``: ``[...]``."""
    j = _sae(sae).feature(j)
    H = sae.check_input(H)
    a_j = torch.relu(H @ sae.W_enc[j] + sae.b_enc[j])
    return a_j * sae.W_dec[:, j].norm()


@torch.no_grad()
def max_codes(sae: SparseAutoencoder, H: Tensor, chunk: int = 8192) -> Tensor:
    """max_i a_j(h⁽ⁱ⁾) of every feature over the rows of ``H`` (the code's maximum, what clamping scales)."""
    chunk = _checks.integer("chunk", chunk, 1)
    H = _sae(sae).check_input(H).reshape(-1, sae.config.d)
    return torch.stack([sae.encode(H[i : i + chunk]).amax(0) for i in range(0, len(H), chunk)]).amax(0)


def top_contexts(
    lm: LoadedModel, sae: SparseAutoencoder, H: Tensor, ids: Tensor, j: int, k: int = 8, left: int = 10
) -> list[Context]:
    """The ``k`` tokens of ``ids [n, T]`` where f_j is largest (``H [n, T, d]`` their scaled
    activations), each with up to ``left`` tokens before it and 2 after; peaks with f_j = 0 are left out."""
    lm = as_model(lm)
    _checks.integer("k", k, 1)
    _checks.integer("left", left, 0)
    ids = _windows(lm, H, ids)
    f = feature_values(sae, H, j)
    best = f.flatten().topk(min(k, f.numel()))
    contexts = []
    for value, flat in zip(best.values.tolist(), best.indices.tolist(), strict=True):
        if value <= 0:
            break
        w, t = divmod(flat, ids.size(1))
        lo, hi = max(0, t - left), min(ids.size(1), t + 3)
        contexts.append(Context(lm.token_strings(ids[w, lo:hi].tolist()), f[w, lo:hi].tolist(), t - lo))
    return contexts


def contexts_html(contexts: list[Context]) -> str:
    """The contexts as lines of tokens shaded by f_j (orange, scaled to the largest), peak underlined."""
    _contexts(contexts)
    if not contexts:
        return "<i>this feature never fires on these tokens</i>"
    top = max(c.value for c in contexts)
    lines = []
    for c in contexts:
        spans = []
        for i, (token, v) in enumerate(zip(c.tokens, c.values, strict=True)):
            style = f"background:rgba(255,140,0,{max(0.0, v) / top:.2f})"
            if i == c.peak:
                style += ";border-bottom:2px solid #000"
            spans.append(f"<span style='{style}' title='{v:.2f}'>{html.escape(token)}</span>")
        lines.append(
            f"<div style='font-family:monospace;white-space:pre'>{c.value:6.2f}  {''.join(spans)}</div>"
        )
    return "".join(lines)


def _commonest(contexts: list[Context]) -> tuple[str, int]:
    return Counter(c.tokens[c.peak].strip() or c.tokens[c.peak] for c in contexts).most_common(1)[0]


def label(contexts: list[Context]) -> str:
    """A short automatic label: the commonest peak token of the top contexts, with its share."""
    _contexts(contexts)
    if not contexts:
        return "(dead)"
    token, n = _commonest(contexts)
    return f"'{token}' ({n}/{len(contexts)})"


def labels(
    lm: LoadedModel, sae: SparseAutoencoder, H: Tensor, ids: Tensor, features: list[int], k: int = 8
) -> dict[int, str]:
    """``label(top_contexts(lm, sae, H, ids, j, k))`` of each feature j in ``features``."""
    return {j: label(top_contexts(lm, sae, H, ids, j, k)) for j in features}


def purity(contexts: list[Context]) -> float:
    """The share of the top contexts whose peak is the commonest peak token (1: always the same token)."""
    _contexts(contexts)
    if not contexts:
        raise ValueError("contexts is empty: a dead feature has no top contexts")
    return _commonest(contexts)[1] / len(contexts)


@torch.no_grad()
def purities(lm: LoadedModel, sae: SparseAutoencoder, H: Tensor, ids: Tensor, k: int = 8) -> Tensor:
    """``purity(top_contexts(lm, sae, H, ids, j, k))`` of every feature j at once, ``[F]``: the share
    of its (up to) k largest f_j > 0 on the tokens of ``ids [n, T]`` whose token is the commonest
    among them; NaN for a feature that never fires there."""
    lm = as_model(lm)
    _checks.integer("k", k, 1)
    ids = _windows(lm, H, ids)
    f = feature_activations(sae, H.reshape(-1, sae.config.d))
    top = f.topk(min(k, len(f)), dim=0)
    peaks = [s.strip() or s for s in lm.token_strings(ids.flatten().tolist())]
    out = torch.full((sae.config.F,), float("nan"))
    for j in range(sae.config.F):
        n = int((top.values[:, j] > 0).sum())
        if n:
            out[j] = Counter(peaks[i] for i in top.indices[:n, j].tolist()).most_common(1)[0][1] / n
    return out


def _windows(lm: LoadedModel, H: object, ids: object) -> Tensor:
    """``ids [n, T]``, token ids of ``lm``'s vocabulary, and their activations ``H [n, T, d]``."""
    H, ids = _checks.tensor("H", H), _checks.token_ids("ids", ids, lm.vocab_size)
    if ids.dim() != 2 or H.shape[:2] != ids.shape:
        raise ValueError(f"H {tuple(H.shape)} and ids {tuple(ids.shape)} must cover the same windows")
    return ids


def _contexts(contexts: object) -> None:
    if not isinstance(contexts, list) or not all(isinstance(c, Context) for c in contexts):
        raise TypeError(
            f"contexts must be a list of Context (from top_contexts), got {type(contexts).__name__}"
        )


@torch.no_grad()
def logit_effects(
    lm: LoadedModel, sae: SparseAutoencoder, j: int, k: int = 8
) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
    """The ``k`` most boosted and ``k`` most suppressed tokens by W_U W^dec_{:,j}, with their values."""
    lm = causal(lm, "a feature's logit effects (they need the unembedding W_U)")
    j = _sae(sae).feature(j)
    _checks.integer("k", k, 1, lm.vocab_size)
    effect = (lm.model.unembedding.double() @ sae.W_dec[:, j].double().to(lm.device)).cpu()

    def ranked(values: Tensor, ids: Tensor) -> list[tuple[str, float]]:
        return list(zip(lm.token_strings(ids.tolist()), values.tolist(), strict=True))

    up, down = effect.topk(k), (-effect).topk(k)
    return ranked(up.values, up.indices), ranked(-down.values, down.indices)


@torch.no_grad()
def features_for_token(
    lm: LoadedModel, sae: SparseAutoencoder, H: Tensor, ids: Tensor, token: str, k: int = 8
) -> list[tuple[int, float]]:
    """The ``k`` features with the largest mean f_j over the occurrences of ``token`` in ``ids``
    (a token as ``lm.token_strings`` writes it, e.g. ' thou')."""
    lm = as_model(lm)
    _checks.integer("k", k, 1)
    if not isinstance(token, str) or not token:
        raise TypeError(f"token must be a non-empty string such as ' thou', got {token!r}")
    ids = _windows(lm, H, ids)
    strings = lm.token_strings(ids.flatten().tolist())
    where = torch.tensor([s == token for s in strings], device=H.device)
    if not where.any():
        raise ValueError(
            f"token {token!r} does not occur in these windows; try one of {sorted(set(strings))[:5]}"
        )
    f = feature_activations(sae, H.reshape(-1, sae.config.d)[where]).mean(0)
    best = f.topk(min(k, sae.config.F))
    return list(zip(best.indices.tolist(), best.values.tolist(), strict=True))
