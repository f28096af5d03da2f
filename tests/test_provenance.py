"""``xai_tf.provenance.record`` against what the test reads itself: torch's version, os.cpu_count(), the
seed offset it sets, and the model name of a fake /proc/cpuinfo."""

import os
import platform

import pytest
import torch

from xai_tf import provenance, seeds

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Test CPU 9000 @ 1.00GHz
flags\t\t: fpu

processor\t: 1
model name\t: Test CPU 9000 @ 1.00GHz
"""


def test_record_says_torch_machine_and_seed_offset(tmp_path, monkeypatch):
    fake = tmp_path / "cpuinfo"
    fake.write_text(CPUINFO)
    monkeypatch.setattr(provenance, "CPUINFO", fake)
    monkeypatch.setenv(seeds.VARIABLE, "7")
    cores = os.cpu_count()
    assert provenance.record(threads=1) == {
        "torch": torch.__version__,
        "machine": f"Test CPU 9000 @ 1.00GHz, {cores} cores, 1 torch thread",
        "seed offset": 7,
    }
    assert provenance.record(threads=4, workers=16)["machine"] == (
        f"Test CPU 9000 @ 1.00GHz, {cores} cores, 4 torch threads, 16 workers"
    )
    assert provenance.record(threads=2, workers=1)["machine"].endswith("cores, 2 torch threads")


def test_without_cpuinfo_the_machine_is_named_by_platform(tmp_path, monkeypatch):
    monkeypatch.setattr(provenance, "CPUINFO", tmp_path / "absent")
    monkeypatch.delenv(seeds.VARIABLE, raising=False)
    name = platform.processor() or platform.machine() or "unknown CPU"
    run = provenance.record(1)
    assert run["machine"] == f"{name}, {os.cpu_count()} cores, 1 torch thread"
    assert run["seed offset"] == 0


@pytest.mark.parametrize("bad", ["vendor_id\t: X\n", "model name\t:   \n"])
def test_a_cpuinfo_without_a_model_name_falls_back(tmp_path, monkeypatch, bad):
    fake = tmp_path / "cpuinfo"
    fake.write_text(bad)
    monkeypatch.setattr(provenance, "CPUINFO", fake)
    name = platform.processor() or platform.machine() or "unknown CPU"
    assert provenance.record(1)["machine"].startswith(f"{name}, ")
