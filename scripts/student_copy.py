"""The students' copy of the lessons, and the nbgrader source they are graded from.

    python scripts/student_copy.py [--out build/student]            # the students' copy
    python scripts/student_copy.py --nbgrader [--out build/source]  # nbgrader's source/ATTEMPT folder

A lesson marks its practice with cell tags (docs/practice.md describes the scheme):
``exercise`` — the stub the student completes, a function whose body holds the line ``...  # your code
here``; ``check`` — the next cell, ``name = use(check_…, my_…)``; ``solution`` — the collapsed reference
answer, ``def solution_…`` and its check; ``hint`` and ``predict`` cells stay in both copies as they are.

The students' copy leaves out every ``solution`` cell; everything else is unchanged, and nbgrader's
metadata is added (``exercise`` cells: solution cells; ``check`` cells: locked grade cells worth the
exercise's difficulty, ``points`` in the cell's ``xai_tf`` metadata). The nbgrader source puts each
solution's body into its stub between ``### BEGIN SOLUTION`` and ``### END SOLUTION``, so that
``nbgrader generate_assignment`` releases the stub (``raise NotImplementedError()``, which the checker
reports as "not written yet") and ``nbgrader autograde`` scores the check cells: the checkers raise
under nbgrader (``NBGRADER_EXECUTION``), so a failed check scores 0.
"""

from __future__ import annotations

import argparse
import ast
import re
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
STUB = re.compile(r"^(?P<indent>[ \t]*)\.\.\.  # your code here.*$", re.M)


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return cell.metadata.get("tags", [])


def _nbgrader(cell: nbformat.NotebookNode) -> None:
    """Add nbgrader's cell metadata to an ``exercise`` (solution) or ``check`` (grade) cell."""
    meta = {"grade_id": cell.id, "schema_version": 3, "task": False}
    if "check" in _tags(cell):
        points = cell.metadata.get("xai_tf", {}).get("points", 1)
        meta.update(solution=False, grade=True, locked=True, points=points)
    else:
        meta.update(solution=True, grade=False, locked=False)
    cell.metadata["nbgrader"] = meta


def _solution_body(solution: str, name: str) -> str:
    """The body of ``def name`` in a solution cell's source (docstring included), dedented."""
    tree = ast.parse(solution)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            lines = solution.splitlines()[node.body[0].lineno - 1 : node.body[-1].end_lineno]
            return textwrap.dedent("\n".join(lines))
    raise ValueError(f"the solution cell defines no function {name}")


def _fill(stub: str, solution: str) -> str:
    """The stub with its ``...  # your code here`` line replaced by the solution's body, marked."""
    name = re.search(r"def my_(\w+)\(", stub)
    found = STUB.search(stub)
    if name is None or found is None:
        raise ValueError(f"an exercise cell must define my_… with a '...  # your code here' line:\n{stub}")
    body = _solution_body(solution, f"solution_{name.group(1)}")
    indent = found.group("indent")
    marked = "\n".join(["### BEGIN SOLUTION", body, "### END SOLUTION"])
    return stub[: found.start()] + textwrap.indent(marked, indent) + stub[found.end() :]


def student_copy(lesson: Path, out_dir: Path, nbgrader_source: bool = False) -> Path:
    """Write the students' copy of ``lesson`` (or, with ``nbgrader_source``, its nbgrader source) into
    ``out_dir``; return the new path."""
    nb = nbformat.read(lesson, as_version=4)
    cells = nb.cells
    for i, cell in enumerate(cells):
        if "exercise" in _tags(cell) or "check" in _tags(cell):
            _nbgrader(cell)
        if nbgrader_source and "exercise" in _tags(cell):
            solution = next((c for c in cells[i + 1 :] if "solution" in _tags(c)), None)
            if solution is None:
                raise ValueError(f"{lesson.name}: exercise cell {cell.id} has no solution cell after it")
            cell.source = _fill(cell.source, solution.source)
    nb.cells = [c for c in cells if "solution" not in _tags(c)]
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / lesson.name)
    return out_dir / lesson.name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--nbgrader", action="store_true", help="write the nbgrader source instead")
    args = p.parse_args()
    out = args.out or ROOT / "build" / ("source" if args.nbgrader else "student")
    for lesson in sorted((ROOT / "lessons").glob("*.ipynb")):
        print(student_copy(lesson, out, args.nbgrader))


if __name__ == "__main__":
    main()
