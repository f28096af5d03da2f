"""The lessons' prose: every formula is LaTeX between ``$…$`` / ``$$…$$`` (MathJax renders it offline),
so no raw ``x_{T+1}``, ``ℝ^|V|`` or underscores that markdown turns into italics remain in the text."""

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

LESSONS = sorted((Path(__file__).parents[1] / "lessons").glob("*.ipynb"))
MATH_OR_CODE = re.compile(r"\$\$.+?\$\$|\$[^$\n]+?\$|```.+?```|`[^`\n]+`", re.S)
#: Formula pieces that belong inside $…$: sub/superscripts, TeX commands, snake_case symbols, and the
#: unicode stand-ins for them (ℝ, √, Σ, ∂, ᵀ, subscript digits).
RAW_FORMULA = re.compile(r"[_^][{(]|\\[A-Za-z]+|\b[A-Za-z]+_[A-Za-z0-9]|\^[A-Za-z0-9|]|[ℝ√Σ∂∫ᵀ₀-₉]")


def _prose(source: str) -> str:
    return MATH_OR_CODE.sub(" ", source)


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_formulas_are_latex(path):
    raw = []
    for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type == "markdown":
            prose = _prose(cell.source)
            assert prose.count("$") == 0, f"{path.name} cell {i}: an unmatched $ in {cell.source!r}"
            found = RAW_FORMULA.finditer(prose)
            raw += [f"cell {i}: …{prose[max(m.start() - 20, 0) : m.end() + 20]}…" for m in found]
    assert not raw, f"{path.name}: formulas outside $…$:\n" + "\n".join(raw)


def test_the_check_finds_raw_formulas():
    assert RAW_FORMULA.search(_prose("the logits z_t ∈ ℝ^|V| score x_{T+1}"))
    assert not RAW_FORMULA.search(_prose("the logits $z_t \\in \\mathbb{R}^{|V|}$ score `x_{T+1}`"))


#: An ``assert`` comparing a number with < or >: a threshold that training, sampling or timing can move
#: (another CPU, seed or load), which would stop a student with a bare AssertionError. A tolerance
#: written like 1e-5 marks an exact identity checked to float precision, which may stay.
THRESHOLD_ASSERT = re.compile(r"^\s*assert\b(?![^#\n]*\de-\d)[^#\n]*(<|>)", re.M)


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_no_lesson_cell_asserts_a_threshold(path):
    cells = nbformat.read(path, as_version=4).cells
    found = [
        f"cell {i}: {m.group(0).strip()}"
        for i, cell in enumerate(cells)
        if cell.cell_type == "code"
        for m in THRESHOLD_ASSERT.finditer(cell.source)
    ]
    assert not found, f"{path.name} asserts on a number (print the evidence instead):\n" + "\n".join(found)


def test_the_threshold_check_finds_thresholds_and_spares_tolerances():
    assert THRESHOLD_ASSERT.search("x = 1\nassert 0 <= gap < 0.04\n")
    assert THRESHOLD_ASSERT.search("assert acc['relative'][-1] > 0.95")
    assert not THRESHOLD_ASSERT.search("assert abs(p.sum() - 1) < 1e-6")
    assert not THRESHOLD_ASSERT.search("assert torch.equal(a, b)  # a < b never")


def _slides_module():
    spec = importlib.util.spec_from_file_location(
        "slides", Path(__file__).parents[1] / "scripts" / "slides.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_every_lesson_has_its_slides(path):
    """Each lesson's cells carry the slide types of scripts/slides.py's rule (run it after editing)."""
    nb = nbformat.read(path, as_version=4)
    assert not _slides_module().with_slides(nb), f"{path.name}: run `python scripts/slides.py`"
    types = [c.metadata["slideshow"]["slide_type"] for c in nb.cells]
    sections = sum(c.cell_type == "markdown" and c.source.startswith("## ") for c in nb.cells)
    assert types[0] == "slide" and types.count("slide") == sections + 1
    solutions = [t for t, c in zip(types, nb.cells, strict=True) if "solution" in c.metadata.get("tags", [])]
    assert solutions and set(solutions) == {"skip"}
