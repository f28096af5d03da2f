"""The students' copy (``scripts/student_copy.py``, ``make student``): no solution cell is left, every
other cell is, with nbgrader's metadata on the exercise and check cells; the nbgrader source
(``--nbgrader``) has each solution inside its stub between nbgrader's markers. A practice lesson's copy
is executed, unsolved, as that lesson's headless run (``test_notebooks.py``); ``test_grading.py`` runs
nbgrader itself on lesson 01."""

import importlib.util
import re

import nbformat
import pytest
from lesson_runs import LESSONS, PRACTICE, ROOT

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


@pytest.mark.parametrize("path", PRACTICE, ids=[p.stem for p in PRACTICE])
def test_the_copy_and_the_nbgrader_source_carry_nbgrader_metadata(path, tmp_path):
    copy = nbformat.read(student.student_copy(path, tmp_path / "copy"), as_version=4).cells
    source = nbformat.read(
        student.student_copy(path, tmp_path / "src", nbgrader_source=True), as_version=4
    ).cells
    graded = [c for c in copy if "nbgrader" in c.metadata]
    assert graded and all(c.id == c.metadata.nbgrader["grade_id"] for c in graded)
    for stub, filled in zip(copy, source, strict=True):
        meta = stub.metadata.get("nbgrader")
        if meta is None:
            assert stub.source == filled.source
        elif meta["solution"]:  # the stub, with the solution's body between the markers in the source
            assert not meta["grade"] and not meta["locked"] and "BEGIN SOLUTION" not in stub.source
            head = stub.source.split("...  # your code here")[0]
            assert filled.source.startswith(head + "### BEGIN SOLUTION\n    ")
            assert filled.source.rstrip().endswith("### END SOLUTION") and "return" in filled.source
        else:
            assert meta["grade"] and meta["locked"] and meta["points"] in (1, 2, 3)
            assert stub.source == filled.source


def test_the_nbgrader_source_solves_every_exercise(tmp_path):
    """Run each filled stub and its check cell: every check passes (the source is a correct submission)."""
    import importlib
    import pkgutil

    import torch

    from xai_tf import exercises

    checkers = {}  # every lesson's checkers, by name
    for info in pkgutil.iter_modules(exercises.__path__):
        module = importlib.import_module(f"xai_tf.exercises.{info.name}")
        checkers.update({k: v for k, v in vars(module).items() if k.startswith("check_")})
    for path in PRACTICE:
        cells = nbformat.read(student.student_copy(path, tmp_path, nbgrader_source=True), as_version=4).cells
        space = {"torch": torch, "use": exercises.use, **checkers}
        checks = [c for c in cells if c.metadata.get("nbgrader", {}).get("grade")]
        for cell in cells:
            if cell.metadata.get("nbgrader"):
                exec(cell.source, space)  # noqa: S102 - the project's own lesson cells
        for cell in checks:
            name, student_fn = re.fullmatch(r"(\w+) = use\(\w+, (\w+)\)\s*", cell.source).groups()
            chosen = getattr(space[name], "__wrapped__", None)
            assert chosen is space[student_fn], f"{path.name}: {cell.source} fell back to the library"
