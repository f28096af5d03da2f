"""Show the code a lesson teaches, from the package itself (every lesson that teaches a module):
``show_source(xai_tf.models.gpt2)`` prints the module a student is reading about, highlighted, so the
notebook and the library can never disagree.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable

from IPython.display import Code

#: The most lines shown at once: a whole module of this package fits (each stays near 300 lines).
MAX_LINES = 400


def show_source(obj: types.ModuleType | type | Callable[..., object], lines: slice | None = None) -> Code:
    """The source of a module, class or function of ``xai_tf`` as highlighted Python (a notebook
    shows the returned ``Code``; ``str()`` of it is the text), the ``lines`` slice of it if given."""
    if not isinstance(obj, (types.ModuleType, type)) and not callable(obj):
        raise TypeError(f"obj must be a module, class or function, got {type(obj).__name__}")
    module = obj if isinstance(obj, types.ModuleType) else inspect.getmodule(obj)
    if module is None or not module.__name__.split(".")[0] == "xai_tf":
        raise ValueError(f"obj must come from xai_tf, got {getattr(obj, '__name__', obj)!r}")
    if lines is not None and not isinstance(lines, slice):
        raise TypeError(f"lines must be a slice of line numbers (e.g. slice(0, 40)), got {lines!r}")
    text = inspect.getsource(obj).splitlines()[lines or slice(None)]
    if not text or len(text) > MAX_LINES:
        raise ValueError(f"lines must select 1..{MAX_LINES} lines, got {len(text)}")
    return Code("\n".join(text), language="python")
