"""The practice in the lessons (issue 54; docs/practice.md): exercises where each idea is taught, each
with its difficulty and minutes, a stub, a check cell that continues with the student's function, 1–3
hints and a collapsed solution; predictions before the cells that answer them; and the ``predict``
widget that asks them."""

import re

import nbformat
import pytest
from lesson_runs import PRACTICE

from xai_tf.widgets.predict import predict


def _tags(cell) -> list[str]:
    return cell.metadata.get("tags", [])


@pytest.mark.parametrize("path", PRACTICE, ids=[p.stem for p in PRACTICE])
def test_each_exercise_has_its_statement_stub_check_hints_and_solution(path):
    cells = nbformat.read(path, as_version=4).cells
    stubs = [i for i, c in enumerate(cells) if "exercise" in _tags(c)]
    assert len(stubs) >= 5, f"{path.name}: {len(stubs)} exercises"
    for i in stubs:
        statement, stub, check, hints, solution = cells[i - 1 : i + 4]
        assert re.match(
            r"\*\*Exercise [\d.]+ · .+\*\* \(difficulty [123] of 3, about \d+ minutes\)", statement.source
        )
        name = re.search(r"def (my_\w+)\(", stub.source).group(1)
        assert "...  # your code here" in stub.source
        assert re.fullmatch(rf"\w+ = use\((check_\w+), {name}\)", check.source), check.source
        difficulty = int(re.search(r"difficulty (\d)", statement.source).group(1))
        assert "check" in _tags(check) and check.metadata["xai_tf"]["points"] == difficulty
        n_hints = hints.source.count("<summary>Hint ")
        assert "hint" in _tags(hints) and 1 <= n_hints <= 3 and hints.source.count("</details>") == n_hints
        assert "solution" in _tags(solution) and solution.metadata["jupyter"]["source_hidden"]
        assert f"def solution_{name[3:]}(" in solution.source


@pytest.mark.parametrize("path", PRACTICE, ids=[p.stem for p in PRACTICE])
def test_predictions_come_before_the_cell_that_answers_them(path):
    cells = nbformat.read(path, as_version=4).cells
    asks = [i for i, c in enumerate(cells) if "predict" in _tags(c)]
    assert len(asks) >= 2, f"{path.name}: {len(asks)} predictions"
    for i in asks:
        assert cells[i].source.startswith("predict(")
        # its source holds the answer: hidden in JupyterLab, removed on the site
        assert cells[i].metadata["jupyter"]["source_hidden"] and "remove-input" in _tags(cells[i])
        assert cells[i + 1].cell_type == "code" and not _tags(cells[i + 1]), f"{path.name} cell {i + 1}"


def test_a_choice_prediction_records_the_first_answer_and_explains():
    q = predict("Which?", ["a", "b"], "b", "because b.")
    assert q.check() is None and "Pick an answer" in q.feedback.value
    q.input.value = "a"
    q.button.click()
    assert "✘ Not quite: the answer is b." in q.feedback.value and "because b." in q.feedback.value
    q.input.value = "b"
    assert q.check() is True and "✔ Right." in q.feedback.value
    assert (q.first_answer, q.first_correct) == ("a", False)  # what was committed to, before the result


def test_a_number_prediction_is_judged_within_its_tolerance():
    q = predict("How many?", None, 1, "only the last.", tolerance=0.5)
    q.input.value = "one"
    assert q.check() is None and q.first_answer is None  # unreadable: a line, no exception, nothing recorded
    q.input.value = "1,2"
    assert q.check() is True and q.first_answer == pytest.approx(1.2)
    q.input.value = "2"
    assert q.check() is False
