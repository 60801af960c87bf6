"""Shared fixtures, the test tiers, and a table of the time spent in each tier.

Tiers (markers registered in pyproject.toml), given per file by ``TIERS`` below:

* ``unit`` — the engine and the page stage in-process (and the doctests of ``calib`` and ``sitegen``);
* ``build`` — runs ``build.py`` or another program (set-up, CLI), or reads the built site;
* ``browser`` — everything under ``tests/browser/`` (a real browser);
* ``slow`` — besides its tier, a file whose own work takes a minute or more on an idle 2-core machine.

``-m "not browser"`` runs everything but the browsers; ``-m unit`` is the quick loop. The tests run
unit → build → browser, and the site every tier shares is built in the background from the start of
the session, so the build overlaps the unit tests.

Shared fixtures, widest first:

* ``built_site`` — the whole site (every language), ``build.py --out``, built once per session. Read it,
  never write into it (copy it first); ``built_site_run`` is that build's finished process;
* ``single_file`` — the English one-file edition, ``build.py --single-file``, built once per session;
* ``site_without_simd`` — the whole site built with numpy's SIMD paths disabled (SSE only);
* ``precomputed`` — ``sitegen.precompute.precompute_all()``, computed once per session.

``CALIB_TEST_SITE=DIR`` (never in CI) tests a copy of an already built site instead of building one.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
BUILD_TIMEOUT = 900

# file name (in tests/) → its markers; any other file of tests/ and every doctest is ``unit``,
# every file under tests/browser/ is ``browser``
TIERS = {
    "test_build.py": ("build", "slow"),
    "test_content.py": ("build",),
    "test_cpu_independent_build.py": ("build", "slow"),
    "test_i18n.py": ("build", "slow"),
    "test_setup.py": ("build", "slow"),
    "test_user_model.py": ("build", "slow"),
    "test_user_decision.py": ("build", "slow"),
    "test_workflow.py": ("build",),
    "test_cli.py": ("build",),
    "test_io_exports.py": ("build",),
    "test_cache.py": ("build", "slow"),
    "test_panels.py": ("build",),
    "test_terms.py": ("build",),
    "test_exercises.py": ("build",),
    "test_lint.py": ("build",),
}
ORDER = ("unit", "build", "browser")


def markers_of(path):
    """The tier markers of the test file at ``path``."""
    path = Path(str(path)).resolve()
    if HERE / "browser" in path.parents:
        return ("browser",)
    if path.parent == HERE and path.name in TIERS:
        return TIERS[path.name]
    return ("unit",)


def tier_of(keywords):
    """The one tier (unit, build or browser) of a test, from its markers."""
    return next((tier for tier in reversed(ORDER) if tier in keywords), "unit")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark every test with its tier, and run the tiers in the order unit, build, browser (stable within)."""
    for item in items:
        for name in markers_of(item.path):
            item.add_marker(name)
    items.sort(key=lambda item: ORDER.index(tier_of(item.keywords)))


# --------------------------------------------------------------------------- builds in the background

# numpy 2.x names of the SIMD levels above the x86-64-v2 baseline (SSE4.2): with these disabled, numpy runs
# the SSE paths it runs on the oldest CPU it supports
NUMPY_WITHOUT_SIMD = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}

# fixture name → (folder, output name, options of build.py (OUT stands for the output), extra environment)
SHARED_BUILDS = {
    "built_site": ("site", "site", ("--out", "OUT"), {}),
    "single_file": ("single", "tutorial.html", ("--single-file", "OUT"), {}),
    "site_without_simd": ("site-without-simd", "site", ("--out", "OUT"), NUMPY_WITHOUT_SIMD),
}


class Build:
    """One ``build.py`` run started in the background; :meth:`result` waits for it."""

    def __init__(self, options, out, env=None):
        self.out = out
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
        self.process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), *map(str, options)], cwd=ROOT,
                                        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._done = None

    def result(self):
        if self._done is None:
            try:
                stdout, stderr = self.process.communicate(timeout=BUILD_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                stdout, stderr = self.process.communicate()
            self._done = subprocess.CompletedProcess(self.process.args, self.process.returncode, stdout, stderr)
        return self._done


_BUILDS = {}
_FOLDERS = []


def _folder(config, name):
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        return factory.mktemp(name)
    folder = Path(tempfile.mkdtemp(prefix=f"calib-{name}-"))
    _FOLDERS.append(folder)
    return folder


def _start(config, name):
    """Start the build behind the fixture ``name`` of ``SHARED_BUILDS`` (once); a ``Build``, or a ``Path``
    for a ``CALIB_TEST_SITE`` copy."""
    if name not in _BUILDS:
        folder, file_name, options, env = SHARED_BUILDS[name]
        out = _folder(config, folder) / file_name
        prebuilt = os.environ.get("CALIB_TEST_SITE")
        if name == "built_site" and prebuilt and not IN_CI:
            shutil.copytree(prebuilt, out)
            _BUILDS[name] = out
        else:
            _BUILDS[name] = Build([out if option == "OUT" else option for option in options], out, env)
    return _BUILDS[name]


def pytest_collection_finish(session):
    """Start the shared builds that the selected tests need, so they run while the first tests do."""
    if session.config.option.collectonly:
        return
    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    for name in SHARED_BUILDS:
        if name in needed:
            _start(session.config, name)


def pytest_sessionfinish(session):
    for build in _BUILDS.values():
        if isinstance(build, Build) and build.process.poll() is None:
            build.process.kill()
            build.process.communicate()
    for folder in _FOLDERS:
        shutil.rmtree(folder, ignore_errors=True)


def _finished(config, name):
    build = _start(config, name)
    if isinstance(build, Path):
        return build, None
    done = build.result()
    if done.returncode != 0:
        pytest.fail(f"build.py {' '.join(map(str, done.args[2:]))} failed ({done.returncode}):\n{done.stderr[-4000:]}",
                    pytrace=False)
    return build.out, done


@pytest.fixture(scope="session")
def built_site_run(pytestconfig):
    """The finished ``build.py --out`` process of :func:`built_site` (None for a ``CALIB_TEST_SITE`` copy)."""
    return _finished(pytestconfig, "built_site")[1]


@pytest.fixture(scope="session")
def built_site(pytestconfig, built_site_run):
    """The whole site, every language, built once per session: its folder (read only: copy it to change it)."""
    return _finished(pytestconfig, "built_site")[0]


@pytest.fixture(scope="session")
def single_file(pytestconfig):
    """The English one-file edition (``build.py --single-file``), built once per session: its path."""
    return _finished(pytestconfig, "single_file")[0]


@pytest.fixture(scope="session")
def site_without_simd(pytestconfig):
    """The whole site built with numpy's SIMD paths disabled (``NUMPY_WITHOUT_SIMD``), once per session."""
    return _finished(pytestconfig, "site_without_simd")[0]


@pytest.fixture(scope="session")
def precomputed():
    """The whole precomputation (every dataset over the shared grid), computed once per test session."""
    from sitegen.precompute import precompute_all

    return precompute_all()


# --------------------------------------------------------------------------- time per tier

_SECONDS = defaultdict(float)
_TESTS = defaultdict(set)
_STARTED = time.perf_counter()


def pytest_runtest_logreport(report):
    """Add each phase (set-up, call, tear-down) of a test to its tier, and to ``slow`` when it is marked so."""
    tiers = [tier_of(report.keywords)] + (["slow"] if "slow" in report.keywords else [])
    for tier in tiers:
        _SECONDS[tier] += report.duration
        _TESTS[tier].add(report.nodeid)


def pytest_terminal_summary(terminalreporter):
    if not _TESTS:
        return
    write = terminalreporter.write_line
    terminalreporter.section("time per tier")
    write(f"{'tier':<22}{'tests':>7}{'seconds':>10}")
    for tier in ORDER:
        if tier in _TESTS:
            write(f"{tier:<22}{len(_TESTS[tier]):>7}{_SECONDS[tier]:>10.1f}")
    if "slow" in _TESTS:
        write(f"{'(slow, within those)':<22}{len(_TESTS['slow']):>7}{_SECONDS['slow']:>10.1f}")
    total = sum(_SECONDS[tier] for tier in ORDER)
    write(f"{'all tiers':<22}{sum(len(_TESTS[t]) for t in ORDER):>7}{total:>10.1f}"
          f"   (session {time.perf_counter() - _STARTED:.1f} s of wall time)")
