"""h and g of a concept bottleneck model f(x) = g(h(x)) (lesson 12): a small MLP, a small CNN for
16 × 16 images, and the model that ties them together.

h_j(x) is a logit for a binary concept and a value for a real-valued one. What g reads, the
bottleneck b(x), depends on how g was trained: an *independent* g learnt on true concepts (0/1 for a
binary one), so it reads b_j = σ(h_j(x)); a *sequential*, *joint* or *standard* g learnt on h's
outputs, so it reads the logits, b_j = h_j(x) (Koh et al. 2020). Real-valued concepts: b_j = h_j(x).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from xai_tf import _checks, seeds
from xai_tf.cbm._common import check_concepts, module_input, with_parameters

G_INPUTS = ("probability", "logit")
#: bytes per float32 weight while training by Adam: the weight, its gradient and Adam's two moments
TRAINING_BYTES = 16


def mlp(
    d_in: int, d_out: int, hidden: int = 32, seed: int = 0, device: torch.device | str = "cpu"
) -> nn.Sequential:
    """d_in → hidden → d_out with a ReLU (``hidden = 0``: one linear map), seeded initialisation (made
    on the CPU, then moved to ``device``: the same weights on every device)."""
    d_in, d_out = _checks.integer("d_in", d_in, 1), _checks.integer("d_out", d_out, 1)
    hidden = _checks.integer("hidden", hidden, 0)
    weights = d_in * d_out if hidden == 0 else (d_in + d_out + 1) * hidden + d_out
    _checks.fits(f"an MLP {d_in} → {hidden} → {d_out}", TRAINING_BYTES * weights, "choose a smaller hidden")
    with seeds.seeded(seed):
        if hidden == 0:
            return nn.Sequential(nn.Linear(d_in, d_out, device="cpu")).to(device)
        layers = nn.Linear(d_in, hidden, device="cpu"), nn.ReLU(), nn.Linear(hidden, d_out, device="cpu")
        return nn.Sequential(*layers).to(device)


def small_cnn(k: int, channels: int = 3, seed: int = 0, device: torch.device | str = "cpu") -> nn.Sequential:
    """A CNN for [n, channels, 16, 16] images → k outputs: two 3 × 3 convolutions (8, 16 channels),
    each with ReLU and 2 × 2 max pooling, then a linear map of the 16 × 4 × 4 features."""
    k, channels = _checks.integer("k", k, 1), _checks.integer("channels", channels, 1)
    weights = 8 * 9 * channels + 16 * 8 * 9 + 16 * 4 * 4 * k
    _checks.fits(f"a CNN for {channels} channels", TRAINING_BYTES * weights, "choose fewer channels")
    with seeds.seeded(seed):
        return nn.Sequential(
            nn.Conv2d(channels, 8, 3, padding=1, device="cpu"),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, device="cpu"),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(16 * 4 * 4, k, device="cpu"),
        ).to(device)


class ConceptBottleneck(nn.Module):
    """f(x) = g(b(x)) with b(x) built from h(x) as the module docstring says; ``mode`` records how it
    was trained ("independent", "sequential", "joint", "standard") and ``lam`` the joint model's λ."""

    h: nn.Module
    g: nn.Module
    binary: Tensor

    def __init__(self, h: nn.Module, g: nn.Module, binary: Tensor, g_input: str, mode: str, lam: float = 0.0):
        super().__init__()
        if g_input not in G_INPUTS:
            raise ValueError(f"g_input must be one of {G_INPUTS}, got {g_input!r}")
        with_parameters("h", h), with_parameters("g", g)
        self.h, self.g, self.g_input, self.mode, self.lam = h, g, g_input, mode, lam
        self.register_buffer("binary", binary.bool().clone())

    @property
    def k(self) -> int:
        return self.binary.numel()

    def concept_outputs(self, x: Tensor) -> Tensor:
        """h(x) [n, k]: logits of binary concepts, values of real-valued ones (``x`` checked against
        h's first layer and converted to its dtype)."""
        return self.h(module_input("h", self.h, x))

    def bottleneck(self, x: Tensor) -> Tensor:
        """b(x) [n, k], what g reads."""
        return self.to_bottleneck(self.concept_outputs(x))

    def to_bottleneck(self, out: Tensor) -> Tensor:
        """b from concept outputs h(x): σ on binary concepts for a g that reads probabilities."""
        if self.g_input == "probability":
            return out.where(~self.binary, out.sigmoid())
        return out

    def predict_from(self, b: Tensor) -> Tensor:
        """g(b) [n]: the output for a bottleneck b [n, k] (predicted, intervened, or true concepts)."""
        return self.g(_checks.like("b", check_concepts("b", b, self.k), self.g)).squeeze(-1)

    def forward(self, x: Tensor) -> Tensor:
        return self.g(self.bottleneck(x)).squeeze(-1)
