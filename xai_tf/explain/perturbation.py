"""Attributions from forward passes alone (lesson 20): occlusion, LIME, Kernel SHAP, exact Shapley values.

Each reads the model only through the value of a *coalition* z ∈ {0, 1}^T of kept tokens,

    v(z) = F(z ⊙ E + (1 − z) ⊙ E′)          (token t kept where z_t = 1, replaced by the baseline's token),

with E = E(x), E′ = E(x′) the token embeddings of the prompt and of the baseline (as IG's), so they are
model-agnostic: they never differentiate F.

- **Occlusion** with a window of w tokens and stride s (Zeiler & Fergus, 2014; Captum's ``Occlusion``):
  for each window W_k = [ks, ks + w) ∩ [0, T), k = 0..⌈(T − w)/s⌉ (the last one may be cut short, so every
  token is covered), Δ_k = v(1) − v(1 − 1_{W_k}); token t's score is the mean of Δ_k over the windows that
  cover it. w = 1 is lesson 06's leave-one-out.
- **LIME** (Ribeiro et al., 2016), on tokens: N coalitions z_n with each token kept with probability ½,
  weights π(z) = exp(−d(z)² / w²) with d(z) = 1 − √(|z| / T) the cosine distance between z and the
  all-kept 1 (a kernel on the number of kept tokens), and the weighted least-squares fit
  min_{φ₀, φ} Σ_n π(z_n) (v(z_n) − φ₀ − φ · z_n)²; the scores are φ.
- **Kernel SHAP** (Lundberg & Lee, 2017), as Captum's ``KernelShap``: the coalitions 1 and 0 with weight
  10⁶ (standing in for the infinite weight that forces φ₀ = v(0) and Σ φ = v(1) − v(0)), then N − 2
  coalitions with k kept tokens drawn with p(k) ∝ (T − 1) / (k (T − k)) and the k tokens uniformly,
  each of weight 1; the same weighted least squares. Its expectation is the Shapley values.
- **Exact Shapley values** by enumerating all 2^T coalitions (T ≤ ``MAX_EXACT_TOKENS``):

      φ_i = Σ_{S ⊆ N∖{i}} |S|! (T − |S| − 1)! / T! · (v(S ∪ {i}) − v(S)),

  which sum to v(N) − v(∅) = F(x) − F(x′) (efficiency), in float64.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from xai_tf import _cancel, _checks
from xai_tf.explain.path_integral import Scalar

#: Exact Shapley values need 2^T forward passes: offered up to T = 10 (1,024 coalitions).
MAX_EXACT_TOKENS = 10
#: The most coalitions LIME or Kernel SHAP evaluate in one call.
MAX_SAMPLES = 20000
#: Kernel SHAP's weight for the coalitions 1 and 0 (Captum's ``inf_weight``).
INF_WEIGHT = 1e6


def _embeddings(E: object, E_base: object) -> tuple[Tensor, Tensor]:
    """E and E′ ``[T, d_e]``: finite floating tensors of one shape, T ≥ 1."""
    E, E_base = _checks.real_tensor("E", E, dims=2), _checks.real_tensor("E_base", E_base, dims=2)
    _checks.same_shape("a coalition", "E", E, "E_base", E_base)
    if E.numel() == 0:
        raise ValueError(f"E must be [T, d_e] with T, d_e ≥ 1, got shape {tuple(E.shape)}")
    return E, E_base


def _coalitions(z: object, T: int | None = None) -> Tensor:
    """Coalitions z ``[N, T]`` of 0 and 1 (any real or integer dtype), T ≥ 1 (= ``T`` when given)."""
    z = _checks.tensor("z", z)
    if z.dim() != 2 or z.size(1) == 0 or (T is not None and z.size(1) != T):
        want = f"[S, {T}]" if T is not None else "[N, T]"
        raise ValueError(f"z: coalitions must have shape {want} with T ≥ 1, got {tuple(z.shape)}")
    if z.is_complex() or not ((z == 0) | (z == 1)).all():
        raise ValueError("z (coalitions) must hold 0 and 1 only (1 = token kept), not NaN or other values")
    return z


def coalition_values(F: Scalar, E: Tensor, E_base: Tensor, z: Tensor, batch_size: int = 64) -> Tensor:
    """v(z) = F(z ⊙ E + (1 − z) ⊙ E′) ``[S]`` for coalitions z ``[S, T]`` (0/1) of token embeddings
    E, E′ ``[T, d_e]``, ``batch_size`` coalitions per forward pass."""
    E, E_base = _embeddings(E, E_base)
    z = _coalitions(z, E.size(0))
    batch_size = _checks.integer("batch_size", batch_size, 1, MAX_SAMPLES)
    keep = z.to(E.dtype)[..., None]
    values = []
    with torch.no_grad():
        for k in keep.split(batch_size):
            _cancel.checkpoint()  # a slow panel's stale render stops here (a no-op elsewhere)
            values.append(F(k * E + (1 - k) * E_base))
    return torch.cat(values)


def occlusion(F: Scalar, E: Tensor, E_base: Tensor, window: int = 1, stride: int = 1) -> Tensor:
    """Token scores ``[T]``: the mean drop v(1) − v(1 − 1_W) over the windows W of ``window`` tokens
    (every ``stride``-th start) that cover each token."""
    E, E_base = _embeddings(E, E_base)
    T = E.size(0)
    w = _checks.integer("window", window, 1, T)
    s = _checks.integer("stride", stride, 1, T)
    starts = range(0, s * math.ceil((T - w) / s) + 1, s)  # the last window may overhang the end
    z = torch.ones(1 + len(starts), T, dtype=torch.long, device=E.device)
    for k, start in enumerate(starts, 1):
        z[k, start : start + w] = 0
    v = coalition_values(F, E, E_base, z)
    covered = 1 - z[1:].to(v.dtype)  # [K, T]: window k covers token t
    return (covered * (v[0] - v[1:])[:, None]).sum(0) / covered.sum(0).clamp(min=1)


def weighted_linear_fit(z: Tensor, v: Tensor, weights: Tensor) -> Tensor:
    """φ ``[T]`` of min_{φ₀, φ} Σ_n w_n (v_n − φ₀ − φ · z_n)², in float64 (the intercept φ₀ dropped)."""
    z = _checks.tensor("z", z)
    if z.is_complex() or not torch.isfinite(z).all():
        raise ValueError("z must hold finite numbers (coalitions of 0 and 1)")
    v, weights = _checks.real_tensor("v", v), _checks.real_tensor("weights", weights)
    if z.dim() != 2 or v.shape != (len(z),) or weights.shape != (len(z),):
        raise ValueError(
            f"z must be [N, T] with values v and weights of shape [N]; got {tuple(z.shape)}, "
            f"{tuple(v.shape)}, {tuple(weights.shape)}"
        )
    if bool((weights < 0).any()):
        raise ValueError("weights must be ≥ 0 (a weighted least-squares fit)")
    X = torch.cat([torch.ones(len(z), 1, dtype=torch.float64, device="cpu"), z.double().cpu()], 1)
    root = weights.double().cpu().sqrt()[:, None]
    solution = torch.linalg.lstsq(X * root, v.double().cpu()[:, None] * root, driver="gelsd").solution
    return solution[1:, 0].to(v.device)


def lime_weights(z: Tensor, kernel_width: float = 0.25) -> Tensor:
    """π(z) = exp(−d(z)² / w²), d(z) = 1 − √(|z| / T): the cosine distance between z and all-kept."""
    w = _checks.real("kernel_width", kernel_width, 0.0, 10.0, open_lo=True)
    z = _coalitions(z)
    d = 1 - (z.double().sum(1) / z.size(1)).sqrt()
    return torch.exp(-d.pow(2) / w**2)


def lime_coalitions(T: int, n_samples: int, generator: torch.Generator) -> Tensor:
    """``n_samples`` coalitions ``[N, T]``, each token kept with probability ½."""
    T = _checks.integer("T (tokens)", T, 1)
    n = _checks.integer("n_samples", n_samples, 2, MAX_SAMPLES)
    _generator(generator)
    _checks.fits(f"{n} coalitions of T = {T} tokens", 12 * n * T, "choose a smaller T or n_samples")
    return (torch.rand(n, T, generator=generator, device="cpu") < 0.5).long()


def _generator(generator: object) -> None:
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator (seeds.generator(seed)), got {generator!r}")


def kernel_shap_coalitions(T: int, n_samples: int, generator: torch.Generator) -> Tensor:
    """The coalitions 1 and 0, then ``n_samples`` − 2 with k kept tokens, p(k) ∝ (T − 1) / (k (T − k)); drawn
    on the CPU (a CPU ``generator``: the same coalitions on every device)."""
    n = _checks.integer("n_samples", n_samples, 3, MAX_SAMPLES)
    if _checks.integer("T (tokens)", T, 1) < 2:
        raise ValueError(f"Kernel SHAP needs at least 2 tokens, got {T}")
    _generator(generator)
    _checks.fits(f"{n} coalitions of T = {T} tokens", 32 * n * T, "choose a smaller T or n_samples")
    k = torch.arange(1, T, dtype=torch.float64, device="cpu")
    sizes = 1 + torch.multinomial((T - 1) / (k * (T - k)), n - 2, replacement=True, generator=generator)
    order = torch.rand(n - 2, T, generator=generator, device="cpu").argsort(
        1
    )  # a uniform random order per row
    z = (order.argsort(1) < sizes[:, None]).long()  # the first k tokens of that order are kept
    ends = torch.tensor([[1] * T, [0] * T], device="cpu")
    return torch.cat([ends, z])


def kernel_shap_weights(z: Tensor) -> Tensor:
    """Weight 10⁶ for the coalitions 1 and 0, 1 for every other (their sizes are sampled already)."""
    z = _coalitions(z)
    kept = z.sum(1)
    ends = (kept == 0) | (kept == z.size(1))
    return torch.where(ends, INF_WEIGHT, 1.0).double()


def shapley_weights(T: int) -> Tensor:
    """|S|! (T − |S| − 1)! / T! for |S| = 0..T−1, float64."""
    T = _checks.integer("T (tokens)", T, 1, 170)  # 171! overflows a float64
    weights = [math.factorial(s) * math.factorial(T - s - 1) / math.factorial(T) for s in range(T)]
    return torch.tensor(weights, dtype=torch.float64, device="cpu")


def all_coalitions(T: int) -> Tensor:
    """The 2^T coalitions ``[2^T, T]`` (row r keeps token t where bit t of r is 1), T ≤ MAX_EXACT_TOKENS."""
    T = _checks.integer("T (tokens for exact Shapley values)", T, 1, MAX_EXACT_TOKENS)
    r = torch.arange(2**T, device="cpu")
    return (r[:, None] >> torch.arange(T, device="cpu")) & 1


def exact_shapley(values: Tensor, T: int) -> Tensor:
    """φ ``[T]`` in float64 from the values v(z) ``[2^T]`` of ``all_coalitions(T)``, by the formula in
    the module's docstring (each i, each S ∌ i)."""
    z = all_coalitions(T)
    values = _checks.tensor("values", values)  # integer values (a counting game) are fine
    if values.is_complex() or values.dtype == torch.bool or not torch.isfinite(values).all():
        raise ValueError("values must hold finite real numbers v(z), one per coalition (NaN or ±inf found)")
    if values.shape != (2**T,):
        raise ValueError(f"values must have shape [{2**T}] (one per coalition), got {tuple(values.shape)}")
    v = values.double().cpu()
    weights = shapley_weights(T)
    phi = torch.empty(T, dtype=torch.float64, device="cpu")
    for i in range(T):
        rows = torch.nonzero(z[:, i] == 0)[:, 0]  # every S without i; row + 2^i is S ∪ {i}
        phi[i] = (weights[z[rows].sum(1)] * (v[rows + 2**i] - v[rows])).sum()
    return phi
