"""The numerics matrix: this one CPU made to round as other CPUs do.

The BLAS libraries pick their code path by CPU, so an argmax can flip, an exact zero appear or a solver stop
a step earlier on another machine. Each knob below reproduces part of that here (issue 53, measured on an
AMD EPYC with AVX-512, torch 2.13.0+cpu, one thread):

- ``MKL_CBWR`` picks the path of torch's MKL: ``COMPATIBLE`` (SSE2) moved lesson 18's re-scored
  ``crf_normalized`` AER from 0.538641 to 0.536891, ``AVX512`` to 0.538058 (the default here is MKL's
  AVX2 path on this AMD CPU; the Xeon that recorded it had 0.53631);
- ``OPENBLAS_CORETYPE`` picks numpy's and scipy's OpenBLAS kernels: ``SkylakeX`` made scipy's SLSQP stop
  1.3e-9 off its constraint on one problem, ``Haswell`` let it converge;
- ``ATEN_CPU_CAPABILITY`` picks torch's own vectorised kernels (``default`` is scalar code);
- the thread count changes the order of reductions.

``make test-numerics`` runs every test marked ``numerics`` (every claim test is marked too, by
``conftest.py``) once per environment of ``MATRIX`` (``scripts/numerics_matrix.py``), claim tests at the
default seeds only (``make test`` runs them at two offsets on the machine as it is). A test that
re-scores a shipped artifact asserts through ``rescored``, which logs how far each metric moved when
``XAI_TF_NUMERICS_LOG`` names a file, so the runner can print the spread each tolerance must cover.
"""

from __future__ import annotations

import json
import os
import platform

import torch

#: name → environment variables: four ways to round as another CPU would. The machine as it is, the
#: fifth, is what ``make test`` runs.
MATRIX: dict[str, dict[str, str]] = {
    "mkl-compatible": {"MKL_CBWR": "COMPATIBLE"},
    "avx512-skylakex": {"MKL_CBWR": "AVX512", "OPENBLAS_CORETYPE": "SkylakeX"},
    "scalar-haswell": {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Haswell"},
    "two-threads": {"OMP_NUM_THREADS": "2"},
}
DEFAULT: dict[str, str] = {}


def cpu_line() -> str:
    """The CPU and BLAS environment a measurement was made under, for records and docstrings."""
    knobs = " ".join(
        f"{k}={os.environ[k]}"
        for k in ("MKL_CBWR", "OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY")
        if k in os.environ
    )
    return (
        f"{_cpu_model()}, torch {torch.__version__} ({torch.backends.cpu.get_cpu_capability()}), "
        f"{torch.get_num_threads()} thread(s){', ' + knobs if knobs else ''}"
    )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def rescored(artifact: str, metric: str, got: float, want: float, tol: float) -> None:
    """Assert that a shipped artifact re-scores its recorded ``metric`` to ``tol``, and log the
    deviation |got − want| to ``XAI_TF_NUMERICS_LOG`` (one JSON line) when that is set.

    ``tol`` is a measurement, never a guess: the worst deviation over the matrix (and the CPUs met so
    far) plus a quarter of that spread (DESIGN.md's margin rule), given where the test calls this."""
    log = os.environ.get("XAI_TF_NUMERICS_LOG")
    if log:
        with open(log, "a") as f:
            f.write(
                json.dumps({"artifact": artifact, "metric": metric, "deviation": abs(got - want), "tol": tol})
                + "\n"
            )
    assert abs(got - want) <= tol, (
        f"{artifact} {metric}: re-scored {got!r}, recorded {want!r}, tolerance {tol}"
    )
