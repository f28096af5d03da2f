"""Test-time intervention on a concept bottleneck model (lesson 12; Koh et al. 2020): replace some
predicted concepts by the true ones and let g recompute the output,

    b′_j = c_j                          (real-valued concept, or a binary one read as a probability)
    b′_j = q05_j if c_j = 0, q95_j if c_j = 1   (a binary concept read as a logit)

where q05_j, q95_j are the 5th and 95th percentiles of b_j(x) over the training set: a logit has no
"true value", and 0/1 sit in the middle of the logits g learnt on. (Koh et al.'s released CUB code,
``CUB/tti.py``, takes them over the predictions on the split it evaluates, the test set by default.)
Groups of concepts (a colour one-hot) are intervened together, one group at a time, in a random
order or most uncertain first:

    u_j(x) = 2 min(σ(h_j(x)), 1 − σ(h_j(x)))   (binary: 1 at p = ½, 0 when sure)
    u_j    = 1 − R²_j = E[(h_j(x) − c_j)²] / Var(c_j) on the training set
             (real-valued: a point predictor has no per-example spread)

and a group's uncertainty is the largest u_j in it (the ordering rule is ours; Shin et al. 2023
compare such rules).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.cbm._common import check_binary, check_concepts
from xai_tf.cbm.data import ConceptData, check_data
from xai_tf.cbm.metrics import task_error
from xai_tf.cbm.models import ConceptBottleneck

ORDERS = ("random", "uncertainty")


def _model(model: object) -> ConceptBottleneck:
    if not isinstance(model, ConceptBottleneck):
        raise TypeError(f"model must be a ConceptBottleneck, got {type(model).__name__}")
    if model.mode == "standard":
        raise ValueError(
            "a standard model has no concepts to intervene on: pick independent, sequential or joint"
        )
    return model


def percentiles(model: ConceptBottleneck, train: ConceptData) -> Tensor:
    """[2, k]: the 5th and 95th percentiles of each b_j(x) over the training set."""
    model = _model(model)
    train = check_data("train", train, model.k)
    with torch.no_grad():
        return bottleneck_percentiles(model.bottleneck(train.x))


def bottleneck_percentiles(b: Tensor) -> Tensor:
    """[2, k]: q05_j and q95_j, the 5th and 95th percentiles of each column b_j of ``b [n, k]`` (the
    bottlenecks of n training examples; linear interpolation between order statistics, numpy's default)."""
    b = _checks.real_tensor("b", _checks.tensor("b", b))
    if b.dim() != 2 or b.size(0) == 0:
        raise ValueError(f"b must be [n, k] with n ≥ 1 examples, got shape {tuple(b.shape)}")
    return torch.quantile(b, torch.tensor([0.05, 0.95], dtype=b.dtype, device=b.device), dim=0)


def class_medians(model: ConceptBottleneck, train: ConceptData) -> Tensor:
    """[2, k]: the median of each b_j(x) over the training examples with c_j = 0 and with c_j = 1 —
    a milder low/high than the percentiles, for comparison (real-valued concepts: 0, unused, since
    ``intervene`` puts in c_j there)."""
    model = _model(model)
    train = check_data("train", train, model.k)
    with torch.no_grad():
        b = model.bottleneck(train.x)
    out = torch.zeros(2, model.k, dtype=b.dtype, device=b.device)
    half = torch.tensor(0.5, dtype=b.dtype, device=b.device)
    for j in model.binary.nonzero().flatten().tolist():
        for row, rows in enumerate((train.c[:, j] <= 0.5, train.c[:, j] > 0.5)):
            if not rows.any():
                raise ValueError(
                    f"train has no example with c_{j} = {row} ({train.names[j]}): that class has no median;"
                    " give a training set with both values of every binary concept"
                )
            out[row, j] = torch.quantile(b[rows, j], half)
    return out


def intervene(
    model: ConceptBottleneck,
    b: Tensor,
    c: Tensor,
    which: Sequence[int] | Tensor,
    low_high: Tensor | None,
) -> Tensor:
    """b′: the bottleneck ``b [n, k]`` with the concepts ``which`` (indices, or a boolean ``[n, k]``
    mask per example) replaced as in the module docstring; ``low_high [2, k]`` holds q05 and q95.
    ``low_high = None`` puts in ``c`` as concept values, a binary one as a probability p (a slider's
    value): g then reads p, or logit(p) (p clipped to [0.001, 0.999]) if it reads logits."""
    model = _model(model)
    k = model.k
    b, c = check_concepts("b", b, k), check_concepts("c", c, k)
    _checks.same_shape("intervene", "b", b, "c", c)
    mask = _mask(which, b)
    c = c.to(b.dtype)
    if model.g_input == "probability":
        true = c
    elif low_high is None:
        true = torch.where(model.binary, torch.logit(c.clamp(1e-3, 1 - 1e-3)), c)
    else:
        low_high = check_concepts("low_high", low_high, k).to(b.dtype)
        if low_high.size(0) != 2:
            raise ValueError(
                f"low_high must be [2, {k}] (q05 and q95 of each concept), got {tuple(low_high.shape)}"
            )
        true = torch.where(model.binary, torch.where(c > 0.5, low_high[1], low_high[0]), c)
    return torch.where(mask, true, b)


def replace_concepts(
    b: Tensor, c: Tensor, which: Sequence[int], binary: Tensor, low: Tensor, high: Tensor
) -> Tensor:
    """b′ for a g that reads logits, as a new tensor (``b`` is left as it is): for each j in ``which``

        b′_j = c_j (real-valued j),   high_j if c_j = 1,   low_j if c_j = 0   (binary j)

    and b′_j = b_j for the other concepts; ``b, c [n, k]``, ``binary, low, high [k]`` (low, high: the
    q05 and q95 of ``bottleneck_percentiles``). ``intervene`` does this for a model's own bottleneck."""
    k = check_binary(binary).numel()
    b, c = check_concepts("b", b, k), check_concepts("c", c, k)
    _checks.same_shape("replace_concepts", "b", b, "c", c)
    low, high = (
        check_concepts(name, _row(name, v), k)[0].to(b) for name, v in (("low", low), ("high", high))
    )
    mask = torch.zeros(k, dtype=torch.bool, device=b.device)
    mask[_checks.indices("which", which, k)] = True
    true = torch.where(binary.to(b.device), torch.where(c.to(b.dtype) > 0.5, high, low), c.to(b.dtype))
    return torch.where(mask, true, b)


def _row(name: str, value: object) -> Tensor:
    """A ``[k]`` tensor as one row ``[1, k]`` (anything else is left for ``check_concepts`` to refuse)."""
    value = _checks.tensor(name, value)
    return value.unsqueeze(0) if value.dim() == 1 else value


def _mask(which: object, b: Tensor) -> Tensor:
    """``which`` as a boolean mask of b's shape: a mask as given, or concept indices in 0..k−1."""
    if isinstance(which, Tensor) and which.dtype == torch.bool:
        if which.shape != b.shape:
            raise ValueError(f"which as a mask must be [n, k] = {tuple(b.shape)}, got {tuple(which.shape)}")
        return which.to(b.device)
    index = _checks.indices("which", which, b.size(1))
    mask = torch.zeros(b.size(1), dtype=torch.bool, device=b.device)
    mask[index] = True
    return mask.expand_as(b)


def intervened_error(
    model: ConceptBottleneck,
    data: ConceptData,
    train: ConceptData,
    which: Sequence[int],
    low_high: Tensor | None = None,
) -> float:
    """Task error on ``data`` with the concepts ``which`` intervened on for every example
    (``low_high`` defaults to ``percentiles(model, train)``)."""
    model = _model(model)
    data = check_data("data", data, model.k)
    low_high = percentiles(model, train) if low_high is None else low_high
    with torch.no_grad():
        b = intervene(model, model.bottleneck(data.x), data.c, which, low_high)
        return task_error(model.predict_from(b), data.y, data.task)


def uncertainty(model: ConceptBottleneck, data: ConceptData, train: ConceptData) -> Tensor:
    """u [n, k] of the module docstring for the examples of ``data`` (R²_j from ``train``)."""
    model = _model(model)
    data, train = check_data("data", data, model.k), check_data("train", train, model.k)
    if len(train) < 2:
        raise ValueError(
            f"train must have at least 2 examples: R²_j divides by the variance of c_j, got {len(train)}"
        )
    with torch.no_grad():
        p = model.concept_outputs(data.x).sigmoid()
        train_out = model.concept_outputs(train.x)
    residual = (train_out - train.c).square().mean(0) / train.c.var(0).clamp_min(1e-12)
    return torch.where(model.binary, 2 * torch.minimum(p, 1 - p), residual.expand_as(p))


def group_order(
    model: ConceptBottleneck, data: ConceptData, train: ConceptData, order: str = "random", seed: int = 0
) -> Tensor:
    """[n, G]: for each example, the groups in the order they are intervened on."""
    model = _model(model)
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")
    data = check_data("data", data, model.k)
    n, G = len(data), len(data.groups)
    if order == "random":
        g = seeds.generator(seed)
        ranks = torch.stack([torch.randperm(G, generator=g, device="cpu") for _ in range(n)])
        return ranks.to(data.x.device)
    u = uncertainty(model, data, train)
    per_group = torch.stack([u[:, list(group)].amax(-1) for group in data.groups], -1)
    return torch.argsort(per_group, dim=-1, descending=True, stable=True)


def intervention_curve(
    model: ConceptBottleneck,
    data: ConceptData,
    train: ConceptData,
    order: str = "random",
    seed: int = 0,
    low_high: Tensor | None = None,
) -> list[float]:
    """Task error on ``data`` after intervening on 0, 1, …, G groups per example (the curve of Koh et
    al.'s Figure 4); ``low_high`` defaults to ``percentiles(model, train)``."""
    model = _model(model)
    data = check_data("data", data, model.k)
    low_high = percentiles(model, train) if low_high is None else low_high
    ranks = group_order(model, data, train, order, seed)
    member = torch.zeros(len(data.groups), data.k, dtype=torch.bool, device=data.x.device)
    for i, group in enumerate(data.groups):
        member[i, list(group)] = True
    with torch.no_grad():
        b = model.bottleneck(data.x)
        errors = []
        for m in range(len(data.groups) + 1):
            mask = member[ranks[:, :m]].any(1) if m else torch.zeros_like(b, dtype=torch.bool)
            out = model.predict_from(intervene(model, b, data.c, mask, low_high))
            errors.append(task_error(out, data.y, data.task))
    return errors
