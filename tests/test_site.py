"""The course website (``scripts/build_site.py``), built for two small lessons and read in headless Chromium
served from localhost: a figure, a typeset formula and a widget panel's first frame (drawn from the saved
widget state) are visible, the search page finds a word, no page asset is missing, and no request leaves
the machine (every request is routed; one to another host fails the test). Screenshots go to
``build/screenshots/site_*.png``."""

import functools
import importlib.util
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import pytest
from lesson_runs import CHROMIUM, ROOT
from test_browser import FLAGS, WIDGET_AS_TEXT

SHOTS = ROOT / "build" / "screenshots"
LESSONS = ["01_attention_from_scratch", "02_masking"]

pytestmark = pytest.mark.site


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """The site's build folder: ``src/lessons/*.ipynb`` (the executed lessons) and ``html/``."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}; .ci/run installs Debian's chromium")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium): site check not run")
    if importlib.util.find_spec("myst_nb") is None:
        if os.environ.get("CI"):
            pytest.fail("the site's dependencies are missing: pip install -e '.[site]'")
        pytest.skip("no myst-nb (pip install -e '.[site]'): site check not run")
    out = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_site.py"), "--out", str(out), *LESSONS], check=True
    )
    return out


@pytest.fixture(scope="module")
def site(built):
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(built / "html")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chromium
        chromium.close()


def _guarded_page(browser, site: str):
    """A page whose every request is routed: the site on localhost goes through, anything else is aborted
    and recorded in ``outside``; every failed local response and every uncaught script error (a widget
    that fails to render, say) is recorded in ``missing``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    outside, missing = [], []

    def route(r) -> None:
        if r.request.url.startswith((site + "/", "data:", "blob:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.on("response", lambda resp: resp.status >= 400 and missing.append(f"{resp.status} {resp.url}"))
    page.on("pageerror", lambda error: missing.append(f"script error: {error}"))
    return context, page, outside, missing


@pytest.fixture
def page(site, browser):
    context, pg, outside, missing = _guarded_page(browser, site)
    yield pg
    context.close()
    assert not outside, f"requests leaving the machine: {outside}"
    assert not missing, f"site assets or scripts that failed: {missing}"


def test_the_guard_sees_a_request_leave(site, browser):
    """The routing above does catch a request to another host (so an empty list means something)."""
    context, page, outside, _ = _guarded_page(browser, site)
    page.goto(f"{site}/index.html", wait_until="load")
    page.evaluate("() => fetch('https://cdn.jsdelivr.net/npm/mathjax@3').catch(() => null)")
    context.close()
    assert outside == ["https://cdn.jsdelivr.net/npm/mathjax@3"]


def _visible_count(locator) -> int:
    return sum(locator.nth(i).is_visible() for i in range(locator.count()))


@pytest.mark.parametrize("lesson", LESSONS)
def test_lesson_page_shows_figure_formula_and_widget(built, site, page, lesson):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{site}/lessons/{lesson}.html", wait_until="load")
    page.wait_for_selector("mjx-container", state="visible", timeout=20_000)
    page.wait_for_selector(".cell_output .widget-hslider", state="visible", timeout=20_000)
    page.screenshot(path=SHOTS / f"site_{lesson}_top.png")
    outputs = [
        o
        for c in nbformat.read(built / "src" / "lessons" / f"{lesson}.ipynb", 4).cells
        for o in c.get("outputs", [])
    ]
    text = " ".join(page.inner_text("article").split())
    for o in outputs:
        if o.output_type == "stream" and o.text.strip():  # every printed output, its last line at least
            last = " ".join(o.text.strip().splitlines()[-1].split())
            assert last in text, f"a printed output is missing from the page: {last!r}"
    figures = page.locator(".cell_output img:not(.jupyter-widgets img)")
    n_png = sum("image/png" in o.get("data", {}) for o in outputs)
    assert n_png > 0 and figures.count() == n_png, (
        f"{figures.count()} figures on the page, {n_png} in the lesson"
    )
    for i in range(figures.count()):
        figures.nth(i).scroll_into_view_if_needed()
        assert figures.nth(i).is_visible(), f"figure {i} is not visible"
        assert figures.nth(i).evaluate("img => img.complete && img.naturalWidth > 0"), f"figure {i} is empty"
    page.evaluate("() => MathJax.startup.promise")
    formulas = page.locator(".math")
    assert formulas.count() > 10, "the lesson's formulas did not reach the page"
    untypeset = page.locator(".math:not(:has(mjx-container))")
    assert untypeset.count() == 0, f"formulas not typeset by MathJax: {untypeset.first.inner_text()}"
    assert not WIDGET_AS_TEXT.search(text), f"a widget shown as text: {WIDGET_AS_TEXT.search(text)}"
    hints = sum(
        c.source.count("<summary>Hint ") for c in nbformat.read(ROOT / "lessons" / f"{lesson}.ipynb", 4).cells
    )
    assert hints and page.locator("article details > summary").count() == hints, "the hints are not drawn"
    question = page.locator(".cell_output .xai-tf-predict").first  # a prediction: its choices are drawn
    question.scroll_into_view_if_needed()
    assert question.locator(".widget-radio-box input").first.is_visible(), (
        "a prediction's choices are missing"
    )
    panel = page.locator(".cell_output .widget-vbox:not(.xai-tf-predict)").first
    panel.scroll_into_view_if_needed()
    controls = {"01": ".widget-dropdown select", "02": ".widget-toggle-buttons button"}[lesson[:2]]
    assert panel.locator(controls).first.is_visible(), f"the panel's {controls} is not drawn"
    assert panel.locator(".widget-hslider").first.is_visible(), "the panel's slider is not drawn"
    # its first frame: the SVG figures the panel drew when the lesson was executed
    assert _visible_count(panel.locator("svg")) >= 1, "the panel's first frame (its SVG figures) is missing"
    panel.screenshot(path=SHOTS / f"site_{lesson}_panel.png")
    page.locator("button[aria-label='Launch interactive content']").click()
    page.screenshot(path=SHOTS / f"site_{lesson}_launch_menu.png")
    launch = page.locator("a[href*='mybinder.org'], a[href*='colab.research.google.com']")
    hrefs = {launch.nth(i).get_attribute("href") for i in range(launch.count())}
    assert hrefs == {
        f"https://mybinder.org/v2/gh/xai-tf/xai_tf/main?urlpath=lab/tree/lessons/{lesson}.ipynb",
        f"https://colab.research.google.com/github/xai-tf/xai_tf/blob/main/lessons/{lesson}.ipynb",
    }


def test_search_finds_a_word_offline(site, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{site}/search.html?q=causal", wait_until="load")
    hit = page.locator("#search-results a[href*='02_masking']").first
    hit.wait_for(state="visible", timeout=20_000)
    page.screenshot(path=SHOTS / "site_search.png")
    page.goto(f"{site}/index.html", wait_until="load")
    page.screenshot(path=SHOTS / "site_index.png")
