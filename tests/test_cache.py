"""The build cache (sitegen/common/cache.py) and the preview's rebuild on change (sitegen/write/serve.py,
build.py --serve).

The cache must never change a byte of the output: a private copy of the sources is built cold (the
session's site, when it was built cold), warm, after an edit of the prose and strings, and with
``--no-cache``, and the sites are compared file by file. The ``--no-cache`` build also runs on another CPU
path, numpy's SIMD paths disabled and BLAS on two threads (tests/test_cpu_independent_build.py says why), in
the build-only set-up's venv under Debian's python3 (tests/build_only.py): one cold build shows that neither
the cache nor the CPU changes a byte (nor the interpreter, where the run's is another), and that the
build-only install builds the site.
The keys must change with every input, and a damaged entry must be a miss. The watcher is tested without a
browser: touch a file, step the watcher, run the rebuild it asks for.
"""

import importlib.util
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
import numpy as np
import pytest
from build_only import CLEAN_ENV, build_only_setup
from conftest import NUMPY_WITHOUT_SIMD

from sitegen.common import cache as build_cache
from sitegen.common.cache import BuildCache, fingerprint, source_digest
from sitegen.render.jinja_cache import compiled_templates
from sitegen.write.serve import Builds, Watcher, serving, watch

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("content", "templates", "static", "calib", "sitegen", "build.py")
TIMEOUT = 900
# the uncached build's CPU path: numpy without its SIMD paths (SSE only) and BLAS on two threads where the run's
# other builds have one (tests/conftest.py)
OTHER_CPU_PATH = {**NUMPY_WITHOUT_SIMD, "OPENBLAS_NUM_THREADS": "2"}


def snapshot(folder):
    """Every file under ``folder`` as {relative path: bytes}."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(Path(folder).rglob("*")) if p.is_file()}


def copy_sources(destination):
    destination.mkdir(parents=True)
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, destination / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, destination / name)
    return destination


def run_build(root, cache_dir, *options, env=None, python=sys.executable):
    """``build.py options`` of the sources under ``root`` with the cache ``cache_dir`` (``env``: extra variables),
    run by ``python``."""
    base = os.environ if python == sys.executable else CLEAN_ENV
    env = dict(base, PYTHONDONTWRITEBYTECODE="1", CALIB_BUILD_CACHE=str(cache_dir), **(env or {}))
    return subprocess.run([str(python), str(root / "build.py"), *map(str, options)], cwd=str(root), env=env,
                          capture_output=True, text=True, timeout=TIMEOUT)


def uncached_python():
    """The Python of the uncached build: the build-only venv's under Debian's python3 (tests/build_only.py), so
    that one cold build also shows that install builds the site; this one where that set-up is missing or
    failed (tests/test_setup.py fails then, and says why)."""
    setup = build_only_setup()
    if "missing" in setup or setup["first"][0] != 0:
        return sys.executable, []
    return setup["python"], setup["version_differences"]


def reuse(stderr):
    """``(reused, computed)`` engine steps from the build's last line."""
    reused, computed = re.search(r"cache: (\d+) reused, (\d+) computed", stderr).groups()
    return int(reused), int(computed)


# --- entries --------------------------------------------------------------------------------------

def test_an_entry_gives_back_equal_arrays_of_the_same_dtype_that_can_be_written(tmp_path):
    value = {"a": np.linspace(0, 1, 7), "b": (np.arange(12, dtype=np.int32).reshape(3, 4).T, "text", None),
             "c": np.arange(10)[::3], "d": np.zeros(0)}
    store = BuildCache(tmp_path, "base")
    store.store("kind", "k", value)
    hit, back = store.load("kind", "k")
    assert hit
    for got, want in [(back["a"], value["a"]), (back["b"][0], value["b"][0]), (back["c"], value["c"]),
                      (back["d"], value["d"])]:
        assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)
    assert back["b"][1:] == ("text", None)
    back["a"][0] = 5.0  # a private copy-on-write map: the entry itself is not changed
    assert store.load("kind", "k")[1]["a"][0] == 0.0


@pytest.mark.parametrize("damage", ["truncate-end", "truncate-header", "flip-array-byte", "empty", "other-file"])
def test_a_partial_or_damaged_entry_is_a_miss_then_rewritten(tmp_path, damage):
    store = BuildCache(tmp_path, "base")
    calls = []

    def compute():
        calls.append(1)
        return {"x": np.arange(4096, dtype=np.float64)}

    store.get_or_compute("kind", ("input",), compute)
    path = next((tmp_path / "kind").glob("*.pickle"))
    data = bytearray(path.read_bytes())
    if damage == "truncate-end":
        data = data[:-1]
    elif damage == "truncate-header":
        data = data[:30]
    elif damage == "flip-array-byte":
        data[len(data) - 1000] ^= 0x10
    elif damage == "empty":
        data = bytearray()
    else:
        data = bytearray(b"not a cache entry at all\n" * 10)
    path.write_bytes(bytes(data))
    value = store.get_or_compute("kind", ("input",), compute)
    assert len(calls) == 2 and np.array_equal(value["x"], np.arange(4096.0))
    assert BuildCache(tmp_path, "base").get_or_compute("kind", ("input",), compute)["x"][-1] == 4095.0
    assert len(calls) == 2, "the damaged entry was rewritten"
    assert not list((tmp_path / "kind").glob(".*.part")), "no temporary file is left behind"


@pytest.mark.parametrize("limits", [{"keep_entries": 2}, {"keep_bytes": 9000}])
def test_a_kind_keeps_its_most_recently_used_entries_within_its_limits(tmp_path, limits):
    store = BuildCache(tmp_path, "base", **limits)
    for n in range(4):  # each entry holds 4 KB of array bytes
        store.get_or_compute("kind", (n,), lambda n=n: np.full(512, n, dtype=np.float64))
    assert len(list((tmp_path / "kind").glob("*.pickle"))) == 2
    calls = []
    store.get_or_compute("kind", (3,), lambda: calls.append(1) or np.zeros(512))
    assert calls == [], "the newest entry is kept"
    tiny = BuildCache(tmp_path, "base", keep_bytes=10)
    assert tiny.get_or_compute("big", (0,), lambda: np.zeros(4096))[0] == 0.0
    assert len(list((tmp_path / "big").glob("*.pickle"))) == 1, "the entry just written is kept, whatever its size"


# --- keys -----------------------------------------------------------------------------------------

def test_the_source_digest_changes_with_any_engine_or_page_file_and_ignores_bytecode(tmp_path):
    for name in ("calib", "sitegen"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "core.py").write_text("X = 1\n")
    (tmp_path / "build.py").write_text("print()\n")
    first = source_digest(tmp_path)
    (tmp_path / "sitegen" / "__pycache__").mkdir()
    (tmp_path / "sitegen" / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"\0")
    assert source_digest(tmp_path) == first
    seen = {first}
    for change in [lambda: (tmp_path / "calib" / "core.py").write_text("X = 2\n"),
                   lambda: (tmp_path / "sitegen" / "new_module.py").write_text(""),  # a split adds a module
                   lambda: (tmp_path / "sitegen" / "sources.toml").write_text("[a]\n"),  # a data file the code reads
                   lambda: (tmp_path / "sitegen" / "core.py").rename(tmp_path / "sitegen" / "renamed.py"),
                   lambda: (tmp_path / "build.py").write_text("print(1)\n")]:
        change()
        digest = source_digest(tmp_path)
        assert digest not in seen
        seen.add(digest)


def test_the_environment_digest_follows_numpys_cpu_feature_switches(monkeypatch):
    monkeypatch.delenv("NPY_DISABLE_CPU_FEATURES", raising=False)
    default = build_cache.environment_digest()
    monkeypatch.setenv("NPY_DISABLE_CPU_FEATURES", "X86_V4")
    assert build_cache.environment_digest() != default


def test_a_step_key_changes_with_each_input_and_a_file_by_its_bytes(tmp_path):
    data = tmp_path / "model.csv"
    data.write_text("logit,label\n0.1,1\n")
    store = BuildCache(tmp_path / "cache", "base")
    options = ("name", "", None, 0, True)
    key = store.key("user", data, *options)
    assert key == store.key("user", data, *options)
    different = [store.key("user", data, "other", "", None, 0, True),
                 store.key("user", data, "name", "", None, 1, True),
                 store.key("user", data, "name", "", None, 0, False),
                 store.key("precompute", data, *options),
                 BuildCache(tmp_path / "cache", "other base").key("user", data, *options)]
    data.write_text("logit,label\n0.2,1\n")
    different.append(store.key("user", data, *options))
    assert len({key, *different}) == len(different) + 1
    assert fingerprint({"a": 1, "b": 2}) != fingerprint({"b": 2, "a": 1}), "a table's order can show on the page"
    assert fingerprint(1) != fingerprint(1.0) != fingerprint("1")


def test_a_result_is_an_input_by_its_key_so_a_changed_input_recomputes_what_follows(tmp_path):
    store = BuildCache(tmp_path, "base")
    calls = []
    for source, expected_calls in (("a", 1), ("a", 1), ("b", 2)):
        first = store.get_or_compute("first", (source,), lambda source=source: {"from": source})
        second = store.get_or_compute("second", (first,), lambda first=first: calls.append(1) or [first["from"]])
        assert second == [source] and len(calls) == expected_calls


def test_a_step_reading_part_of_a_table_is_keyed_by_the_entries_it_read(tmp_path):
    store = BuildCache(tmp_path, "base")
    calls = []

    def figures(strings):
        calls.append(1)
        return [strings["figures"], strings.get("optional", "none")]

    def run(table):
        return store.get_or_compute_reading("figures", ("en",), table, figures)

    assert run({"figures": "A", "ui": "x"}) == ["A", "none"] and len(calls) == 1
    assert run({"figures": "A", "ui": "edited"}) == ["A", "none"] and len(calls) == 1, "an unread entry"
    assert run({"figures": "B", "ui": "edited"}) == ["B", "none"] and len(calls) == 2
    assert run({"figures": "B", "ui": "x", "optional": "here"}) == ["B", "here"] and len(calls) == 3, \
        "a key found absent is read too"
    assert run({"figures": "A", "ui": "x"}) == ["A", "none"] and len(calls) == 3, "the first entry is still there"

    def everything(strings):
        calls.append(1)
        return sorted(strings)

    assert store.get_or_compute_reading("all", (), {"a": 1}, everything) == ["a"] and len(calls) == 4
    assert store.get_or_compute_reading("all", (), {"a": 2}, everything) == ["a"] and len(calls) == 5, \
        "iterating reads every entry"


def test_the_decorators_call_through_without_an_active_or_enabled_cache(tmp_path):
    calls = []

    @build_cache.cached("kind")
    def slow(x):
        calls.append(x)
        return [x]

    @build_cache.memoized("quick")
    def quick(x):
        calls.append(x)
        return str(x)

    assert slow(1) == [1] and slow(1) == [1] and quick(2) == "2" and quick(2) == "2"
    assert calls == [1, 1, 2, 2]
    with build_cache.using(BuildCache(tmp_path, "base", enabled=False)):
        slow(1), quick(2)
    assert calls == [1, 1, 2, 2, 1, 2] and not tmp_path.joinpath("kind").exists()
    with build_cache.using(BuildCache(tmp_path, "base")):
        slow(3), quick(4)
    with build_cache.using(BuildCache(tmp_path, "base")):
        assert slow(3) == [3] and quick(4) == "4"
    assert calls == [1, 1, 2, 2, 1, 2, 3, 4], "the second build reused both"


def test_compiled_templates_are_reused_unless_compiling_folded_a_filter_call(tmp_path):
    def environment(mark):
        env = jinja2.Environment(undefined=jinja2.StrictUndefined)
        env.filters["mark"] = lambda value: f"{value}{mark}"
        return env

    def render(mark, source, **context):
        with compiled_templates(BuildCache(tmp_path, "base")) as store:
            text = environment(mark).from_string(source).render(**context)
        return text, store.hits.count("template"), store.misses.count("template")

    original = jinja2.Environment.compile
    # a filter on a variable runs when rendering: the compiled code is shared, the output is each env's own
    assert render("!", "{{ x | mark }}", x=1) == ("1!", 0, 1)
    assert render("?", "{{ x | mark }}", x=1) == ("1?", 1, 0)
    # a filter on a constant is folded while compiling: that code holds one env's output, so it is not stored
    assert render("!", "{{ 1 | mark }}") == ("1!", 0, 1)
    assert render("?", "{{ 1 | mark }}") == ("1?", 0, 1)
    assert jinja2.Environment.compile is original, "Jinja is left as it was"


# --- whole builds: cached and uncached give the same bytes ------------------------------------------

@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A private copy of the sources and an empty cache folder for it."""
    base = tmp_path_factory.mktemp("cached-builds")
    return copy_sources(base / "src"), base / "cache", base


# a cold build computes its thirteen cached steps (precompute, analyses, evidence, facts, beyond, reproduction,
# data-files, and in each of the two languages the figures, the deep dives' charts and the class-wise diagrams), the
# calibrator fits of the five built-in datasets that offer other calibrators (digits-mlp, mixed, overconfident,
# sim-60, sim-600; the deep dive fits them first) and, inside the data files' stage, those datasets' methods files;
# a warm build reads the data files' entry whole and never asks for the methods files inside it, but it reads the
# five fits (the explorer offers vector scaling where its fit settles)
STAGE_ENTRIES = 13
FITS = 5
WARM_ENTRIES = STAGE_ENTRIES + FITS
COLD_ENTRIES = STAGE_ENTRIES + FITS + 5


def test_cached_builds_are_byte_identical_to_uncached_ones_after_a_content_edit(tree, built_site, built_site_run):
    root, cache, base = tree
    if built_site_run is not None and reuse(built_site_run.stderr) == (0, COLD_ENTRIES):
        # the session's site was built cold from these sources: the run's build cache holds what it computed
        cold_site = built_site
        shutil.copytree(os.environ["CALIB_BUILD_CACHE"], cache)
    else:
        cold_site = base / "cold" / "site"
        cold = run_build(root, cache, "--out", cold_site)
        assert cold.returncode == 0, cold.stderr
        assert reuse(cold.stderr) == (0, COLD_ENTRIES)
    warm = run_build(root, cache, "--out", base / "warm" / "site")
    assert warm.returncode == 0, warm.stderr
    assert reuse(warm.stderr) == (WARM_ENTRIES, 0)
    if cold_site is built_site:  # compiled templates carry their file's path: this copy compiled its own once
        warm = run_build(root, cache, "--out", base / "warm" / "site")
        assert warm.returncode == 0, warm.stderr
    assert "0 compiled" in warm.stderr
    assert snapshot(base / "warm" / "site") == snapshot(cold_site)

    # a content-only edit: a sentence of prose and one figure title of the Spanish strings
    section = sorted((root / "content" / "en").glob("[0-9][0-9]-*.md"))[1]
    section.write_text(section.read_text(encoding="utf-8") + "\nA sentence added by the cache test.\n",
                       encoding="utf-8")
    strings = root / "content" / "es" / "strings.toml"
    text = strings.read_text(encoding="utf-8")
    edited = re.sub(r'(\ntitle_t1 = ")', r"\1(editado) ", text, count=1)
    assert edited != text
    strings.write_text(edited, encoding="utf-8")
    ui = root / "content" / "en" / "strings.toml"  # an English string no figure shows
    text = ui.read_text(encoding="utf-8")
    assert text.count("\nbutton_pin = \"") == 1
    ui.write_text(text.replace("\nbutton_pin = \"", "\nbutton_pin = \"(edited) "), encoding="utf-8")
    after = run_build(root, cache, "--out", base / "after" / "site")
    assert after.returncode == 0, after.stderr
    # the Spanish figures and class-wise diagrams (both print the T = 1 title) are drawn again, nothing else
    assert reuse(after.stderr) == (WARM_ENTRIES - 2, 2), "only the Spanish figures and diagrams are drawn again"
    entries = sorted(p.relative_to(cache) for p in cache.rglob("*") if p.is_file())
    stamps = {p: (cache / p).stat().st_mtime_ns for p in entries}
    python, differences = uncached_python()
    fresh = run_build(root, cache, "--no-cache", "--out", base / "fresh" / "site", env=OTHER_CPU_PATH, python=python)
    assert fresh.returncode == 0, f"{python}: {fresh.stderr}"
    assert "cache off" in fresh.stderr
    assert sorted(p.relative_to(cache) for p in cache.rglob("*") if p.is_file()) == entries
    assert {p: (cache / p).stat().st_mtime_ns for p in entries} == stamps, "--no-cache reads and writes nothing"
    after_files, fresh_files = snapshot(base / "after" / "site"), snapshot(base / "fresh" / "site")
    assert sorted(after_files) == sorted(fresh_files)
    differ = [name for name in after_files if after_files[name] != fresh_files[name]]
    if differ:  # which of the two changed them: a third build, uncached on this CPU's own paths, tells
        same_cpu = run_build(root, cache, "--no-cache", "--out", base / "same-cpu" / "site")
        assert same_cpu.returncode == 0, same_cpu.stderr
        reference = snapshot(base / "same-cpu" / "site")
        by_cache = [name for name in differ if after_files[name] != reference[name]]
        by_cpu = [name for name in differ if fresh_files[name] != reference[name]]
        pytest.fail(f"{len(differ)} files differ between the cached build and the uncached one on another CPU path, "
                    f"in {python}; the cache changed {by_cache[:10]}, numpy's SIMD paths, the BLAS "
                    f"threads or the interpreter {by_cpu[:10]} (its distributions that differ: {differences})")
    assert b"A sentence added by the cache test." in after_files["index.html"]
    assert b"(edited) Pin" in after_files["index.html"]
    figure = "figures/reliability-t1.es.svg"
    assert after_files[figure] != snapshot(cold_site)[figure], "the edited title is drawn"


# --- the preview: rebuild on change -----------------------------------------------------------------

def touch(path, seconds=2):
    """Move ``path``'s modification time ``seconds`` ahead (a file system may keep whole seconds)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + seconds * 10**9))


def test_the_watcher_reports_changed_new_and_removed_sources_but_not_caches_or_swap_files(tmp_path):
    (tmp_path / "content" / "en").mkdir(parents=True)
    (tmp_path / "sitegen" / "__pycache__").mkdir(parents=True)
    prose = tmp_path / "content" / "en" / "01-a.md"
    prose.write_text("text\n")
    (tmp_path / "build.py").write_text("\n")
    watcher = Watcher(tmp_path)
    assert watcher.step() == []
    touch(prose)
    assert watcher.step() == [str(prose)]
    assert watcher.step() == []
    (tmp_path / "content" / "en" / ".01-a.md.swp").write_text("x")
    (tmp_path / "content" / "en" / "01-a.md~").write_text("x")
    (tmp_path / "sitegen" / "__pycache__" / "page.cpython-311.pyc").write_bytes(b"x")
    assert watcher.step() == []
    new = tmp_path / "sitegen" / "new.py"
    new.write_text("\n")
    assert watcher.step() == [str(new)]
    new.unlink()
    touch(tmp_path / "build.py")
    assert watcher.step() == sorted([str(new), str(tmp_path / "build.py")])


def test_the_watch_loop_calls_the_rebuild_once_per_change_and_survives_a_failing_one(tmp_path):
    (tmp_path / "templates").mkdir()
    page = tmp_path / "templates" / "page.html.j2"
    page.write_text("x")
    seen, called, stop = [], threading.Event(), threading.Event()

    def rebuild(changed):
        seen.append(changed)
        called.set()
        if len(seen) == 1:
            raise RuntimeError("a failing rebuild")

    thread = threading.Thread(target=watch, args=(Watcher(tmp_path), rebuild, stop, 0.05), daemon=True)
    thread.start()
    try:
        for _ in range(2):
            called.clear()
            touch(page)
            assert called.wait(10)
    finally:
        stop.set()
        thread.join(10)
    assert seen == [[str(page)], [str(page)]] and not thread.is_alive()


def load_build_script(root):
    spec = importlib.util.spec_from_file_location("build_under_test", root / "build.py")
    module = importlib.util.module_from_spec(spec)
    saved = {name: os.environ.get(name) for name in ("MPLBACKEND", "MPLCONFIGDIR")}
    try:
        spec.loader.exec_module(module)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return module


def test_a_change_rebuilds_the_served_site_and_a_broken_edit_keeps_the_last_good_one(tree, monkeypatch, capfd):
    root, cache, base = tree
    monkeypatch.setenv("CALIB_BUILD_CACHE", str(cache))
    out = base / "served" / "site"
    first = run_build(root, cache, "--out", out)
    assert first.returncode == 0, first.stderr
    watcher = Watcher(root)
    rebuild = load_build_script(root).rebuilder(["--out", str(out), "--serve", "--port", "8123"])
    section = sorted((root / "content" / "en").glob("[0-9][0-9]-*.md"))[2]
    section.write_text(section.read_text(encoding="utf-8") + "\nSeen after a reload.\n", encoding="utf-8")
    changed = watcher.step()
    assert changed == [str(section)]
    capfd.readouterr()
    assert rebuild(changed) is True
    assert "rebuilt after a change to content/en/" in capfd.readouterr().err
    good = snapshot(out)
    assert b"Seen after a reload." in good["index.html"]

    section.write_text(section.read_text(encoding="utf-8") + "\nBroken: {{ nope.missing }}\n", encoding="utf-8")
    assert rebuild(watcher.step()) is False
    err = capfd.readouterr().err.strip().splitlines()
    assert err[0].startswith("build.py: error: ") and "nope" in err[0] and "Traceback" not in "\n".join(err)
    assert "still serving the last good site" in err[-1]
    assert snapshot(out) == good


def test_the_preview_adds_its_reload_script_to_pages_it_sends_and_never_to_the_files(tmp_path):
    (tmp_path / "es").mkdir()
    pages = {"index.html": "<!doctype html><body><p>en</p></body></html>\n", "es/index.html": "<p>es</p>\n"}
    for name, text in pages.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "app.js").write_text("var x = 1;\n", encoding="utf-8")

    def get(base, path):
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.read().decode("utf-8")

    builds = Builds()
    with serving(tmp_path, reload=builds) as base:
        first = get(base, "")
        assert first.startswith("<!doctype html><body><p>en</p><script>") and first.endswith("</body></html>\n")
        assert 'var built="0"' in first and "location.reload()" in first
        assert get(base, "es/").startswith("<p>es</p>\n<script>"), "a page without </body> gets it at its end"
        assert get(base, "app.js") == "var x = 1;\n"
        assert get(base, "__build__") == "0"
        builds.version += 1
        assert get(base, "__build__") == "1" and 'var built="1"' in get(base, "index.html")
    with serving(tmp_path) as base:
        assert get(base, "") == pages["index.html"], "without reload= nothing is added"
        with pytest.raises(urllib.error.HTTPError):
            get(base, "__build__")
    assert {name: (tmp_path / name).read_text(encoding="utf-8") for name in pages} == pages


def test_a_client_that_leaves_mid_response_prints_nothing(tmp_path, capfd):
    """A browser that navigates away cancels the page's pending requests: the preview says nothing about it
    (it printed a BrokenPipeError traceback per cancelled file), and keeps serving."""
    (tmp_path / "big.bin").write_bytes(bytes(32 * 2**20))  # larger than any socket buffer: the send must fail
    with serving(tmp_path) as base:
        address = urlsplit(base)
        for _ in range(3):
            with socket.create_connection((address.hostname, address.port), timeout=10) as client:
                client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                client.recv(1024)  # the response has started
                client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        time.sleep(0.5)  # the server's threads meet the closed connections
        with urllib.request.urlopen(base + "big.bin", timeout=30) as response:
            assert len(response.read()) == 32 * 2**20
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err
