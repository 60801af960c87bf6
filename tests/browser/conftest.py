"""Browser tests: build the site once, serve it on loopback, drive Debian's Chromium through Playwright.

Fixtures, widest first:

* ``site_dir`` — the site, built once per session with ``build.py --out`` (``built_site``, tests/conftest.py);
* ``site_url`` — that folder served on 127.0.0.1 at a free port by ``sitegen.write.serve`` (stopped at the end);
* ``browser`` — one headless Chromium per session: Debian's ``chromium-headless-shell``, the same build of
  Blink and V8 as its ``chromium`` at a third of the processor time per page (never a downloaded build;
  test_chromium.py runs the page in the full ``/usr/bin/chromium`` too);
* ``open_page`` — opens the page in a fresh browser context and watches it: any uncaught error,
  console error, failed or 4xx/5xx request, or request to a host other than 127.0.0.1/localhost
  fails the test that opened it (after the test body, as a failure of the test itself);
* ``lang`` — a language edition of the site (``sitegen.common.settings.LANGUAGES``) for a test that asks
  for it, or for ``open_explorer``, ``ui`` or ``number``. A test marked ``every_language`` (what the
  language changes: layout of longer words, the page's strings, accessibility, HTML) runs once per
  language; any other test checks behaviour that is the same in every edition and runs in one of them,
  chosen by its name so the suite spreads over every edition (``:func:`language_of```).
  ``CALIB_EVERY_LANGUAGE=1`` runs every such test in every language;
* ``open_explorer`` — ``open_page`` of the ``lang`` edition, for tests of the main explorer: its controls
  found by role and label;
* ``engine`` — ``sitegen.compute.precompute.precompute_all()``, computed once (``precomputed``), for expected values;
* ``ui`` — the ``lang`` edition's interface strings as its page shows them (engine constants filled in,
  from ``edition_strings``), to find controls by their labels; the page's own strings JSON carries only
  the keys its scripts read;
* ``number`` — that edition's number filters (``sitegen.common.numbers.number_filters`` with its ``[format]``),
  to write expected values as the page does.

A missing browser (or Playwright, or the npm tools) fails every browser test when ``CI`` is set;
elsewhere those tests are skipped with the command that installs what is missing.
"""

import contextlib
import os
import re
import shutil
import sys
import zlib
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sitegen.common.settings import LANGUAGES  # noqa: E402
from sitegen.write.serve import serving  # noqa: E402  (after the path set-up above)

# Debian's headless shell: the same Blink and V8 as /usr/bin/chromium (one source package, one version), without
# the full browser's per-page work; measured here, a page with its explorer built and moved took 0.55 core-seconds
# against 1.7, and the browser tier 306 s of wall time against 449 s
CHROMIUM = "/usr/bin/chromium-headless-shell"
FULL_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
NODE_MODULES = ROOT / "node_modules"
AXE_SCRIPT = NODE_MODULES / "axe-core" / "axe.min.js"
VNU_JAR = NODE_MODULES / "vnu-jar" / "build" / "dist" / "vnu.jar"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
SETUP_COMMAND = "bash tools/setup.sh"
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what, install):
    """A prerequisite is missing: fail under CI, skip (naming the install command) elsewhere."""
    message = f"{what} is missing; install it with: {install} (or everything at once: {SETUP_COMMAND})"
    if IN_CI:
        pytest.fail(f"CI: {message}", pytrace=False)
    pytest.skip(message)


EVERY_LANGUAGE = os.environ.get("CALIB_EVERY_LANGUAGE", "").strip().lower() not in ("", "0", "false", "no")


def language_of(test_name):
    """The one edition a language-independent test runs in: a stable choice by its function's name, so
    the tests spread over every edition and a run chooses as the last one did."""
    languages = list(LANGUAGES)
    return languages[zlib.crc32(test_name.encode("utf-8")) % len(languages)]


def _parametrized_names(definition):
    """The argument names a test's own ``@pytest.mark.parametrize`` marks give values to."""
    names = set()
    for mark in definition.iter_markers("parametrize"):
        argnames = mark.args[0]
        names.update(n.strip() for n in argnames.split(",")) if isinstance(argnames, str) else names.update(argnames)
    return names


def pytest_generate_tests(metafunc):
    """Give ``lang`` every edition for a test marked ``every_language``, else one (see the module docstring);
    a test whose own ``parametrize`` names its languages keeps them."""
    if "lang" not in metafunc.fixturenames or "lang" in _parametrized_names(metafunc.definition):
        return
    every = EVERY_LANGUAGE or metafunc.definition.get_closest_marker("every_language") is not None
    languages = list(LANGUAGES) if every else [language_of(metafunc.definition.originalname)]
    metafunc.parametrize("lang", languages, indirect=True, scope="session")


def pytest_collection_modifyitems(config, items):
    """Mark every test in this folder ``browser`` (``-m 'not browser'`` deselects them)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.browser)


# --------------------------------------------------------------------------- the site

@pytest.fixture(scope="session")
def site_dir(built_site):
    """The site the whole session shares (``built_site``, tests/conftest.py: built once, in the background
    from the start; ``CALIB_TEST_SITE=DIR`` tests a copy of an already built folder, never in CI).
    The tests may write beside it (in its parent folder), never into it."""
    return built_site


@pytest.fixture(scope="session")
def site_url(site_dir):
    """Base URL (ending in "/") of the built site served on loopback."""
    with serving(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def engine(precomputed):
    """``sitegen.compute.precompute.precompute_all()``, once per session: the ``precomputed`` of tests/conftest.py."""
    return precomputed


@pytest.fixture(scope="session")
def lang(request):
    """A language tag of ``sitegen.common.settings.LANGUAGES``, given by :func:`pytest_generate_tests`."""
    return request.param


def page_path(lang, path=""):
    """``path`` (may be "" or start with "#") inside the folder of the ``lang`` edition."""
    folder = LANGUAGES[lang]
    return f"{folder}/{path}" if folder else path


@pytest.fixture(scope="session")
def page_strings(site_dir, lang):
    """The strings the ``lang`` page's scripts read (``ui``, ``format``, ``datasets``), from the built page."""
    import json
    html = (site_dir / page_path(lang, "index.html")).read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="ct-strings">(.*?)</script>', html, re.S)
    assert match, "the page has no ct-strings script"
    return json.loads(match.group(1).replace("<\\/", "</"))


@pytest.fixture(scope="session")
def edition_strings(engine):
    """``{lang: strings table}`` of every edition as its page shows it (``sitegen.render.page_strings.filled_strings``:
    the engine's constants filled in). The facts the build makes (the analyses take seconds), shared with
    the other tests through ``sitegen_inputs.page_inputs``."""
    from sitegen_inputs import page_inputs

    from sitegen.content.sections import load_strings
    from sitegen.render.page_strings import filled_strings
    facts = page_inputs(engine)[1]
    return {lang: filled_strings(load_strings(ROOT / "content" / lang), facts, engine.datasets) for lang in LANGUAGES}


@pytest.fixture(scope="session")
def ui(edition_strings, lang):
    """The ``[ui]`` table of the ``lang`` edition: labels, button texts and captions, as the page shows them."""
    return edition_strings[lang]["ui"]


@pytest.fixture(scope="session")
def number(page_strings):
    """The ``lang`` edition's number filters: ``number["pct"](0.129)`` is "12.9%" in English, "12.9 %" in Spanish."""
    from sitegen.common.numbers import number_filters
    return number_filters(page_strings["format"])


# --------------------------------------------------------------------------- the browser

@pytest.fixture(scope="session")
def browser():
    """One headless Debian Chromium (its headless shell) for the whole session."""
    if not Path(CHROMIUM).exists():
        missing(f"Chromium's headless shell ({CHROMIUM})",
                "apt-get update && apt-get install -y chromium-headless-shell")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("The Python package playwright", "bash tools/setup.sh")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def expect(browser):
    """Playwright's auto-waiting ``expect`` (a fixture, so a missing Playwright fails or skips like Chromium)."""
    from playwright.sync_api import expect as playwright_expect
    return playwright_expect


def is_local(url):
    """True for URLs that stay on this machine: loopback http(s), file:, data:, blob:, about:."""
    parts = urlsplit(url)
    if parts.scheme in ("file", "data", "blob", "about", "chrome-error"):
        return True
    return parts.scheme in ("http", "https", "ws", "wss") and (parts.hostname or "") in LOCAL_HOSTS


def _navigation_abort(request):
    """True for the browser's own favicon fetch cancelled by a navigation (a click on a link may leave
    the page before the icon arrives): the page did nothing wrong (test_page.py checks the icon loads)."""
    return urlsplit(request.url).path.endswith("/favicon.svg") and "ABORTED" in (request.failure or "")


class PageMonitor:
    """What a page did: every request, and every problem (errors, failed or external requests)."""

    def __init__(self):
        self.requests = []
        self.problems = []
        self._allowed = []

    def allow(self, pattern):
        """Tolerate problems matching ``pattern`` (a regex), e.g. a request a test makes fail on purpose."""
        self._allowed.append(re.compile(pattern))

    def add(self, problem):
        self.problems.append(problem)

    def unexpected(self):
        return [p for p in self.problems if not any(a.search(p) for a in self._allowed)]

    def external(self):
        return [url for url in self.requests if not is_local(url)]

    def watch(self, context):
        """Record every request of ``context``'s pages; abort (and report) any that leaves the machine."""
        def on_external(route):
            self.add(f"external request: {route.request.method} {route.request.url}")
            route.abort()

        context.route(lambda url: not is_local(url), on_external)
        context.on("request", lambda request: self.requests.append(request.url))
        context.on("requestfailed", lambda request: is_local(request.url) and not _navigation_abort(request)
                   and self.add(f"request failed: {request.url} ({request.failure})"))
        context.on("response", lambda response: response.status >= 400 and self.add(
            f"HTTP {response.status}: {response.url}"))
        context.on("page", self.watch_page)

    def watch_page(self, page):
        page.on("pageerror", lambda error: self.add(f"uncaught error: {error}"))
        page.on("console", lambda message: message.type == "error" and self.add(
            f"console error: {message.text} "
            f"({message.location.get('url', '')}:{message.location.get('lineNumber', '')})"))


_MONITORS = pytest.StashKey()


@pytest.fixture
def watched_page(browser, request):
    """``watched_page(*, timeout=10_000, route=None, **context_options)`` → a new page in a context of its
    own, watched by a :class:`PageMonitor` (``page.monitor``) that fails the test on a problem; with
    ``route(monitor)``, a ``(predicate, handler)`` pair routed in the context before the page opens.
    Every context is closed after the test. The one place the page openers below make their pages."""
    contexts = []
    monitors = request.node.stash.setdefault(_MONITORS, [])

    def make(*, timeout=10_000, route=None, **context_options):
        context = browser.new_context(**context_options)
        context.set_default_timeout(timeout)
        contexts.append(context)
        monitor = PageMonitor()
        monitors.append(monitor)
        monitor.watch(context)
        if route is not None:
            context.route(*route(monitor))
        page = context.new_page()
        page.monitor = monitor
        return page

    yield make
    for context in contexts:
        with contextlib.suppress(Exception):
            context.close()


@pytest.fixture
def open_page(watched_page, site_url, site_dir):
    """``open_page(path="", *, file=False, wait="load", **context_options)`` → a watched Playwright page.

    ``path`` is relative to the site (it may carry a ``#state/…`` hash), or with ``lang`` to that
    language's edition; ``file=True`` opens it from ``file://`` instead of http. ``context_options`` go to
    ``browser.new_context`` (``color_scheme``, ``viewport``, ``java_script_enabled``, ``reduced_motion``, …). The page's
    monitor is ``page.monitor``; call ``page.monitor.allow(regex)`` for a problem a test provokes.
    """
    def opener(path="", *, file=False, wait="load", lang=None, **context_options):
        context_options.setdefault("viewport", {"width": 1280, "height": 900})
        page = watched_page(**context_options)
        folder = LANGUAGES[lang] if lang is not None else ""
        if file:
            url = (site_dir / folder / "index.html").as_uri() + (
                path[len("index.html"):] if path.startswith("index.html") else path)
        else:
            url = site_url + page_path(lang, path) if lang is not None else site_url + path
        if wait is not None:
            page.goto(url, wait_until=wait)
        else:
            page.goto(url)
        return page

    return opener


class _MonitorSince:
    """The problems a shared page's :class:`PageMonitor` saw from one test's start on (see ``shared_page``)."""

    def __init__(self, monitor):
        self.monitor, self.start = monitor, len(monitor.problems)

    @property
    def problems(self):
        return self.monitor.problems[self.start:]

    def unexpected(self):
        return [p for p in self.problems if not any(a.search(p) for a in self.monitor._allowed)]


@pytest.fixture(scope="module")
def _shared_pages(browser, site_url, site_dir):
    """The pages ``shared_page`` opened in this module, by what was asked: ``{key: page}``."""
    pages = {}
    yield pages
    for page in pages.values():
        with contextlib.suppress(Exception):
            page.context.close()


@pytest.fixture
def shared_page(_shared_pages, browser, site_url, site_dir, request):
    """``shared_page(path="", *, lang=None, group="", **context_options)`` → a watched page, as ``open_page``
    opens it (``file`` and ``wait`` aside), shared with the module's other tests that ask for the same: for
    tests that only read the page (no click, key or media change; a scroll is fine). Tests that all bring
    the page to one state first (every disclosure open, say) share it under a ``group`` name of their own.
    A page costs a context, a load and the scripts' start (about half a core-second, and more in the
    worker); a module's readers share one. What its monitor sees while a test runs fails that test, as
    with ``open_page``."""
    monitors = request.node.stash.setdefault(_MONITORS, [])

    def opener(path="", *, lang=None, group="", **context_options):
        context_options.setdefault("viewport", {"width": 1280, "height": 900})
        key = (path, lang, group, repr(sorted(context_options.items())))
        page = _shared_pages.get(key)
        if page is None:
            context = browser.new_context(**context_options)
            context.set_default_timeout(10_000)
            monitor = PageMonitor()
            monitor.watch(context)
            page = context.new_page()
            page.monitor = monitor
            monitors.append(_MonitorSince(monitor))  # the opening test answers for the load
            page.goto(site_url + (page_path(lang, path) if lang is not None else path), wait_until="load")
            _shared_pages[key] = page
        else:
            monitors.append(_MonitorSince(page.monitor))
        return page

    return opener


@pytest.fixture
def open_explorer(open_page, ui, number, lang, expect):
    """``open_explorer(path="", **open_page_options)`` → the ``lang`` page's main explorer as an
    :class:`~tests.browser.explorer_ui.Explorer` (its page is ``.page``, its number filters ``.number``)."""
    from .explorer_ui import Explorer

    def opener(path="", **options):
        return Explorer(open_page(path, lang=lang, **options), ui, expect, number=number)

    return opener


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """After a passing test body, fail it if any page it opened misbehaved (see :class:`PageMonitor`); after
    a failing one, report what the pages' monitors saw (a failed data request explains many a timeout)."""
    try:
        result = yield
    except BaseException:
        seen = [p for monitor in item.stash.get(_MONITORS, []) for p in monitor.problems]
        if seen:
            item.add_report_section("call", "page monitor", "\n".join(dict.fromkeys(seen)))
        raise
    problems = [p for monitor in item.stash.get(_MONITORS, []) for p in monitor.unexpected()]
    if problems:
        shown = "\n  ".join(dict.fromkeys(problems))
        raise AssertionError(f"the page misbehaved ({len(problems)} problem(s)):\n  {shown}")
    return result


# --------------------------------------------------------------------------- npm tools

@pytest.fixture(scope="session")
def axe_script():
    """Path of axe-core's browser bundle from node_modules."""
    if not AXE_SCRIPT.exists():
        missing(f"axe-core ({AXE_SCRIPT.relative_to(ROOT)})", "npm ci")
    return AXE_SCRIPT


@pytest.fixture(scope="session")
def vnu_command():
    """The Nu HTML checker's command line (without file arguments)."""
    if not VNU_JAR.exists():
        missing(f"vnu-jar ({VNU_JAR.relative_to(ROOT)})", "npm ci")
    java = shutil.which("java")
    if java is None:
        missing("Java (for vnu.jar)", "apt-get update && apt-get install -y default-jre-headless")
    # A run checks a few pages and ends: the JVM's quick compiler alone and its serial collector halve its
    # CPU time (4.3 → 2.1 core-seconds for the two editions' pages); that compiler's frames need the
    # larger stack (at the default, vnu stops with a StackOverflowError while it reads its HTML schema).
    return [java, "-Xss4m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", str(VNU_JAR)]
