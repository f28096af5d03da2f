"""``_checks.fits`` under an address-space limit (``ulimit -v``: a grader's sandbox, a forked prober with
``RLIMIT_AS``): an allocation past the limit fails with torch's raw "can't allocate memory" even while the
machine has RAM free, so the guard must count the limit too (issue 58's probes ran under 4 GiB)."""

import subprocess
import sys

import pytest

resource = pytest.importorskip("resource")  # Windows has no address-space limit

CODE = """
import resource, psutil
from xai_tf import _checks
half = psutil.virtual_memory().available // 2  # fits in RAM: the old guard let it through
vms = psutil.Process().memory_info().vms
resource.setrlimit(resource.RLIMIT_AS, (vms + half // 4, resource.getrlimit(resource.RLIMIT_AS)[1]))
try:
    _checks.fits("a table", half, "choose less")
    print("allowed")
except ValueError as e:
    print("refused:", e)
"""


def test_the_memory_guard_counts_an_address_space_limit():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("refused: a table needs"), out.stdout
    assert "choose less" in out.stdout
