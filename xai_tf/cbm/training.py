"""The four ways to train f = g ∘ h (lesson 12; Koh et al. 2020), by Adam through the one training
loop ``xai_tf.training.fit``:

    independent   ĥ = argmin_h L_c(h),                 ĝ = argmin_g (1/n) Σ_i ℓ(g(c_i), y_i)
    sequential    ĥ = argmin_h L_c(h),                 ĝ = argmin_g (1/n) Σ_i ℓ(g(ĥ(x_i)), y_i)
    joint         ĥ, ĝ = argmin_{h,g} L_y(g ∘ h) + λ L_c(h)
    standard      ĥ, ĝ = argmin_{h,g} L_y(g ∘ h)       (the same architecture, no concepts: λ = 0)

with L_c and L_y of ``losses``. Independent and sequential fit the same ĥ; an independent ĝ reads σ(h_j)
for binary concepts (it learnt on 0/1), the others read the logits (``models``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import torch
from torch import Tensor, nn

from xai_tf import _checks
from xai_tf._threads import one_thread
from xai_tf.cbm._common import check_concepts, module_input, with_parameters
from xai_tf.cbm.data import ConceptData, check_data
from xai_tf.cbm.losses import concept_loss, joint_loss, task_loss
from xai_tf.cbm.models import ConceptBottleneck, mlp, small_cnn
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

MODES = ("independent", "sequential", "joint", "standard")
OPTIONS = TrainOptions(steps=500, lr=1e-2)  # every fit's defaults: the whole set each step


def _check_mode(mode: object) -> str:
    """``mode`` must be one of MODES."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return str(mode)


def default_h(data: ConceptData, seed: int = 0) -> nn.Module:
    """A small CNN for images ([n, 3, 16, 16]), else an MLP d → 32 → k, on the data's device."""
    data = check_data("data", data)
    if data.x.dim() == 4:
        return small_cnn(data.k, data.x.size(1), seed=seed, device=data.x.device)
    return mlp(data.x[0].numel(), data.k, 32, seed=seed, device=data.x.device)


def default_g(data: ConceptData, seed: int = 0) -> nn.Module:
    """An MLP k → 16 → 1, on the data's device."""
    data = check_data("data", data)
    return mlp(data.k, 1, 16, seed=seed + 1, device=data.x.device)


def _concepts_of(h: object, data: ConceptData) -> Tensor:
    """x in h's dtype, after checking that h reads x and outputs the data's k concepts."""
    x = module_input("h", h, data.x)
    with torch.no_grad():
        out = h(x[:1])  # type: ignore[operator]
    if out.dim() != 2 or out.size(1) != data.k:
        raise ValueError(
            f"h must output k = {data.k} concepts, got {out.shape[-1]} (shape {tuple(out.shape)})"
        )
    return x


def _reads_k(g: object, k: int) -> nn.Module:
    """g must read the k concepts (its first Linear layer takes k features)."""
    g = with_parameters("g", g)
    first = next((m for m in g.modules() if isinstance(m, nn.Linear)), None)
    if first is not None and first.in_features != k:
        raise ValueError(f"g must read the k = {k} concepts: its first layer takes {first.in_features}")
    return g


def _fit(params: list[nn.Parameter], loss: Callable[[Tensor], Tensor], n: int, opts: TrainOptions) -> None:
    """``opts.steps`` Adam steps at rate ``opts.lr`` on seeded minibatches of ``opts.batch_size``."""
    # the indices are made on the CPU, with the CPU generator, whatever torch's default device is
    # (``minibatches`` names no device)
    with torch.device("cpu"):
        pick = minibatches(n, opts.batch_size, opts.seed)

    def batch(k: int) -> Tensor:
        with torch.device("cpu"):
            return pick(k)

    with one_thread():
        fit(params, lambda k: loss(batch(k)), opts)


def fit_concepts(
    h: nn.Module,
    data: ConceptData,
    options: TrainOptions = OPTIONS,
) -> nn.Module:
    """ĥ = argmin_h L_c(h) on ``data`` (h is trained in place and returned; the options as ``train``'s)."""
    opts = checked_options(options)
    data = check_data("data", data)
    x = _concepts_of(h, data)
    _fit(list(h.parameters()), lambda i: concept_loss(h(x[i]), data.c[i], data.binary), len(data), opts)
    return h


def fit_g(
    g: nn.Module,
    b: Tensor,
    data: ConceptData,
    options: TrainOptions = OPTIONS,
) -> nn.Module:
    """ĝ = argmin_g (1/n) Σ_i ℓ(g(b_i), y_i) for fixed bottlenecks ``b [n, k]`` (true concepts or ĥ(x));
    g is trained in place and returned."""
    opts = checked_options(options)
    data = check_data("data", data)
    b = check_concepts("b", b, data.k)
    _checks.same_length("fit_g", "rows of b", b, "examples", data)
    b = _checks.like("b", b, _reads_k(g, data.k)).detach()
    _fit(
        list(g.parameters()), lambda i: task_loss(g(b[i]).squeeze(-1), data.y[i], data.task), len(data), opts
    )
    return g


def fit_joint(
    h: nn.Module,
    g: nn.Module,
    data: ConceptData,
    lam: float,
    options: TrainOptions = OPTIONS,
) -> None:
    """ĥ, ĝ = argmin L_y(g ∘ h) + λ L_c(h) (λ = 0: the standard model), in place."""
    opts = checked_options(options)
    data = check_data("data", data)
    lam = _checks.at_least("lam", lam, 0)
    x = _concepts_of(h, data)
    _reads_k(g, data.k)

    def loss(i: Tensor) -> Tensor:
        out = h(x[i])
        return joint_loss(g(out).squeeze(-1), data.y[i], out, data.c[i], data.binary, lam, data.task)

    _fit([*h.parameters(), *g.parameters()], loss, len(data), opts)


def train(
    mode: str,
    data: ConceptData,
    lam: float = 1.0,
    h: nn.Module | None = None,
    g: nn.Module | None = None,
    options: TrainOptions = OPTIONS,
) -> ConceptBottleneck:
    """Train f = g ∘ h on ``data`` in one of the four modes of the module docstring (copies of ``h``
    and ``g`` are trained; defaults: ``default_h``, ``default_g``). ``lam`` is λ of the joint mode
    (ignored by the others); ``options.steps`` Adam steps at rate ``options.lr`` for each fit, on
    minibatches of ``options.batch_size`` (None: the whole set); ``OPTIONS`` by default."""
    mode = _check_mode(mode)
    lam = _checks.at_least("lam", lam, 0)
    data = check_data("data", data)
    seed = checked_options(options).seed
    h = default_h(data, seed) if h is None else copy.deepcopy(h)
    g = _reads_k(default_g(data, seed) if g is None else copy.deepcopy(g), data.k)
    if mode in ("independent", "sequential"):
        fit_concepts(h, data, options)
        model = ConceptBottleneck(
            h, g, data.binary, "probability" if mode == "independent" else "logit", mode
        )
        with torch.no_grad():
            b = data.c if mode == "independent" else model.bottleneck(data.x)
        fit_g(g, b, data, options)
        return model.eval()
    lam = lam if mode == "joint" else 0.0
    fit_joint(h, g, data, lam, options)
    return ConceptBottleneck(h, g, data.binary, "logit", mode, lam).eval()


def train_all(data: ConceptData, lams: Sequence[float], **kwargs: Any) -> dict[str, ConceptBottleneck]:
    """The four modes on ``data``, the joint one for every λ in ``lams`` (keys "independent",
    "sequential", "standard", "joint λ=…"); ``kwargs`` go to ``train``. With one seed, independent
    and sequential train the same ĥ (same initialisation, same batches)."""
    if isinstance(lams, str) or not isinstance(lams, Sequence) or not lams:
        raise ValueError(f"lams must be a non-empty sequence of λ ≥ 0 for the joint model, got {lams!r}")
    lams = [_checks.at_least("lam", lam, 0) for lam in lams]
    models = {mode: train(mode, data, **kwargs) for mode in ("independent", "sequential", "standard")}
    for lam in lams:
        models[f"joint λ={lam:g}"] = train("joint", data, lam=lam, **kwargs)
    return models
