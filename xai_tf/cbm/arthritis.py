"""A seeded tabular task with known concepts in the spirit of the lecture's arthritis example
(lesson 12): sixteen measurements x → twelve clinical-style concepts c (six real-valued, six binary)
→ a severity grade y ∈ {0, …, 4}, with concept noise and a share of y that bypasses the concepts.

    x ~ N(0, I_16),   z = x A + κ · sin(x B)                      (A, B fixed, unit columns)
    real concept j:   c_j = μ_j + σ_j (z_j + ν ε_j),   binary concept j:  c_j = 1[z_j + ν ε_j > 0]
    severity score    s = Σ_j w_j c̃_j + β · (x · u),   c̃_j = (c_j − μ_j)/σ_j (real), 2 c_j − 1 (binary)
    grade             y = #{t ∈ THRESHOLDS : s > t}

ε ~ N(0, 1) is the concept noise (ν = ``noise``: x does not determine c), κ = ``curvature`` makes h
nonlinear, and u is a unit vector orthogonal to A's columns: β · (x · u) (β = ``bypass``) is signal
about y in x that no concept carries. With ν = κ = β = 0 the grade is the documented rule of c alone.
"""

from __future__ import annotations

import torch
from torch import Tensor

from xai_tf import _checks, seeds
from xai_tf.cbm.data import ConceptData

REAL = (
    "joint space narrowing",
    "osteophytes",
    "sclerosis",
    "bone marrow lesions",
    "effusion",
    "cartilage loss",
)
BINARY = ("pain walking", "morning stiffness", "crepitus", "swelling", "bony tenderness", "limited flexion")
NAMES = REAL + BINARY
D = 16
#: μ_j, σ_j of the real-valued concepts (grades on the scale a radiologist reads them)
MEANS = (1.5, 1.2, 0.8, 1.0, 0.6, 1.4)
SCALES = (0.8, 1.0, 0.5, 0.7, 0.4, 0.9)
#: w_j: the weight of each standardised concept in the severity score, in NAMES' order
WEIGHTS = (0.6, 0.5, 0.3, 0.4, 0.2, 0.5, 0.4, 0.3, 0.3, 0.2, 0.2, 0.3)
THRESHOLDS = (-1.5, -0.5, 0.5, 1.5)
STRUCTURE_SEED = 12  # A, B and u are the same for every data seed
ROW_BYTES = 100 * 8  # about a hundred float64 numbers per patient while drawing (x, z, noise, c, s …)


def structure() -> tuple[Tensor, Tensor, Tensor]:
    """The fixed maps A, B ∈ ℝ^{16×12} (unit columns) and u ∈ ℝ^16 (unit, orthogonal to A's columns)."""
    g = seeds.generator(STRUCTURE_SEED)
    A, B = (torch.randn(D, len(NAMES), generator=g, dtype=torch.float64, device="cpu") for _ in range(2))
    A, B = A / A.norm(dim=0), B / B.norm(dim=0)
    r = torch.randn(D, generator=g, dtype=torch.float64, device="cpu")
    Q, _ = torch.linalg.qr(A)
    u = r - Q @ (Q.T @ r)
    return A, B, u / u.norm()


def _standardised(c: Tensor, binary: Tensor) -> Tensor:
    """c̃: (c_j − μ_j)/σ_j for a real-valued concept, 2 c_j − 1 for a binary one (``binary [k]``)."""
    mu = torch.tensor(MEANS + (0.0,) * len(BINARY), dtype=c.dtype, device=c.device)
    sigma = torch.tensor(SCALES + (1.0,) * len(BINARY), dtype=c.dtype, device=c.device)
    return torch.where(binary, 2 * c - 1, (c - mu) / sigma)


def arthritis(
    n: int,
    seed: int = 0,
    noise: float = 0.3,
    curvature: float = 0.5,
    bypass: float = 0.7,
    binary: bool = True,
) -> ConceptData:
    """``n`` patients drawn as in the module docstring (float32; ``binary=False`` makes all twelve
    concepts real-valued, the six binary ones with μ = 0, σ = 1)."""
    n = _checks.integer("n", n, 1)
    _checks.fits(f"arthritis(n = {n})", n * ROW_BYTES, "choose a smaller n")
    seed = _checks.integer("seed", seed, 0)
    noise = _checks.at_least("noise", noise, 0)
    curvature = _checks.at_least("curvature", curvature, 0)
    bypass = _checks.at_least("bypass", bypass, 0)
    if not isinstance(binary, bool):
        raise TypeError(f"binary must be True or False, got {binary!r}")
    A, B, u = structure()
    g = seeds.generator(seed)
    x = torch.randn(n, D, generator=g, dtype=torch.float64, device="cpu")
    z = (
        x @ A
        + curvature * torch.sin(x @ B)
        + noise * torch.randn(n, len(NAMES), generator=g, dtype=torch.float64, device="cpu")
    )
    is_binary = torch.tensor([binary and j >= len(REAL) for j in range(len(NAMES))], device="cpu")
    mu = torch.tensor(MEANS + (0.0,) * len(BINARY), dtype=torch.float64, device="cpu")
    sigma = torch.tensor(SCALES + (1.0,) * len(BINARY), dtype=torch.float64, device="cpu")
    c = torch.where(is_binary, (z > 0).double(), mu + sigma * z)
    s = _standardised(c, is_binary) @ torch.tensor(WEIGHTS, dtype=torch.float64, device="cpu") + bypass * (
        x @ u
    )
    y = (s.unsqueeze(-1) > torch.tensor(THRESHOLDS, dtype=torch.float64, device="cpu")).sum(-1)
    return ConceptData(
        x.float(),
        c.float(),
        y.float(),
        is_binary,
        NAMES,
        tuple((j,) for j in range(len(NAMES))),
        "regression",
    )


def severity_score(data: ConceptData) -> Tensor:
    """s − β (x · u) = Σ_j w_j c̃_j: the part of the severity score the concepts carry."""
    _check_data(data)
    weights = torch.tensor(WEIGHTS, dtype=torch.float64, device=data.c.device)
    return _standardised(data.c.double(), data.binary) @ weights


def _check_data(data: object) -> None:
    if not (isinstance(data, ConceptData) and data.names == NAMES and data.x.shape[1:] == (D,)):
        raise TypeError(f"data must be a ConceptData drawn by arthritis(), got {type(data).__name__}")


def bypass_share(data: ConceptData, bypass: float) -> float:
    """Var(β x·u) / Var(s): the share of the severity score's variance that bypasses the concepts
    (measured on ``data``, drawn with ``bypass`` = β)."""
    bypass = _checks.at_least("bypass", bypass, 0)
    _check_data(data)
    u = structure()[2].to(data.x.device)
    part = bypass * (data.x.double() @ u)
    return float(part.var() / (severity_score(data) + part).var())
