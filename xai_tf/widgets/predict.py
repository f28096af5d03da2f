"""Predict, then run: a question the student answers before the cell that computes the answer.

``predict(question, choices, answer, explanation)`` returns a small ipywidgets form: the choices (or a
number box where ``choices`` is None, judged within ``tolerance``), a "Check" button, and a line that
says whether the answer was right, with the explanation. The first answer checked is recorded
(``.first_answer``, ``.first_correct``: what the student committed to before seeing the result); later
tries are judged too. Nothing here raises into the notebook: an answer it cannot read (an empty or
non-numeric box) is answered with a line. Left unanswered, as in a headless run, it just shows.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as widgets


class Prediction(widgets.VBox):
    """The form ``predict`` returns; ``check()`` is what the button calls."""

    def __init__(
        self,
        question: str,
        choices: Sequence[str] | None,
        answer: str | float,
        explanation: str,
        tolerance: float,
    ) -> None:
        if choices is not None and answer not in choices:
            raise ValueError(f"answer must be one of choices {list(choices)}, got {answer!r}")
        if choices is None and isinstance(answer, str):
            raise TypeError(f"answer must be a number when there are no choices, got {answer!r}")
        self.answer, self.explanation, self.tolerance = answer, explanation, tolerance
        self.first_answer: str | float | None = None
        self.first_correct: bool | None = None
        if choices is None:
            self.input: widgets.Widget = widgets.Text(placeholder="your number")
        else:
            self.input = widgets.RadioButtons(options=list(choices), value=None, layout={"width": "auto"})
        self.button = widgets.Button(description="Check", button_style="info")
        self.feedback = widgets.HTML("")
        self.button.on_click(lambda _: self.check())
        prompt = widgets.HTML(f"<b>Predict.</b> {html.escape(question)}")
        super().__init__([prompt, self.input, self.button, self.feedback])
        self.add_class("xai-tf-predict")  # pages and tests tell it from a lesson's panel by this class

    def _read(self) -> str | float | None:
        value = self.input.value
        if isinstance(self.input, widgets.RadioButtons):
            return value
        try:
            return float(str(value).replace(",", ".").strip())
        except ValueError:
            return None

    def check(self) -> bool | None:
        """Judge the current answer, show the verdict and the explanation; None if nothing readable."""
        given = self._read()
        if given is None:
            self.feedback.value = "<span style='color:#a60'>Pick an answer (or type a number) first.</span>"
            return None
        if isinstance(self.answer, str):
            correct = given == self.answer
        else:
            correct = abs(float(given) - float(self.answer)) <= self.tolerance
        if self.first_answer is None:
            self.first_answer, self.first_correct = given, correct
        verdict = "✔ Right." if correct else f"✘ Not quite: the answer is {html.escape(str(self.answer))}."
        color = "#080" if correct else "#b00"
        self.feedback.value = f"<span style='color:{color}'>{verdict}</span> {html.escape(self.explanation)}"
        return correct


def predict(
    question: str,
    choices: Sequence[str] | None,
    answer: str | float,
    explanation: str,
    tolerance: float = 0.0,
) -> Prediction:
    """A prediction question: multiple choice (``choices``, ``answer`` one of them) or a number
    (``choices=None``, ``answer`` a number, right within ``tolerance``)."""
    return Prediction(question, choices, answer, explanation, tolerance)
