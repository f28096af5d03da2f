"""Every lesson executes headless, top to bottom, on the offline model; solutions pass their checkers."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

LESSONS = sorted((Path(__file__).parents[1] / "lessons").glob("*.ipynb"))


def test_lessons_exist():
    assert [p.name for p in LESSONS][:1] == ["00_start_here.ipynb"]


@pytest.mark.notebooks
@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_executes(path, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "✔" in text, f"a solution cell in {path.name} does not pass its checker: {text}"
