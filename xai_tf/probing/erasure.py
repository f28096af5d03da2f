"""Which hidden states can be ignored (De Cao et al. 2020, erasure version; lesson 19).

For a window x_1..x_T, the causal model predicts ŷ = argmax p(x_{T+1} | x_{≤T}) from the last position.
At layer l, erasing a set E of earlier positions replaces their states entering block l by a baseline b_l
(the mean state of that layer over the windows): h_l[t] ← b_l for t ∈ E. Positions are ordered by how
little erasing each alone should move log p(ŷ), to first order (one backward pass for all layers):

    δ_l[t] = | ∇_{h_l[t]} log p(ŷ) · (b_l − h_l[t]) |,

and erased in that order; with E_k the first k positions, the share of the T − 1 earlier positions that
can be dropped is

    erasable(l) = k* / (T − 1),   k* = the largest k with argmax p_{−E_k} = ŷ,

found by bisection over k (exact when keeping ŷ is monotone in k, which we do not check: a lower bound
on what some other order could drop either way). De Cao et al. learn a differentiable mask instead
(stochastic gates with an L0 penalty), which does not fit the lesson's time budget.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing import _windows


def first_order_delta(grad: Tensor, h: Tensor, b: Tensor) -> Tensor:
    """δ[t] = |∇_{h[t]} log p(ŷ) · (b − h[t])| for every position t: ``grad, h [T, d_e]``, ``b [d_e]``
    → ``[T]``."""
    grad, h = _checks.real_tensor("grad", grad), _checks.real_tensor("h", h)
    b = _checks.real_tensor("b", b)
    if grad.dim() != 2 or grad.shape != h.shape or b.shape != h.shape[-1:]:
        raise ValueError(
            f"grad and h must be [T, d_e] and b [d_e], got {tuple(grad.shape)}, {tuple(h.shape)}, "
            f"{tuple(b.shape)}"
        )
    return (grad * (b - h)).sum(-1).abs()


def _predicts(lm: LoadedModel, ids: Tensor, layer: int, erased: Tensor, baseline: Tensor) -> int:
    def erase(h: Tensor) -> Tensor:
        return torch.where(erased[None, :, None], baseline.to(h), h)

    return int(lm(ids, hooks={("resid_pre", layer): erase})[0, -1].argmax())


def _first_order_scores(
    lm: LoadedModel,
    ids: Tensor,
    baselines: Tensor,
    delta: Callable[[Tensor, Tensor, Tensor], Tensor] = first_order_delta,
) -> tuple[Tensor, int]:
    """(δ ``[L, T − 1]`` for the earlier positions, ŷ) of one window ``ids [1, T]``, δ by ``delta``."""
    saved: dict[int, Tensor] = {}

    def keep(layer: int):
        def hook(h: Tensor) -> Tensor:
            h.retain_grad()
            saved[layer] = h
            return h

        return hook

    with torch.enable_grad():
        hooks = {("resid_pre", layer): keep(layer) for layer in range(lm.n_layer)}
        logp = lm(ids, hooks=hooks)[0, -1].log_softmax(-1)
        y = int(logp.argmax())
        logp[y].backward()
    rows = []
    for layer in range(lm.n_layer):
        grad = saved[layer].grad
        if grad is None:  # every layer's input feeds the last position's prediction
            raise RuntimeError(f"no gradient reached layer {layer}'s input")
        rows.append(delta(grad[0].detach(), saved[layer][0].detach(), baselines[layer]))
    return torch.stack(rows)[:, :-1], y


def erasable_share(
    lm: LoadedModel,
    windows: Tensor,
    baselines: Tensor,
    delta: Callable[[Tensor, Tensor, Tensor], Tensor] = first_order_delta,
) -> Tensor:
    """erasable(l) per window and layer ``[n, L]``; ``baselines [L, d_e]`` the states written in at
    each layer's input (``resid_pre``, e.g. ``mean_states``); ``delta`` is ``first_order_delta`` (a lesson
    passes a student's)."""
    lm = _windows.loaded(lm, "erasure reads the next-token prediction")
    windows = _windows.checked(lm, windows)
    n, T = windows.shape
    if T < 2:
        raise ValueError(f"windows must have T ≥ 2 tokens, got {T}")
    baselines = _checks.real_tensor("baselines", baselines)
    if baselines.shape != (lm.n_layer, lm.d_model):
        raise ValueError(f"baselines must be [{lm.n_layer}, {lm.d_model}], got {tuple(baselines.shape)}")
    out = torch.zeros(n, lm.n_layer)
    for i, ids in enumerate(windows):
        scores, y = _first_order_scores(lm, ids[None], baselines, delta)
        with torch.no_grad():
            for layer in range(lm.n_layer):
                order = scores[layer].argsort()
                low, high = 0, T - 1  # keeps ŷ with `low` erased; find the largest such k
                while low < high:
                    k = (low + high + 1) // 2
                    erased = torch.zeros(T, dtype=torch.bool, device=ids.device)
                    erased[order[:k]] = True
                    if _predicts(lm, ids[None], layer, erased, baselines[layer]) == y:
                        low = k
                    else:
                        high = k - 1
                out[i, layer] = low / (T - 1)
    return out


@torch.no_grad()
def mean_states(lm: LoadedModel, windows: Tensor) -> Tensor:
    """b_l: the mean state entering each block over every token of ``windows``: ``[L, d_e]``."""
    lm = _windows.loaded(lm, "erasure reads the next-token prediction")
    _, cache = lm.run_with_cache(_windows.checked(lm, windows))
    return cache.stack("resid_pre").mean((1, 2))
