"""Fingerprints of the code behind a shipped artifact (trained weights, a measured sweep).

An artifact is current while the code that produced it is unchanged. "The code" is every module of
``xai_tf`` the producing modules import, directly or through each other (their import graph), so a
helper added to a module the trainer imports counts, and no hand-kept file list can miss one. What
cannot change a result does not count: comments, docstrings and type annotations (the source is
compared as a syntax tree without them), and ``NEUTRAL`` modules, which only check arguments or
fetch pinned files.

    fingerprint(m₁, …) = sha256 over the sorted modules M of the import graph of m₁, … (M ∉ NEUTRAL)
                         of (name of M, syntax tree of M without docstrings and annotations)
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
from functools import cache
from pathlib import Path

PACKAGE = "xai_tf"
# Argument checks return their argument or raise: for valid input they cannot change a result. The
# fetcher hands back a file only when its sha256 equals the pin, so it cannot change a result either.
NEUTRAL = frozenset({"xai_tf._checks", "xai_tf.fetch"})


def fingerprint(*modules: str) -> str:
    """sha256 of the import graph of ``modules`` (dotted names inside ``xai_tf``), see the module."""
    if not modules:
        raise ValueError("modules is empty: name the modules that produce the artifact")
    h = hashlib.sha256()
    for name in sorted(import_graph(*modules) - NEUTRAL):
        h.update(name.encode())
        h.update(_normalised(_path(name)).encode())
    return h.hexdigest()


def script_fingerprint(
    script: Path, modules: tuple[str, ...], settings: dict, inputs: tuple[Path, ...] = ()
) -> str:
    """sha256 of ``fingerprint(*modules)``, the training script's syntax tree (compared as modules are:
    without comments, docstrings and annotations), the bytes of the files it reads (``inputs``, e.g.
    the weights of the model it trains on, in order) and its settings (JSON, sorted keys): an artifact
    the script wrote is current while this is unchanged."""
    if not Path(script).is_file():
        raise ValueError(f"script must be the path of an existing Python file, got {script!r}")
    if not isinstance(inputs, tuple) or not all(Path(f).is_file() for f in inputs):
        raise ValueError(f"inputs must be a tuple of paths of existing files, got {inputs!r}")
    h = hashlib.sha256(fingerprint(*modules).encode())
    h.update(_normalised(Path(script)).encode())
    for f in inputs:
        h.update(Path(f).read_bytes())
    h.update(json.dumps(settings, sort_keys=True).encode())
    return h.hexdigest()


def import_graph(*modules: str) -> set[str]:
    """``modules`` and every ``xai_tf`` module they import, transitively."""
    seen: set[str] = set()
    todo = [_module(m) for m in modules]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(name))
    return seen


def _module(name: object) -> str:
    if not isinstance(name, str) or not (name == PACKAGE or name.startswith(PACKAGE + ".")):
        raise ValueError(f"modules must be dotted names inside {PACKAGE}, got {name!r}")
    if importlib.util.find_spec(name) is None:
        raise ValueError(f"no module named {name!r}")
    return name


@cache
def _path(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None, name
    return Path(spec.origin)


def _imports(name: str) -> set[str]:
    """The ``xai_tf`` modules ``name``'s source imports (a name imported from a package is the
    submodule of that name when there is one, else the package)."""
    tree = ast.parse(_path(name).read_text())
    package = name if _path(name).name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.add(sub if _is_module(sub) else base)
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def _normalised(path: Path) -> str:
    """The module's syntax tree without docstrings and type annotations, as text."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)
