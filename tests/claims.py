"""The seeds every claim test runs over (see tests/test_claims_*.py): each claim about a trained or
sampled result is re-run for every seed here, through the helpers' ``seed=`` arguments, so
``XAI_TF_SEED_OFFSET`` shifts these draws too.

Each module's docstring names the CPU its draws were measured on. Unless it says otherwise they were
measured under the default BLAS environment (no ``MKL_CBWR``, ``OPENBLAS_CORETYPE`` or
``ATEN_CPU_CAPABILITY`` set: each library's own choice of code path for that CPU), torch 2.13.0+cpu, one
thread; ``numerics.cpu_line()`` prints that line for a new measurement, and ``make test-numerics``
re-runs every claim under the other paths (``tests/numerics.py``)."""

SEEDS = range(5)
