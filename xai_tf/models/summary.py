"""An architecture view of any loaded model (lesson 04; RevLLM's "architecture" tab): the module tree
with each module's name (``h.0.attn.c_attn`` in GPT-2), its class, the shapes of the parameters it holds
itself and the number of parameters in it and below it,

    count(m) = Σ_{p ∈ params(m) ∪ params(children of m, recursively)} numel(p)     (shared tensors once)

so the root's count is the model's parameter count (a tied unembedding counted once, as ``torch``'s
``parameters()`` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from torch import nn

from xai_tf import _checks
from xai_tf.models.loaded import LoadedModel, as_model


@dataclass(frozen=True)
class ModuleRow:
    """One module of the tree: ``name`` ("" for the root), ``depth`` (0 for the root), ``kind`` (its
    class), ``shapes`` (name → shape of the parameters it holds itself) and ``count``."""

    name: str
    depth: int
    kind: str
    shapes: dict[str, tuple[int, ...]]
    count: int


def module_tree(model: LoadedModel | nn.Module, max_depth: int = 3) -> list[ModuleRow]:
    """The rows of the module docstring for every module of ``model`` down to ``max_depth`` levels
    below the root, in the order ``named_modules`` visits them (parents before children)."""
    module = cast(nn.Module, as_model(model).model)  # every Architecture is an nn.Module
    max_depth = _checks.integer("max_depth", max_depth, 0)
    rows = []
    for name, m in module.named_modules():
        depth = 0 if name == "" else name.count(".") + 1
        if depth > max_depth:
            continue
        own = {k: tuple(p.shape) for k, p in m.named_parameters(recurse=False)}
        count = sum(p.numel() for p in m.parameters())  # parameters() yields a shared tensor once
        rows.append(ModuleRow(name, depth, type(m).__name__, own, count))
    return rows


def format_tree(rows: list[ModuleRow]) -> str:
    """The rows as an indented text table: name, class, own parameter shapes, count."""
    if not isinstance(rows, list) or not all(isinstance(r, ModuleRow) for r in rows):
        raise TypeError("rows must be a list of ModuleRow, as module_tree returns")
    lines = []
    for r in rows:
        label = "  " * r.depth + (r.name.rsplit(".", 1)[-1] if r.name else "(model)")
        shapes = ", ".join(f"{k} {list(v)}" for k, v in r.shapes.items())
        lines.append(f"{label:28s} {r.kind:20s} {r.count:>13,}  {shapes}")
    return "\n".join(lines)
