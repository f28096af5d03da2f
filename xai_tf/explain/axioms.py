"""Implementation invariance (Sundararajan et al., 2017) on two tiny networks (lesson 20, section 4).

Two networks of x ∈ ℝ² that compute the same function but are built differently:

    f(x) = ReLU(ReLU(x₁) − 1 − ReLU(x₂)),        g(x) = ReLU(ReLU(x₁ − 1) − ReLU(x₂)).

They are *functionally equal*: for x₁ ≥ 1, ReLU(x₁) − 1 = ReLU(x₁ − 1); for x₁ < 1 both outer arguments
are ≤ 0, so both networks give 0.

- **Implementation invariance**: functionally equal networks get the same attributions.
- **Sensitivity**: where x and x′ differ in one feature only and F(x) ≠ F(x′), that feature's score is ≠ 0.

Integrated gradients read F only through its gradient on the path x′ + α (x − x′),

    IG_i(x) = (x_i − x′_i) ∫₀¹ ∂F(x′ + α (x − x′)) / ∂x_i dα      (``path_integral``, right Riemann sum),

and ∇f = ∇g wherever both are differentiable (almost everywhere), so IG(f) = IG(g); Σ IG = F(x) − F(x′)
(completeness), which gives sensitivity. DeepLIFT's rescale rule (``deeplift``) replaces each ReLU's
derivative by m = (ReLU(z) − ReLU(z′)) / (z − z′) at that ReLU's own input z and reference z′ and chains
the multipliers through the network *as built*: at x = (3, 1), x′ = (0, 0) it gives f the scores
(1.5, −0.5) and g the scores (2, −1) — both sum to f(x) − f(x′) = 1, yet they differ.

Each ReLU is its own ``nn.ReLU`` module, so Captum's ``DeepLift`` (which applies the rescale rule at such
modules) computes the same DeepLIFT (``tests/test_attribution_map.py``).
"""

from __future__ import annotations

from torch import Tensor, nn

from xai_tf import _checks
from xai_tf.explain import deeplift as dl
from xai_tf.explain.path_integral import path_integrated_gradients


class _F(nn.Module):
    """f(x) = ReLU(ReLU(x₁) − 1 − ReLU(x₂)) for x ``[n, 2]`` → ``[n]``."""

    def __init__(self) -> None:
        super().__init__()
        self.h1, self.h2, self.out = nn.ReLU(), nn.ReLU(), nn.ReLU()

    def forward(self, x: Tensor) -> Tensor:
        return self.out(self.h1(x[:, 0]) - 1 - self.h2(x[:, 1]))


class _G(nn.Module):
    """g(x) = ReLU(ReLU(x₁ − 1) − ReLU(x₂)) for x ``[n, 2]`` → ``[n]``."""

    def __init__(self) -> None:
        super().__init__()
        self.k1, self.k2, self.out = nn.ReLU(), nn.ReLU(), nn.ReLU()

    def forward(self, x: Tensor) -> Tensor:
        return self.out(self.k1(x[:, 0] - 1) - self.k2(x[:, 1]))


def functionally_equal_pair() -> tuple[nn.Module, nn.Module]:
    """The networks ``(f, g)`` of the module's docstring: the same function, two implementations."""
    return _F(), _G()


def implementation_invariance(
    x: Tensor, baseline: Tensor, n_steps: int = 64
) -> dict[str, tuple[Tensor, Tensor]]:
    """``{"IG": (IG of f, IG of g), "DeepLIFT": (DeepLIFT of f, DeepLIFT of g)}``, each ``[2]``, at the
    input ``x`` ``[2]`` from ``baseline`` ``[2]``: IG by the right Riemann sum with ``n_steps`` steps,
    DeepLIFT by the rescale rule at every ReLU."""
    for name, t in (("x", x), ("baseline", baseline)):
        if _checks.real_tensor(name, t, dims=1).shape != (2,):
            raise ValueError(f"{name} must have shape [2] (x₁, x₂), got {tuple(t.shape)}")
    n = _checks.integer("n_steps", n_steps, 1, 1_000_000)
    nets = functionally_equal_pair()
    ig = tuple(path_integrated_gradients(net, x, baseline, n) for net in nets)
    lift = tuple(dl.rescale_attributions(net, x, baseline) for net in nets)
    return {"IG": (ig[0], ig[1]), "DeepLIFT": (lift[0], lift[1])}
