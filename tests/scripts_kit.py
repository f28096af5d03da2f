"""What the tests of a shipped artifact read from the script that made it: the script as a module, and the
xai_tf modules it imports (which its fingerprint's import graph must cover)."""

import ast
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported as the module ``name``."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def xai_tf_imports(name: str) -> set[str]:
    """The xai_tf modules ``scripts/<name>.py`` imports from (``from xai_tf.a import b``: ``xai_tf.a.b``
    where b is a module, else ``xai_tf.a``)."""
    imported = set()
    for node in ast.walk(ast.parse((SCRIPTS / f"{name}.py").read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("xai_tf"):
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                imported.add(sub if _is_module(sub) else node.module)
    return imported
