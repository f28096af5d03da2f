"""The lessons whose results are random variables (08 on) run headless, top to bottom, under another draw
of every seed (``XAI_TF_SEED_OFFSET``), as they would on another CPU; their solutions pass their
checkers. Every lesson runs once at the default seeds in ``test_browser.py``; where Chromium is missing
(outside CI), the others run here instead, so that every lesson still executes."""

from pathlib import Path

import nbformat
import pytest
from lesson_runs import CHROMIUM, LESSONS, RERUN_OFFSET, SEEDED, check_executed
from nbclient import NotebookClient

RUNS = [(p, RERUN_OFFSET) for p in SEEDED]
if not Path(CHROMIUM).exists():
    RUNS += [(p, 0) for p in LESSONS if p not in SEEDED]


def test_lessons_exist():
    assert [p.name for p in LESSONS][:1] == ["00_start_here.ipynb"]
    assert [p.stem[:2] for p in SEEDED][:1] == ["08"]


@pytest.mark.notebooks
@pytest.mark.parametrize(("path", "offset"), RUNS, ids=[f"{p.stem}-offset{o}" for p, o in RUNS])
def test_lesson_executes(path, offset, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("XAI_TF_SEED_OFFSET", str(offset))
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    check_executed(nb, path.name)
