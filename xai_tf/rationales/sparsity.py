"""Bastings et al.'s (2019) controlled sparsity (lesson 11; the lecture's "reparameterization trick &
controlled sparsity"): instead of a fixed price λ₁ per selected word, choose the share ξ of words the
rationale should keep and let a Lagrange multiplier λ find the price. On a minibatch of n sentences
the constraint is the expected share of selected words minus the target,

    C = (1/n) Σ_x (1/T_x) Σ_t P(z_t ≠ 0 | x) − ξ,

and λ follows it by ascent on log λ (Algorithm 1 of Rezende & Viola, 2018, as Bastings et al.'s code does):

    c̄ ← α c̄ + (1 − α) C                       (a moving average of the constraint)
    λ ← clamp(λ · exp(η c̄), λ_min, λ_max)
    term = λ · (C + sg(c̄ − C))                 (value λ c̄, gradient λ ∇C; sg = no gradient)

so λ grows while more than ξ of the words are selected and shrinks while fewer are; the term replaces
λ₁ Σ_t P(z_t ≠ 0) in the HardKuma objective.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from torch import Tensor

from xai_tf import _checks

LAMBDA_MIN, LAMBDA_MAX = 1e-6, 5.0
SPAN = math.log(LAMBDA_MAX / LAMBDA_MIN)  # the largest step of log λ that can still matter


@dataclass
class Lagrangian:
    """The multiplier λ for a target share ``selection`` = ξ ∈ (0, 1) of selected words, with its
    step size ``lr`` = η, the moving-average weight ``alpha`` = α and a start value ``lam``.
    ``history`` holds (C, λ) of every update, for a learning curve."""

    selection: float
    lr: float = 0.1
    alpha: float = 0.9
    lam: float = 0.01
    moving: float = 0.0
    history: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.selection = _checks.real("selection", self.selection, 0.0, 1.0, open_lo=True, open_hi=True)
        _checks.positive("lr", self.lr)
        self.alpha = _checks.real("alpha", self.alpha, 0.0, 1.0, open_hi=True)
        self.lam = _checks.real("lam", self.lam, LAMBDA_MIN, LAMBDA_MAX)

    def term(self, share: Tensor, update: bool = True) -> Tensor:
        """λ · (C + sg(c̄ − C)) for the minibatch's expected ``share`` of selected words (a scalar
        tensor in [0, 1]); with ``update`` (training) c̄ and λ move first, as in Bastings et al.'s code.
        A step η c̄ beyond log(λ_max / λ_min) lands on the clamp from any λ, so it is cut there (a large η
        reaches the clamp, never overflows)."""
        share = _checks.tensor("share", share)
        if share.numel() != 1:
            raise ValueError(f"share must be one number (a 0-d tensor), got shape {tuple(share.shape)}")
        _checks.real("share", float(share.detach()), 0.0, 1.0)
        c = share.reshape(()) - self.selection
        if not update:
            return self.lam * c
        self.moving = self.alpha * self.moving + (1 - self.alpha) * float(c.detach())
        step = min(self.lr * self.moving, SPAN)
        self.lam = min(max(self.lam * math.exp(step), LAMBDA_MIN), LAMBDA_MAX)
        self.history.append((float(c.detach()), self.lam))
        return self.lam * (c + (self.moving - c.detach()))
