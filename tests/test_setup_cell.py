"""scripts/setup_cell.py: every lesson opens (after its title) with a cell that installs xai_tf where it is
missing (Colab) and does nothing elsewhere; the script inserts it once and keeps it current."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import setup_cell  # noqa: E402
import slides  # noqa: E402

LESSONS = sorted((ROOT / "lessons").glob("*.ipynb"))


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, ROOT / "scripts" / "setup_cell.py", *args], capture_output=True, text=True
    )


@pytest.fixture
def copied(tmp_path) -> Path:
    """The lessons as they were before the script ran: copies without the setup cell."""
    out = tmp_path / "lessons"
    shutil.copytree(ROOT / "lessons", out)
    for path in out.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        nb.cells = [c for c in nb.cells if c.get("id") != setup_cell.CELL_ID]
        nbformat.write(nb, path)
    return out


def cells_without_setup(path: Path) -> list[tuple[str, str]]:
    nb = nbformat.read(path, as_version=4)
    return [(c.cell_type, c.source) for c in nb.cells if c.get("id") != setup_cell.CELL_ID]


def test_the_script_gives_each_lesson_one_setup_cell_after_its_title(copied):
    before = {p.name: cells_without_setup(p) for p in copied.glob("*.ipynb")}
    assert run_script("--dir", str(copied)).returncode == 0
    for path in sorted(copied.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        ids = [i for i, c in enumerate(nb.cells) if c.get("id") == setup_cell.CELL_ID]
        assert ids == [1] and nb.cells[0].source.startswith("# "), path.name  # right after the title
        cell = nb.cells[1]
        assert cell.cell_type == "code" and cell.source == setup_cell.SOURCE and cell.outputs == []
        assert cell.metadata.slideshow.slide_type == slides.slide_type(cell, 1)  # slides.py agrees
        assert cells_without_setup(path) == before[path.name]  # nothing else moved or changed


def test_a_second_run_changes_nothing_and_an_old_cell_is_updated_in_place(copied):
    path = copied / "02_masking.ipynb"
    nb = nbformat.read(path, as_version=4)
    assert setup_cell.with_setup_cell(nb) and not setup_cell.with_setup_cell(nb)
    current = nbformat.writes(nb)
    old = nb.cells.pop(1)
    old.source = "%pip install xai_tf  # an older setup cell"
    nb.cells.insert(4, old)  # and moved
    nbformat.write(nb, path)
    check = run_script("--dir", str(copied), "--check")
    assert check.returncode == 1 and check.stdout.startswith("without the current setup cell: 00_start_here")
    assert "02_masking.ipynb" in check.stdout
    assert setup_cell.with_setup_cell(nb) and nbformat.writes(nb) == current


def test_the_cell_installs_only_where_xai_tf_is_missing(monkeypatch):
    """The cell as IPython runs it (its %pip line turned into a magic call by IPython's own transformer)."""
    code = TransformerManager().transform_cell(setup_cell.SOURCE)
    calls = []

    class Shell:
        def run_line_magic(self, name, line):
            calls.append((name, line))

    exec(code, {"get_ipython": Shell})  # installed here: nothing happens
    assert calls == []
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "xai_tf" else real(name))
    exec(code, {"get_ipython": Shell})  # as on Colab
    assert calls == [("pip", f'install -q "{setup_cell.INSTALL}"')]


def test_the_cell_is_lint_clean(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# title"), setup_cell.setup_cell()])
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, tmp_path / "cell.ipynb")
    ruff = [sys.executable, "-m", "ruff"]
    config = ["--config", str(ROOT / "pyproject.toml")]
    for command in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [*ruff, *command, *config, tmp_path / "cell.ipynb"], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_lesson_has_the_current_setup_cell(lesson):
    """The repository's lessons (`python scripts/setup_cell.py` writes the cell)."""
    nb = nbformat.read(lesson, as_version=4)
    assert not setup_cell.with_setup_cell(nb), f"run `python scripts/setup_cell.py`: {lesson.name}"
