"""One registry of explanation methods and one verb (lessons 06, 07, 08, 11, 20). As Captum's
``attribute``, every method answers the same call,

    explain(method, model, inputs, target, **options) → Explanation

with per-token ``scores`` [T] and, for integrated gradients, its completeness error
delta = Σ IG − (F(x) − F(x′)) and the number of nodes m it used.

``REGISTRY`` holds one ``MethodSpec`` per method: an ASCII ``id`` ("ig", "grad_l2", "grad_x_input",
"loo", …), a display ``label`` ("IG", "G-L2", "gradient × input", "leave-one-out", …), what it
``reads`` (``READS``: forward passes only, which is model-agnostic; gradients; activations) and, per
model kind it accepts (``MODEL_KINDS``: "causal", "attention", "sequence", "encoder"), one implementation
with its own declared options and their defaults. ``explain`` reads the kind off the model
(``kind_of``), takes an id or a label, and refuses by name an unknown method (listing the ids), a kind
the method does not explain and an option it does not declare. ``table`` lists them all (lesson 20's
model-agnostic vs model-specific map). "gradient" named three quantities; their ids are ``grad_avg``,
``grad_l1``, ``grad_l2`` (∇ = ∂F/∂E_t reduced over d_e), ``grad_x_input`` (Σ_j ∇_tj E_tj) and
``grad_alpha`` (∂s_ŷ/∂α_t, the decision's gradient with respect to the attention weights).

**Adding a method** is one decorated function in a module of ``PROVIDERS`` (``explain`` and ``table``
import them); a "causal" method goes in ``explain/causal.py`` (or a module imported beside it at the
end of this one), so that lesson 06's menu has it as soon as this module is imported:

    @register("smoothgrad", "causal", label="SmoothGrad", reads="gradients",
              options={"n_samples": 20, "sigma": 0.1})
    def _smoothgrad(lm, ids, target, **o) -> Explanation:   # o holds every declared option
        ...                                                  # check inputs, compute scores [T]
        return Explanation(scores, note="what the scores satisfy")

It has the ``Method`` signature ``(model, inputs, target, **options) → Explanation`` and checks its
own inputs. The same method on another kind is another decorated function with the same id, label and
reads, and options of its own.

**Views.** The lessons' registries are ``View``s of one kind keyed as the lessons name them (ids work
too): ``ATTRIBUTIONS`` here (lesson 06: every "causal" method by label), ``importance.IMPORTANCES``
(lessons 08, 11), ``transformer.TRANSFORMER`` and ``erasure.ORDERS`` (lesson 08) in ``faithfulness``.
``AGGREGATIONS`` (lesson 07) lives in ``wordlevel`` and is re-exported here.
"""

from __future__ import annotations

import importlib
import re
from _collections_abc import dict_items, dict_keys, dict_values
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from torch import nn

from xai_tf.explain.method import CLASSIFIER_KINDS, MODEL_KINDS, READS, Explanation, Method
from xai_tf.explain.wordlevel import AGGREGATIONS, FLOW_MAX_TOKENS, Aggregate
from xai_tf.models.architecture import Architecture
from xai_tf.models.loaded import LoadedModel, as_model

#: The modules that register methods; ``explain`` and ``table`` import them all.
PROVIDERS = (
    "xai_tf.explain.causal",
    "xai_tf.explain.catalogue",
    "xai_tf.faithfulness.importance",
    "xai_tf.faithfulness.erasure",
    "xai_tf.faithfulness.transformer",
    "xai_tf.explain.encoder",
)
_ID = re.compile(r"[a-z][a-z0-9_]*")
__all__ = ["AGGREGATIONS", "FLOW_MAX_TOKENS", "Aggregate"]  # lesson 07's, re-exported (wordlevel.py)


def kind_of(model: object) -> str:
    """The kind (a key of ``MODEL_KINDS``) of ``model``, or a TypeError naming the kinds: a classifier
    declares its own (``AttentionClassifier.kind``, ``SequenceClassifier.kind``), a language model's is
    its handle's."""
    declared = getattr(model, "kind", None)
    if isinstance(model, nn.Module) and isinstance(declared, str) and declared in CLASSIFIER_KINDS:
        return declared
    if isinstance(model, LoadedModel) or (isinstance(model, nn.Module) and isinstance(model, Architecture)):
        return as_model(model).kind
    raise TypeError(
        f"model must be a model of a kind in {list(MODEL_KINDS)} (a load_model handle, an"
        f" AttentionClassifier or a SequenceClassifier), got {type(model).__name__}"
    )


@dataclass(frozen=True)
class Implementation:
    """A method on one kind of model: the function, its declared options with their defaults, and
    whether its scores promise completeness, Σ scores = F(x) − F(x′) ("no", or "yes" and up to what)."""

    run: Method
    options: Mapping[str, Any]
    completeness: str = "no"
    rank: tuple[int, int] = (0, 0)  # (its module's place in PROVIDERS, its place among all registrations)


@dataclass
class MethodSpec:
    """One method: ``id``, ``label``, what it ``reads``, and its implementation per kind."""

    id: str
    label: str
    reads: tuple[str, ...]
    kinds: dict[str, Implementation] = field(default_factory=dict)

    @property
    def reads_text(self) -> str:
        """What it reads, in words ("forward passes only", "activations and gradients", …)."""
        return " and ".join(READS[r] for r in self.reads) or "nothing of the model"

    @property
    def model_agnostic(self) -> bool:
        """Whether it needs nothing but forward passes (LIME, SHAP, occlusion: any black box)."""
        return set(self.reads) <= {"forward"}

    def implementation(self, kind: str) -> Implementation:
        if kind not in self.kinds:
            kinds = [k for k in MODEL_KINDS if k in self.kinds]
            raise ValueError(f"{self.id} does not explain {kind!r} models: it explains {kinds}")
        return self.kinds[kind]

    def settings(self, kind: str, **options: Any) -> dict[str, Any]:
        """The declared options on ``kind`` with ``options`` in place of their defaults."""
        declared = self.implementation(kind).options
        unknown = sorted(set(options) - set(declared))
        if unknown:
            raise TypeError(
                f"{self.id} on {kind!r} models takes the options {sorted(declared)}, got {unknown}"
            )
        return dict(declared) | options


class MethodRegistry(dict[str, MethodSpec]):
    """Every method by id; ``register`` adds one, ``explain`` runs one, views follow it."""

    def __init__(self) -> None:
        super().__init__()
        self._views: list[View] = []

    def register(
        self,
        method_id: str,
        kind: str,
        *,
        label: str,
        reads: str | tuple[str, ...],
        options: Mapping[str, Any] | None = None,
        completeness: str = "no",
    ) -> Callable[[Method], Method]:
        """A decorator: the function becomes ``method_id``'s implementation on ``kind``, promising
        ``completeness`` there ("no", or "yes" and up to what)."""
        reads = (reads,) if isinstance(reads, str) else tuple(reads)
        if not isinstance(method_id, str) or not _ID.fullmatch(method_id):
            raise ValueError(f"method_id must be lowercase ASCII (a-z, 0-9, _), got {method_id!r}")
        if kind not in MODEL_KINDS or any(r not in READS for r in reads):
            raise ValueError(
                f"kind must be one of {list(MODEL_KINDS)} and reads from {list(READS)}, got {kind!r}, {reads}"
            )
        spec = self.get(method_id) or MethodSpec(method_id, label, reads)
        clash = any(s.label == label and s.id != method_id for s in self.values())
        if (spec.label, spec.reads) != (label, reads) or clash or kind in spec.kinds:
            raise ValueError(f"{method_id} on {kind!r}: registered twice, or its label or reads clash")

        def add(run: Method) -> Method:
            module = run.__module__
            place = PROVIDERS.index(module) if module in PROVIDERS else len(PROVIDERS)
            rank = (place, sum(len(s.kinds) for s in self.values()))
            spec.kinds[kind] = Implementation(run, dict(options or {}), completeness, rank)
            self[method_id] = spec
            for view in self._views:
                view.refresh()
            return run

        return add

    def find(self, method: str) -> MethodSpec:
        """The method with id or label ``method``; a ValueError listing the ids otherwise."""
        _load_providers()
        found = [s for s in self.values() if method in (s.id, s.label)] if isinstance(method, str) else []
        if not found:
            ids = [s.id for s in self.ordered()]
            raise ValueError(f"method must be one of the ids {ids} (or their labels), got {method!r}")
        return found[0]

    def ordered(self) -> list[MethodSpec]:
        """Every method in ``PROVIDERS``' order (lesson 06's first), those of one module as it registers
        them: the same order whichever module a program imports first."""
        return sorted(self.values(), key=lambda s: min(i.rank for i in s.kinds.values()))

    def for_kind(self, kind: str) -> list[MethodSpec]:
        """The methods that explain ``kind``, in ``ordered``'s order."""
        return [s for s in self.ordered() if kind in s.kinds]


REGISTRY = MethodRegistry()
register = REGISTRY.register


@cache  # once every provider is imported (a failed import is retried at the next call)
def _load_providers() -> None:
    for module in PROVIDERS:
        importlib.import_module(module)


def explain(method: str, model: Any, inputs: Any, target: Any = None, **options: Any) -> Explanation:
    """The verb: ``method`` (an id or label of ``REGISTRY``) explains ``target`` for ``inputs`` of
    ``model`` (its kind from ``kind_of``), with its declared ``options`` (defaults filled in)."""
    spec = REGISTRY.find(method)
    kind = kind_of(model)
    return spec.implementation(kind).run(model, inputs, target, **spec.settings(kind, **options))


def table(kind: str | None = None) -> list[dict[str, Any]]:
    """One row per method (those for ``kind``, or all): id, label, what it reads, whether it is
    model-agnostic, the kinds it explains, and its declared options and its completeness (on ``kind``,
    or per kind)."""
    _load_providers()
    if kind is not None and kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {list(MODEL_KINDS)} or None, got {kind!r}")
    rows = []
    for s in REGISTRY.ordered() if kind is None else REGISTRY.for_kind(kind):
        kinds = [k for k in MODEL_KINDS if k in s.kinds]
        options = {k: dict(s.kinds[k].options) for k in kinds}
        completeness = {k: s.kinds[k].completeness for k in kinds}
        rows.append(
            {
                "id": s.id,
                "label": s.label,
                "reads": s.reads,
                "model_agnostic": s.model_agnostic,
                "kinds": kinds,
            }
            | {"options": options if kind is None else options[kind]}
            | {"completeness": completeness if kind is None else completeness[kind]}
        )
    return rows


class View(dict[str, Method]):
    """One kind's methods keyed as a lesson names them (``keys``: name → id; None: every method of
    the kind by label, following the registry), with the union of their options (``defaults``
    overrides some): ``explain`` passes each method its own options only."""

    def __init__(
        self,
        what: str,
        kind: str,
        keys: Mapping[str, str] | None = None,
        defaults: Mapping[str, Any] | None = None,
        registry: MethodRegistry = REGISTRY,
    ) -> None:
        super().__init__()
        self.what, self.kind, self._keys, self._defaults = what, kind, keys, dict(defaults or {})
        self.registry, self.ids, self.options = registry, dict[str, str](), dict[str, Any]()
        registry._views.append(self)
        self.refresh()

    # Reading a view of every method of its kind (``keys`` None) first imports the modules that register
    # methods (``PROVIDERS``): such a menu is complete whenever it is read, and this module imports none
    # of them (no import circle). A view with its own keys has them all when it is made.
    def _complete(self) -> None:
        if self._keys is None:
            _load_providers()

    def __getitem__(self, key: str) -> Method:
        self._complete()
        return super().__getitem__(key)

    def __iter__(self) -> Iterator[str]:
        self._complete()
        return super().__iter__()

    def __len__(self) -> int:
        self._complete()
        return super().__len__()

    def __contains__(self, key: object) -> bool:
        self._complete()
        return super().__contains__(key)

    def keys(self) -> dict_keys[str, Method]:
        self._complete()
        return super().keys()

    def items(self) -> dict_items[str, Method]:
        self._complete()
        return super().items()

    def values(self) -> dict_values[str, Method]:
        self._complete()
        return super().values()

    def refresh(self) -> None:
        """Rebuild from the registry (after a registration)."""
        specs = self.registry.for_kind(self.kind)
        keys = self._keys if self._keys is not None else {s.label: s.id for s in specs}
        self.clear()
        self.ids, self.options = dict(keys), {}
        for key, method_id in keys.items():
            impl = self.registry[method_id].implementation(self.kind)
            self[key] = _passing_declared(impl)
            self.options |= impl.options
        self.options |= self._defaults

    def key(self, method: object) -> str:
        """``method`` as a key of this view (an id is mapped to its key), or a ValueError."""
        by_id = {i: k for k, i in self.ids.items()}
        if isinstance(method, str) and (method in self or method in by_id):
            return method if method in self else by_id[method]
        raise ValueError(f"method must be one of {list(self)} (or the ids {list(by_id)}), got {method!r}")

    def check(self, methods: object) -> list[str]:
        """``methods`` as a list of this view's keys (a non-empty list or tuple), or a ValueError."""
        names = list(methods) if isinstance(methods, list | tuple) else []
        if not names or any(not isinstance(m, str) or m not in self for m in names):
            raise ValueError(f"methods must be a non-empty list of names from {list(self)}, got {methods!r}")
        return names

    def settings(self, **options: Any) -> dict[str, Any]:
        """The view's options with ``options`` in place of their defaults (unknown ones refused)."""
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise TypeError(f"{self.what} takes the options {sorted(self.options)}, got {unknown}")
        return self.options | options

    def explain(
        self, method: str, model: Any, inputs: Any, target: Any = None, **options: Any
    ) -> Explanation:
        """The verb on this view: ``method`` (a key or an id) with the view's ``options``."""
        return self[self.key(method)](model, inputs, target, **self.settings(**options))


def _passing_declared(impl: Implementation) -> Method:
    def run(model: Any, inputs: Any, target: Any, **o: Any) -> Explanation:
        return impl.run(model, inputs, target, **{k: o[k] for k in impl.options})

    return run


#: Lesson 06: token scores of one prediction (the logit of ``target`` after the prompt): every
#: "causal" method keyed by its label (``explain.causal``: IG's options are its baseline, nodes m and
#: quadrature; lesson 20's from ``explain.catalogue``), filled in when first read.
ATTRIBUTIONS = View("lesson 06's attributions", "causal")
