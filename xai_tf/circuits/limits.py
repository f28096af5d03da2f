"""What lesson 15's helpers refuse before they start: ids that are not one model's token ids, and
work too large for a student's machine (lesson 15; the size rule of lessons 08–14).

A forward pass of ``batch`` sequences of T tokens through a model of L layers, H heads of size d_h,
width d and vocabulary D is estimated as

    FLOP  ≈ batch · T · 2 (L W + d D) + batch · L · 4 T² H d_h         (matrix products, attention)
    bytes ≈ 4 · batch · (P D + 8 T d) + 8 · batch · H · T²             (logits, one layer's buffers)
            + 4 · L · batch · T · (12 d + 2 H T)                         (the activation cache, if kept)

where W is one block's weights, read from the model's sizes (``Sizes.block_weights``: 12 d² for
GPT-2; with grouped-query attention and SwiGLU, d (2 H + 2 H_kv) d_h + 3 d d_mlp for a Llama-style
block), P is the number of positions unembedded (T, or 1 where only the last position's logits are read),
and a helper refuses, before allocating, a call above ``MAX_BYTES`` (1 GiB: Binder's kernel has 2 GB)
or ``MAX_FLOP`` (about two minutes on 2 CPU cores: activation patching of a 128-token prompt on the
bundled model, 6 layers × 128 patched runs, 1.2e12 FLOP, takes 41 s and is allowed, 256 tokens
(5.2e12) are not; one indirect-object pair on GPT-2 small is about 6e11).
"""

from __future__ import annotations

import numbers

import torch
from torch import Tensor

from xai_tf.models.loaded import LoadedModel

MAX_BYTES = 2**30
MAX_FLOP = 4e12


def forward_cost(
    lm: LoadedModel, batch: int, T: int, cache: bool = False, unembedded: int | None = None
) -> tuple[float, float]:
    """``(bytes, FLOP)`` of one forward pass of ``batch`` × ``T`` tokens whose logits are read at
    ``unembedded`` positions (P; all T by default), see the module docstring."""
    s = lm.sizes
    L, H, d, D = s.n_layer, s.n_head, s.d_model, s.vocab_size
    P = T if unembedded is None else unembedded
    flop = batch * (T * 2 * L * s.block_weights + P * 2 * d * D) + batch * L * 4 * T * T * H * s.d_head
    size = 4 * batch * (P * D + 8 * T * d) + 8 * batch * H * T * T
    if cache:
        size += 4 * L * batch * T * (12 * d + 2 * H * T)
    return float(size), float(flop)


def within(what: str, size: float, flop: float, advice: str) -> None:
    """Refuse work over ``MAX_BYTES`` or ``MAX_FLOP`` with the estimate, the limit and ``advice``."""
    if size > MAX_BYTES:
        raise ValueError(
            f"{what} needs about {size / 2**30:.1f} GiB, over the limit of {MAX_BYTES / 2**30:.0f} GiB: "
            f"{advice}"
        )
    if flop > MAX_FLOP:
        raise ValueError(
            f"{what} needs about {flop:.1e} floating-point operations, over the limit of {MAX_FLOP:.0e} "
            f"(about two minutes on 2 CPU cores): {advice}"
        )


def check_forward(
    what: str,
    lm: LoadedModel,
    batch: int,
    T: int,
    advice: str,
    cache: bool = False,
    runs: int = 1,
    unembedded: int | None = None,
) -> None:
    """``within`` for ``runs`` forward passes of ``batch`` × ``T`` tokens (memory: one at a time)."""
    size, flop = forward_cost(lm, batch, T, cache, unembedded)
    within(
        f"{what} ({runs} × {batch} × {T} tokens)" if runs > 1 else f"{what} ({batch} × {T} tokens)",
        size,
        runs * flop,
        advice,
    )


def _rows(name: str, ids: object) -> Tensor:
    """A list (or nested list) of ints as a long tensor; text and ragged lists refused by name."""
    if isinstance(ids, str):
        raise TypeError(f"{name} must be token ids, got a str: encode the text first (lm.encode)")
    if not isinstance(ids, (list, tuple)):
        raise TypeError(f"{name} must be token ids (a list or an integer tensor), got {type(ids).__name__}")
    rows = list(ids) if ids and isinstance(ids[0], (list, tuple)) else [list(ids)]
    if any(not isinstance(r, (list, tuple)) or len(r) != len(rows[0]) for r in rows):
        raise ValueError(f"{name} must be [T] or [batch, T] with rows of one length (not ragged)")
    flat = [i for r in rows for i in r]
    if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in flat):
        odd = next(i for i in flat if not isinstance(i, numbers.Integral) or isinstance(i, bool))
        raise TypeError(f"{name} must hold integer token ids, got {odd!r}")
    return torch.tensor(rows, dtype=torch.long).reshape(len(rows), -1)


def token_ids(lm: LoadedModel, name: str, ids: object) -> Tensor:
    """``ids`` (``[T]`` or ``[batch, T]``, a list or a tensor of any integer dtype) as a ``[batch, T]`` long
    tensor on the model's device, with batch ≥ 1, T in 1..n_ctx and every id in 0..D−1."""
    if isinstance(ids, Tensor):
        if ids.is_floating_point() or ids.is_complex() or ids.dtype == torch.bool:
            raise TypeError(f"{name} must hold integer token ids, got a {ids.dtype} tensor")
        ids = ids.unsqueeze(0) if ids.dim() == 1 else ids
    else:
        ids = _rows(name, ids)
    if ids.dim() != 2:
        raise ValueError(f"{name} must be [T] or [batch, T], got shape {tuple(ids.shape)}")
    if ids.size(0) == 0 or not 1 <= ids.size(1) <= lm.n_ctx:
        raise ValueError(
            f"{name} must hold at least one prompt of 1..{lm.n_ctx} tokens (the context), got shape "
            f"{tuple(ids.shape)}"
        )
    low, high = int(ids.min()), int(ids.max())
    if low < 0 or high >= lm.vocab_size:
        raise ValueError(
            f"{name} must be token ids in 0..{lm.vocab_size - 1} (the model's vocabulary), got "
            f"{low if low < 0 else high}"
        )
    return ids.long().to(lm.device)
