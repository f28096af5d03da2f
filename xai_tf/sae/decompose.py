"""One text explained by its features (lesson 10): lecture 002's "any input document can now be
explained by a small subset of these new features".

For the text's tokens t = 1..T and their scaled stream vectors h_t = c f^{(l)}_t, the SAE writes

    h_t ≈ s(h_t) = Σ_{j ∈ A_t} a_j(h_t) W^dec_{:,j} + b^dec,    A_t = {j : a_j(h_t) > 0},

so token t is explained by the |A_t| features that fire on it, each weighted by its feature activation
f_j(h_t) = a_j(h_t) ‖W^dec_{:,j}‖ (the length of its term in the sum). ``decompose`` lists A_t for every
token, largest f_j first, with the FVU of the text's reconstruction (how much the subset leaves out).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import torch

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, as_model
from xai_tf.sae import activations, metrics
from xai_tf.sae.model import SparseAutoencoder, _sae, feature_activations


@dataclass
class Decomposition:
    """A text's tokens, the features active on each ``[(j, f_j), …]`` (largest first) and the FVU
    of the text's reconstruction s(h)."""

    tokens: list[str]
    active: list[list[tuple[int, float]]]
    fvu: float

    @property
    def l0(self) -> float:
        """Mean |A_t|: active features per token."""
        return sum(len(a) for a in self.active) / len(self.active)

    def top(self, k: int = 3) -> list[int]:
        """The features among the ``k`` largest of some token, in order of first appearance."""
        _checks.integer("k", k, 1)
        return list(dict.fromkeys(j for a in self.active for j, _ in a[:k]))

    def table(self, labels: Mapping[int, str], k: int = 3) -> str:
        """One line per token: the token, |A_t|, and its ``k`` largest features as j label f_j."""
        _checks.integer("k", k, 1)
        lines = [f"{'token':>12} {'|A_t|':>5}  largest f_j"]
        for token, a in zip(self.tokens, self.active, strict=True):
            best = "   ".join(f"{j} {labels.get(j, '?')} {v:.2f}" for j, v in a[:k])
            lines.append(f"{token!r:>12} {len(a):5d}  {best}")
        return "\n".join(lines)


@torch.no_grad()
def decompose(lm: LoadedModel, sae: SparseAutoencoder, text: str) -> Decomposition:
    """``text`` run through ``lm`` to the SAE's hook point and split into the features that fire on
    each token (see the module docstring)."""
    lm, sae = as_model(lm), _sae(sae)
    if not isinstance(text, str):
        raise TypeError(f"text must be a non-empty string, got {text!r}")
    if not text:
        raise ValueError("text must be a non-empty string, got ''")
    ids = lm.encode(text)
    if not 2 <= len(ids) <= lm.n_ctx:
        raise ValueError(f"text must be 2 to {lm.n_ctx} tokens for {lm.name}, got {len(ids)}")
    cfg = sae.config
    H = activations.collect(lm, torch.tensor([ids]), cfg.layer, cfg.hook)[0].float() * cfg.scale
    H = sae.check_input(H)
    f = feature_activations(sae, H)
    active = []
    for row in f:
        order = row.argsort(descending=True)
        active.append([(int(j), float(row[j])) for j in order[: int((row > 0).sum())]])
    return Decomposition(lm.token_strings(ids), active, metrics.fvu(H, sae(H)[0]))
