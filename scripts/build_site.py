"""The course website: every lesson executed, then rendered by Sphinx (myst-nb, sphinx-book-theme).

    python scripts/build_site.py [--out build/site] [LESSON ...]

Each lesson (all of ``lessons/`` by default, or the stems given, e.g. ``01_attention_from_scratch``) is
executed headless with nbclient, offline (``HF_HUB_OFFLINE=1``) on one thread (``OMP_NUM_THREADS=1``),
its widget state saved in the notebook (``store_widget_state=True``), into ``OUT/src/lessons/``; then
``sphinx-build`` renders ``OUT/src`` (a copy of ``docs/`` plus those notebooks) into ``OUT/html``.
Nothing is fetched when the pages are read: MathJax 3 comes from the ``sphinx-mathjax-offline``
package, and the widget renderer (``@jupyter-widgets/html-manager``, BSD-3-Clause; myst-nb's default
loads it from a CDN) from the npm registry's pinned tarball, fetched once at setup into xai_tf's cache
(``XAI_TF_CACHE``, sha256 checked: ``--fetch`` does only that) and copied into the site.
Open ``OUT/html/index.html``, or serve it: ``python -m http.server -d OUT/html``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from xai_tf.transformer.corpus import cache_dir

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
KERNEL_ENV = {
    "HF_HUB_OFFLINE": "1",
    "OMP_NUM_THREADS": "1",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


#: The ipywidgets 8 renderer for static pages, pinned: ``npm pack`` of this spec has this sha256.
RENDERER = "@jupyter-widgets/html-manager@1.0.15"
RENDERER_TARBALL = "jupyter-widgets-html-manager-1.0.15.tgz"
RENDERER_SHA256 = "2b9d65cb7913e1c7d671757a10008b32c9c2448d4429513371e55c07d6107638"


def fetch_renderer() -> Path:
    """The renderer's npm tarball in the cache, fetched once with ``npm pack``, its sha256 checked."""
    path = cache_dir() / RENDERER_TARBALL
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "pack", "--silent", RENDERER, "--pack-destination", str(path.parent)], check=True
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != RENDERER_SHA256:
        raise ValueError(f"{path} has sha256 {digest}, expected {RENDERER_SHA256}")
    return path


def install_renderer(static: Path) -> None:
    """Copy the renderer's ``embed.js``, its fonts and licences from the cached tarball into ``static``."""
    tarball = cache_dir() / RENDERER_TARBALL
    if not tarball.exists():
        raise FileNotFoundError(
            f"{tarball} is missing: run `python scripts/build_site.py --fetch` (needs npm)"
        )
    static.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            name = Path(member.name)
            if (
                name.parent == Path("package/dist")
                and name.suffix in (".js", ".txt", ".woff", ".woff2")
                or (name == Path("package/LICENSE"))
            ):
                (static / name.name).write_bytes(tar.extractfile(member).read())


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
    install_renderer(src / "_static" / "html-manager")
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
    p.add_argument("--fetch", action="store_true", help="only fetch the widget renderer into the cache")
    args = p.parse_args()
    if args.fetch:
        print(fetch_renderer())
        return
    print(build_site(lesson_paths(args.lessons), args.out))


if __name__ == "__main__":
    main()
