"""Every lesson in a real JupyterLab, driven by headless Chromium: run all cells, then check that
no cell shows an error and that every widget rendered as a widget; the run is saved and its solution
cells checked (``lesson_runs.check_executed``), so this is the one execution of each lesson at the
default seeds. Screenshots go to ``build/screenshots/``. Without Chromium these tests are skipped with
the reason, except in CI (``test_notebooks.py`` then executes every lesson instead)."""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from lesson_runs import CHROMIUM, LESSONS, ROOT, check_executed

SHOTS = ROOT / "build" / "screenshots"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDGET_AS_TEXT = re.compile(
    r"\b(IntSlider|FloatSlider|Dropdown|Textarea|Text|VBox|HBox|Button|"
    r"ToggleButtons|Checkbox|Output)\(|Loading widget|Error displaying widget"
)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lab_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("lab")


@pytest.fixture(scope="module")
def lab(lab_dir):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; .ci/run installs Debian's chromium")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium): browser checks not run")
    tmp = lab_dir
    shutil.copytree(ROOT / "lessons", tmp / "lessons")
    settings = tmp / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # Draw every cell, not only those in view, so that every output can be checked.
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    news = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = os.environ | {
        "HF_HUB_OFFLINE": "1",
        "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            "--allow-root",
            "--ServerApp.token=",
            "--ServerApp.password=",
            "--LabApp.expose_app_in_browser=True",
            f"--ServerApp.root_dir={tmp / 'lessons'}",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "lab.log", "w"),
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(120):
        if proc.poll() is not None:
            break
        try:
            urllib.request.urlopen(f"{url}/api", timeout=1)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail(f"JupyterLab did not start: {(tmp / 'lab.log').read_text()[-2000:]}")
    yield url
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(lab):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


# How many code cells of the open notebook have an execution count, out of how many.
EXECUTED = """() => {
  const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
  let done = 0, code = 0;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === "code") { code++; if (cell.executionCount) done++; }
  }
  return [done, code];
}"""


# Save the open notebook with its outputs, then shut its kernel down (resolves when both are done).
SAVE_AND_SHUT_DOWN = """async () => {
  const panel = window.jupyterapp.shell.currentWidget;
  await panel.context.save();
  await panel.sessionContext.shutdown();
}"""


# Every widget output has a view and none is still "Loading widget…".
WIDGETS_DRAWN = """() => {
  const outputs = [...document.querySelectorAll('.jp-OutputArea-output')];
  const views = outputs.filter(o => o.dataset.mimeType === 'application/vnd.jupyter.widget-view+json');
  const drawn = views.every(v => v.querySelector('.jupyter-widgets'));
  return drawn && !document.body.innerText.includes('Loading widget');
}"""
# Resolves after the browser has drawn two more frames (a scrolled panel is painted by then).
NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _wait_idle(page, timeout_s: float) -> None:
    page.get_by_text(re.compile(r"\|\s*Idle")).first.wait_for(timeout=timeout_s * 1000)


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_in_jupyterlab(lab, lab_dir, browser, path):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    console_errors = []
    page.on("console", lambda msg: console_errors.append(msg.text) if msg.type == "error" else None)
    page.goto(f"{lab}/lab/tree/{path.name}?reset")
    _wait_idle(page, 120)
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    deadline = time.time() + 600
    while time.time() < deadline:
        done, n_code = page.evaluate(EXECUTED)
        if done == n_code:
            break
        time.sleep(1)
    else:
        pytest.fail(f"{path.name}: {done} of {n_code} code cells ran in 600 s")
    _wait_idle(page, 60)
    page.wait_for_function(WIDGETS_DRAWN, timeout=30_000)
    bertviz = page.locator('.jp-OutputArea-output div[id^="bertviz-"]')
    assert bertviz.count() == path.read_text().count("viz.bertviz_view("), (
        f"{path.name}: a bertviz view is missing"
    )
    assert not [e for e in console_errors if "require" in e or "d3" in e], console_errors
    errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')
    assert errors.count() == 0, errors.all_inner_texts()
    outputs = "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())
    assert "Traceback" not in outputs
    assert not WIDGET_AS_TEXT.search(outputs), WIDGET_AS_TEXT.search(outputs).group(0)
    for i in range(bertviz.count()):  # bertviz views draw their SVG offline, on this first run
        assert bertviz.nth(i).locator("svg text").count() > 0, f"bertviz view {i} of {path.name} drew nothing"
    views = page.locator(".jp-OutputArea-output .jupyter-widgets")
    assert views.count() > 0, f"{path.name} shows no rendered widget"
    markdown = "\n".join(page.locator(".jp-MarkdownOutput").all_inner_texts())
    assert "$" not in markdown, f"{path.name}: a formula was not typeset by MathJax"
    assert page.locator(".jp-MarkdownOutput mjx-container").count() >= _math_count(path)
    SHOTS.mkdir(parents=True, exist_ok=True)
    _open_a_hint_and_answer_a_prediction(page, path)
    views.first.scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / f"{path.stem}.png")
    _screenshot_every_screen(page, path.stem)
    page.evaluate(SAVE_AND_SHUT_DOWN)  # the saved run is checked below; its kernel's memory is given back
    check_executed(nbformat.read(lab_dir / "lessons" / path.name, as_version=4), path.name)
    page.close()


def _open_a_hint_and_answer_a_prediction(page, path: Path) -> None:
    """As a student would: open the first hint (its text was hidden, now shows) and answer the first
    prediction (its verdict and explanation appear). Lessons without practice cells have neither."""
    tags = [set(c.get("metadata", {}).get("tags", [])) for c in json.loads(path.read_text())["cells"]]
    if any("hint" in t for t in tags):
        hint = page.locator(".jp-MarkdownOutput details").first
        hint.scroll_into_view_if_needed()
        body = hint.locator(":scope > :not(summary)").first
        assert not body.is_visible(), f"{path.name}: a hint shows before it is opened"
        hint.locator("summary").first.click()
        body.wait_for(state="visible", timeout=5_000)
        page.screenshot(path=SHOTS / f"{path.stem}-hint.png")
    if any("predict" in t for t in tags):
        form = page.locator(".xai-tf-predict").first
        form.scroll_into_view_if_needed()
        radio = form.locator("input[type=radio]")
        if radio.count():
            radio.first.check()
        else:
            form.locator("input[type=text]").fill("0")
        form.get_by_role("button", name="Check").click()
        form.get_by_text(re.compile("✔ Right|✘ Not quite")).wait_for(timeout=10_000)
        page.screenshot(path=SHOTS / f"{path.stem}-predict.png")


def _math_count(path: Path) -> int:
    """How many formulas the notebook's markdown holds (each $$…$$ or $…$ becomes one MathJax element)."""
    markdown = [c["source"] for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"]
    return sum(len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+?\$", "".join(s), re.S)) for s in markdown)


def _screenshot_every_screen(page, stem: str) -> None:
    """The whole notebook, one screen at a time: JupyterLab scrolls its own panel, not the page."""
    panel = page.locator(".jp-NotebookPanel .jp-WindowedPanel-outer").first
    height, screen = panel.evaluate("e => [e.scrollHeight, e.clientHeight]")
    for k, top in enumerate(range(0, height, screen)):
        panel.evaluate(f"e => {{ e.scrollTop = {top}; }}")
        page.evaluate(NEXT_FRAMES)
        page.screenshot(path=SHOTS / f"{stem}-{k:02d}.png")


SLIDE_IN_PLACE = """() => {
  const box = document.querySelector('.reveal .slides > section.present').getBoundingClientRect();
  return box.left >= 0 && box.right <= window.innerWidth;
}"""


def test_a_lesson_opens_as_slides(lab, browser):
    """jupyterlab-rise shows lesson 02 as slides: one per section (scripts/slides.py's rule), offline."""
    path = ROOT / "lessons" / "02_masking.ipynb"
    cells = nbformat.read(path, as_version=4).cells
    n_slides = sum(c.metadata["slideshow"]["slide_type"] == "slide" for c in cells)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{lab}/rise/{path.name}")
    page.locator(".reveal .slides > section").first.wait_for(timeout=120_000)
    assert page.locator(".reveal .slides > section").count() == n_slides
    present = page.locator(".reveal .slides > section.present")
    present.locator("h1", has_text="Masking").wait_for()  # the title cell, rendered
    page.keyboard.press("ArrowRight")
    present.locator("h2", has_text="The causal mask").wait_for()
    page.wait_for_function(SLIDE_IN_PLACE)  # the transition has ended: the screenshot shows the slide
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / "slides-02_masking.png")
    page.close()
