"""The page in Debian's full Chromium (/usr/bin/chromium), the browser its readers run.

The rest of the suite drives Chromium's headless shell (tests/browser/conftest.py), which Debian builds
from the same source package: the same Blink and V8 without the full browser's per-page work. These tests
check that the two are one version, and that in the full browser the page loads without an error, builds
its explorer and shows the engine's cards at T = 1 and at the fitted T.
"""

from pathlib import Path

import pytest

from .conftest import CHROMIUM_ARGS, FULL_CHROMIUM, PageMonitor, missing, page_path
from .explorer_ui import Explorer
from .test_explorer import expected_cards, settle


@pytest.fixture(scope="module")
def full_chromium(browser):
    """Debian's full Chromium, headless, started by the session's Playwright (one per module)."""
    if not Path(FULL_CHROMIUM).exists():
        missing(f"Chromium ({FULL_CHROMIUM})", "apt-get update && apt-get install -y chromium")
    full = browser.browser_type.launch(executable_path=FULL_CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        yield full
    finally:
        full.close()


def test_the_headless_shell_is_the_full_browsers_build(browser, full_chromium):
    assert browser.version == full_chromium.version, (
        f"the tests' headless shell is Chromium {browser.version}, the full browser {full_chromium.version}: "
        "install both from the same Debian release (bash tools/setup.sh)")


def test_the_explorer_shows_the_engines_cards_in_the_full_browser(full_chromium, site_url, lang, ui, number,
                                                                   engine, expect):
    context = full_chromium.new_context(viewport={"width": 1280, "height": 900})
    monitor = PageMonitor()
    monitor.watch(context)
    try:
        page = context.new_page()
        page.goto(site_url + page_path(lang), wait_until="load")
        ex = Explorer(page, ui, expect, number=number)
        ex.choose(scheme="equal-width", bins=4)
        ex.reset.click()
        expect(ex.slider).to_have_value(str(engine.t1_index))
        assert settle(ex, engine)["cards"] == expected_cards("six", "all", 1.0, "equal-width", 4, number)
        ex.fit.click()
        fitted = engine.datasets["six"].fitted_t
        expect(ex.slider).to_have_value(str(engine.index_of(fitted)))
        assert settle(ex, engine)["cards"] == expected_cards("six", "all", fitted, "equal-width", 4, number)
        assert monitor.unexpected() == [], monitor.unexpected()
    finally:
        context.close()
