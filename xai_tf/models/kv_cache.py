"""The key/value cache of incremental decoding (lesson 05): what a causal model keeps of the tokens read.

Feeding a text token by token, each new token's query attends to the keys and values of every
earlier token. They do not change once computed (a token never sees the future), so they are kept
here instead of recomputed: a decoding step costs O(T) instead of a whole forward pass's O(T²).
"""

from __future__ import annotations

import torch
from torch import Tensor


class KVCache:
    """Keys and values of the tokens already read, per layer: K_l, V_l ``[batch, heads, T_past, d_h]``."""

    def __init__(self) -> None:
        self.keys: dict[int, Tensor] = {}
        self.values: dict[int, Tensor] = {}

    def __len__(self) -> int:
        """T_past, the number of positions stored."""
        return self.keys[0].size(2) if self.keys else 0

    def extend(self, layer: int, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Append the new positions' k, v to layer ``layer``; return all keys and values so far."""
        if layer in self.keys:
            k, v = torch.cat([self.keys[layer], k], dim=2), torch.cat([self.values[layer], v], dim=2)
        self.keys[layer], self.values[layer] = k, v
        return k, v

    def select(self, rows: Tensor) -> None:
        """Keep (and reorder, or repeat) batch rows ``rows`` — beam search follows its beams so."""
        for layer in self.keys:
            self.keys[layer] = self.keys[layer].index_select(0, rows)
            self.values[layer] = self.values[layer].index_select(0, rows)
