"""Shared measuring helpers for the benchmarks: interleaved median wall time, peak resident memory."""

from __future__ import annotations

from pathlib import Path

import psutil

# the one timing loop (a warm-up, then interleaved runs), shared with the lessons and panels
from xai_tf.timing import interleaved_seconds as median_seconds  # noqa: F401


def rss_mb() -> float:
    return psutil.Process().memory_info().rss / 2**20


def peak_mb() -> float:
    """The process's peak resident memory since the last ``reset_peak`` (Linux: VmHWM)."""
    status = Path("/proc/self/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmHWM")).split()[1]) / 1024


def reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
