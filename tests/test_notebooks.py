"""The lessons whose results are random variables (08 on) run headless, top to bottom, under another draw
of every seed (``XAI_TF_SEED_OFFSET``), as they would on another CPU; their solutions pass their
checkers. Every lesson runs once at the default seeds in ``test_browser.py``; where Chromium is missing
(outside CI), the others run here instead, so that every lesson still executes.

Every headless run loads the language model onto an emulated GPU (``gpu_emulation``), as Colab's
``device="auto"`` does, so a cell that draws a model's output without ``.cpu()`` fails here; the
lessons before 08 that load the model run here once more for that reason.

A lesson whose practice follows docs/practice.md (``lesson_runs.PRACTICE``) runs here as the students'
copy (``scripts/student_copy.py``), every exercise unsolved: it must still run to the end, each check
cell saying what is missing and the lesson going on with the library's function. That is the lesson's
headless run (its full version, solutions included, runs in the browser), so no execution is added.

The causal-LM lessons that a user may run on a model of their own (``OWN_MODEL``: 00, 05, 06, 15, 20) make
their headless run on one, as issue 57 pictures it: ``XAI_TF_MODEL`` set to a random tiny Llama saved by
Hugging Face with a sentencepiece-style ``tokenizer.json`` (``tiny_llama.py``; ``<s>`` opens every text).
Their browser run keeps the default model, so each still executes twice, once per model."""

import importlib.util
from pathlib import Path

import nbformat
import pytest
from lesson_runs import CHROMIUM, LESSONS, PRACTICE, RERUN_OFFSET, ROOT, SEEDED, check_executed
from nbclient import NotebookClient

spec = importlib.util.spec_from_file_location("student_copy", ROOT / "scripts" / "student_copy.py")
student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student)

BROWSER = Path(CHROMIUM).exists()
OWN_MODEL = ("00", "05", "06", "15", "20")
RUNS = [(p, RERUN_OFFSET, "students" if p in PRACTICE else "full") for p in SEEDED]
for p in LESSONS:
    if p in SEEDED:
        continue
    if p in PRACTICE:
        RUNS.append((p, 0, "students"))
    if not BROWSER or ("load_model(" in p.read_text() and p not in PRACTICE):
        RUNS.append((p, 0, "full"))
TESTS = str(Path(__file__).parent)
EMULATE_GPU = f"import sys\nsys.path.insert(0, {TESTS!r})\nimport gpu_emulation\ngpu_emulation.install()"


def test_lessons_exist():
    assert [p.name for p in LESSONS][:1] == ["00_start_here.ipynb"]
    assert [p.stem[:2] for p in SEEDED][:1] == ["08"]
    assert {"01", "02"} <= {p.stem[:2] for p in PRACTICE}


def check_unsolved(nb: nbformat.NotebookNode, name: str) -> None:
    """Every check cell of an unsolved students' copy says what is missing and that the lesson goes on."""
    checks = [c for c in nb.cells if "check" in c.metadata.get("tags", [])]
    assert checks, f"{name} has no check cell"
    for cell in checks:  # e.g. "✘ softmax: softmax(z) is None: did you forget to `return` it?"
        text = "".join(o.get("text", "") for o in cell.outputs)
        assert text.startswith("✘") and "return" in text and "the lesson goes on with" in text, (name, text)


def _own_model(path: Path) -> bool:
    return path.stem[:2] in OWN_MODEL


@pytest.fixture(scope="session")
def tiny_llama_directory(tmp_path_factory) -> Path:
    import tiny_llama

    return tiny_llama.write(tmp_path_factory.mktemp("tiny-llama"))


def test_the_own_model_lessons_load_the_default_model():
    """``XAI_TF_MODEL`` replaces the default, or the model a lesson names through ``hub.lesson_model``: a
    lesson of ``OWN_MODEL`` must load one of them."""
    for p in LESSONS:
        if _own_model(p):
            text = p.read_text().replace("xai_tf.", "")
            assert "load_model(device=" in text or "load_model(lesson_model(" in text, p.name


@pytest.mark.notebooks
@pytest.mark.parametrize(
    ("path", "offset", "copy"),
    RUNS,
    ids=[f"{p.stem}-offset{o}-{c}" + ("-own-model" if _own_model(p) else "") for p, o, c in RUNS],
)
def test_lesson_executes(path, offset, copy, monkeypatch, tmp_path, request):
    if _own_model(path):
        monkeypatch.setenv("XAI_TF_MODEL", str(request.getfixturevalue("tiny_llama_directory")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    monkeypatch.setenv("XAI_TF_SEED_OFFSET", str(offset))
    source = student.student_copy(path, tmp_path) if copy == "students" else path
    nb = nbformat.read(source, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(EMULATE_GPU))
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    del nb.cells[0]
    check_executed(nb, path.name)
    if copy == "students":
        check_unsolved(nb, path.name)
