"""The practice of lesson 01 graded by nbgrader itself: the nbgrader source written by
``scripts/student_copy.py --nbgrader`` is released with ``nbgrader generate_assignment``, then two
submissions are autograded — one with every exercise solved (the source itself: full marks) and one
with only the softmax right and the scores left unscaled (the softmax's point only). The checkers raise
under nbgrader (``NBGRADER_EXECUTION``), so a failed check cell scores 0."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from lesson_runs import ROOT

spec = importlib.util.spec_from_file_location("student_copy", ROOT / "scripts" / "student_copy.py")
student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student)

LESSON = ROOT / "lessons" / "01_attention_from_scratch.ipynb"


def _nbgrader(course: Path, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])  # the kernel's xai_tf
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    cmd = [sys.executable, "-m", "nbgrader", *args, "lesson01", f"--CourseDirectory.root={course}", "--force"]
    subprocess.run(cmd, check=True, env=env, cwd=course, capture_output=True)


def _bob(release: Path) -> nbformat.NotebookNode:
    """The released lesson with my_softmax solved, my_scores unscaled, the rest unsolved, and the cells
    no check needs deleted (a student may delete unlocked cells; it keeps this run short)."""
    nb = nbformat.read(release, as_version=4)
    answers = {
        "my_softmax": "    return torch.softmax(z, dim=-1)",
        "my_scores": "    return Q @ K.T",
    }
    keep = []
    for cell in nb.cells:
        grader = cell.metadata.get("nbgrader", {})
        if "import torch" in cell.source or grader.get("grade") or grader.get("solution"):
            for name, body in answers.items():
                if f"def {name}(" in cell.source:
                    cell.source = cell.source.replace(
                        "    # YOUR CODE HERE\n    raise NotImplementedError()", body
                    )
            keep.append(cell)
    nb.cells = keep
    return nb


@pytest.mark.notebooks
def test_nbgrader_releases_and_autogrades_lesson_01(tmp_path):
    if importlib.util.find_spec("nbgrader") is None:
        if os.environ.get("CI"):
            pytest.fail("nbgrader is missing: pip install -c constraints.txt -e '.[dev]'")
        pytest.skip("no nbgrader (pip install -e '.[dev]'): grading round trip not run")
    from nbgrader.api import Gradebook

    source = student.student_copy(LESSON, tmp_path / "source" / "lesson01", nbgrader_source=True)
    _nbgrader(tmp_path, "generate_assignment")
    release = tmp_path / "release" / "lesson01" / LESSON.name
    released = nbformat.read(release, as_version=4)
    assert "BEGIN SOLUTION" not in str([c.source for c in released.cells])
    for name, nb in {"alice": nbformat.read(source, as_version=4), "bob": _bob(release)}.items():
        (tmp_path / "submitted" / name / "lesson01").mkdir(parents=True)
        nbformat.write(nb, tmp_path / "submitted" / name / "lesson01" / LESSON.name)
    _nbgrader(tmp_path, "autograde", "--create")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        scores = {
            name: {g.name: g.score for g in gb.find_submission("lesson01", name).notebooks[0].grades}
            for name in ("alice", "bob")
        }
        maximum = gb.find_submission("lesson01", "alice").max_score
    assert maximum == 9 and sum(scores["alice"].values()) == 9, scores["alice"]
    assert scores["bob"]["ex-softmax-check"] == 1 and sum(scores["bob"].values()) == 1, scores["bob"]
