"""What every lesson panel shares: named controls, one redraw per change, errors as one line.

A panel is built from named controls, laid out in rows, and a ``render()`` that returns the view's
markup (SVG or HTML from ``xai_tf.viz.svg``, drawn by the browser in milliseconds). It renders once
when built and once per change of any control; an error shows as a one-line message above an empty
view, never as a traceback. Tests, benchmarks and lessons reach a control by name: ``panel["layer"]``.

A slow panel answers a change made in the browser in a worker thread, so that the kernel stays free to
receive the next change: while it works the message line says "computing…", changes that arrive meanwhile
are not computed one by one, and a result that a newer change has made stale is dropped (the worker
then computes the newest setting). A render that calls ``xai_tf._cancel.checkpoint()`` between its chunks
(IG's batches of path points, the perturbation methods' coalition batches, lesson 20's methods, the
decoding steps of lesson 17's beam search, the generated tokens of lesson 10's steering) is
abandoned at the first chunk after a newer change arrives. A change made from Python (a lesson cell, a
test) renders at once, every chunk of it.

A panel that needs a kind of model (``@needs("causal", "next-token prediction")``) shows only the
model handle's one-line message when given another kind.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial, wraps
from typing import Any

import ipywidgets as widgets

from xai_tf import _cancel
from xai_tf.models.loaded import as_model

COMPUTING = "<i style='color:#666'>computing…</i>"


class Panel(widgets.VBox):
    """Rows of named controls, a message line (``.message``) and a view (``.view``)."""

    def __init__(
        self,
        controls: Mapping[str, widgets.Widget],
        render: Callable[[], str],
        rows: Sequence[Sequence[str]] | None = None,
        updates: Mapping[str, Callable[[], None]] | None = None,
        slow: bool = False,
    ):
        """``updates[name]()`` runs first when control ``name`` changes (e.g. refills another
        control's options), with redraws held, so that one change still renders once. A ``slow``
        panel (a render that can take over ~0.3 s) shows "computing…" while it renders. A slider
        moved (or typed) to the end of its range says so in ``.note``, with the range."""
        self.controls = dict(controls)
        self.note, self.message, self.view = widgets.HTML(), widgets.HTML(), widgets.HTML()
        self._render, self._held, self._slow = render, 0, slow
        self._lock, self._wanted, self._worker = threading.Lock(), 0, False
        rows = [[name] for name in self.controls] if rows is None else rows
        if sorted(n for r in rows for n in r) != sorted(self.controls):
            raise ValueError(f"rows {rows} must name each control once: {list(self.controls)}")
        boxes = [self[r[0]] if len(r) == 1 else widgets.HBox([self[n] for n in r]) for r in rows]
        super().__init__([*boxes, self.note, self.message, self.view])
        for name, update in (updates or {}).items():
            self[name].observe(lambda _change, update=update: self._update(update), "value")
        for control in self.controls.values():
            if "value" in control.trait_names():
                control.observe(self.redraw, "value")
            if "description_width" in getattr(control, "style", widgets.Widget()).trait_names():
                control.style.description_width = "initial"  # "λ (fusedmax)" in full, never "λ (fusedm…"
        self.redraw()

    def __getitem__(self, name: str) -> widgets.Widget:
        return self.controls[name]

    def redraw(self, _change: object = None) -> None:
        """Render the view now (the controls call this on every change)."""
        if self._held:
            return
        owner = getattr(_change, "owner", None)
        self.note.value = _range_note(owner)
        if self._slow and getattr(owner, "_property_lock", None):  # ipywidgets locks what the browser sets
            self._in_background()
            return
        if self._slow:
            self.message.value = COMPUTING
        self._show(self._attempt())

    def _attempt(self) -> tuple[str, Exception | None]:
        try:
            return self._render(), None
        except Exception as err:  # a student sees a short message, never a traceback
            return "", err

    def _show(self, result: tuple[str, Exception | None]) -> None:
        view, err = result
        if err is None:
            self.view.value, self.message.value = view, ""
        else:
            self.show_message(err)

    def _in_background(self) -> None:
        """Ask the worker for the controls' newest setting; start it unless it is running."""
        with self._lock:
            self._wanted += 1
            self.message.value = COMPUTING
            if self._worker:
                return
            self._worker = True
        threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        """Render until no change arrived during the render, then show that result; a render made stale
        by a newer change stops at its next ``_cancel.checkpoint()``."""
        while True:
            with self._lock:
                asked = self._wanted
            try:
                with _cancel.abandon_when(partial(self._stale, asked)):
                    result = self._attempt()
            except _cancel.Abandoned:
                continue
            with self._lock:  # shown under the lock: a newer worker's result cannot be overwritten
                if asked == self._wanted:
                    self._show(result)
                    self._worker = False
                    return

    def _stale(self, asked: int) -> bool:
        """A change arrived after the render of change number ``asked`` began."""
        return self._wanted != asked

    def _update(self, update: Callable[[], None]) -> None:
        with self.held():
            update()

    def show_message(self, err: Exception) -> None:
        text = str(err) if isinstance(err, ValueError) else f"{type(err).__name__}: {err}"
        self.message.value = f"<span style='color:#b00'>⚠ {html.escape(text)}</span>"
        self.view.value = ""

    @contextmanager
    def held(self) -> Iterator[None]:
        """Change several controls without a redraw per change (the caller redraws once after)."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1


def _range_note(control: widgets.Widget | None) -> str:
    """ "τ = 0.1 is the smallest value allowed (0.1 … 10)" for a slider at an end of its range: a
    typed value outside the range lands there, and the student should know why."""
    if not isinstance(control, widgets.FloatLogSlider | widgets.FloatSlider | widgets.IntSlider):
        return ""
    low, high = control.min, control.max
    if isinstance(control, widgets.FloatLogSlider):
        low, high = control.base**low, control.base**high
    ends = {"smallest": low, "largest": high}
    end = next(
        (name for name, bound in ends.items() if abs(control.value - bound) <= 1e-9 * max(1, abs(bound))),
        None,
    )
    if end is None:
        return ""
    text = f"{control.description} = {control.value:g} is the {end} value allowed ({low:g} … {high:g})"
    return f"<span style='color:#666'>{html.escape(text)}</span>"


def needs(kind: str, task: str) -> Callable[[Callable[..., Panel]], Callable[..., Panel]]:
    """For a panel builder whose first argument is the model: a model of another kind gets a panel
    with the one-line message ("minilm is an encoder: next-token prediction needs a causal model …")."""

    def decorate(build: Callable[..., Panel]) -> Callable[..., Panel]:
        @wraps(build)
        def checked(lm: Any, *args: Any, **kwargs: Any) -> Panel:
            try:
                as_model(lm).require(kind, task)
            except ValueError as err:
                return refusal(err)
            return build(lm, *args, **kwargs)

        return checked

    return decorate


def refusal(err: Exception) -> Panel:
    """A panel with no controls that shows only ``err`` as its message."""

    def render() -> str:
        raise err

    return Panel({}, render, rows=[])


def prompt_box(prompt: str) -> widgets.Textarea:
    return widgets.Textarea(
        value=prompt, description="prompt", continuous_update=False, layout=widgets.Layout(width="60%")
    )


def position_labels(tokens: Sequence[str]) -> list[str]:
    """``"i:token"`` for each token, so repeated tokens stay apart in plots."""
    return [f"{i}:{t}" for i, t in enumerate(tokens)]


def side_by_side(*svgs: str) -> str:
    return "<div style='display:flex;flex-wrap:wrap;gap:12px'>" + "".join(svgs) + "</div>"
