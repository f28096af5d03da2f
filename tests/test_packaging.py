"""Binder and conda files cannot be exercised here (no container engine, no conda channel), so
they are checked against pyproject.toml, the one source of the dependencies."""

import os
import stat
from pathlib import Path

import pytest
import tomllib
import yaml

ROOT = Path(__file__).parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize("path", ["environment.yml", "binder/environment.yml"])
def test_conda_environment_matches_pyproject(path):
    env = yaml.safe_load((ROOT / path).read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert "torch==2.13.0" in PROJECT["dependencies"]
    assert "pytorch-cpu=2.13.0" in conda  # the CPU build, same version as the pin
    assert env["channels"][0] == "conda-forge"
    wanted = PROJECT["dependencies"] + PROJECT["optional-dependencies"]["lab"]  # lessons and their slides
    assert sorted(d for d in pip if not d.startswith("-e")) == sorted(
        d for d in wanted if not d.startswith("torch")
    )


def test_binder_post_build_fetches_gpt2_and_the_tweets_and_checks_widgets():
    post = ROOT / "binder" / "postBuild"
    assert os.stat(post).st_mode & stat.S_IXUSR
    text = post.read_text()
    assert "python -m xai_tf.models.hub gpt2" in text
    assert "python -m xai_tf.tasks.tweets" in text  # lesson 08's data, fetched before class
    assert "@jupyter-widgets/jupyterlab-manager" in text


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text()
    blocks = [line for line in readme.splitlines() if line.startswith("make ")]
    assert blocks[:2] == ["make lab", "make test"]
    assert "mybinder.org" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text()
