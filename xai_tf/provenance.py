"""Provenance: what run made a shipped artifact, written the same way by every script that makes one.

A trained model or a measured table is a draw: another torch build, another CPU, another thread count or
another ``XAI_TF_SEED_OFFSET`` can change its numbers. So each record in ``xai_tf/data`` says which run
made it, and ``record`` is the one place that says it, read from the machine the script runs on (a
hand-written "Intel Xeon, 2 shared cores" is false as soon as the script runs elsewhere).

No module of the package imports this one, so adding or changing it changes no artifact's fingerprint.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch

from xai_tf import _checks, seeds

CPUINFO = Path("/proc/cpuinfo")


def _cpu_name() -> str:
    """The CPU's model name: the first ``model name`` line of /proc/cpuinfo where that file exists (Linux),
    else ``platform.processor()``, else ``platform.machine()`` (e.g. "arm64")."""
    try:
        lines = CPUINFO.read_text(errors="replace").splitlines()
    except OSError:
        lines = []
    for line in lines:
        key, _, value = line.partition(":")
        if key.strip() == "model name" and value.strip():
            return value.strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def record(threads: int, workers: int = 1) -> dict[str, object]:
    """{"torch": torch's version, "machine": "<CPU model>, <os.cpu_count()> cores, <threads> torch
    thread(s)[, <workers> workers]", "seed offset": ``seeds.offset()``} for the run calling it.

    ``threads`` is the torch thread count the script sets (``torch.set_num_threads``), per worker;
    ``workers`` the size of its process pool (mentioned when > 1). Both are integers ≥ 1.
    """
    threads = _checks.integer("threads", threads, 1)
    workers = _checks.integer("workers", workers, 1)
    machine = f"{_cpu_name()}, {os.cpu_count()} cores, {threads} torch thread{'s' if threads > 1 else ''}"
    if workers > 1:
        machine += f", {workers} workers"
    return {"torch": torch.__version__, "machine": machine, "seed offset": seeds.offset()}
