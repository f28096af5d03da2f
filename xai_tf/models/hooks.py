"""Hook points and the activation cache, shared by every architecture (lessons 04 and on).

An architecture names its hook points (``HOOK_POINTS`` of ``gpt2.py``, ``bert.py``) and passes each
activation through a ``Tap`` during its forward pass: ``tap(name, layer, x)`` returns ``x``, or what a
replacement hook made of it, and records it in the cache when one is asked for. So

    logits, cache = model.run_with_cache(ids)        # cache["attn", 3]: layer 3's attention
    model(ids, hooks={("mlp_post", 2): f})           # f(a) is used wherever a would be

work the same on every model, and later lessons (sparse autoencoders, CRATE, faithfulness) splice
their own functions into the stream through ``hooks``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import torch
from torch import Tensor

Hook = Callable[[Tensor], Tensor]
HookKey = tuple[str, int]
Hooks = Mapping[HookKey, Hook]


class ActivationCache(dict):
    """Activations keyed by ``(hook name, layer)``, e.g. ``cache["attn", 0]``."""

    def __missing__(self, key: HookKey) -> Tensor:
        names = sorted({name for name, _ in self})
        layers = sorted({layer for _, layer in self})
        raise KeyError(f"no cached activation {key!r}; names are {names}, layers {layers[0]}..{layers[-1]}")

    def stack(self, name: str) -> Tensor:
        """All layers of one activation stacked: ``[layers, ...]``."""
        layers = sorted(layer for n, layer in self if n == name)
        if not layers:
            self[name, 0]  # raises the KeyError that lists what exists
        return torch.stack([self[name, layer] for layer in layers])


class Tap:
    """Applies replacement hooks and records activations during one forward pass.

    ``points`` are the architecture's hook names and ``n_layer`` its depth: a hook at a name or a
    layer that does not exist is refused up front, never silently ignored.
    """

    def __init__(self, points: Mapping[str, str], n_layer: int, cache: ActivationCache | None, hooks: Hooks):
        for name, layer in hooks:
            if name not in points:
                raise ValueError(f"unknown hook point {name!r}; choose from {list(points)}")
            if not (isinstance(layer, int) and 0 <= layer < n_layer):
                raise ValueError(f"hook layer must lie in 0..{n_layer - 1}, got {layer!r} for {name!r}")
        self.cache = cache
        self.hooks = hooks

    def wants(self, name: str, layer: int) -> bool:
        """Whether ``(name, layer)`` is recorded or replaced (a model may then take a slower path)."""
        return self.cache is not None or (name, layer) in self.hooks

    def __call__(self, name: str, layer: int, x: Tensor) -> Tensor:
        hook = self.hooks.get((name, layer))
        if hook is not None:
            replaced = hook(x)
            if not isinstance(replaced, Tensor) or replaced.shape != x.shape:
                got = tuple(replaced.shape) if isinstance(replaced, Tensor) else type(replaced).__name__
                raise ValueError(f"hook at {(name, layer)} returned {got}, expected shape {tuple(x.shape)}")
            x = replaced
        if self.cache is not None:
            self.cache[name, layer] = x
        return x
