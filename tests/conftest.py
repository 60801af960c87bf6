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
* ``digits_report`` — ``build.py --data`` on a scikit-learn digits model (tests/digits_model.py);
* ``user_builds`` — ``build.py --data`` on the small hostile models of tests/user_inputs.py (four builds);
* ``precomputed`` — ``sitegen.compute.precompute.precompute_all()``, computed once per session.

The builds are shared by every pytest process of the run (``pytest -n``), and every build of the run, the
tests' own included, shares one build cache (``$CALIB_BUILD_CACHE``) in the run's temporary folder.

``CALIB_TEST_SITE=DIR`` (never in CI) tests a copy of an already built site instead of building one.
"""

import importlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest
import user_inputs

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
    "test_user_payload.py": ("build", "slow"),
    "test_user_decision.py": ("build", "slow"),
    "test_workflow.py": ("build",),
    "test_cli.py": ("build",),
    "test_cli_exports.py": ("build",),
    "test_io_exports.py": ("build",),
    "test_cache.py": ("build", "slow"),
    "test_panels.py": ("build",),
    "test_metrics.py": ("build",),
    "test_terms.py": ("build",),
    "test_exercises.py": ("build",),
    "test_core_path.py": ("build",),
    "test_lint.py": ("build",),
    "test_beyond.py": ("build",),
    "test_distributed.py": ("build",),
    "test_charts.py": ("build",),
}
ORDER = ("unit", "build", "browser")
# The files that take longest, longest first: each starts first within its tier, so that with pytest -n (whole
# files per worker) no long file is left to run alone at the end. (Measured on an idle 2-core machine.)
LONGEST_FIRST = ("test_user_model.py", "test_user_payload.py", "test_setup.py", "test_cache.py",
                 "test_user_decision.py", "test_reading.py", "test_explorer.py", "test_a11y.py", "test_yours.py",
                 "test_embeds.py", "test_first_reading.py", "test_firefox.py", "test_analysis_views.py")


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
    """Mark every test with its tier, and order the files: first those whose tests wait for no shared build (they
    run while the site builds in the background), then the others; within each, the tiers in the order unit,
    build, browser, and the files of ``LONGEST_FIRST`` first (the order is otherwise stable)."""
    waiting = set(SHARED_BUILDS) | set(FIXTURE_BUILDS) | {"precomputed"}
    waits = set()
    for item in items:
        for name in markers_of(item.path):
            item.add_marker(name)
        if waiting & set(getattr(item, "fixturenames", ())):
            waits.add(item.path)

    def rank(item):
        name = Path(str(item.path)).name
        return item.path in waits, ORDER.index(tier_of(item.keywords)), \
            LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)


# --------------------------------------------------------------------------- builds in the background

# numpy 2.x names of the SIMD levels above the x86-64-v2 baseline (SSE4.2): with these disabled, numpy runs
# the SSE paths it runs on the oldest CPU it supports
NUMPY_WITHOUT_SIMD = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}

# build name → (folder, output name, options of build.py (OUT stands for the output, DATA for its input file),
# extra environment)
SHARED_BUILDS = {
    "built_site": ("site", "site", ("--out", "OUT"), {}),
    "single_file": ("single", "tutorial.html", ("--single-file", "OUT"), {}),
    "digits_report": ("digits-report", "site", ("--data", "DATA", "--out", "OUT"), {}),
    # the reader's-model builds (user_builds) that tests/test_user_model.py and tests/browser/test_yours.py share
    "user_hostile": ("user-hostile", "site", ("--out", "OUT", "--data", "DATA", "--name", user_inputs.HOSTILE_NAME,
                                              "--description", user_inputs.HOSTILE_DESCRIPTION), {}),
    "user_single": ("user-single", "one.html", ("--single-file", "OUT", "--data", "DATA", "--name",
                                                user_inputs.HOSTILE_NAME, "--description",
                                                user_inputs.HOSTILE_DESCRIPTION), {}),
    "user_bare": ("user-bare", "site", ("--out", "OUT", "--data", "DATA", "--no-examples", "--split", "none",
                                        "--lang", "en"), {}),
    "user_warned": ("user-warned", "site", ("--out", "OUT", "--data", "DATA", "--input", "probabilities",
                                            "--split", "even-odd", "--no-examples"), {}),
}
# build name → (module of tests/, its function that writes the ``DATA`` file before the build starts, file suffix),
# or the name of the build (one it starts after) whose ``DATA`` file it reads
SHARED_INPUTS = {
    "digits_report": ("digits_model", "write_digits_data", ".npz"),
    "user_hostile": ("user_inputs", "model_file", ".npz"),
    "user_single": "user_hostile",  # the same file: the model's steps (keyed by its path too) come from the cache
    "user_bare": ("user_inputs", "model_file", ".npz"),
    "user_warned": ("user_inputs", "chance_file", ".csv"),
}
# fixture name → the shared builds it reads, when they are not named after it
FIXTURE_BUILDS = {"user_builds": ("user_hostile", "user_single", "user_bare", "user_warned")}
# build name → the shared build it starts after: it then finds the built-in datasets' steps (and the one-file
# edition the model's) in the run's build cache instead of computing them a second time alongside
SHARED_AFTER = {"single_file": "built_site", "digits_report": "built_site", "user_hostile": "built_site",
                "user_single": "user_hostile", "user_bare": "built_site", "user_warned": "built_site"}


class Build:
    """One ``build.py`` run in the background, shared by every pytest process of the run (``pytest -n``):
    the first process to claim ``folder`` starts it; :meth:`result` waits for its exit code in any of them.
    The build writes its output and streams into ``folder`` and its exit code last, so a reader that sees
    ``rc`` sees a finished build."""

    def __init__(self, folder, options, out, env=None, prepare=None, after=None):
        self.folder, self.out = folder, out
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            return  # another process started it
        out.parent.mkdir(parents=True, exist_ok=True)  # --single-file writes into an existing folder only
        if prepare is not None:
            try:
                prepare()
            except ImportError as error:  # e.g. scikit-learn missing outside CI: the fixture skips
                (folder / "stdout").write_text("")
                (folder / "stderr").write_text(f"cannot write the build's input: {error}")
                (folder / "rc").write_text("-1")
                return
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {}))
        script = ('date +%s.%N >"$0/started"; "$@" >"$0/stdout" 2>"$0/stderr"; '
                  'echo $? >"$0/rc.part" && mv "$0/rc.part" "$0/rc"')
        if after is not None:  # wait for the other build's exit code (whatever it is) first
            script = f'while [ ! -e {shlex.quote(str(after / "rc"))} ]; do sleep 0.2; done; {script}'
        process = subprocess.Popen(["sh", "-c", script, str(folder), sys.executable, str(ROOT / "build.py"),
                                    *map(str, options)], cwd=ROOT, env=env, start_new_session=True)
        (folder / "pid").write_text(str(process.pid))
        self._process = process  # kept so it is reaped

    def result(self):
        """The finished build as a ``CompletedProcess`` (waits; a build over ``BUILD_TIMEOUT`` is killed)."""
        rc, deadline = self.folder / "rc", time.monotonic() + BUILD_TIMEOUT
        while not rc.exists():
            if time.monotonic() > deadline:
                _kill(self.folder)
                return subprocess.CompletedProcess([], -9, "", f"build.py took over {BUILD_TIMEOUT} s")
            time.sleep(0.1)
        read = lambda name: (self.folder / name).read_text(encoding="utf-8", errors="replace")  # noqa: E731
        return subprocess.CompletedProcess(["build.py"], int(read("rc")), read("stdout"), read("stderr"))


def _kill(folder):
    """Stop the build started in ``folder`` (its whole process group) if it is still running."""
    if (folder / "rc").exists():
        return
    try:
        os.killpg(int((folder / "pid").read_text()), signal.SIGKILL)
    except (OSError, ValueError):
        pass


def _shared_root(config):
    """A folder every pytest process of this run shares (the workers of ``pytest -n`` too)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return Path(workerinput["calib_shared"])
    if not hasattr(config, "_calib_shared"):
        config._calib_shared = Path(tempfile.mkdtemp(prefix="calib-tests-"))
    return config._calib_shared


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker more than the cores this process may use (``--maxprocesses`` caps it), unless
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` names a number. With one per core the browser tier, whose tests wait for
    pages and programs, left the cores a fifth idle; the extra worker fills them (docs/testing.md)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own hook reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: give each worker the run's shared folder."""
    node.workerinput["calib_shared"] = str(_shared_root(node.config))


def pytest_configure(config):
    """Every build of the run (the tests' own included) shares one build cache in the run's shared folder:
    a build of a changed copy of the sources recomputes only what the change touches, and the repository's
    own .cache/ is left alone. BLAS runs on one thread in every process of the run, as in the CLI and build.py
    (calib.blocks.one_blas_thread): the workers, the builds and Chromium already share the cores."""
    os.environ["CALIB_BUILD_CACHE"] = str(_shared_root(config) / "build-cache")
    os.environ["CALIB_TEST_SHARED"] = str(_shared_root(config))  # tests/shared_values.py
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the programs the tests start (Dask workers too)
    from calib import one_blas_thread
    config._calib_blas = one_blas_thread()  # this process: the limit holds while the object lives


_BUILDS = {}


def _start(config, name):
    """Start the build behind the fixture ``name`` of ``SHARED_BUILDS`` (once per run); a ``Build``, or a
    ``Path`` for a ``CALIB_TEST_SITE`` copy."""
    if name not in _BUILDS:
        folder, file_name, options, env = SHARED_BUILDS[name]
        folder = _shared_root(config) / folder
        out = folder / "out" / file_name
        prebuilt = os.environ.get("CALIB_TEST_SITE")
        if name == "built_site" and prebuilt and not IN_CI:
            out = _shared_root(config) / "prebuilt" / file_name
            if not out.exists():
                shutil.copytree(prebuilt, out)
            _BUILDS[name] = out
        else:
            data, prepare = None, None
            source = SHARED_INPUTS.get(name)
            if isinstance(source, str):  # written by the build it waits for
                data = _shared_root(config) / f"{SHARED_BUILDS[source][0]}{SHARED_INPUTS[source][2]}"
            elif source is not None:
                module, function, suffix = source
                data = folder.parent / f"{folder.name}{suffix}"
                prepare = lambda: getattr(importlib.import_module(module), function)(data)  # noqa: E731
            options = [{"OUT": out, "DATA": data}.get(option, option) for option in options]
            after = _start(config, SHARED_AFTER[name]) if name in SHARED_AFTER else None
            _BUILDS[name] = Build(folder, options, out, env, prepare,
                                  after.folder if isinstance(after, Build) else None)
    return _BUILDS[name]


def pytest_collection_finish(session):
    """Start the shared builds that the selected tests need, so they run while the first tests do."""
    if session.config.option.collectonly:
        return
    needed = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    for name in SHARED_BUILDS:
        if name in needed or any(name in FIXTURE_BUILDS.get(fixture, ()) for fixture in needed):
            _start(session.config, name)


def pytest_sessionfinish(session):
    """The process that made the shared folder (not an xdist worker) stops what still runs and removes it."""
    config = session.config
    if getattr(config, "workerinput", None) is not None or not hasattr(config, "_calib_shared"):
        return
    for name in SHARED_BUILDS:
        _kill(config._calib_shared / SHARED_BUILDS[name][0])
    config._calib_builds = _build_times(config._calib_shared)
    shutil.rmtree(config._calib_shared, ignore_errors=True)


def _build_times(shared):
    """``{build name: (seconds from the session's start to the build's, its seconds of wall time)}`` of the
    shared builds that ran to the end."""
    times = {}
    for name, (folder, *_) in SHARED_BUILDS.items():
        started, rc = shared / folder / "started", shared / folder / "rc"
        if started.exists() and rc.exists():
            begin = float(started.read_text())
            times[name] = (begin - _STARTED_AT, rc.stat().st_mtime - begin)
    return times


def _finished(config, name):
    build = _start(config, name)
    if isinstance(build, Path):
        return build, None
    done = build.result()
    if done.returncode != 0:
        pytest.fail(f"build.py for {name} failed ({done.returncode}):\n{done.stderr[-4000:]}",
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
def digits_report(pytestconfig):
    """``build.py --data`` on a scikit-learn digits model's logits (tests/digits_model.py), built once per
    session in the background: ``(data file, site folder, finished process)``."""
    pytest.importorskip("sklearn")
    out, done = _finished(pytestconfig, "digits_report")
    return out.parents[1].parent / "digits-report.npz", out, done


@pytest.fixture(scope="session")
def user_builds(pytestconfig):
    """The reader's-model builds (tests/user_inputs.py), each once per session in the background:
    ``{"data": the hostile model's file, "hostile": site, "single": one-file edition, "bare": site (English,
    --no-examples --split none), "warned": site (a model no better than chance), and "<key>_stderr"}``."""
    out = {}
    for key in ("hostile", "single", "bare", "warned"):
        path, done = _finished(pytestconfig, f"user_{key}")
        out[key], out[f"{key}_stderr"] = path, done.stderr if done is not None else ""
    out["data"] = _shared_root(pytestconfig) / "user-hostile.npz"
    return out



@pytest.fixture(scope="session")
def precomputed():
    """The whole precomputation (every dataset over the shared grid), computed once per test session. When the
    run builds the site, its build has computed it: the value is read from the run's build cache once the
    build ends (tests/sitegen_inputs.py reads the analyses there too), not computed again beside it, and so
    are the built-in datasets' calibrator fits, which the payloads' method choice reads (kept for the process:
    ``sitegen.analyses.calibrator_fits.method_fits``)."""
    from shared_values import cached_step, shared_value, with_run_cache

    from sitegen.analyses.calibrator_fits import offered_methods
    from sitegen.compute.precompute import precompute_all

    build = _BUILDS.get("built_site")
    if isinstance(build, Build):
        build.result()  # failed or not, what it computed is cached
        precomputed = cached_step("precompute", (None,), precompute_all)
        # the offer reads the fits of each dataset that offers other calibrators: from the build, kept for the process
        with_run_cache(lambda: [offered_methods(n, r.parts) for n, r in precomputed.datasets.items()])
        return precomputed
    return shared_value("precomputed", precompute_all)


# --------------------------------------------------------------------------- time per tier

_SECONDS = defaultdict(float)
_TESTS = defaultdict(set)
_STARTED = time.perf_counter()
_STARTED_AT = time.time()


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
    builds = getattr(terminalreporter.config, "_calib_builds", {})
    if builds:
        write("shared builds in the background (seconds of wall time): " + ", ".join(
            f"{name} {seconds:.0f} from {start:.0f}" for name, (start, seconds) in sorted(builds.items(),
                                                                                         key=lambda b: b[1])))
