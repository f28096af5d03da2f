"""How good a sparse autoencoder is (lesson 10), with the definitions of SAELens and Anthropic's
"Towards Monosemanticity" (2023).

    L0   = (1/n) Σ_i #{j : a_j(h⁽ⁱ⁾) > 0}                 mean active features per token
    FVU  = Σ_i ‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖² / Σ_i ‖h⁽ⁱ⁾ − h̄‖²        fraction of variance unexplained
    p_j  = (1/n) #{i : a_j(h⁽ⁱ⁾) > 0}                      feature density; dead: p_j = 0, dense: p_j > 0.1
    CE recovered = (CE_zero − CE_SAE) / (CE_zero − CE_clean)

FVU is undefined for activations without variance (every row equal): ``fvu`` refuses them by name.
CE_clean is the model's next-token loss, CE_SAE the loss with s(h) spliced in place of h at the
hook, CE_zero with h replaced by 0 (SAELens's ``get_recons_loss``): 1 for a perfect reconstruction,
0 for one no better than erasing the stream.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor

from xai_tf import _checks
from xai_tf.models.hooks import Hook
from xai_tf.models.loaded import LoadedModel, causal
from xai_tf.sae.activations import check_point
from xai_tf.sae.model import SparseAutoencoder

DENSE = 0.1


def l0(a: Tensor) -> float:
    """Mean number of active features per row of ``a [n, F]``."""
    a = _checks.real_tensor("a", a)
    if a.dim() == 0 or a.numel() == 0:
        raise ValueError(f"a must hold codes [n, F], got shape {tuple(a.shape)}")
    return float((a > 0).sum(-1).float().mean())


def fvu(h: Tensor, s: Tensor) -> float:
    """Σ‖h − s‖² / Σ‖h − h̄‖² over the rows of ``h, s [n, d]`` (h̄ their mean), in float64; refused
    when h has no variance (every row equal), where the ratio divides by zero."""
    h, s = _checks.real_tensor("h", h), _checks.real_tensor("s", s)
    if h.shape != s.shape or h.dim() == 0 or len(h.reshape(-1, h.size(-1))) < 2:
        raise ValueError(f"h and s must both be [n ≥ 2, d], got {tuple(h.shape)} and {tuple(s.shape)}")
    h, s = h.reshape(-1, h.size(-1)).double(), s.reshape(-1, s.size(-1)).double()
    variance = ((h - h.mean(0)) ** 2).sum()
    if variance == 0:
        raise ValueError(
            f"h has no variance (its {len(h)} rows are equal): the FVU Σ‖h − s‖² / Σ‖h − h̄‖² is undefined"
        )
    return float(((h - s) ** 2).sum() / variance)


@torch.no_grad()
def density(sae: SparseAutoencoder, H: Tensor, chunk: int = 8192) -> Tensor:
    """p_j: the share of the rows of ``H [n, d]`` (scaled activations) on which feature j fires, ``[F]``."""
    chunk = _checks.integer("chunk", chunk, 1)
    H = sae.check_input(H).reshape(-1, sae.config.d)
    fired = torch.zeros(sae.config.F, dtype=torch.long, device=sae.W_enc.device)
    for i in range(0, len(H), chunk):
        fired += (sae.encode(H[i : i + chunk]) > 0).sum(0)
    return fired.double() / len(H)


@torch.no_grad()
def summary(sae: SparseAutoencoder, H: Tensor, chunk: int = 8192) -> dict[str, float]:
    """L0, FVU, dead share (p_j = 0) and dense share (p_j > 0.1) of ``sae`` on the rows of ``H``."""
    chunk = _checks.integer("chunk", chunk, 1)
    H = sae.check_input(H).reshape(-1, sae.config.d)
    S = torch.cat([sae(H[i : i + chunk])[0] for i in range(0, len(H), chunk)])
    p = density(sae, H, chunk)
    n_active = float((p * len(H)).sum() / len(H))
    return {
        "L0": n_active,
        "FVU": fvu(H, S),
        "dead": float((p == 0).double().mean()),
        "dense": float((p > DENSE).double().mean()),
    }


def reconstruction_hook(sae: SparseAutoencoder, scale: float) -> Hook:
    """h ↦ s(c h) / c: the stream replaced by the SAE's reconstruction (c the scale it was trained at)."""
    scale = _checks.positive("scale", scale)

    def hook(h: Tensor) -> Tensor:
        return sae(h.to(sae.W_enc) * scale)[0].to(h) / scale

    return hook


def _ce(lm: LoadedModel, ids: Tensor, hooks: dict) -> float:
    logits = lm(ids, hooks=hooks)[:, :-1]
    return float(F.cross_entropy(logits.reshape(-1, logits.size(-1)).double(), ids[:, 1:].reshape(-1)))


@torch.no_grad()
def ce_loss_recovered(
    lm: LoadedModel,
    sae: SparseAutoencoder,
    ids: Tensor,
    layer: int,
    hook: str = "resid_post",
    baseline: str = "zero",
) -> dict[str, float]:
    """CE_clean, CE_SAE, CE_zero (mean next-token loss in nats over the windows ``ids [n, T]``) and
    CE recovered = (CE_zero − CE_SAE) / (CE_zero − CE_clean). ``baseline="mean"`` replaces the
    zero-ablated stream by its mean over these tokens (mean ablation)."""
    if baseline not in ("zero", "mean"):
        raise ValueError(f"baseline must be 'zero' or 'mean', got {baseline!r}")
    lm = causal(lm, "the next-token loss")
    check_point(lm, layer, hook)
    ids = _checks.token_ids("ids", ids, lm.vocab_size)
    if ids.dim() != 2 or ids.size(1) < 2:
        raise ValueError(f"ids must be windows [n, T ≥ 2], got shape {tuple(ids.shape)}")
    ids = ids.to(lm.device)
    clean = _ce(lm, ids, {})
    spliced = _ce(lm, ids, {(hook, layer): reconstruction_hook(sae, sae.config.scale)})
    mean = None if baseline == "zero" else lm.run_with_cache(ids)[1][hook, layer].mean((0, 1))

    def ablate(h: Tensor) -> Tensor:
        return torch.zeros_like(h) if mean is None else mean.expand_as(h)

    zero = _ce(lm, ids, {(hook, layer): ablate})
    return {"clean": clean, "sae": spliced, "zero": zero, "recovered": (zero - spliced) / (zero - clean)}
