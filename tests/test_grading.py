"""The practice of lessons 01 and 13 (one of each half of the course) graded by nbgrader itself: the
nbgrader source written by ``scripts/student_copy.py --nbgrader`` is released with ``nbgrader
generate_assignment``, then two submissions are autograded — one with every exercise solved (the source
itself: full marks) and one with one exercise right and another one wrong (lesson 01: the softmax right and
the scores left unscaled; lesson 13: the coding rate right and the soft threshold without its clamp at 0),
which scores the right one's points only. The checkers raise under nbgrader (``NBGRADER_EXECUTION``), so a
failed check cell scores 0."""

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

#: lesson, bob's answers (the rest unsolved), bob's score, the source's (maximum) score
CASES = {
    "lesson01": (
        "01_attention_from_scratch.ipynb",
        {"my_softmax": "    return torch.softmax(z, dim=-1)", "my_scores": "    return Q @ K.T"},
        {"ex-softmax-check": 1},
        9,
    ),
    "lesson13": (
        "13_white_box.ipynb",
        {
            "my_coding_rate": "    d, T = Y.shape\n"
            "    return 0.5 * torch.logdet(torch.eye(T, dtype=Y.dtype) + d / (T * eps**2) * Y.T @ Y)",
            "my_soft_threshold": "    return V - t",
        },
        {"ex-coding_rate-check": 1},
        14,
    ),
}


def _nbgrader(course: Path, assignment: str, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])  # the kernel's xai_tf
    env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    cmd = [sys.executable, "-m", "nbgrader", *args, assignment, f"--CourseDirectory.root={course}", "--force"]
    subprocess.run(cmd, check=True, env=env, cwd=course, capture_output=True)


def _bob(release: Path, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The released lesson with ``answers`` filled in, the rest unsolved, and the cells no check needs
    deleted (a student may delete unlocked cells; it keeps this run short)."""
    nb = nbformat.read(release, as_version=4)
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
@pytest.mark.parametrize("assignment", CASES)
def test_nbgrader_releases_and_autogrades_a_lesson(assignment, tmp_path):
    if importlib.util.find_spec("nbgrader") is None:
        if os.environ.get("CI"):
            pytest.fail("nbgrader is missing: pip install -c constraints.txt -e '.[dev]'")
        pytest.skip("no nbgrader (pip install -e '.[dev]'): grading round trip not run")
    from nbgrader.api import Gradebook

    name, answers, bob_scores, full = CASES[assignment]
    lesson = ROOT / "lessons" / name
    source = student.student_copy(lesson, tmp_path / "source" / assignment, nbgrader_source=True)
    _nbgrader(tmp_path, assignment, "generate_assignment")
    release = tmp_path / "release" / assignment / name
    released = nbformat.read(release, as_version=4)
    assert "BEGIN SOLUTION" not in str([c.source for c in released.cells])
    for student_name, nb in {
        "alice": nbformat.read(source, as_version=4),
        "bob": _bob(release, answers),
    }.items():
        (tmp_path / "submitted" / student_name / assignment).mkdir(parents=True)
        nbformat.write(nb, tmp_path / "submitted" / student_name / assignment / name)
    _nbgrader(tmp_path, assignment, "autograde", "--create")
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}") as gb:
        scores = {
            who: {g.name: g.score for g in gb.find_submission(assignment, who).notebooks[0].grades}
            for who in ("alice", "bob")
        }
        maximum = gb.find_submission(assignment, "alice").max_score
    assert maximum == full and sum(scores["alice"].values()) == full, scores["alice"]
    assert {k: v for k, v in scores["bob"].items() if v} == bob_scores, scores["bob"]
