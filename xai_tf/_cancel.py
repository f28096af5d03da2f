"""Abandoning a computation whose result nobody will read: a slow panel's render that a newer change of
a control has made stale.

A slow panel's worker thread runs each render inside ``abandon_when(stale)``. Long computations call
``checkpoint()`` between their chunks (IG's batches of path points, the coalition batches of the
perturbation methods, lesson 20's methods one after another, each decoding step of lesson 17's beam
search and each generated token of lesson 10's steering: their panels hand ``checkpoint`` to the search
or the generation as ``on_step``); when ``stale()`` is true there, it raises ``Abandoned``, the panel
drops the render and computes the newest setting instead. Outside such a block (a lesson cell, a test,
a script, the panel's own thread for a change made from Python) ``checkpoint`` does nothing, so results
never depend on it. The check is per thread: a render in the worker does not see another thread's
block.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_state = threading.local()


class Abandoned(BaseException):
    """Raised by ``checkpoint`` in a stale computation. A ``BaseException``, as ``asyncio``'s
    ``CancelledError`` is, so that an ``except Exception`` in the computation does not swallow it."""


def checkpoint() -> None:
    """Raise ``Abandoned`` if this thread runs inside ``abandon_when(stale)`` and ``stale()`` is true."""
    stale = getattr(_state, "stale", None)
    if stale is not None and stale():
        raise Abandoned


@contextmanager
def abandon_when(stale: Callable[[], bool]) -> Iterator[None]:
    """Within the block, ``checkpoint()`` in this thread raises ``Abandoned`` once ``stale()`` is true."""
    previous = getattr(_state, "stale", None)
    _state.stale = stale
    try:
        yield
    finally:
        _state.stale = previous
