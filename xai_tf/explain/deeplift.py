"""DeepLIFT's rescale rule and DeepLIFT-SHAP (lesson 20; Shrikumar et al., 2017; Lundberg & Lee, 2017).

DeepLIFT explains F(x) − F(x′) by *multipliers* m = Δy/Δx propagated backwards with the chain rule in
place of gradients. The **rescale rule** sets, for an elementwise nonlinearity y = f(z) (ReLU, GELU,
SiLU), m = (f(z) − f(z′)) / (z − z′), and the gradient f′(z) where |z − z′| < 10⁻¹⁰; a linear map's
multiplier is its weight. The attributions are (x − x′) ⊙ m_x. For a network of linear maps and
elementwise nonlinearities alone they sum exactly to F(x) − F(x′) (summation to delta).

What it means in a transformer. The rule is defined for elementwise functions only. Softmax (attention),
LayerNorm and the products Q Kᵀ and A V make each output depend on many inputs at once; DeepLIFT's paper
gives no rescale rule for them, and here (as in Captum for every operation it does not recognise) they
pass the **gradient at the input x**: they are linearised at x. So

- at every GELU/SiLU/ReLU: m = Δf/Δz (the rescale rule proper);
- through softmax, LayerNorm, the attention products: the local Jacobian at x;

and completeness holds only up to what those linearisations miss (``properties.completeness_gap``
measures it). With ``rescale=False`` every operation is linearised at x and the result is
(x − x′) ⊙ ∇F(x), "gradient × (input − baseline)".

Where it coincides with Captum's ``DeepLift``: Captum applies the rescale rule at the *modules*
nn.ReLU, nn.ELU, nn.LeakyReLU, nn.Sigmoid, nn.Tanh, nn.Softplus (and a rule of its own at nn.Softmax);
the transformers here call GELU, softmax and LayerNorm as functions, so Captum's DeepLift on them is
exactly the ``rescale=False`` version. On a network of nn.Linear and nn.ReLU modules both apply the
rescale rule at every ReLU and agree to float precision (``tests/test_attribution_map.py``).

Mechanics: the input and the baseline run as one batch [x; x′] through the network while the functions
``torch.nn.functional.gelu``, ``silu`` and ``relu`` are replaced by ``_Rescale`` (forward unchanged,
backward m = Δf/Δz between the two halves of the batch). Nothing of the network is read by name.

DeepLIFT-SHAP: the mean of DeepLIFT over K baselines x′_k, (1/K) Σ_k (x − x′_k) ⊙ m_x(x′_k) — Captum's
``DeepLiftShap``; it explains F(x) − (1/K) Σ_k F(x′_k).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import torch
import torch.nn.functional as Fn
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.explain import setting
from xai_tf.explain.path_integral import Scalar
from xai_tf.models.loaded import LoadedModel

#: Below this |z − z′| the rescale multiplier is the gradient (Captum's eps).
EPS = 1e-10
#: The most baselines DeepLIFT-SHAP averages over.
MAX_BASELINES = 256
_ELEMENTWISE = ("gelu", "silu", "relu")


class _Rescale(torch.autograd.Function):
    """y = f(z) on a batch [z; z′]; backward: grad · Δf/Δz for both halves (f′(z) where |Δz| < EPS)."""

    @staticmethod
    def forward(ctx: Any, z: Tensor, f: Callable[[Tensor], Tensor]) -> Tensor:
        with torch.enable_grad():
            zz = z.detach().requires_grad_(True)
            y = f(zz)
            (local,) = torch.autograd.grad(y.sum(), zz)
        z_x, z_b = z.detach().chunk(2)
        y_x, y_b = y.detach().chunk(2)
        dz, dy = (z_x - z_b).repeat(2, *[1] * (z.dim() - 1)), (y_x - y_b).repeat(2, *[1] * (z.dim() - 1))
        ctx.save_for_backward(torch.where(dz.abs() < EPS, local, dy / torch.where(dz == 0, 1, dz)))
        return y.detach()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (multiplier,) = ctx.saved_tensors
        return grad * multiplier, None


@contextmanager
def _rescaled() -> Iterator[None]:
    """Within: every call of F.gelu, F.silu, F.relu applies the rescale rule to its batch [x; x′]."""
    originals = {name: getattr(Fn, name) for name in _ELEMENTWISE}

    def rescaled(name: str) -> Callable[..., Tensor]:
        def f(z: Tensor, *args: Any, **kwargs: Any) -> Tensor:
            kwargs.pop("inplace", None)
            return _Rescale.apply(z, lambda u: originals[name](u, *args, **kwargs))

        return f

    try:
        for name in _ELEMENTWISE:
            setattr(Fn, name, rescaled(name))
        yield
    finally:
        for name, f in originals.items():
            setattr(Fn, name, f)


def rescale_attributions(F: Scalar, x: Tensor, baseline: Tensor, rescale: bool = True) -> Tensor:
    """DeepLIFT of any F (a batch ``[n, ...]`` → ``[n]``) at one input ``x`` from ``baseline`` (same
    shape): (x − x′) ⊙ m_x, the multipliers by the rescale rule at every GELU/SiLU/ReLU and the gradient
    elsewhere (``rescale=False``: the gradient everywhere, (x − x′) ⊙ ∇F(x))."""
    return _pair_pass(F, x, baseline, _checks.flag("rescale", rescale))[0]


def _pair_pass(F: Scalar, x: Tensor, baseline: Tensor, rescale: bool) -> tuple[Tensor, Tensor]:
    """``rescale_attributions`` and ``[F(x), F(x′)]``, both from one pass of the batch [x; x′] (the rescale
    rule changes the backward pass only, so its forward values are F's)."""
    x, baseline = _checks.real_tensor("x", x), _checks.real_tensor("baseline", baseline)
    if x.shape != baseline.shape:
        raise ValueError(
            f"baseline has shape {tuple(baseline.shape)}, the input x {tuple(x.shape)}: they must match"
        )
    pair = torch.stack([x.detach(), baseline.detach()]).requires_grad_(True)
    with _rescaled() if rescale else nullcontext():
        values = F(pair)
        (m,) = torch.autograd.grad(values.sum(), pair)
    return (x - baseline).detach() * m[0], values.detach()


def deeplift_shap(
    F: Scalar, x: Tensor, baselines: Sequence[Tensor], rescale: bool = True
) -> tuple[Tensor, float]:
    """``(attributions, ΔF)`` of any F at ``x`` from K ``baselines`` (each shaped as x): the mean of
    DeepLIFT over them, (1/K) Σ_k (x − x′_k) ⊙ m_x(x′_k), and ΔF = F(x) − (1/K) Σ_k F(x′_k). Completeness
    would be Σ attributions = ΔF; delta = Σ attributions − ΔF is what the linearised operations miss."""
    x = _checks.real_tensor("x", x)
    if not isinstance(baselines, list | tuple):
        raise TypeError(f"baselines must be a list of tensors shaped as x, got {type(baselines).__name__}")
    for k, b in enumerate(baselines):
        _checks.real_tensor(f"baselines[{k}]", b)
    if not 1 <= len(baselines) <= MAX_BASELINES:
        raise ValueError(f"baselines must be a list of 1..{MAX_BASELINES} baselines, got {len(baselines)}")
    total, f_base = torch.zeros_like(x), 0.0
    for b in baselines:  # F(x) and F(x′_k) from the pass that gives the multipliers: no extra passes
        a, (f_x, f_b) = _pair_pass(F, x, b, _checks.flag("rescale", rescale))
        total += a
        f_base += float(f_b)
    return total / len(baselines), float(f_x) - f_base / len(baselines)


def deeplift(
    model: nn.Module | LoadedModel,
    input_ids: Sequence[int] | Tensor,
    target: int,
    baselines: Sequence[str | int | Sequence[int] | Tensor] = ("token0",),
    rescale: bool = True,
    position: int = -1,
    output: str = "logit",
) -> tuple[Tensor, float]:
    """``(attributions [T, d_e], F(x) − mean_k F(x′_k))``: DeepLIFT on the token embeddings from each of
    ``baselines`` (see ``attribution.baseline_ids``) averaged — DeepLIFT for one baseline, DeepLIFT-SHAP
    for several. Completeness: the attributions' sum against the returned difference."""
    if not isinstance(baselines, list | tuple):
        raise ValueError(f"baselines must be a list of 1..{MAX_BASELINES} baselines, got {baselines!r}")
    module, ids, F = setting.explained(model, input_ids, target, position, output)
    E = module.embed(ids).detach()
    return deeplift_shap(F, E, [setting.embeddings(module, ids, b)[1] for b in baselines], rescale)


def random_token_baselines(vocab: int, T: int, k: int, seed: int = 0) -> list[Tensor]:
    """DeepLIFT-SHAP's reference distribution: ``k`` baselines of ``T`` token ids each, uniform over
    0..``vocab`` − 1, drawn on the CPU from ``seeds.generator(seed)`` (s′ = s + XAI_TF_SEED_OFFSET)."""
    k = _checks.integer("k = n_samples (baselines)", k, 1, MAX_BASELINES)
    size = (k, _checks.integer("T (tokens)", T, 1))
    _checks.fits(f"{k} baselines of T = {T} tokens", 8 * k * T, "choose a smaller T")
    gen = seeds.generator(seed)
    return list(torch.randint(_checks.integer("vocab", vocab, 1), size, generator=gen, device=gen.device))


def linearisation_gap(
    F: Scalar, x: Tensor, baselines: Tensor, scales: Sequence[float], rescale: bool = True
) -> list[tuple[float, float]]:
    """``(ΔF(s), delta(s))`` per s in ``scales`` for DeepLIFT-SHAP from the K ``baselines`` ``[K, *x.shape]``
    moved towards x, x′_k(s) = x + s (x′_k − x) (s = 1: the baselines themselves; 0 < s ≤ 1).

    What delta means: the rescale rule is exact at the elementwise functions (Δf/Δz), and every other
    operation (softmax, LayerNorm, Q Kᵀ, A V) passes its Jacobian at x — it is linearised at x. So
    delta(s) = Σ attributions − ΔF(s) is what those first-order expansions at x miss: O(s²) for a smooth
    F, against ΔF(s) = O(s), so |delta| / |ΔF| → 0 as s → 0; and 0 at every s for a network of linear
    maps and elementwise functions alone."""
    x, baselines = _checks.real_tensor("x", x), _checks.real_tensor("baselines", baselines)
    if baselines.shape[1:] != x.shape:
        raise ValueError(
            f"baselines must have shape [K, {', '.join(map(str, x.shape))}] (K inputs shaped as x), "
            f"got {tuple(baselines.shape)}"
        )
    if not isinstance(scales, list | tuple) or not scales:
        raise TypeError(f"scales must be a non-empty list of numbers in (0, 1], got {scales!r:.40}")
    rows = []
    for s in scales:
        s = _checks.real("scale s", s, 0.0, 1.0, open_lo=True)
        a, difference = deeplift_shap(F, x, list(x + s * (baselines - x)), rescale)
        rows.append((difference, float(a.double().sum()) - difference))
    return rows
