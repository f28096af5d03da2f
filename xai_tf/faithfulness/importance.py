"""Four importances of the words of one prediction of an attention classifier (lessons 08, 11), for
f(x) = softmax(s)_c, the probability of the class c = ``target`` (1, the positive class, by default:
Jain & Wallace's ŷ):

    attention      α_t
    gradient       |∇_{e_t} f · e_t|                (gradient × input)
    leave-one-out  |f(x) − f(x_{−t})|               (word t removed, not replaced)
    IG             |Σ_j IG_tj|, IG from the zero embedding, m Gauss–Legendre nodes

Importances are magnitudes (how much, not which way): attention has no sign. The lecture's slide writes
the gradient and leave-one-out signed, ∇_{e_t} f · e_t and f(x) − f(x_{−t}); Jain & Wallace rank their
magnitudes, and so do these. They are the "attention" kind's methods of ``xai_tf.explain.registry``
(ids ``attention``, ``grad_x_input``, ``loo``, ``ig``; one verb, ``explain(id, model, ids, target,
**options)``), and the view ``IMPORTANCES`` keys them as the lessons do (``IMPORTANCES.explain(method,
model, ids, target, **options)`` takes any of the options and passes each method its own):

- ``detach_attention``: Jain & Wallace compute the gradient with the attention module detached
  (``attn = attn.detach()`` in their ``Decoder``, used by ``gradient_mem``), ∇_{e_t} f with α held
  fixed: the gradient then does not flow back through α, so τ(attention, gradient) does not partly
  compare attention with itself. ``False`` differentiates the whole model (lesson 06's gradient).
- ``dtype``: a saturated classifier's f is within 2⁻²⁴ of 0 or 1, so float32 leave-one-out
  differences are multiples of ≈ 6e-8 and many become ties; ``torch.float64`` computes every
  importance on a float64 copy of the model.
- IG's nodes: m doubles from ``ig_steps`` (16, 32, 64, …) until the completeness delta
  |Σ_tj IG_tj − (f(x) − f(x′))| falls under ``ig_tolerance`` or m reaches ``ig_max_steps``; the delta
  and m are returned in the ``Explanation``, and a sentence where the tolerance is not reached gets an
  ``IGToleranceWarning`` that says so (raise ``ig_max_steps``), so it is reported, not hidden; a study
  over many sentences (``correlation_study``, ``eraser_table``, ``precision_study``) warns once, with the
  count. IG always
  differentiates the whole model (completeness needs the true gradient of f).

The defaults are the accurate settings lesson 08 settled on (``PAPER``, the same dict): Jain & Wallace's
detached gradient, every importance in float64, IG's nodes doubled from 16 up to 256 until
|delta| < 10⁻³ (probability units). Measured on the seed-0 cue models of lessons 08 and 11 (30 test
sentences, offsets 0 and 3): the tolerance is reached on every sentence (m ≤ 256), |IG − a float64
midpoint integral with 1,600 points| ≤ 9e-4 per word on the BiLSTM and ≤ 7e-3 on the ReLU encoder ("none",
whose path has kinks), where a fixed m = 32 in float32 was off by up to 0.10 (|delta| up to 0.19).
Lesson 06's float32 gradient through α is ``{"dtype": torch.float32, "detach_attention": False}``.
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from torch import Tensor

from xai_tf import _checks
from xai_tf.explain import attribution as attr
from xai_tf.explain.registry import Explanation, Method, View, register
from xai_tf.tasks.recurrent import AttentionClassifier

DTYPES = (torch.float32, torch.float64)
#: The defaults: Jain & Wallace's gradient (attention detached), every importance in float64, IG's
#: nodes doubled from 16 up to 256 until |delta| < 10⁻³ (probability units).
OPTIONS = {
    "detach_attention": True,
    "dtype": torch.float64,
    "ig_tolerance": 1e-3,
    "ig_steps": 16,
    "ig_max_steps": 256,
}
#: Lesson 08's settings, which are the defaults (kept as a name: lesson 08 passes it).
PAPER = dict(OPTIONS)


def vocabulary_size(model: AttentionClassifier) -> int:
    """V, the number of words of ``model``'s vocabulary (a TypeError for anything but a classifier)."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")
    return model.config.vocab_size


#: IG's nodes are one forward and backward pass each; lesson 08 uses at most 256.
MAX_IG_STEPS = 1024


class IGToleranceWarning(RuntimeWarning):
    """IG's completeness delta is not under ``ig_tolerance`` at ``ig_max_steps`` nodes."""


@contextlib.contextmanager
def ig_misses(where: str, deltas: list[float], tolerance: float) -> Iterator[None]:
    """Inside: each sentence's ``IGToleranceWarning`` silenced (a study collects its IG deltas in
    ``deltas``); on leaving, one warning for the whole study: on how many sentences |delta| ≥
    ``tolerance``, and the largest."""
    tolerance = _checks.positive("tolerance", tolerance)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IGToleranceWarning)
        yield
    missed = [abs(d) for d in deltas if abs(d) >= tolerance]  # NaN (no IG) is never ≥
    if missed:
        warnings.warn(
            f"{where}: IG's completeness delta is not under ig_tolerance = {tolerance:g} on {len(missed)} of"
            f" {len(deltas)} sentences (|delta| up to {max(missed):.1e}): raise ig_max_steps (at most"
            f" {MAX_IG_STEPS})",
            IGToleranceWarning,
            stacklevel=4,  # the caller of the study (1: here, 2: contextlib, 3: the study)
        )


def sentence_ids(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> Tensor:
    """One sentence's word ids ``[1, T]`` checked where they enter: ``model`` an attention classifier,
    ids integers of its vocabulary (1..V − 1; 0 is padding: data encoded with another vocabulary are
    refused here), and the sentence's backward pass within the free memory."""
    V = vocabulary_size(model)
    if isinstance(ids, str):
        raise TypeError(f"ids must be word ids in 1..{V - 1} (encode the text with the model's Vocabulary)")
    found = _checks.token_ids("ids", ids if isinstance(ids, Tensor) else list(ids), V)
    if found.dim() == 2 and found.size(0) == 1:
        found = found[0]
    if found.dim() != 1 or len(found) == 0:
        raise ValueError(f"ids must be one sentence's word ids [T], T ≥ 1, got shape {tuple(found.shape)}")
    if int(found.min()) < 1:
        raise ValueError(f"ids must be word ids in 1..{V - 1} (0 is padding), got 0")
    T = len(found)
    _checks.fits(
        f"explaining ids of {T} words", T * model.config.backward_bytes(T), "explain a shorter sentence"
    )
    return found[None].to(model.embedding.device)


@torch.no_grad()
def attention_weights(model: AttentionClassifier, ids: Sequence[int] | Tensor) -> Tensor:
    """α ``[T]`` of one sentence."""
    return model.attention(model.states(model.embed(sentence_ids(model, ids))))[0]


def _f(model: AttentionClassifier, E: Tensor, target: int, detach_attention: bool = False) -> Tensor:
    """f = softmax(s)_target ``[n]`` for embeddings ``[n, T, d_e]`` (α held fixed when detached)."""
    h = model.states(E)
    alpha = model.attention(h)
    return model.readout(h, alpha.detach() if detach_attention else alpha).softmax(-1)[:, target]


def _checked(explain: Method) -> Method:
    """A method with the checks every importance shares done first: one sentence of the model's
    words, a class of the model (None: 1), its declared options valid, the model in ``dtype``."""

    def method(model: AttentionClassifier, ids: Sequence[int] | Tensor, target: Any, **o: Any) -> Explanation:
        ids = sentence_ids(model, ids)
        target = _checks.integer("target", 1 if target is None else target, 0, model.config.n_classes - 1)
        _check_options(o)
        if o["dtype"] != model.embedding.dtype:
            model = copy.deepcopy(model).to(o["dtype"])
        found = explain(model, ids, target, **o)
        found.scores = found.scores.detach().to(o["dtype"])
        return found

    return method


def _check_options(options: dict[str, Any]) -> None:
    """A ValueError or TypeError naming the first invalid option of ``OPTIONS`` in ``options``."""
    if "dtype" in options and options["dtype"] not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {options['dtype']!r}")
    if "ig_steps" in options:
        _checks.positive("ig_tolerance", options["ig_tolerance"])
        _checks.integer("ig_steps", options["ig_steps"], 1, MAX_IG_STEPS)
        _checks.integer("ig_max_steps", options["ig_max_steps"], options["ig_steps"], MAX_IG_STEPS)
    if "detach_attention" in options:
        _checks.flag("detach_attention", options["detach_attention"])


def _declared(*names: str) -> dict[str, Any]:
    return {name: OPTIONS[name] for name in ("dtype", *names)}


@register("attention", "attention", label="attention", reads="activations", options=_declared())
@_checked
def _attention(model: AttentionClassifier, ids: Tensor, target: int, **_: Any) -> Explanation:
    return Explanation(attention_weights(model, ids), note="α_t: no class, no sign")


@register(
    "grad_x_input",
    "attention",
    label="gradient × input",
    reads="gradients",
    options=_declared("detach_attention"),
)
@_checked
def _gradient(model: AttentionClassifier, ids: Tensor, target: int, **o: Any) -> Explanation:
    """|∇_{e_t} f · e_t| ``[T]`` (with α detached: Jain & Wallace's ``gradient_mem``)."""
    E = model.embed(ids).detach().requires_grad_(True)
    (g,) = torch.autograd.grad(_f(model, E, target, o["detach_attention"]).sum(), E)
    note = "|∇f · e_t|, α detached" if o["detach_attention"] else "|∇f · e_t|, through α"
    return Explanation((g * E).sum(-1)[0].abs().detach(), note=note)


@register("loo", "attention", label="leave-one-out", reads="forward", options=_declared())
@_checked
@torch.no_grad()
def _leave_one_out(model: AttentionClassifier, ids: Tensor, target: int, **_: Any) -> Explanation:
    """|f(x) − f(x_{−t})| ``[T]``, word t dropped (row t of the batch: the sentence without it)."""
    T = ids.size(1)
    if T == 1:
        raise ValueError("ids must have at least 2 words for leave-one-out, got 1")
    keep = ~torch.eye(T, dtype=torch.bool, device=ids.device)
    dropped = ids.expand(T, T)[keep].view(T, T - 1)
    f_x, f_dropped = _f(model, model.embed(ids), target), _f(model, model.embed(dropped), target)
    return Explanation((f_x - f_dropped).abs(), note="|f(x) − f(x without word t)|")


@register(
    "ig",
    "attention",
    label="IG",
    reads="gradients",
    options=_declared("ig_tolerance", "ig_steps", "ig_max_steps"),
)
@_checked
def _adaptive_ig(model: AttentionClassifier, ids: Tensor, target: int, **o: Any) -> Explanation:
    """|IG| of f from the zero embedding with m = ig_steps, 2·ig_steps, … ≤ ig_max_steps
    Gauss–Legendre nodes, stopping at the first m with |delta| < ig_tolerance (the last m otherwise)."""
    steps = o["ig_steps"]
    while True:
        r = attr.integrated_gradients(
            model, ids, target, baseline="zeros", n_steps=steps, method="gausslegendre", output="prob"
        )
        if abs(r.delta) < o["ig_tolerance"] or 2 * steps > o["ig_max_steps"]:
            note = f"IG from the zero embedding, m = {steps}, delta = {r.delta:+.1e}"
            if abs(r.delta) >= o["ig_tolerance"]:
                warnings.warn(
                    f"IG's completeness delta {r.delta:+.1e} is not under"
                    f" ig_tolerance = {o['ig_tolerance']:g} at m = {steps} nodes:"
                    f" raise ig_max_steps (at most {MAX_IG_STEPS})",
                    IGToleranceWarning,
                    stacklevel=4,
                )
            return Explanation(r.token_scores.abs().detach(), r.delta, steps, note)
        steps *= 2


#: Lessons 08 and 11: the importances of one sentence's words (see the module docstring), a view of
#: the registry's "attention" kind; "gradient" is the id ``grad_x_input``, "LOO" is ``loo``.
IMPORTANCES = View(
    "an attention classifier's importances",
    "attention",
    {"attention": "attention", "gradient": "grad_x_input", "LOO": "loo", "IG": "ig"},
)
#: The names of ``IMPORTANCES``, in the lesson's order.
METHODS = tuple(IMPORTANCES)


def in_dtype(model: AttentionClassifier, dtype: torch.dtype) -> AttentionClassifier:
    """``model`` itself, or a copy in ``dtype`` (one copy for many sentences)."""
    if not isinstance(model, AttentionClassifier):
        raise TypeError(f"model must be an AttentionClassifier, got {type(model).__name__}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {dtype!r}")
    return model if model.embedding.dtype == dtype else copy.deepcopy(model).to(dtype)


def explanations(
    model: AttentionClassifier,
    ids: Sequence[int] | Tensor,
    methods: Sequence[str] = METHODS,
    target: int = 1,
    **options: Any,
) -> dict[str, Explanation]:
    """``{method: Explanation}`` of one sentence for each of ``methods`` (names of ``IMPORTANCES``,
    whose keywords ``options`` are), the model converted to ``dtype`` once."""
    names = IMPORTANCES.check(methods)
    settings = IMPORTANCES.settings(**options)
    model = in_dtype(model, settings["dtype"])
    return {m: IMPORTANCES.explain(m, model, ids, target, **settings) for m in names}


def importances(
    model: AttentionClassifier,
    ids: Sequence[int] | Tensor,
    methods: Sequence[str] = METHODS,
    target: int = 1,
    **options: Any,
) -> dict[str, Tensor]:
    """``{method: scores [T]}``: the importance vectors of ``explanations``."""
    return {m: e.scores for m, e in explanations(model, ids, methods, target, **options).items()}
