"""Four importances of the words of one prediction of an attention classifier (lessons 08, 11), for
f(x) = softmax(s)_1, the probability of the positive class (Jain & Wallace's ŷ):

    attention      α_t
    gradient       |∇_{e_t} f · e_t|                (gradient × input, as on the lecture's slide)
    leave-one-out  |f(x) − f(x_{−t})|               (word t removed, not replaced)
    IG             |Σ_j IG_tj|, IG from the zero embedding (m = 32 Gauss–Legendre nodes)

Importances are magnitudes (how much, not which way): attention has no sign. Gradient, LOO and IG
come from lesson 06's helpers in ``xai_tf.explain.attribution``.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from xai_tf.explain import attribution as attr
from xai_tf.tasks.recurrent import AttentionClassifier

METHODS = ("attention", "gradient", "LOO", "IG")


@torch.no_grad()
def attention_weights(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> Tensor:
    """α ``[T]`` of one sentence."""
    ids = model.check_input_ids(ids)
    if ids.size(0) != 1:
        raise ValueError(f"explain one sentence at a time: ids has shape {tuple(ids.shape)}")
    return model.attention(model.states(model.wte(ids)))[0]


def importances(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, methods: Sequence[str] = METHODS
) -> dict[str, Tensor]:
    """``{method: scores [T]}`` for the ``methods`` (see ``METHODS``) of one sentence."""
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"methods must be among {METHODS}, got {unknown}")
    out = {}
    for method in methods:
        if method == "attention":
            out[method] = attention_weights(model, ids)
        elif method == "gradient":
            out[method] = attr.gradient_times_input(
                *attr.embedding_gradients(model, ids, 1, output="prob")
            ).abs()
        elif method == "LOO":
            if len(model.check_input_ids(ids)[0]) == 1:
                raise ValueError("leave-one-out needs at least 2 words")
            out[method] = attr.leave_one_out(model, ids, 1, replacement=None, output="prob").abs()
        else:
            ig = attr.integrated_gradients(model, ids, 1, baseline="zeros", n_steps=32, output="prob")
            out[method] = ig.token_scores.abs()
    return {k: v.detach().float() for k, v in out.items()}
