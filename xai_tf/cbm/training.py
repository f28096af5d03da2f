"""The four ways to train f = g ∘ h (lesson 12; Koh et al. 2020), by Adam through the one training
loop ``xai_tf.tasks.train.fit``:

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

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.cbm._common import check_concepts
from xai_tf.cbm.data import ConceptData
from xai_tf.cbm.losses import concept_loss, joint_loss, task_loss
from xai_tf.cbm.models import ConceptBottleneck, mlp, small_cnn
from xai_tf.tasks.train import fit

MODES = ("independent", "sequential", "joint", "standard")


def _check_mode(mode: object) -> str:
    """``mode`` must be one of MODES."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    return mode


def default_h(data: ConceptData, seed: int = 0) -> nn.Module:
    """A small CNN for images ([n, 3, 16, 16]), else an MLP d → 32 → k, on the data's device."""
    _check_data(data)
    if data.x.dim() == 4:
        return small_cnn(data.k, data.x.size(1), seed=seed, device=data.x.device)
    return mlp(data.x[0].numel(), data.k, 32, seed=seed, device=data.x.device)


def default_g(data: ConceptData, seed: int = 0) -> nn.Module:
    """An MLP k → 16 → 1, on the data's device."""
    _check_data(data)
    return mlp(data.k, 1, 16, seed=seed + 1, device=data.x.device)


def _check_data(data: object) -> None:
    if not isinstance(data, ConceptData):
        raise TypeError(f"data must be a ConceptData, got {type(data).__name__}")


def _batches(n: int, batch_size: int | None, seed: int) -> Callable[[int], Tensor | slice]:
    """Step k's examples: all of them, or a seeded random minibatch."""
    if batch_size is None or batch_size >= n:
        return lambda k: slice(None)
    gen = seeds.generator(seed)
    return lambda k: torch.randint(n, (batch_size,), generator=gen, device="cpu")


def _fit(params: list[nn.Parameter], loss: Callable[[Tensor | slice], Tensor], n: int, opts: dict) -> None:
    """``opts["steps"]`` Adam steps at rate ``opts["lr"]`` on minibatches of ``opts["batch_size"]``."""
    opts = _options(**opts)
    pick = _batches(n, opts["batch_size"], opts["seed"])
    with one_thread():
        fit(params, lambda k: loss(pick(k)), opts["steps"], opts["lr"])


def fit_concepts(
    h: nn.Module,
    data: ConceptData,
    steps: int = 500,
    lr: float = 1e-2,
    batch_size: int | None = None,
    seed: int = 0,
) -> nn.Module:
    """ĥ = argmin_h L_c(h) on ``data`` (h is trained in place and returned; the options as ``train``'s)."""
    opts = {"steps": steps, "lr": lr, "batch_size": batch_size, "seed": seed}
    _check_data(data)
    _fit(list(h.parameters()), lambda i: concept_loss(h(data.x[i]), data.c[i], data.binary), len(data), opts)
    return h


def fit_g(
    g: nn.Module,
    b: Tensor,
    data: ConceptData,
    steps: int = 500,
    lr: float = 1e-2,
    batch_size: int | None = None,
    seed: int = 0,
) -> nn.Module:
    """ĝ = argmin_g (1/n) Σ_i ℓ(g(b_i), y_i) for fixed bottlenecks ``b [n, k]`` (true concepts or ĥ(x));
    g is trained in place and returned."""
    opts = {"steps": steps, "lr": lr, "batch_size": batch_size, "seed": seed}
    _check_data(data)
    b = check_concepts("b", b, data.k).detach()
    if len(b) != len(data):
        raise ValueError(f"b has {len(b)} rows but data has {len(data)} examples: one bottleneck each")
    _fit(
        list(g.parameters()), lambda i: task_loss(g(b[i]).squeeze(-1), data.y[i], data.task), len(data), opts
    )
    return g


def fit_joint(
    h: nn.Module,
    g: nn.Module,
    data: ConceptData,
    lam: float,
    steps: int = 500,
    lr: float = 1e-2,
    batch_size: int | None = None,
    seed: int = 0,
) -> None:
    """ĥ, ĝ = argmin L_y(g ∘ h) + λ L_c(h) (λ = 0: the standard model), in place."""
    opts = {"steps": steps, "lr": lr, "batch_size": batch_size, "seed": seed}
    _check_data(data)
    lam = _checks.at_least("lam", lam, 0)

    def loss(i: Tensor | slice) -> Tensor:
        out = h(data.x[i])
        return joint_loss(g(out).squeeze(-1), data.y[i], out, data.c[i], data.binary, lam, data.task)

    _fit([*h.parameters(), *g.parameters()], loss, len(data), opts)


def _options(steps: int, lr: float, batch_size: int | None, seed: int) -> dict:
    return {
        "steps": _checks.integer("steps", steps, 1),
        "lr": _checks.positive("lr", lr),
        "batch_size": None if batch_size is None else _checks.integer("batch_size", batch_size, 1),
        "seed": _checks.integer("seed", seed, 0),
    }


def train(
    mode: str,
    data: ConceptData,
    lam: float = 1.0,
    h: nn.Module | None = None,
    g: nn.Module | None = None,
    steps: int = 500,
    lr: float = 1e-2,
    batch_size: int | None = None,
    seed: int = 0,
) -> ConceptBottleneck:
    """Train f = g ∘ h on ``data`` in one of the four modes of the module docstring (copies of ``h``
    and ``g`` are trained; defaults: ``default_h``, ``default_g``). ``lam`` is λ of the joint mode
    (ignored by the others); ``steps`` Adam steps at rate ``lr`` for each fit, on minibatches of
    ``batch_size`` (None: the whole set)."""
    mode = _check_mode(mode)
    lam = _checks.at_least("lam", lam, 0)
    _check_data(data)
    opts = _options(steps, lr, batch_size, seed)
    h = default_h(data, seed) if h is None else copy.deepcopy(h)
    g = default_g(data, seed) if g is None else copy.deepcopy(g)
    if mode in ("independent", "sequential"):
        fit_concepts(h, data, **opts)
        model = ConceptBottleneck(
            h, g, data.binary, "probability" if mode == "independent" else "logit", mode
        )
        with torch.no_grad():
            b = data.c if mode == "independent" else model.bottleneck(data.x)
        fit_g(g, b, data, **opts)
        return model.eval()
    lam = lam if mode == "joint" else 0.0
    fit_joint(h, g, data, lam, **opts)
    return ConceptBottleneck(h, g, data.binary, "logit", mode, lam).eval()


def train_all(data: ConceptData, lams: Sequence[float], **kwargs: object) -> dict[str, ConceptBottleneck]:
    """The four modes on ``data``, the joint one for every λ in ``lams`` (keys "independent",
    "sequential", "standard", "joint λ=…"); ``kwargs`` go to ``train``. With one seed, independent
    and sequential train the same ĥ (same initialisation, same batches)."""
    if isinstance(lams, str) or not isinstance(lams, Sequence) or not lams:
        raise ValueError(f"lams must be a non-empty sequence of λ ≥ 0 for the joint model, got {lams!r}")
    models = {mode: train(mode, data, **kwargs) for mode in ("independent", "sequential", "standard")}
    for lam in lams:
        models[f"joint λ={lam:g}"] = train("joint", data, lam=lam, **kwargs)
    return models
