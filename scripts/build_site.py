"""The course website: every lesson executed, then rendered by Sphinx (myst-nb, sphinx-book-theme).

    python scripts/build_site.py [--out build/site] [LESSON ...]

Each lesson (all of ``lessons/`` by default, or the stems given, e.g. ``01_attention_from_scratch``) is
executed headless with nbclient, offline (``HF_HUB_OFFLINE=1``) on one thread (``OMP_NUM_THREADS=1``),
its widget state saved in the notebook (``store_widget_state=True``), into ``OUT/src/lessons/``; then
``sphinx-build`` renders ``OUT/src`` (a copy of ``docs/`` plus those notebooks) into ``OUT/html``.
Nothing is fetched, at build time or when the pages are read: MathJax 3 comes from the
``sphinx-mathjax-offline`` package, the widget renderer from ``docs/_static/html-manager/``.
Open ``OUT/html/index.html``, or serve it: ``python -m http.server -d OUT/html``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
KERNEL_ENV = {
    "HF_HUB_OFFLINE": "1",
    "OMP_NUM_THREADS": "1",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


def execute_lesson(lesson: Path, out_dir: Path, timeout: int = 1200) -> Path:
    """Execute ``lesson`` in its own folder and write it, outputs and widget state, into ``out_dir``."""
    os.environ.update(KERNEL_ENV)  # the kernel inherits this process's environment
    nb = nbformat.read(lesson, as_version=4)
    NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(lesson.parent)}},
        store_widget_state=True,
    ).execute()
    out_dir.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, out_dir / lesson.name)
    return out_dir / lesson.name


def build_site(lessons: list[Path], out: Path) -> Path:
    """Execute ``lessons`` into ``out/src/lessons`` and render them into ``out/html``; return its index."""
    if not lessons:
        raise ValueError("lessons: give at least one lesson notebook")
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "docs", src)
    for lesson in lessons:
        print(f"executing {lesson.name}", flush=True)
        execute_lesson(lesson, src / "lessons")
    html = out / "html"
    subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "--keep-going", "-E", str(src), str(html)],
        check=True,
        env=os.environ | KERNEL_ENV,
    )
    return html / "index.html"


def lesson_paths(stems: list[str]) -> list[Path]:
    """The lesson notebooks named by ``stems`` (all lessons when empty)."""
    if not stems:
        return sorted(LESSONS.glob("*.ipynb"))
    paths = [LESSONS / f"{stem.removesuffix('.ipynb')}.ipynb" for stem in stems]
    missing = [p.name for p in paths if not p.exists()]
    if missing:
        raise ValueError(f"lessons: no such lesson in {LESSONS}: {', '.join(missing)}")
    return paths


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lessons", nargs="*", help="lesson stems, e.g. 01_attention_from_scratch (default: all)")
    p.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    args = p.parse_args()
    print(build_site(lesson_paths(args.lessons), args.out))


if __name__ == "__main__":
    main()
