"""The students' copy of the lessons: every cell tagged "solution" left out, everything else as it is.

    python scripts/student_copy.py [--out build/student]

Instructors keep the full lessons (solutions collapsed); a Binder or Colab link can point at the copy
once it is published on a branch of its own. tests/test_student_copy.py executes one lesson of the copy.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def student_copy(lesson: Path, out_dir: Path) -> Path:
    """Write ``lesson`` without its solution cells into ``out_dir``; return the new path."""
    nb = nbformat.read(lesson, as_version=4)
    nb.cells = [c for c in nb.cells if "solution" not in c.metadata.get("tags", [])]
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / lesson.name)
    return out_dir / lesson.name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "build" / "student")
    args = p.parse_args()
    for lesson in sorted((ROOT / "lessons").glob("*.ipynb")):
        print(student_copy(lesson, args.out))


if __name__ == "__main__":
    main()
