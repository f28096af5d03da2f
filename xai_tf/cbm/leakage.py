"""Leakage (lesson 12; Mahinpei et al. 2021, Margeloiu et al. 2021): the soft concept outputs b(x)
of a sequential or joint model can carry information about y that the concepts do not — then g
reads more than "the concepts", and an explanation in concepts misses part of why f decided.

Measure it by keeping what b says about c and scrambling the rest, then asking how much a fresh g
loses:

    b̃_ij = b_π_j(i) j   with π_j a random permutation of the examples that share c_ij   (binary j)
    b̃_ij = c_ij + (b_π_j(i) j − c_π_j(i) j)   with π_j a random permutation of all examples   (real j)

    leakage = err(g̃ on b̃) − err(g on b)

g and g̃ are fresh g's trained on the training set's b and b̃ and tested on the test set's b and b̃.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.cbm._common import check_binary, check_concepts
from xai_tf.cbm.data import ConceptData, check_data
from xai_tf.cbm.metrics import task_error
from xai_tf.cbm.models import ConceptBottleneck
from xai_tf.cbm.training import OPTIONS, default_g, fit_g
from xai_tf.training import TrainOptions, checked_options


def scramble(b: Tensor, c: Tensor, binary: Tensor, seed: int = 0) -> Tensor:
    """b̃ of the module docstring for bottlenecks ``b [n, k]`` and true concepts ``c [n, k]``."""
    k = check_binary(binary).numel()
    b, c = check_concepts("b", b, k), check_concepts("c", c, k)
    _checks.same_shape("scramble", "b", b, "c", c)
    off = ~((c == 0) | (c == 1)) & binary.to(c.device)
    if off.any():
        j = int(off.nonzero()[0, 1])
        raise ValueError(f"c must be 0 or 1 in its binary concepts, got {float(c[off][0]):g} in concept {j}")
    g = seeds.generator(seed)
    out = b.clone()
    for j in range(k):
        if binary[j]:
            for value in (0.0, 1.0):
                rows = (c[:, j] == value).nonzero().squeeze(-1)
                out[rows, j] = b[
                    rows[torch.randperm(len(rows), generator=g, device="cpu").to(rows.device)], j
                ]
        else:
            perm = torch.randperm(len(b), generator=g, device="cpu").to(b.device)
            out[:, j] = c[:, j] + (b[perm, j] - c[perm, j])
    return out


def leakage(
    model: ConceptBottleneck,
    train: ConceptData,
    test: ConceptData,
    options: TrainOptions = OPTIONS,
) -> dict[str, float]:
    """{"soft": err(g on b), "scrambled": err(g̃ on b̃), "leakage": their difference} on ``test``,
    each g trained by ``fit_g`` with ``options`` (``OPTIONS`` by default: the whole set each step)
    on ``train``."""
    if not isinstance(model, ConceptBottleneck):
        raise TypeError(f"model must be a ConceptBottleneck, got {type(model).__name__}")
    if model.mode == "standard":
        raise ValueError(
            "a standard model has no concepts in its bottleneck to leak past:"
            " pick independent, sequential or joint"
        )
    seed = checked_options(options).seed
    train, test = check_data("train", train, model.k), check_data("test", test, model.k)
    with torch.no_grad():
        b_train, b_test = model.bottleneck(train.x), model.bottleneck(test.x)
    errors = {}
    for name, fresh_train, fresh_test in (
        ("soft", b_train, b_test),
        (
            "scrambled",
            scramble(b_train, train.c, train.binary, seed),
            scramble(b_test, test.c, test.binary, seed + 1),
        ),
    ):
        g = fit_g(default_g(train, seed), fresh_train, train, options)
        with torch.no_grad():
            errors[name] = task_error(g(fresh_test).squeeze(-1), test.y, test.task)
    return {**errors, "leakage": errors["scrambled"] - errors["soft"]}
