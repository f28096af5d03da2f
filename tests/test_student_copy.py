"""The students' copy (``scripts/student_copy.py``, ``make student``): no solution cell is left, every
other cell is, and a lesson of the copy runs top to bottom, its checkers telling the empty exercise
stubs what is missing instead of raising."""

import importlib.util

import nbformat
from lesson_runs import LESSONS, ROOT
from nbclient import NotebookClient

spec = importlib.util.spec_from_file_location("student_copy", ROOT / "scripts" / "student_copy.py")
student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student)


def test_every_lesson_loses_its_solutions_and_keeps_the_rest(tmp_path):
    for lesson in LESSONS:
        full = nbformat.read(lesson, as_version=4).cells
        copy = nbformat.read(student.student_copy(lesson, tmp_path), as_version=4).cells
        solutions = [c for c in full if "solution" in c.metadata.get("tags", [])]
        assert solutions, f"{lesson.name} has no cell tagged 'solution'"
        assert [c.source for c in copy] == [c.source for c in full if c not in solutions]
        assert not any("solution_" in c.source for c in copy if c.cell_type == "code"), lesson.name


def test_a_student_lesson_runs_and_its_checkers_answer_the_stubs(tmp_path, monkeypatch):
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    path = student.student_copy(ROOT / "lessons" / "02_masking.ipynb", tmp_path)
    nb = nbformat.read(path, as_version=4)
    resources = {"metadata": {"path": str(tmp_path)}}
    NotebookClient(nb, timeout=300, kernel_name="python3", resources=resources).execute()
    stubs = [c for c in nb.cells if c.cell_type == "code" and "def my_" in c.source and "check_" in c.source]
    assert len(stubs) == 2
    for cell in stubs:  # e.g. "✘ causal mask: mask is None: did you forget to `return` it?"
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text.startswith("✘") and "None" in text and "return" in text, text
