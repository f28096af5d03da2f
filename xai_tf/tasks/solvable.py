"""The solvable model of Cui, Behrens, Krzakala & Zdeborová (2024) (lesson 09): tied rank-one
dot-product attention on high-dimensional Gaussian tokens with a positional component.

L = 2 tokens x_ℓ = p_ℓ + z_ℓ ∈ ℝ^d, z_ℓ ~ N(0, σ² I_d), p_1 = −p_2 = 1_d/√d. A teacher mixes the
*semantic* part by dot-product attention with Q* ~ N(0, I_d) and a fixed *positional* matrix A:

    y = [(1 − ω) softmax(z Q* Q*ᵀ zᵀ / d) + ω A] z,     A = ((0.6, 0.4), (0.4, 0.6)).

The student is one tied attention layer with Q ∈ ℝ^{d×1}, f_Q(x) = softmax(x Q Qᵀ xᵀ / d) x,
trained on n = αd samples by

    L(Q) = Σ_μ ‖y^μ − f_Q(x^μ)‖² / (2d) + λ/2 ‖Q‖².

Its two minima: *positional* (Q along 1_d: the weights depend on p_ℓ, m = 1_dᵀQ/d large) and
*semantic* (Q along Q*: θ = Q*ᵀQ/d large). Started in each (Q = 1_d or Q = Q*), gradient descent
finds the minimum nearby; the global one switches from positional to semantic at α_c.

f_Q = f_{−Q}, so the sign of Q is arbitrary: overlaps are reported as |θ| and |m|, as the authors'
code does. Their replica theory (``PAPER_OVERLAPS``) defines θ as the covariance of the
pre-activations z·Q*/√d and z·Q/√d, which is σ² Q*ᵀQ/d (``replica_theta``); its m is 1_dᵀQ/d as here.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.training import TrainOptions, checked_options, fit

A_TEACHER = ((0.6, 0.4), (0.4, 0.6))
OPTIONS = TrainOptions(steps=600, lr=0.05)  # fit_solvable's defaults (full batch, no random draw)

#: The paper's replica-theory curves (d → ∞) at σ = 0.5, λ = 0.01, ω = 0.3, read from its authors'
#: repository (SPOC-group/positional-and-semantic-attention, theory/repl_softmax_Mixed_sig0.5_lamb0.01_
#: omega0.3{,_para}.csv) at the grid points around each crossing: α → (semantic, positional) of Φ, the
#: minimum's free entropy (−training loss, so the larger one is the global minimum), and of the test MSE.
PAPER_PHI = {
    1.24: (-0.0027055352, -0.0026870953),
    1.25: (-0.0027202751, -0.0027097347),
    1.3571428571: (-0.0028718741, -0.0029549733),
}
PAPER_TEST = {0.6809090909: (0.0069745180, 0.0065444672), 0.7927272727: (0.0064818601, 0.0065926675)}
#: The same tables' overlaps (θ, m) of the semantic and the positional minimum at α = 2 (their θ
#: is σ² Q*ᵀQ/d, see the module docstring).
PAPER_OVERLAPS = {"semantic": (0.1585605522, 1.2e-08), "positional": (-1.1e-19, 0.2585671779)}


def replica_theta(theta: float, sigma: float = 0.5) -> float:
    """θ in the replica theory's normalisation: the covariance E[(z·Q*/√d)(z·Q/√d)] over
    z ~ N(0, σ² I_d), which is σ² Q*ᵀQ/d = σ² θ for the θ = Q*ᵀQ/d measured here."""
    return _checks.positive("sigma", sigma) ** 2 * _checks.real("theta", theta, -float("inf"), float("inf"))


def solvable_data(
    n: int, d: int, sigma: float = 0.5, omega: float = 0.3, seed: int = 0, teacher_seed: int = 0
) -> tuple[Tensor, Tensor, Tensor]:
    """(x ``[n, 2, d]``, y ``[n, 2, d]``, Q* ``[d]``): the data above, float64, seeded (the teacher
    Q* by ``teacher_seed``, so train and test sets can share it); refused before allocating when
    its float64 tensors (x, y, z and the mixed z, about 4 · 2 · n · d numbers) would not fit in memory."""
    n, d = _checks.integer("n", n, 1), _checks.integer("d", d, 1)
    sigma, omega = _checks.positive("sigma", sigma), _checks.real("omega", omega, 0.0, 1.0)
    most = _checks.available_ram() // (64 * d)
    _checks.fits(f"solvable_data(n={n}, d={d})", 64 * n * d, f"choose n · d ≤ {most * d}")
    Q_star = torch.randn(d, generator=seeds.generator(teacher_seed), dtype=torch.float64)
    z = sigma * torch.randn(n, 2, d, generator=seeds.generator(seed), dtype=torch.float64)
    p = torch.ones(d, dtype=torch.float64) / d**0.5
    h = z @ Q_star / d**0.5  # (n, 2): z_ℓ·Q*/√d, so the scores are h_ℓ h_ℓ' = z Q* Q*ᵀ zᵀ / d
    mix = (1 - omega) * torch.softmax(h[:, :, None] * h[:, None, :], -1) + omega * torch.tensor(
        A_TEACHER, dtype=torch.float64
    )
    return z + torch.stack([p, -p]), mix @ z, Q_star


def student(Q: Tensor, x: Tensor) -> Tensor:
    """f_Q(x) = softmax(x Q Qᵀ xᵀ / d) x for ``Q [d]`` and ``x [n, 2, d]``, computed in the wider of
    their dtypes (half precision in float32)."""
    Q, x = _checks.real_tensor("Q", Q), _checks.real_tensor("x", x)
    if Q.dim() != 1 or x.dim() != 3 or x.size(-1) != Q.size(0):
        raise ValueError(f"Q must be [d] and x [n, L, d], got {tuple(Q.shape)} and {tuple(x.shape)}")
    dtype = _checks.compute_dtype(torch.empty(0, dtype=torch.promote_types(Q.dtype, x.dtype)))
    Q, x = Q.to(dtype), x.to(dtype)
    h = x @ Q / x.size(-1) ** 0.5
    return torch.softmax(h[:, :, None] * h[:, None, :], -1) @ x


def solvable_loss(Q: Tensor, x: Tensor, y: Tensor, lam: float = 0.01) -> Tensor:
    """L(Q) / n = mean_μ ‖y^μ − f_Q(x^μ)‖² / (2d) + λ/(2n) ‖Q‖² (the training objective per sample)."""
    if _checks.real_tensor("y", y).shape != _checks.tensor("x", x).shape:
        raise ValueError(f"y must have the shape of x {tuple(x.shape)}, got {tuple(y.shape)}")
    lam = _checks.at_least("lam", lam, 0.0)
    n, d = x.size(0), x.size(-1)
    return ((y - student(Q, x)) ** 2).sum() / (2 * d * n) + lam / (2 * n) * (Q**2).sum()


def fit_solvable(
    start: str,
    x: Tensor,
    y: Tensor,
    Q_star: Tensor,
    lam: float = 0.01,
    options: TrainOptions = OPTIONS,
) -> Tensor:
    """Q after Adam on L(Q) (full batch, ``options.steps`` at ``options.lr``) from the
    ``"positional"`` start Q = 1_d or the ``"semantic"`` start Q = Q*."""
    if start not in ("positional", "semantic"):
        raise ValueError(f"start must be 'positional' or 'semantic', got {start!r}")
    lam, options = _checks.at_least("lam", lam, 0.0), checked_options(options)
    Q_star, x = _checks.real_tensor("Q_star", Q_star), _checks.real_tensor("x", x)
    if Q_star.dim() != 1 or x.dim() != 3 or Q_star.size(0) != x.size(-1):
        raise ValueError(
            f"Q_star must be [d] = [{x.size(-1)}] for x {tuple(x.shape)}, got {tuple(Q_star.shape)}"
        )
    Q = nn.Parameter(torch.ones_like(Q_star) if start == "positional" else Q_star.clone())
    fit([Q], lambda _k: solvable_loss(Q, x, y, lam), options)
    return Q.detach()


def alpha_sweep(
    alphas: list[float],
    d: int = 100,
    sigma: float = 0.5,
    omega: float = 0.3,
    lam: float = 0.01,
    seeds: int = 3,
    n_test: int = 5000,
    options: TrainOptions = OPTIONS,
    first_seed: int = 0,
) -> dict[str, dict[str, list[float]]]:
    """For each α and start (positional, semantic): the training loss L(Q)/n, the test error
    mean ‖y − f_Q(x)‖²/(2d), and the overlaps |θ| = |Q*ᵀQ|/d, |m| = |1_dᵀQ|/d (the sign of Q is
    arbitrary: f_Q = f_{−Q}) — means over ``seeds`` training sets (teacher and test set per seed),
    those of seeds ``first_seed`` … ``first_seed + seeds − 1``, each fitted by ``fit_solvable`` with
    ``options``."""
    if not alphas:
        raise ValueError("alphas must be a non-empty list of sample complexities α = n/d > 0")
    for i, a in enumerate(alphas):
        _checks.positive(f"alphas[{i}]", a)
    keys = ("train", "test", "theta", "m")
    out: dict[str, dict[str, list[float]]] = {s: {k: [] for k in keys} for s in ("positional", "semantic")}
    for a in alphas:
        runs: dict[str, dict[str, list[float]]] = {s: {k: [] for k in keys} for s in out}
        first = _checks.integer("first_seed", first_seed, 0)
        for seed in range(first, first + _checks.integer("seeds", seeds, 1)):
            x, y, Q_star = solvable_data(
                max(1, round(a * d)), d, sigma, omega, seed=1000 + seed, teacher_seed=seed
            )
            xt, yt, _ = solvable_data(n_test, d, sigma, omega, seed=2000 + seed, teacher_seed=seed)
            for s in out:
                Q = fit_solvable(s, x, y, Q_star, lam, options)
                with torch.no_grad():
                    runs[s]["train"].append(float(solvable_loss(Q, x, y, lam)))
                    runs[s]["test"].append(float(solvable_loss(Q, xt, yt, 0.0)))
                runs[s]["theta"].append(abs(float(Q_star @ Q / d)))
                runs[s]["m"].append(abs(float(Q.sum() / d)))
        for s in out:
            for k in keys:
                out[s][k].append(sum(runs[s][k]) / len(runs[s][k]))
    return out


def crossing(alphas: list[float], a: list[float], b: list[float]) -> float | None:
    """The first α where a − b changes sign, by linear interpolation between grid points (None if
    it never does)."""
    _checks.same_length("the crossing", "alphas", alphas, "values of a", a)
    _checks.same_length("the crossing", "alphas", alphas, "values of b", b)
    for name, values in (("alphas", alphas), ("a", a), ("b", b)):
        for i, v in enumerate(values):
            _checks.finite(f"{name}[{i}]", v)
    diff = [u - v for u, v in zip(a, b, strict=True)]
    for i in range(len(diff) - 1):
        if diff[i] == 0:
            return float(alphas[i])
        if diff[i] * diff[i + 1] < 0:
            t = diff[i] / (diff[i] - diff[i + 1])
            return float(alphas[i] + t * (alphas[i + 1] - alphas[i]))
    return None
