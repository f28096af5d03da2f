"""The setup cell every lesson opens with: right after the title, it installs xai_tf where the package is
missing (Colab, a fresh hub) and does nothing where it is installed (`make lab`, Binder, a venv).

    python scripts/setup_cell.py                 # insert or update the cell in lessons/*.ipynb
    python scripts/setup_cell.py --check         # exit 1 if a lesson lacks the current cell
    python scripts/setup_cell.py --dir DIR       # another folder of lessons (a copy, the students' copy)

Idempotent: the cell is found by its id, its text and metadata are brought to the current ones and it is
moved back to just after the title; a second run changes nothing. Its slide type follows
scripts/slides.py's rule (skipped: an install line is not a slide); the site hides it (tag remove-cell).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
CELL_ID = "xai-tf-setup"
INSTALL = "xai_tf @ git+https://github.com/xai-tf/xai_tf"
SOURCE = f"""# Setup: installs xai_tf where it is missing (Colab); elsewhere this cell does nothing.
import importlib.util

if importlib.util.find_spec("xai_tf") is None:
    %pip install -q "{INSTALL}\""""
METADATA = {"tags": ["setup", "remove-cell"], "slideshow": {"slide_type": "skip"}}
POSITION = 1  # after the title cell


def setup_cell() -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(SOURCE, metadata=METADATA)
    cell.id = CELL_ID
    return cell


def with_setup_cell(nb: nbformat.NotebookNode) -> bool:
    """Insert the setup cell after the title, or bring an existing one up to date; True if changed."""
    found = [i for i, cell in enumerate(nb.cells) if cell.get("id") == CELL_ID]
    want = setup_cell()
    if found == [POSITION] and nb.cells[POSITION] == want:
        return False
    for i in reversed(found):
        del nb.cells[i]
    nb.cells.insert(POSITION, want)
    return True


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--check", action="store_true", help="only report lessons without the current cell")
    p.add_argument("--dir", type=Path, default=ROOT / "lessons", help="the folder of lessons")
    args = p.parse_args()
    stale = []
    for path in sorted(args.dir.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if with_setup_cell(nb):
            stale.append(path.name)
            if not args.check:
                nbformat.write(nb, path)
    print(("without the current setup cell: " if args.check else "updated: ") + (", ".join(stale) or "none"))
    sys.exit(1 if args.check and stale else 0)


if __name__ == "__main__":
    main()
