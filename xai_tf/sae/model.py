"""The sparse autoencoder of lesson 10 (monosemanticity), in the lecture's notation.

For a residual-stream vector h ∈ ℝ^d and F features (F = expansion · d):

    a_j(h) = ReLU(W^enc_{j,:} h + b^enc_j)                         (feature j's code)
    s(h)   = Σ_j a_j(h) W^dec_{:,j} + b^dec                         (the reconstruction)
    L      = (1/n) Σ_i [ ‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖² + λ Σ_j a_j(h⁽ⁱ⁾) ‖W^dec_{:,j}‖ ]

and the feature activation a_j(h) ‖W^dec_{:,j}‖ (the code times the length of its direction, so that
rescaling W^enc_{j,:} by c and W^dec_{:,j} by 1/c changes neither it nor L). Initialised as in
Anthropic's "Circuits Updates, April 2024": W^dec columns in random directions of norm 0.1,
W^enc = W^decᵀ, zero biases. Saved as safetensors plus a JSON config (``save`` / ``load``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

from xai_tf import _checks, seeds

#: The SAE lesson 10 ships (``scripts/train_sae.py``): ``load(SHIPPED)``.
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "sae_shakespeare"


@dataclass
class SAEConfig:
    """What an SAE was trained on and how: enough to retrain it (``scripts/train_sae.py``).

    ``scale`` c multiplies the raw stream before the SAE (so that E‖c h‖ = √d, ``activations``)."""

    d: int
    F: int
    lam: float
    model: str = ""
    hook: str = "resid_post"
    layer: int = 0
    scale: float = 1.0
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        _checks.integer("d", self.d, 1)
        _checks.integer("F", self.F, 1)
        if self.F % self.d:
            raise ValueError(f"F must be a positive multiple of d = {self.d} (expansion · d), got {self.F}")
        _checks.at_least("lam", self.lam, 0)
        _checks.positive("scale", self.scale)


class SparseAutoencoder(nn.Module):
    """W_enc [F, d], b_enc [F], W_dec [d, F], b_dec [d] (see the module docstring)."""

    def __init__(self, config: SAEConfig, seed: int = 0, dtype: torch.dtype = torch.float32):
        """Refuses, before allocating, a width whose weights (3 · d · F numbers while they are made)
        would not fit in memory."""
        super().__init__()
        if not isinstance(config, SAEConfig):
            raise TypeError(f"config must be an SAEConfig, got {type(config).__name__}")
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise TypeError(f"dtype must be a floating dtype (torch.float32 or torch.float64), got {dtype}")
        self.config = config
        d, F = config.d, config.F
        size = 3 * d * F * torch.empty(0, dtype=dtype).element_size()
        _checks.fits(f"an SAE with d = {d}, F = {F}", size, "choose a smaller d or F")
        g = seeds.generator(seed)
        W_dec = torch.randn(d, F, generator=g, dtype=dtype)
        W_dec = 0.1 * W_dec / W_dec.norm(dim=0, keepdim=True)
        self.W_dec = nn.Parameter(W_dec)
        self.W_enc = nn.Parameter(W_dec.T.clone())
        self.b_enc = nn.Parameter(torch.zeros(F, dtype=dtype))
        self.b_dec = nn.Parameter(torch.zeros(d, dtype=dtype))

    def encode(self, h: Tensor) -> Tensor:
        """a(h) = ReLU(W^enc h + b^enc), ``[..., F]``."""
        return torch.relu(h @ self.W_enc.T + self.b_enc)

    def decode(self, a: Tensor) -> Tensor:
        """s = Σ_j a_j W^dec_{:,j} + b^dec, ``[..., d]``."""
        return a @ self.W_dec.T + self.b_dec

    def forward(self, h: Tensor) -> tuple[Tensor, Tensor]:
        """``(s(h), a(h))``."""
        a = self.encode(h)
        return self.decode(a), a

    def loss(self, h: Tensor, lam: float) -> tuple[Tensor, Tensor, Tensor]:
        """``(L, s(h), a(h))`` for the rows of ``h`` (``sae_loss``), one forward pass for all three."""
        _checks.at_least("lam", lam, 0)
        h = self.check_input(h)
        s, a = self(h)
        return ((h - s) ** 2).sum(-1).mean() + lam * (a * self.feature_norms()).sum(-1).mean(), s, a

    def feature_norms(self) -> Tensor:
        """‖W^dec_{:,j}‖ for every feature, ``[F]``."""
        return self.W_dec.norm(dim=0)

    def check_input(self, h: object) -> Tensor:
        """``h`` checked as a real tensor ``[..., d]`` of this SAE's width with at least one row, and
        converted once to the SAE's dtype and device (float64 data into a float32 SAE are computed
        in float32: the package's dtype rule, ``_checks.like``)."""
        h = _checks.like("h", h, self)
        if h.dim() == 0 or h.size(-1) != self.config.d:
            raise ValueError(f"h must end in the SAE's width d = {self.config.d}, got shape {tuple(h.shape)}")
        if h.numel() == 0:
            raise ValueError(f"h must hold at least one row [n ≥ 1, d], got shape {tuple(h.shape)}")
        return h

    def feature(self, j: object) -> int:
        """``j`` checked as a feature index in 0..F−1."""
        return _checks.integer("feature", j, 0, self.config.F - 1)


def sae_loss(sae: SparseAutoencoder, h: Tensor, lam: float) -> Tensor:
    """L = (1/n) Σ_i [‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖² + λ Σ_j a_j(h⁽ⁱ⁾) ‖W^dec_{:,j}‖] over the n rows of ``h [n, d]``,
    in the SAE's dtype (h is converted once where it enters)."""
    return _sae(sae).loss(h, lam)[0]


def feature_activations(sae: SparseAutoencoder, h: Tensor) -> Tensor:
    """a_j(h) ‖W^dec_{:,j}‖ for every feature: ``[..., F]`` (in the SAE's dtype)."""
    return sae.encode(_sae(sae).check_input(h)) * sae.feature_norms()


def _sae(sae: object) -> SparseAutoencoder:
    if not isinstance(sae, SparseAutoencoder):
        raise TypeError(f"sae must be a SparseAutoencoder (xai_tf.sae.model), got {type(sae).__name__}")
    return sae


def identity_sae(d: int, dtype: torch.dtype = torch.float64) -> SparseAutoencoder:
    """The perfect SAE with F = 2d: W^dec = [I, −I], W^enc = W^decᵀ, zero biases, so s(h) = ReLU(h) −
    ReLU(−h) = h exactly (a check of every metric)."""
    sae = SparseAutoencoder(SAEConfig(d=d, F=2 * d, lam=0.0), dtype=dtype)
    eye = torch.eye(d, dtype=dtype)
    with torch.no_grad():
        sae.W_dec.copy_(torch.cat([eye, -eye], dim=1))
        sae.W_enc.copy_(sae.W_dec.T)
    return sae.requires_grad_(False)


def save(sae: SparseAutoencoder, path: str | Path, **extra: object) -> None:
    """``path.safetensors`` (the four weights, plus any tensors in ``extra``) and ``path.json`` (config)."""
    _sae(sae)
    path = Path(path)
    tensors = {k: v.detach().contiguous() for k, v in sae.state_dict().items()}
    tensors.update({k: v.contiguous() for k, v in extra.items() if isinstance(v, Tensor)})
    save_file(tensors, path.with_suffix(".safetensors"))
    path.with_suffix(".json").write_text(json.dumps(asdict(sae.config), indent=2) + "\n")


def load(path: str | Path) -> tuple[SparseAutoencoder, dict[str, Tensor]]:
    """``(sae, extra tensors)`` from ``save``'s two files."""
    path = Path(path)
    missing = [
        p.name for p in (path.with_suffix(".json"), path.with_suffix(".safetensors")) if not p.is_file()
    ]
    if missing:
        raise ValueError(f"path {str(path)!r} must name an SAE saved by save(): {missing} not found")
    config = SAEConfig(**json.loads(path.with_suffix(".json").read_text()))
    tensors = load_file(path.with_suffix(".safetensors"))
    sae = SparseAutoencoder(config, dtype=tensors["W_dec"].dtype)
    sae.load_state_dict({k: tensors.pop(k) for k in ("W_enc", "b_enc", "W_dec", "b_dec")})
    return sae.eval().requires_grad_(False), tensors
