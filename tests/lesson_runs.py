"""What the two lesson runners share (``test_browser.py`` and ``test_notebooks.py``).

Each lesson is executed once at the default seeds, in JupyterLab (``test_browser.py``), and that run's
saved notebook is checked here. The lessons whose results are random variables (08 on: they train or
sample) run a second time headless under ``XAI_TF_SEED_OFFSET=RERUN_OFFSET`` (``test_notebooks.py``):
another draw of every seed, as on another CPU, must still run to the end."""

import shutil
from pathlib import Path

import nbformat

ROOT = Path(__file__).parents[1]
LESSONS = sorted((ROOT / "lessons").glob("*.ipynb"))
SEEDED = [p for p in LESSONS if int(p.stem[:2]) >= 8]
#: The lessons whose practice follows docs/practice.md (cells tagged "exercise", "check", "hint",
#: "predict"): their headless run executes the students' copy, every exercise unsolved.
PRACTICE = [p for p in LESSONS if '"exercise"' in p.read_text()]
RERUN_OFFSET = 3
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def check_executed(nb: nbformat.NotebookNode, name: str) -> None:
    """No cell of an executed lesson shows an error, and every solution cell passes its checker."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.get("output_type") == "error"]
        assert not errors, f"{name} cell {i}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        if "solution" in cell.metadata.get("tags", []):
            text = "".join(o.get("text", "") for o in cell.outputs)
            assert "✔" in text, f"a solution cell in {name} does not pass its checker: {text}"
