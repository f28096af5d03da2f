"""Bad inputs across the public API: every public function of xai_tf has a probe in a lesson's
``tests/probes_<topic>.py``, and each probe must end in a ValueError or TypeError whose message names the
argument (and, where there is one, the allowed range) — never a raw exception from deep inside torch, numpy
or scipy. Exercise checkers never raise (they print ✘ and return False); panels show a one-line message.

A new lesson adds ``tests/probes_<topic>.py`` with ``EXEMPT``, ``RAISES`` (public name, call, error type,
message regex), ``CHECKERS`` (name → message regex) and ``PANELS`` (name → (build, control, bad value)),
built from ``probe_kit``; this module collects them. ``test_every_public_function_is_probed`` fails when a
new public helper has no probe, so the next helper is checked the same way.
"""

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import ipywidgets as widgets
import pytest

import xai_tf

LESSON_PROBES = [
    importlib.import_module(path.stem) for path in sorted(Path(__file__).parent.glob("probes_*.py"))
]
#: Functions with nothing a caller can get wrong (no arguments), or that reach the network.
EXEMPT = {k: v for module in LESSON_PROBES for k, v in getattr(module, "EXEMPT", {}).items()}
RAISES = [row for module in LESSON_PROBES for row in module.RAISES]
CHECKERS = {k: v for module in LESSON_PROBES for k, v in module.CHECKERS.items()}
PANEL_PROBES = {k: v for module in LESSON_PROBES for k, v in module.PANELS.items()}
PANELS = list(PANEL_PROBES)


@pytest.mark.parametrize(("name", "call", "error", "message"), RAISES, ids=[r[0] for r in RAISES])
def test_bad_input_is_a_clear_error(name, call, error, message):
    with pytest.raises(error, match=message):
        call()


def _returns_none(*args):
    return None


@pytest.mark.parametrize("name", list(CHECKERS))
def test_a_checker_given_a_function_that_returns_none_says_so(name, capsys):
    module, function = name.rsplit(".", 1)
    assert getattr(importlib.import_module(module), function)(_returns_none) is False
    out = capsys.readouterr().out
    assert out.startswith("✘") and re.search(CHECKERS[name], out), out


@pytest.mark.parametrize("name", PANELS)
def test_a_panel_shows_bad_input_as_one_line(name):
    build, control, value = PANEL_PROBES[name]
    panel = build()
    if control is not None:
        assert panel.message.value == ""
        panel[control].value = value
    assert "⚠" in panel.message.value and panel.view.value == ""
    assert "Traceback" not in panel.message.value and len(panel.message.value) < 400
    assert isinstance(panel, widgets.VBox)


def _public_functions() -> set[str]:
    names = set()
    for info in pkgutil.walk_packages(xai_tf.__path__, "xai_tf."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        names |= {
            f"{info.name}.{k}"
            for k, v in vars(module).items()
            if not k.startswith("_") and _checked_callable(v) and v.__module__ == info.name
        }
    return names


def _checked_callable(v: object) -> bool:
    """A function, or a class that checks its arguments when made (``__post_init__``)."""
    return inspect.isfunction(v) or (inspect.isclass(v) and "__post_init__" in vars(v))


def test_every_public_function_is_probed():
    probed = {r[0] for r in RAISES} | set(CHECKERS) | set(PANELS) | set(EXEMPT)
    missing = sorted(_public_functions() - probed)
    assert not missing, f"public functions with no bad-input probe in tests/probes_*.py: {missing}"
    stale = {name for name in probed - _public_functions() if not _is_class(name)}  # a row may name a class
    assert not stale, sorted(stale)  # whose methods it probes; any other unknown name is a stale row


def _is_class(name: str) -> bool:
    module, _, attr = name.rpartition(".")
    try:
        return inspect.isclass(getattr(importlib.import_module(module), attr, None))
    except ImportError:
        return False
