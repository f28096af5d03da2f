"""Probing lesson 09's Dyck model for the stack depth (lesson 19).

Labels: for a string of Dyck_{2,D} (``xai_tf.tasks.dyck``), the depth after position i,

    depth_i = #open − #closed brackets among x_1..x_i ∈ {0, …, D},

the push-down automaton's stack height (``parse_dyck``'s ``depth``). The model (``DyckModel``) never
sees it: it is trained to predict the class of the next closing bracket, which needs the stack top,
of which depth_i = 0 is one case.

States: h_0 = W_e[x_i] + W_p[i] (the input to layer 1) and h_l = f⁽ˡ⁾, the residual stream leaving
layer l, for l = 1..L. They are read, without changing the model or re-running its code, as the input
of the LayerNorm that opens each layer (LN_{2l}, applied to f⁽ˡ⁾ before layer l + 1's attention) and of
the final LayerNorm (applied to f⁽ᴸ⁾ before the readout). Token identity and position, all h_0
holds, already constrain the depth (its parity is the position's; "(" at i = 0 means depth 1), so
h_0 is the probe's baseline for "read from context", the majority label the baseline for "nothing".
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.probing import by_layer, probes
from xai_tf.tasks.dyck import encode_dyck, next_close_targets, parse_dyck
from xai_tf.tasks.dyck_model import DyckModel


def depth_labels(strings: list[str], D: int = 4) -> Tensor:
    """depth_i of every position of valid, equal-length strings of Dyck_{2,D}, flattened ``[n·N]``."""
    next_close_targets(strings, 2, D)  # checks: valid, one length, each string named if not
    return torch.tensor([parse_dyck(s, 2, D).depth for s in strings]).flatten()


@torch.no_grad()
def dyck_states(model: DyckModel, strings: list[str]) -> Tensor:
    """h_0..h_L for every position of ``strings``: ``[L + 1, n·N, d]``, strings in order."""
    if not isinstance(model, DyckModel):
        raise TypeError(f"model must be a DyckModel (toytasks.load_toytasks()), got {type(model).__name__}")
    x = encode_dyck(strings)
    L = len(model.W_qkv)
    norms = [model.ln[2 * layer] for layer in range(L)] + [model.ln[-1]]
    seen: list[Tensor] = []
    handles = [n.register_forward_pre_hook(lambda _m, args: seen.append(args[0])) for n in norms]
    try:
        model(x)
    finally:
        for handle in handles:
            handle.remove()
    return torch.stack(seen).flatten(1, 2).float()


def depth_by_layer(
    model: DyckModel, strings: list[str], train_share: float = 0.75, seed: int = 0
) -> dict[str, list[float]]:
    """Test accuracy by layer (0..L) of linear and MLP probes for depth_i ("linear", "mlp"), and the
    "majority" baseline, with a seeded ``train_share`` of the strings (never positions of one string on
    both sides) for training."""
    y = depth_labels(strings)
    H = dyck_states(model, strings)
    n, N = len(strings), len(strings[0])
    _checks.real("train_share", train_share, 0, 1, open_lo=True, open_hi=True)
    if n < 2:
        raise ValueError(f"strings must hold at least 2 strings (train and test), got {n}")
    order = torch.randperm(n, generator=seeds.generator(seed))
    cut = min(max(1, round(train_share * n)), n - 1)
    rows = torch.arange(n * N).view(n, N)
    train, test = rows[order[:cut]].flatten(), rows[order[cut:]].flatten()
    table = {"majority": [probes.majority_baseline(y[train], y[test])] * H.size(0)}
    for kind in probes.PROBES:
        table[kind] = by_layer.probe_by_layer(H, [y], train, test, kind, seed)[0]
    return table
