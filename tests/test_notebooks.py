"""The lessons whose results are random variables (08 on) run headless, top to bottom, under another draw
of every seed (``XAI_TF_SEED_OFFSET``), as they would on another CPU; their solutions pass their
checkers. Every lesson runs once at the default seeds in ``test_browser.py``; where Chromium is missing
(outside CI), the others run here instead, so that every lesson still executes.

Every headless run loads the language model onto an emulated GPU (``gpu_emulation``), as Colab's
``device="auto"`` does, so a cell that draws a model's output without ``.cpu()`` fails here; the
lessons before 08 that load the model run here once more for that reason."""

from pathlib import Path

import nbformat
import pytest
from lesson_runs import CHROMIUM, LESSONS, RERUN_OFFSET, SEEDED, check_executed
from nbclient import NotebookClient

RUNS = [(p, RERUN_OFFSET) for p in SEEDED]
if Path(CHROMIUM).exists():
    RUNS += [(p, 0) for p in LESSONS if p not in SEEDED and "load_model(" in p.read_text()]
else:
    RUNS += [(p, 0) for p in LESSONS if p not in SEEDED]
TESTS = str(Path(__file__).parent)
EMULATE_GPU = f"import sys\nsys.path.insert(0, {TESTS!r})\nimport gpu_emulation\ngpu_emulation.install()"


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
    nb.cells.insert(0, nbformat.v4.new_code_cell(EMULATE_GPU))
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    del nb.cells[0]
    check_executed(nb, path.name)
