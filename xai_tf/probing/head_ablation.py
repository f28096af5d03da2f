"""Do the specialised heads matter most? Head ablation against the specialisation table (lesson 19).

Voita et al. (2019) prune a translation encoder's heads with stochastic gates (a relaxed L0 penalty): most
heads go for little loss (38 of 48 encoder heads for −0.15 BLEU), and the specialised heads (positional,
syntactic, rare-token) are the last to go. Training gates does not fit the lesson's budget; the check here
is the simpler one their paper starts from, one head at a time. Mean ablation (as lesson 15) replaces a
head's output z^{l,h} (``[batch, T, d_h]`` before W_O) by its mean over the windows and positions,
E[z^{l,h}], and the head's importance is the rise of the mean next-token loss ℓ_t = −log p(x_{t+1} | x_≤t):

    Δℓ(l, h) = mean_t ℓ_t(z^{l,h} ← E[z^{l,h}]) − mean_t ℓ_t.

Pruning in the order of these single-head importances (least important first) and ablating the first k
heads together gives a pruning curve: how many heads can go before the loss rises by a given amount.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import Tensor

from xai_tf.circuits.induction import token_losses
from xai_tf.models.loaded import LoadedModel
from xai_tf.probing._windows import checked, loaded


def ablated_loss(lm: LoadedModel, windows: Tensor, heads: Sequence[tuple[int, int]] = ()) -> float:
    """mean_t ℓ_t on ``windows [n, T]`` with every (layer, head) of ``heads`` mean-ablated at once (none: the
    model's own loss)."""
    lm, windows = _windows(lm, windows)
    _check_heads(lm, heads)
    return _mean_ablated_loss(lm, windows, heads)


def _check_heads(lm: LoadedModel, heads: Sequence[tuple[int, int]]) -> None:
    if not isinstance(heads, list | tuple) or not all(
        isinstance(p, list | tuple)
        and len(p) == 2
        and all(isinstance(i, int) and not isinstance(i, bool) for i in p)
        for p in heads
    ):
        raise TypeError(f"heads (order) must be a list of (layer, head) pairs of integers, got {heads!r:.60}")
    if len(set(map(tuple, heads))) != len(heads) or any(
        not (0 <= layer < lm.n_layer and 0 <= head < lm.n_head) for layer, head in heads
    ):
        raise ValueError(
            f"heads (order) must list distinct (layer, head) pairs of a {lm.n_layer}×{lm.n_head} model"
        )


def _mean_ablated_loss(lm: LoadedModel, windows: Tensor, heads: Sequence[tuple[int, int]]) -> float:
    by_layer: dict[int, list[int]] = {}
    for layer, head in heads:
        by_layer.setdefault(layer, []).append(head)

    def ablate(chosen: list[int]):
        def hook(z: Tensor) -> Tensor:  # [batch, heads, T, d_h]
            z = z.clone()
            z[:, chosen] = z[:, chosen].mean(dim=(0, 2), keepdim=True)
            return z

        return hook

    hooks = {("z", layer): ablate(chosen) for layer, chosen in by_layer.items()}
    with torch.no_grad():
        return float(token_losses(lm(windows, hooks=hooks), windows).double().mean())


def _windows(lm: LoadedModel, windows: Tensor) -> tuple[LoadedModel, Tensor]:
    lm = loaded(lm, "head ablation reads the next-token loss")
    windows = checked(lm, windows)
    if windows.size(1) < 2:
        raise ValueError(
            f"windows must have T ≥ 2 tokens (a loss predicts the next one), got {windows.size(1)}"
        )
    return lm, windows


def head_importance(lm: LoadedModel, windows: Tensor) -> Tensor:
    """Δℓ(l, h) ``[L, H]`` in nats: the rise of the mean next-token loss on ``windows [n, T]`` when head
    (l, h) alone is mean-ablated."""
    lm, windows = _windows(lm, windows)
    clean = _mean_ablated_loss(lm, windows, [])
    return torch.tensor(
        [
            [_mean_ablated_loss(lm, windows, [(layer, head)]) - clean for head in range(lm.n_head)]
            for layer in range(lm.n_layer)
        ]
    )


def pruning_curve(
    lm: LoadedModel, windows: Tensor, order: Sequence[tuple[int, int]], ks: Sequence[int] | None = None
) -> Tensor:
    """The loss rise (nats) with the first k heads of ``order`` mean-ablated together, for each k of ``ks``
    (default 0 … len(order)): ``[len(ks)]``."""
    lm, windows = _windows(lm, windows)
    _check_heads(lm, order)
    ks = range(len(order) + 1) if ks is None else ks
    if any(not isinstance(k, int) or not 0 <= k <= len(order) for k in ks):
        raise ValueError(f"ks must be integers in 0..{len(order)} (heads in order), got {list(ks)}")
    clean = _mean_ablated_loss(lm, windows, [])
    return torch.tensor([_mean_ablated_loss(lm, windows, order[:k]) - clean for k in ks])


def table_heads(result: Mapping[str, Mapping[str, Tensor]], top: int = 3) -> list[tuple[int, int]]:
    """The heads ``widgets.probing.head_table_html`` lists as specialised: for each kind of target with
    queries, the ``top`` heads by share / expected (share / uniform for "previous" and "next"); each once,
    in the table's order."""
    if not isinstance(result, Mapping) or not result:
        raise TypeError("result must be a non-empty dict: kind → heads.head_shares(...) entry")
    found: list[tuple[int, int]] = []
    for kind, r in result.items():
        if int(r["queries"]) == 0:
            continue
        base = r["uniform"] if kind in ("previous", "next") else r["expected"]
        ratio = np.asarray(r["share"] / base.clamp_min(1e-9))
        n_head = ratio.shape[1]
        for i in np.argsort(-ratio, axis=None, kind="stable")[:top]:
            pair = divmod(int(i), n_head)
            if pair not in found:
                found.append(pair)
    return found
