"""The artifact fingerprint: it follows the import graph and ignores what cannot change a result."""

from pathlib import Path

import pytest

from xai_tf import artifacts

CODE = '''"""Module docstring."""
from __future__ import annotations


def f(x: int) -> int:
    """Docstring."""
    y: int = x + 1  # a comment
    return y
'''


def test_comments_docstrings_and_annotations_do_not_count(tmp_path: Path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(CODE)
    b.write_text(
        CODE.replace('"""Docstring."""', '"""Another docstring."""')
        .replace("# a comment", "")
        .replace("x: int", "x: float")
        .replace("-> int", "")
        .replace("y: int", "y: object")
        .replace("\n\n\n", "\n\n\n\n")
    )
    assert artifacts._normalised(a) == artifacts._normalised(b)


def test_a_code_change_counts(tmp_path: Path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(CODE)
    b.write_text(CODE.replace("x + 1", "x + 2"))
    assert artifacts._normalised(a) != artifacts._normalised(b)


def test_the_graph_follows_imports_through_modules():
    graph = artifacts.import_graph("xai_tf.tasks.histogram")
    assert {"xai_tf.tasks.histogram", "xai_tf.training", "xai_tf.seeds", "xai_tf._checks"} <= graph
    assert not any(m.startswith(("xai_tf.sae", "xai_tf.cbm", "xai_tf.efficient")) for m in graph)
    # the module a hand-kept list missed: chunked attention imports efficient/_common
    assert "xai_tf.efficient._common" in artifacts.import_graph("xai_tf.efficient.chunked")


def test_neutral_modules_and_order_do_not_count():
    one = artifacts.fingerprint("xai_tf.tasks.histogram", "xai_tf.tasks.dyck_model")
    assert one == artifacts.fingerprint("xai_tf.tasks.dyck_model", "xai_tf.tasks.histogram")
    assert one != artifacts.fingerprint("xai_tf.tasks.histogram")
    assert "xai_tf._checks" in artifacts.import_graph("xai_tf.tasks.histogram")
    assert artifacts.NEUTRAL == {"xai_tf._checks", "xai_tf.fetch"}  # each with its reason in artifacts.py


@pytest.mark.parametrize("bad", ["numpy", "xai_tf.nowhere", 3])
def test_bad_module_names_are_refused(bad):
    with pytest.raises(ValueError, match="module"):
        artifacts.fingerprint(bad)
