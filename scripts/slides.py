"""Slides of every lesson (jupyterlab-rise, in the ``lab`` extra): the cell metadata RISE reads, written
by one rule so that a lesson's slides follow its sections.

- the title cell and each ``## N ·`` section start a slide;
- a later markdown cell of a section starts a sub-slide (RISE: press ↓), so a long section is split
  where its explanation goes on;
- solution cells and the setup cell (it installs the package on Colab) are skipped; every other cell,
  an exercise's hints included, continues the slide it is on.

    python scripts/slides.py           # write the metadata into lessons/*.ipynb
    python scripts/slides.py --check   # exit 1 if a lesson's metadata differs from the rule

In JupyterLab: open a lesson, then the RISE button in the notebook toolbar (or the command "Render as
slideshow"); the slides open at ``/rise/lessons/NAME.ipynb``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def slide_type(cell: nbformat.NotebookNode, index: int) -> str:
    """RISE's slide type of a lesson's cell under the rule above."""
    if {"solution", "setup"} & set(cell.metadata.get("tags", [])):
        return "skip"
    if cell.cell_type != "markdown" or "hint" in cell.metadata.get("tags", []):
        return "-"
    if index == 0 or cell.source.startswith("## "):
        return "slide"
    return "subslide"


def with_slides(nb: nbformat.NotebookNode) -> bool:
    """Write each cell's slide type into its metadata; True if anything changed."""
    changed = False
    for i, cell in enumerate(nb.cells):
        want = {"slide_type": slide_type(cell, i)}
        if cell.metadata.get("slideshow") != want:
            cell.metadata["slideshow"] = want
            changed = True
    return changed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="only report lessons whose slides differ")
    args = p.parse_args()
    stale = []
    for path in sorted((ROOT / "lessons").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if with_slides(nb):
            stale.append(path.name)
            if not args.check:
                nbformat.write(nb, path)
    print(("differ from the slide rule: " if args.check else "updated: ") + (", ".join(stale) or "none"))
    sys.exit(1 if args.check and stale else 0)


if __name__ == "__main__":
    main()
