"""Residual-stream activations for the sparse autoencoders of lesson 10 (monosemanticity).

The text is cut into windows of T tokens; the model runs on a batch of windows only up to the hook
point (``("resid_post", l)`` by default: the stream leaving block l), where a hook stops the forward
pass, so later blocks cost nothing. Activations are kept in float16 and scaled as SAELens and
Anthropic ("Circuits Updates, April 2024") do: by one constant c with E‖c h‖ = √d over the data.
``ActivationStore`` streams training batches in a seeded order: windows shuffled, a buffer of
windows run through the model at a time, tokens shuffled within the buffer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator

import torch
from torch import Tensor
from tqdm.auto import tqdm

from xai_tf import _checks, seeds
from xai_tf.models.loaded import LoadedModel, as_model

#: Hook points whose activation is a [batch, T, d] vector per token (the ones an SAE reads).
STREAM_HOOKS = ("resid_pre", "resid_mid", "resid_post", "attn_out", "mlp_out")


class _Reached(Exception):
    """Raised by the hook that has what we came for: the rest of the forward pass is skipped."""

    def __init__(self, x: Tensor):
        self.x = x


def check_point(lm: LoadedModel, layer: object, hook: object) -> None:
    """``hook`` one of ``STREAM_HOOKS`` and ``layer`` in 0..n_layer−1."""
    if hook not in STREAM_HOOKS:
        raise ValueError(f"hook must be one of {list(STREAM_HOOKS)}, got {hook!r}")
    _checks.integer("layer", layer, 0, lm.n_layer - 1)


def windows(lm: LoadedModel, texts: Iterable[str], T: int) -> Tensor:
    """Every text tokenised and cut into non-overlapping windows of ``T`` tokens: ``[n, T]`` (each
    text's last partial window is dropped)."""
    lm = as_model(lm)
    _checks.integer("T", T, 2, lm.n_ctx)
    if isinstance(texts, str):
        raise TypeError(f"texts must be a list of strings, got one str: wrap it as [{texts[:20]!r}]")
    rows = []
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be a list of strings, got a {type(text).__name__} among them")
        ids = torch.tensor(lm.tokenizer.encode(text), dtype=torch.long)
        rows.append(ids[: len(ids) // T * T].view(-1, T))
    if not rows or sum(len(r) for r in rows) == 0:
        raise ValueError(f"texts hold no window of T = {T} tokens")
    return torch.cat(rows)


@torch.no_grad()
def collect(
    lm: LoadedModel,
    ids: Tensor,
    layer: int,
    hook: str = "resid_post",
    batch: int = 16,
    progress: bool = False,
) -> Tensor:
    """The activation at ``(hook, layer)`` of every token of ``ids [n, T]``: float16 ``[n, T, d]``,
    refused before allocating when it would not fit in memory."""
    lm = as_model(lm)
    check_point(lm, layer, hook)
    ids = _checks.tensor("ids", ids)
    if ids.dim() != 2 or ids.numel() == 0:
        raise ValueError(f"ids must be windows [n, T], got shape {tuple(ids.shape)}")
    _checks.fits(
        f"collect({len(ids)} windows of {ids.size(1)} tokens)",
        2 * ids.numel() * lm.d_model,
        "collect fewer windows at a time",
    )
    ids = _checks.token_ids("ids", ids, lm.vocab_size)
    _checks.integer("batch", batch, 1)

    def stop(x: Tensor) -> Tensor:
        raise _Reached(x)

    out = torch.empty(*ids.shape, lm.d_model, dtype=torch.float16, device="cpu")  # kept on the host
    for i in tqdm(range(0, len(ids), batch), desc="activations", disable=not progress, leave=False):
        try:
            lm(ids[i : i + batch].to(lm.device), hooks={(hook, layer): stop})
        except _Reached as reached:
            out[i : i + batch] = reached.x.to("cpu", torch.float16)
    return out


def norm_scale(H: Tensor) -> float:
    """c = √d / mean_i ‖h⁽ⁱ⁾‖, so that E‖c h‖ = √d (SAELens's ``ActivationScaler``); refused for
    all-zero H, where it divides by zero."""
    H = _checks.real_tensor("H", H)
    if H.dim() == 0 or H.numel() == 0:
        raise ValueError(f"H must hold activations [..., d], got shape {tuple(H.shape)}")
    H = H.reshape(-1, H.size(-1)).float()
    mean_norm = float(H.norm(dim=-1).mean())
    if mean_norm == 0:
        raise ValueError("H is all zero: the scale c = √d / mean ‖h‖ is undefined")
    return math.sqrt(H.size(-1)) / mean_norm


class ActivationStore:
    """Endless training batches ``[batch_tokens, d]`` (float32, already times ``scale``) from the
    windows ``ids``, in an order fixed by ``seed``: each epoch permutes the windows, runs
    ``buffer_windows`` of them through the model at a time, and deals their tokens out shuffled."""

    def __init__(
        self,
        lm: LoadedModel,
        ids: Tensor,
        layer: int,
        scale: float,
        batch_tokens: int = 4096,
        seed: int = 0,
        hook: str = "resid_post",
        buffer_windows: int = 64,
        reuse: int = 1,
    ):
        self.lm, self.ids, self.layer, self.hook = as_model(lm), _checks.tensor("ids", ids), layer, hook
        check_point(self.lm, layer, hook)
        if ids.dim() != 2 or len(ids) == 0:
            raise ValueError(f"ids must be windows [n, T], got shape {tuple(ids.shape)}")
        self.scale = _checks.positive("scale", scale)
        self.batch_tokens = _checks.integer("batch_tokens", batch_tokens, 1)
        self.buffer_windows = _checks.integer("buffer_windows", buffer_windows, 1)
        if buffer_windows * ids.size(1) < batch_tokens:
            raise ValueError(f"a buffer of {buffer_windows} windows holds fewer than {batch_tokens} tokens")
        self.reuse = _checks.integer("reuse", reuse, 1)
        self.seed = _checks.integer("seed", seed, 0)

    def __iter__(self) -> Iterator[Tensor]:
        g = seeds.generator(self.seed)
        while True:
            order = torch.randperm(len(self.ids), generator=g)
            for start in range(0, len(order), self.buffer_windows):
                chunk = self.ids[order[start : start + self.buffer_windows]]
                H = collect(self.lm, chunk, self.layer, self.hook).view(-1, self.lm.d_model)
                for _ in range(self.reuse):
                    tokens = torch.randperm(len(H), generator=g)
                    for i in range(0, len(H) - self.batch_tokens + 1, self.batch_tokens):
                        yield H[tokens[i : i + self.batch_tokens]].float() * self.scale


def shuffled_batches(H: Tensor, batch: int, seed: int = 0) -> Iterator[Tensor]:
    """Endless minibatches of ``batch`` rows of ``H [n, d]`` (float32), reshuffled each epoch by ``seed``."""
    H = _checks.real_tensor("H", H)
    if H.dim() != 2 or len(H) == 0:
        raise ValueError(f"H must be rows [n ≥ 1, d], got shape {tuple(H.shape)}")
    batch = _checks.integer("batch", batch, 1, len(H))
    g = seeds.generator(seed)

    def deal() -> Iterator[Tensor]:
        while True:
            order = torch.randperm(len(H), generator=g)
            for i in range(0, len(H) - batch + 1, batch):
                yield H[order[i : i + batch]].float()

    return deal()
