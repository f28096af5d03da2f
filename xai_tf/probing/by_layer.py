"""Probing every layer at once (lesson 19): accuracy, control accuracy, selectivity and MDL compression
of one label over h_0..h_L, the tables the lesson plots and its panel reads.

For a label y and its control c (``control.control_labels``), at each layer l:
acc_task(l), acc_control(l), selectivity(l) = acc_task(l) − acc_control(l), and the MDL compression
L_unif / L_online (``mdl``) of y and of c on the training tokens, in a seeded random order. Every layer,
task and control, is one stack of 2(L + 1) problems fitted together (``probes``), each coded as it would be
alone (``mdl.online_codelength``). What remains of the stack is where L-BFGS stops: after 50 iterations a
compression fitted in the stack and alone differed by at most 0.3 % (lesson 19's data, part of speech, seed
0; 7.2 % before the code decided the add-one fallback and unseen classes per problem, issue 58).
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.probing import mdl, probes
from xai_tf.probing.control import control_labels

#: L2 strength of the MDL probes (C of ``probes.fit_linear``): the first blocks hold a handful of tokens,
#: and a weakly regularised probe trained on them is confidently wrong, costing more bits than uniform.
MDL_C = 0.05
#: The MDL MLP probes' early stopping (``probes.fit_mlp``'s ``holdout``): Voita & Titov (2020) stop their
#: probes on a held-out slice of what has been sent; unstopped, an MLP fitted to a few examples is confidently
#: wrong on the next block, and its code grows past the uniform one (issue 56).
MDL_HOLDOUT = 0.1


def layer_states(H: Tensor, layer: object) -> Tensor:
    """h_l from the stack ``H [L + 1, N, d_e]`` (``features.residual_streams``), l in 0..L."""
    H = _checks.real_tensor("H", H, dims=3)
    return H[_checks.integer("layer", layer, 0, H.size(0) - 1)]


def _stack(H: Tensor, labels: list[Tensor]) -> tuple[Tensor, Tensor]:
    """Every layer once per label vector: states ``[n·(L + 1), N, d]`` and labels ``[n·(L + 1), N]``."""
    H = _checks.real_tensor("H", H, dims=3)
    if not isinstance(labels, list | tuple) or not labels:
        raise TypeError("labels must be a non-empty list of label tensors (e.g. [task, control])")
    for y in labels:
        if not isinstance(y, Tensor) or y.shape != (H.size(1),):
            raise ValueError(f"labels must be tensors of {H.size(1)} labels each, one per token of H")
    return H.repeat(len(labels), 1, 1), torch.cat([y.expand(H.size(0), -1) for y in labels])


def _tokens(name: str, idx: object, N: int) -> Tensor:
    """Token indices (a tensor or list) as a long tensor, each in 0..N−1, at least one."""
    idx = torch.as_tensor(_checks.indices(name, idx, N), dtype=torch.long)
    if idx.numel() == 0:
        raise ValueError(f"{name} is empty: give at least one token index in 0..{N - 1}")
    return idx


def probe_by_layer(
    H: Tensor, labels: list[Tensor], train: Tensor, test: Tensor, kind: str = "linear", seed: int = 0
) -> list[list[float]]:
    """Test accuracy by layer ``[len(labels)][L + 1]`` of a ``kind`` probe fitted on the ``train`` tokens
    of each layer, for each label vector (e.g. [task, control])."""
    S, Y = _stack(H, labels)
    train, test = _tokens("train", train, S.size(1)), _tokens("test", test, S.size(1))
    K = int(max(int(y.max()) for y in labels)) + 1
    probe = probes.fit_probe(kind, S[:, train], Y[:, train], K, seed)
    return probes.accuracy(probe, S[:, test], Y[:, test]).view(len(labels), -1).tolist()


def mdl_by_layer(
    H: Tensor, labels: list[Tensor], train: Tensor, kind: str = "linear", seed: int = 0
) -> list[list[float]]:
    """Compression L_unif / L_online by layer ``[len(labels)][L + 1]`` of each label vector on the
    ``train`` tokens, shuffled by ``seed``, with ``kind`` probes: linear (C = ``MDL_C``) or the MLP
    (``probes.fit_mlp``, seeded, stopped early on the last ``MDL_HOLDOUT`` of each prefix)."""
    if kind not in probes.PROBES:
        raise ValueError(f"kind must be one of {probes.PROBES}, got {kind!r}")
    S, Y = _stack(H, labels)
    train = _tokens("train", train, S.size(1))
    K = int(max(int(y.max()) for y in labels)) + 1
    order = train[torch.randperm(train.numel(), generator=seeds.generator(seed))]

    def fit(h: Tensor, t: Tensor, k: int) -> probes.Probe:
        if kind == "mlp":
            return probes.fit_mlp(h, t, k, seed=seed, holdout=MDL_HOLDOUT)
        return probes.fit_linear(h, t, k, C=MDL_C, max_iter=50)

    online, uniform = mdl.online_codelength(fit, S[:, order], Y[:, order], K)
    return (uniform / online).view(len(labels), -1).tolist()


def study(
    H: Tensor, y: Tensor, types: Tensor, train: Tensor, test: Tensor, kinds: tuple[str, ...] = probes.PROBES,
    mdl_kinds: tuple[str, ...] = ("linear",), seed: int = 0,
) -> dict[str, list[float]]:  # fmt: skip
    """Per layer: "<kind> task", "<kind> control", "<kind> selectivity" for each probe kind in
    ``kinds``, the "majority" baseline, and "<kind> mdl task", "<kind> mdl control" compressions for each
    kind in ``mdl_kinds``."""
    probes.check_probe_data(layer_states(H, 0), y)
    train, test = _tokens("train", train, H.size(1)), _tokens("test", test, H.size(1))
    for name, ks in (("kinds", kinds), ("mdl_kinds", mdl_kinds)):
        if not isinstance(ks, list | tuple) or any(k not in probes.PROBES for k in ks):
            raise ValueError(f"{name} must be a tuple of probe kinds from {probes.PROBES}, got {ks!r}")
    c = control_labels(types, y, seed)
    table: dict[str, list[float]] = {"majority": [probes.majority_baseline(y[train], y[test])] * H.size(0)}
    for kind in kinds:
        task, ctrl = probe_by_layer(H, [y, c], train, test, kind, seed)
        table[f"{kind} task"], table[f"{kind} control"] = task, ctrl
        table[f"{kind} selectivity"] = [a - b for a, b in zip(task, ctrl, strict=True)]
    for kind in mdl_kinds:
        table[f"{kind} mdl task"], table[f"{kind} mdl control"] = mdl_by_layer(H, [y, c], train, kind, seed)
    return table
