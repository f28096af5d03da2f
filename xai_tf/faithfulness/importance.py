"""Four importances of the words of one prediction of an attention classifier (lessons 08, 11), for
f(x) = softmax(s)_1, the probability of the positive class (Jain & Wallace's ŷ):

    attention      α_t
    gradient       |∇_{e_t} f · e_t|                (gradient × input, as on the lecture's slide)
    leave-one-out  |f(x) − f(x_{−t})|               (word t removed, not replaced)
    IG             |Σ_j IG_tj|, IG from the zero embedding, m Gauss–Legendre nodes

Importances are magnitudes (how much, not which way): attention has no sign.

Three choices, each a keyword of ``explain``:

- ``detach_attention``: Jain & Wallace compute the gradient with the attention module detached
  (``attn = attn.detach()`` in their ``Decoder``, used by ``gradient_mem``), ∇_{e_t} f with α held
  fixed: the gradient then does not flow back through α, so τ(attention, gradient) does not partly
  compare attention with itself. ``False`` differentiates the whole model (lesson 06's gradient).
- ``dtype``: a saturated classifier's f is within 2⁻²⁴ of 0 or 1, so float32 leave-one-out
  differences are multiples of ≈ 6e-8 and many become ties; ``torch.float64`` computes every
  importance on a float64 copy of the model.
- IG's nodes: m doubles from ``ig_steps`` (16, 32, 64, …) until the completeness delta
  |Σ_tj IG_tj − (f(x) − f(x′))| falls under ``ig_tolerance`` or m reaches ``ig_max_steps``; the delta
  and m are returned (``Importances``), so a sentence where it is not reached is reported, not hidden.
  IG always differentiates the whole model (completeness needs the true gradient of f).

The defaults (float32, attention not detached, IG at a fixed m = 32) are lesson 06's methods as
lesson 11 uses them; lesson 08 passes ``PAPER`` (Jain & Wallace's detached gradient, float64,
adaptive IG).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain import attribution as attr
from xai_tf.tasks.recurrent import AttentionClassifier

METHODS = ("attention", "gradient", "LOO", "IG")
DTYPES = (torch.float32, torch.float64)
#: Lesson 08's settings: Jain & Wallace's gradient (attention detached), every importance in float64,
#: IG's nodes doubled from 16 up to 256 until |delta| < 10⁻³ (probability units).
PAPER = {"detach_attention": True, "dtype": torch.float64, "ig_steps": 16, "ig_max_steps": 256}


@dataclass
class Importances:
    """``scores``: ``{method: [T]}``; for IG its completeness delta and the number of nodes used
    (NaN and 0 when IG was not asked for)."""

    scores: dict[str, Tensor]
    ig_delta: float = float("nan")
    ig_steps: int = 0


def _sentence(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> Tensor:
    ids = model.check_input_ids(ids)
    if ids.size(0) != 1:
        raise ValueError(f"explain one sentence at a time: ids has shape {tuple(ids.shape)}")
    return ids


@torch.no_grad()
def attention_weights(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> Tensor:
    """α ``[T]`` of one sentence."""
    return model.attention(model.states(model.wte(_sentence(model, ids))))[0]


def _f(model: AttentionClassifier, E: Tensor, detach_attention: bool = False) -> Tensor:
    """f = softmax(s)_1 ``[n]`` for embeddings ``[n, T, d_e]`` (α held fixed when detached)."""
    h = model.states(E)
    alpha = model.attention(h)
    return model.readout(h, alpha.detach() if detach_attention else alpha).softmax(-1)[:, 1]


def _gradient(model: AttentionClassifier, ids: Tensor, detach_attention: bool) -> Tensor:
    """|∇_{e_t} f · e_t| ``[T]`` (with α detached: Jain & Wallace's ``gradient_mem``)."""
    E = model.wte(ids).detach().requires_grad_(True)
    (g,) = torch.autograd.grad(_f(model, E, detach_attention).sum(), E)
    return (g * E).sum(-1)[0].abs().detach()


@torch.no_grad()
def _leave_one_out(model: AttentionClassifier, ids: Tensor) -> Tensor:
    """|f(x) − f(x_{−t})| ``[T]``, word t dropped (row t of the batch: the sentence without it)."""
    T = ids.size(1)
    if T == 1:
        raise ValueError("leave-one-out needs at least 2 words")
    keep = ~torch.eye(T, dtype=torch.bool, device=ids.device)
    dropped = ids.expand(T, T)[keep].view(T, T - 1)
    return (_f(model, model.wte(ids)) - _f(model, model.wte(dropped))).abs()


def _adaptive_ig(
    model: AttentionClassifier, ids: Tensor, tolerance: float, steps: int, max_steps: int
) -> tuple[attr.IGResult, int]:
    """``(IG, m)``: IG of f from the zero embedding with m = steps, 2·steps, … ≤ max_steps
    Gauss–Legendre nodes, stopping at the first m with |delta| < tolerance (the last m otherwise)."""
    while True:
        result = attr.integrated_gradients(
            model, ids, 1, baseline="zeros", n_steps=steps, method="gausslegendre", output="prob"
        )
        if abs(result.delta) < tolerance or 2 * steps > max_steps:
            return result, steps
        steps *= 2


def explain(
    model: AttentionClassifier,
    ids: Sequence[int] | Tensor,
    methods: Sequence[str] = METHODS,
    detach_attention: bool = False,
    dtype: torch.dtype = torch.float32,
    ig_tolerance: float = 1e-3,
    ig_steps: int = 32,
    ig_max_steps: int = 32,
) -> Importances:
    """The ``methods`` (see ``METHODS``) of one sentence, with IG's delta (see the module docstring)."""
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        raise ValueError(f"methods must be among {METHODS}, got {unknown}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    _checks.positive("ig_tolerance", ig_tolerance)
    _checks.integer("ig_steps", ig_steps, 1)
    _checks.integer("ig_max_steps", ig_max_steps, ig_steps)
    ids = _sentence(model, ids)
    if dtype != model.wte.weight.dtype:
        model = copy.deepcopy(model).to(dtype)
    out, ig, m = {}, None, 0
    for method in methods:
        if method == "attention":
            out[method] = attention_weights(model, ids)
        elif method == "gradient":
            out[method] = _gradient(model, ids, detach_attention)
        elif method == "LOO":
            out[method] = _leave_one_out(model, ids)
        else:
            ig, m = _adaptive_ig(model, ids, ig_tolerance, ig_steps, ig_max_steps)
            out[method] = ig.token_scores.abs()
    scores = {k: v.detach().to(dtype) for k, v in out.items()}
    if ig is None:
        return Importances(scores)
    return Importances(scores, float(ig.delta), m)


def importances(
    model: AttentionClassifier, ids: Sequence[int] | Tensor, methods: Sequence[str] = METHODS, **options
) -> dict[str, Tensor]:
    """``{method: scores [T]}`` for the ``methods`` (see ``METHODS``) of one sentence; ``options``
    are ``explain``'s keywords."""
    return explain(model, ids, methods, **options).scores
