"""Shared measuring helpers for the benchmarks: interleaved median wall time, peak resident memory."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import psutil


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def peak_mb() -> float:
    """The process's peak resident memory since the last ``reset_peak`` (Linux: VmHWM)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS


def median_seconds(fns: dict, runs: int) -> dict[str, float]:
    """Median wall time of each function, the functions interleaved run by run so that a slow
    moment of the machine hits both alike."""
    for fn in fns.values():  # warm-up
        fn(), fn()
    times = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}
