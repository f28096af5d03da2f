"""Run the rounding-sensitive tests once per environment of the numerics matrix (``tests/numerics.py``).

    python scripts/numerics_matrix.py [--only NAME ...] [-- PYTEST ARGS]

Each environment (``--only default`` adds the machine as it is) runs ``pytest -m numerics`` on two
workers, one torch thread each (unless the environment sets the thread count), claim tests at offset 0
only, with ``XAI_TF_NUMERICS_LOG`` set, then this prints one line per environment (passed,
failed, minutes) and, per re-scored metric, the worst deviation from its record over the environments next
to the tolerance the test allows. Exit status 1 if any environment failed. ``make test-numerics`` runs it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from numerics import DEFAULT, MATRIX, cpu_line  # noqa: E402

ENVIRONMENTS = {**MATRIX, "default": DEFAULT}


def run(name: str, extra: list[str], log: Path) -> tuple[bool, str, float]:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "XAI_TF_CLAIM_OFFSETS": "0", **ENVIRONMENTS[name]}
    env["XAI_TF_NUMERICS_LOG"] = str(log)
    start = time.monotonic()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-m",
        "numerics",
        "-n",
        "2",
        "-q",
        "-p",
        "no:cacheprovider",
        *extra,
    ]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = [line for line in out.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    failures = [line for line in out.stdout.splitlines() if line.startswith("FAILED")]
    summary = (tail[-1] if tail else out.stdout[-500:] + out.stderr[-500:]).strip("= ")
    return out.returncode == 0, "\n".join([summary, *failures]), (time.monotonic() - start) / 60


def spread(logs: dict[str, Path]) -> list[str]:
    worst: dict[tuple[str, str], tuple[float, float, str]] = {}
    for name, log in logs.items():
        if not log.exists():
            continue
        for line in log.read_text().splitlines():
            r = json.loads(line)
            key = (r["artifact"], r["metric"])
            if key not in worst or r["deviation"] > worst[key][0]:
                worst[key] = (r["deviation"], r["tol"], name)
    return [
        f"  {a} {m}: worst |re-scored − recorded| {d:.3g} ({n}), tolerance {t:.3g}"
        for (a, m), (d, t, n) in sorted(worst.items())
    ]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", nargs="+", choices=list(ENVIRONMENTS), default=list(MATRIX))
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    print(f"numerics matrix on {cpu_line()}", flush=True)
    ok, logs = True, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            logs[name] = Path(tmp) / f"{name}.jsonl"
            passed, summary, minutes = run(name, extra, logs[name])
            ok &= passed
            knobs = " ".join(f"{k}={v}" for k, v in ENVIRONMENTS[name].items()) or "(as the machine is)"
            print(f"{name:16} {knobs:45} {minutes:5.1f} min  {summary}", flush=True)
        print("re-scored artifacts:", *spread(logs), sep="\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
