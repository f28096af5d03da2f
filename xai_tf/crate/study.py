"""CRATE next to a standard transformer on a subspace-classification task (lesson 13).

The task: K orthonormal subspaces U_k ∈ ℝ^{d×r}; a sequence of class c has T tokens
y_t = U_{k_t} a_t + σ w_t (columns of Y ∈ ℝ^{d×T}) whose components are k_t = c with probability
p, otherwise uniform over 1..K. The mean of the tokens carries no class information (E a = 0), so a
model must measure each token's energy ‖U_kᵀy_t‖² — a non-linear, per-token computation — and pool.
It is the data model CRATE is derived from, so the compression term R^c is measurable against the true
subspaces.

Per layer, on held-out tokens (each scaled to unit norm, ε = 0.5), in the notation of Yu et al. (2023)
(lecture 004: R_gauss = R, R_mix = R^c):

    R^c(Z | Π) = Σ_k (N_k/N) R(Z_k)    Z_k: the tokens of true component k, Π the true memberships
                                      (the compression term with memberships in place of subspaces, as
                                      in Yu et al. 2020's MCR²: model-agnostic) — key "Rc_true"
    R(Z)                              the rate of all tokens (the expansion term) — key "R"
    R^c(·; U^ℓ)                       before and after block ℓ's attention, with the block's own value
                                      subspaces (U^ℓ for CRATE; W_v's rows, orthonormalised, otherwise)
                                      — keys "Rc_in", "Rc_mid"
    zeros, l1                         ``ista.sparsity`` of the block's output Z^{ℓ+1}
    zeros_relu                        the zeros of ReLU(LN(Z^{ℓ+1/2})) alone: ISTA with η = 0
"""

from __future__ import annotations

from typing import TypedDict

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf._threads import one_thread
from xai_tf.crate import _common, mixture, rate
from xai_tf.crate.ista import sparsity
from xai_tf.crate.model import KINDS, Classifier
from xai_tf.training import TrainOptions, checked_options, fit, minibatches

OPTIONS = TrainOptions(steps=300, lr=3e-3, batch_size=64)  # train's defaults


#: The task and the models of the lesson: small enough to train both in seconds on one CPU thread.
class Setup(TypedDict):
    d: int
    K: int
    r: int
    T: int
    p: float
    sigma: float
    n_layers: int


SETUP: Setup = {"d": 24, "K": 4, "r": 4, "T": 12, "p": 0.5, "sigma": 0.2, "n_layers": 4}
MAX_SEQUENCES = 100_000


def subspace_task(
    U: Tensor, n: int, T: int = 12, p: float = 0.5, sigma: float = 0.2, seed: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """``n`` sequences (1 ≤ n ≤ 100 000: one seeded draw per sequence, about 1 s per thousand): tokens
    ``Y [n, d, T]`` (float32, the models' dtype, whatever U's), classes ``[n]``, components ``[n, T]``."""
    U = rate.bases(U, orthonormal=True)
    n, T = _checks.integer("n", n, 1, MAX_SEQUENCES), _checks.integer("T", T, 1)
    p = _checks.real("p", p, 0.0, 1.0)
    K = U.size(0)
    classes = torch.randint(K, (n,), generator=seeds.generator(seed))
    Ys, ks = [], []
    for i, c in enumerate(classes.tolist()):
        weights = torch.full((K,), (1 - p) / K, dtype=U.dtype)
        weights[c] += p
        Y, _, k = mixture.sample_tokens(U, T, sigma, seed=seed * 1_000_003 + i, weights=weights)
        Ys.append(Y)
        ks.append(k)
    return torch.stack(Ys).float(), classes, torch.stack(ks)


def train(kind: str, n_train: int = 2048, options: TrainOptions = OPTIONS) -> tuple[Classifier, list[float]]:
    """A classifier of ``kind`` ("crate" or "standard") trained on the SETUP task by Adam
    (``xai_tf.training.fit``; ``OPTIONS`` by default) on minibatches of ``options.batch_size``
    sequences drawn by ``xai_tf.training.minibatches`` (seed + 1), on one thread; returns it and its
    losses."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    n_train = _checks.integer("n_train", n_train, 1, MAX_SEQUENCES)
    opts = checked_options(options)
    seed = opts.seed
    s = SETUP
    U = mixture.random_bases(s["d"], s["K"], s["r"], seed=13)
    Y, c, _ = subspace_task(U, n_train, s["T"], s["p"], s["sigma"], seed=seed)
    with seeds.seeded(seed):
        model = Classifier(kind, s["d"], s["K"], s["r"], s["n_layers"], s["K"])
    pick = minibatches(n_train, opts.batch_size, opts.seed + 1)

    def loss(k: int) -> Tensor:
        idx = pick(k)
        return F.cross_entropy(model(Y[idx]), c[idx])

    with one_thread():
        history = fit(model.parameters(), loss, opts)
    return model.eval(), history


def test_set(n: int = 1000) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Held-out sequences of the SETUP task: ``(U, Y, classes, components)``."""
    s = SETUP
    U = mixture.random_bases(s["d"], s["K"], s["r"], seed=13)
    return (U, *subspace_task(U, n, s["T"], s["p"], s["sigma"], seed=10_000))


@torch.no_grad()
def accuracy(model: Classifier, Y: Tensor, classes: Tensor) -> float:
    """Share of sequences ``Y [n, d, T]`` whose arg-max logit is the class (``classes [n]``)."""
    model = _classifier(model)
    logits = model(Y)
    return float((logits.argmax(-1) == _labels("classes", classes, Y, model.n_classes)).float().mean())


def _classifier(model: object) -> Classifier:
    if not isinstance(model, Classifier):
        raise TypeError(f"model must be an xai_tf.crate.model.Classifier, got {type(model).__name__}")
    return model


def _labels(name: str, labels: object, Y: Tensor, n: int | None) -> Tensor:
    """Integer labels in 0..n−1 (n = None: ≥ 0), one per sequence of ``Y [B, d, T]`` (classes) or
    one per token of it (components, ``[B, T]``)."""
    labels = _checks.tensor(name, labels)
    allowed = f"0..{n - 1}" if n is not None else "0, 1, …"
    if labels.is_floating_point() or labels.is_complex() or labels.dtype == torch.bool:
        raise TypeError(f"{name} must hold integer labels in {allowed}, got {labels.dtype}")
    if name == "classes":
        _checks.same_length("accuracy", "sequences", Y, "classes", labels)
        if labels.dim() != 1:
            raise ValueError(f"classes must be [n], one per sequence, got {tuple(labels.shape)}")
    elif labels.shape != (Y.size(0), Y.size(-1)):
        raise ValueError(
            f"components must be [B, T] = {(Y.size(0), Y.size(-1))}, one per token of Y, "
            f"got {tuple(labels.shape)}"
        )
    if labels.numel() and (int(labels.min()) < 0 or (n is not None and int(labels.max()) >= n)):
        raise ValueError(f"{name} must hold integer labels in {allowed}, got {labels.unique().tolist()}")
    return labels.to(Y.device)


def unit_tokens(Z: Tensor) -> Tensor:
    """``[B, d, T]`` → ``[d, B·T]``: all tokens side by side, each scaled to unit norm."""
    Z = _common.tokens("Z", Z)
    if Z.dim() != 3:
        raise ValueError(f"Z must be [B, d, T] (tokens are columns), got {tuple(Z.shape)}")
    Z = Z.mT.reshape(-1, Z.size(1)).mT.double()
    return Z / torch.linalg.vector_norm(Z, dim=0, keepdim=True).clamp_min(1e-12)


def grouped_rate(Z: Tensor, components: Tensor, eps: float = 0.5) -> float:
    """R^c(Z | Π) = Σ_k (N_k/N) R(Z_k) over the tokens of each true component (``Z [d, N]``, ``[N]``)."""
    Z = _common.tokens("Z", Z)
    N = Z.size(-1)
    components = _checks.tensor("components", components)
    if components.is_floating_point() or components.is_complex() or components.dtype == torch.bool:
        raise TypeError(f"components must hold integer component labels, got {components.dtype}")
    if Z.dim() != 2 or components.shape != (N,):
        raise ValueError(
            f"Z must be [d, N] with one component per token, got Z {tuple(Z.shape)} and "
            f"components {tuple(components.shape)}"
        )
    total = 0.0
    for k in components.unique().tolist():
        Zk = Z[:, components == k]
        total += Zk.size(-1) / N * float(rate.coding_rate(Zk, eps))
    return total


@torch.no_grad()
def layer_measures(
    model: Classifier, Y: Tensor, components: Tensor, eps: float = 0.5
) -> list[dict[str, float]]:
    """Per depth (0 = the input, then each block's output) R^c(Z | Π) (``Rc_true``), R and sparsity; for
    each block also R^c with its own value subspaces on the LayerNormed input (``Rc_in``) and after
    attention (``Rc_mid``). Rates are per token batch of B·T unit-norm tokens. ``Y [B, d, T]`` is
    converted once to the model's dtype; ``components [B, T]``."""
    model = _classifier(model)
    Y = model.tokens(Y)
    comps = _labels("components", components, Y, None).reshape(-1)
    rows = []
    steps = model.trace(Y)
    for depth, Z in enumerate([Y] + [s["out"] for s in steps]):
        Zu = unit_tokens(Z)
        rows.append(
            {"Rc_true": grouped_rate(Zu, comps, eps), "R": float(rate.coding_rate(Zu, eps)), **sparsity(Z)}
        )
        if depth > 0:  # the zeros a bare ReLU of the block's normalised input would give
            rows[-1]["zeros_relu"] = sparsity(steps[depth - 1]["mlp_in"].relu())["zeros"]
        if depth < len(steps):
            U = model.block(depth).value_bases().double()
            for key, name in (("attn_in", "Rc_in"), ("mid", "Rc_mid")):
                rows[-1][name] = float(rate.compression_rate(unit_tokens(steps[depth][key]), U, eps))
    return rows


def energy_rule_accuracy(U: Tensor, Y: Tensor, classes: Tensor) -> float:
    """Accuracy of the rule that knows the subspaces: argmax_k Σ_t ‖U_kᵀy_t‖² (``Y [n, d, T]``),
    computed in float64."""
    Y = _common.tokens("Y", Y)
    if Y.dim() != 3:
        raise ValueError(f"Y must be [n, d, T] (tokens are columns), got {tuple(Y.shape)}")
    U = rate.bases(U, Y.size(1))
    classes = _labels("classes", classes, Y, U.size(0))
    energy = (rate.project(Y.double(), U.double()) ** 2).sum((-2, -1))  # [n, K]
    return float((energy.argmax(-1) == classes).float().mean())


@torch.no_grad()
def dictionary_gaps(model: Classifier) -> list[float]:
    """‖DᵀD − I‖₂ of each CRATE block's dictionary: 0 for the orthogonal D the prox lemma assumes."""
    model = _classifier(model)
    if model.kind != "crate":
        raise ValueError(f"dictionary_gaps needs a CRATE model (kind 'crate'), got kind {model.kind!r}")
    gaps = []
    for i in range(len(model.blocks)):
        D = model.block(i).D.double()
        gaps.append(float(torch.linalg.matrix_norm(D.mT @ D - torch.eye(D.size(0), dtype=D.dtype), ord=2)))
    return gaps
