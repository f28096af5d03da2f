"""The sparse autoencoder's formulas on plain weight tensors (lesson 10, section 2 and 8; its exercises
are checked against these). For rows ``h [n, d]``, ``W_enc [F, d]``, ``b_enc [F]``, ``W_dec [d, F]``,
``b_dec [d]``:

    a_j(h) = ReLU(W^enc_{j,:} h + b^enc_j)                                   encode
    s(h)   = Σ_j a_j(h) W^dec_{:,j} + b^dec
    L      = (1/n) Σ_i [‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖² + λ Σ_j a_j(h⁽ⁱ⁾) ‖W^dec_{:,j}‖]        loss
    f_j(h) = a_j(h) ‖W^dec_{:,j}‖                                            feature_activation
    h′     = s′(h) + (h − s(h)) = h + (v − a_j(h)) W^dec_{:,j}                clamp

``clamp`` sets feature j's code to v and keeps the SAE's error h − s(h), so the stream moves along
W^dec_{:,j} only (Templeton et al., 2024; ``steer.clamp_hook`` applies it inside the model, in the
model's units). ``SparseAutoencoder`` computes the same on its own parameters.
"""

from __future__ import annotations

from torch import Tensor

from xai_tf import _checks


def _shapes(h: object, W_enc: object, b_enc: object, W_dec: object = None, b_dec: object = None) -> None:
    """Each argument a finite floating tensor, with the shapes above (h may have any leading axes)."""
    h = _checks.real_tensor("h", h)
    W_enc = _checks.real_tensor("W_enc", W_enc, dims=2)
    F, d = W_enc.shape
    if h.dim() == 0 or h.size(-1) != d:
        raise ValueError(f"h must be [n, d] with d = {d} (W_enc is [F, d]), got shape {tuple(h.shape)}")
    wanted = {"b_enc": ((F,), b_enc), "W_dec": ((d, F), W_dec), "b_dec": ((d,), b_dec)}
    for name, (shape, x) in wanted.items():
        if x is None:
            continue
        got = tuple(_checks.real_tensor(name, x).shape)
        if got != shape:
            raise ValueError(f"{name} must have shape {shape} (F = {F}, d = {d}), got {got}")


def encode(h: Tensor, W_enc: Tensor, b_enc: Tensor) -> Tensor:
    """The codes a(h) = ReLU(h W_encᵀ + b_enc), ``[..., F]``."""
    _shapes(h, W_enc, b_enc)
    return (h @ W_enc.T + b_enc).relu()


def loss(h: Tensor, W_enc: Tensor, b_enc: Tensor, W_dec: Tensor, b_dec: Tensor, lam: float) -> Tensor:
    """L = (1/n) Σ_i [‖h⁽ⁱ⁾ − s(h⁽ⁱ⁾)‖² + λ Σ_j a_j(h⁽ⁱ⁾) ‖W^dec_{:,j}‖] over the rows
    of ``h [n, d]``, 0-d."""
    _shapes(h, W_enc, b_enc, W_dec, b_dec)
    lam = _checks.at_least("lam", lam, 0)
    a = encode(h, W_enc, b_enc)
    error = ((h - (a @ W_dec.T + b_dec)) ** 2).sum(-1)
    return (error + lam * (a * W_dec.norm(dim=0)).sum(-1)).mean()


def feature_activation(h: Tensor, W_enc: Tensor, b_enc: Tensor, W_dec: Tensor) -> Tensor:
    """f_j(h) = a_j(h) ‖W^dec_{:,j}‖ for every row and feature, ``[..., F]``."""
    _shapes(h, W_enc, b_enc, W_dec)
    return encode(h, W_enc, b_enc) * W_dec.norm(dim=0)


def clamp(h: Tensor, W_enc: Tensor, b_enc: Tensor, W_dec: Tensor, j: int, v: float) -> Tensor:
    """h′ = h + (v − a_j(h)) W^dec_{:,j} at every row: feature j's code clamped to ``v``, the SAE's error
    h − s(h) kept, ``[..., d]``."""
    _shapes(h, W_enc, b_enc, W_dec)
    j = _checks.integer("j", j, 0, W_enc.size(0) - 1)
    v = _checks.finite("v", v)
    a_j = (h @ W_enc[j] + b_enc[j]).relu()
    return h + (v - a_j)[..., None] * W_dec[:, j]
