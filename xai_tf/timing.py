"""Wall time, measured the one way every lesson, panel and benchmark measures it: one warm-up run
(the first run pays for allocation and caches and can be off by 10×), then the median of ``repeats``
runs, the GPU synchronised after each run so its queued work is counted. With several computations,
the runs interleave (run k of each, then run k + 1 of each), so a slow moment of a shared machine
hits all of them alike.

    seconds(f) = median over r = 1..repeats of (t_end,r − t_start,r)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping

import torch

from xai_tf import _checks


def median_seconds(fn: Callable[[], object], repeats: int = 3, device: torch.device | str = "cpu") -> float:
    """Median wall time of ``fn()`` over ``repeats`` runs after one warm-up run."""
    return interleaved_seconds({"fn": fn}, repeats, device)["fn"]


def interleaved_seconds(
    fns: Mapping[str, Callable[[], object]], repeats: int = 3, device: torch.device | str = "cpu"
) -> dict[str, float]:
    """Median wall time of each of ``fns`` over ``repeats`` interleaved runs, after one warm-up each."""
    return {name: statistics.median(t) for name, t in interleaved_times(fns, repeats, device).items()}


def interleaved_times(
    fns: Mapping[str, Callable[[], object]], repeats: int = 3, device: torch.device | str = "cpu"
) -> dict[str, list[float]]:
    """Every run's wall time of each of ``fns``: one warm-up each, then ``repeats`` interleaved runs."""
    repeats = _checks.integer("repeats", repeats, 1, 1000)
    if not fns or not all(callable(f) for f in fns.values()):
        raise TypeError("fns must map names to functions of no arguments")
    sync = _synchronise(device)
    for fn in fns.values():
        fn()
        sync()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            sync()
            times[name].append(time.perf_counter() - start)
    return times


def _synchronise(device: torch.device | str) -> Callable[[], None]:
    if torch.device(device).type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None
