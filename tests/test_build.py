"""Whole-site tests: ``python build.py`` as a subprocess.

A full build takes several seconds, so one session fixture runs the builds
this file needs, two at a time: two good builds into fresh folders, then two
failing ones (a broken Jinja expression in a copy of the sources, aimed at a
copy of a good site; a missing strings table). Three of them run the whole
pipeline. The refusal to replace a foreign folder happens at the very end of a
build, so it is checked on the writer itself rather than with a fourth build.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from calib import DATASET_NAMES
from sitegen.errors import BuildError
from sitegen.writer import write_site

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("content", "templates", "static", "calib", "sitegen", "build.py")
TIMEOUT = 600


def snapshot(folder):
    """Every file under ``folder`` (hidden ones included) as {relative path: bytes}, plus the sub-folders."""
    folder = Path(folder)
    files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    dirs = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_dir())
    return files, dirs


def copy_sources(destination):
    """A private copy of what ``build.py`` reads, so a test can break it without touching the repository."""
    destination.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=ignore)
        else:
            shutil.copy2(source, destination / name)
    return destination


def start_build(root, out):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.Popen([sys.executable, str(Path(root) / "build.py"), "--out", str(out)], cwd=str(root),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def finish(process):
    """Wait for a build started by :func:`start_build` (stopping it if it hangs) and collect its output."""
    try:
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


@pytest.fixture(scope="session")
def builds(tmp_path_factory):
    base = tmp_path_factory.mktemp("builds")
    results = {"base": base}

    # wave 1: two independent good builds
    first, second = base / "first" / "site", base / "second" / "site"
    running = {"first": start_build(ROOT, first), "second": start_build(ROOT, second)}
    results.update({key: finish(process) for key, process in running.items()})
    results["first_dir"], results["second_dir"] = first, second
    assert results["first"].returncode == 0, results["first"].stderr
    results["first_snapshot"] = snapshot(first)

    # wave 2: builds that must fail without harming what is already there
    broken = copy_sources(base / "broken-src")
    section = sorted((broken / "content" / "en").glob("[0-9][0-9]-*.md"))[0]
    section.write_text(section.read_text(encoding="utf-8") + "\n\nBroken: {{ nope.missing }}\n", encoding="utf-8")
    previous = base / "previous" / "site"
    shutil.copytree(first, previous)
    results["broken_section"] = section.name
    results["previous_dir"] = previous

    no_strings = copy_sources(base / "no-strings-src")
    (no_strings / "content" / "en" / "strings.toml").unlink()

    running = {
        "broken": start_build(broken, previous),
        "no_strings": start_build(no_strings, base / "no-strings-out" / "site"),
    }
    results.update({key: finish(process) for key, process in running.items()})
    results["no_strings_out"] = base / "no-strings-out" / "site"
    return results


def assert_one_line_error(result):
    """Non-zero exit, no traceback, and exactly one error line, ``build.py: error: …``, at the end of stderr."""
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.rstrip("\n").splitlines()
    errors = [line for line in lines if line.startswith("build.py:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("build.py: error: ")
    assert lines[-1] == errors[0]
    assert "Warning" not in result.stderr, result.stderr
    return errors[0]


def leftovers(parent):
    """Staging or backup folders a build left next to its output."""
    return sorted(p.name for p in Path(parent).iterdir() if p.name.startswith("."))


# --- good builds ------------------------------------------------------------------------------

def test_two_builds_are_byte_identical(builds):
    assert builds["second"].returncode == 0, builds["second"].stderr
    files, dirs = builds["first_snapshot"]
    assert snapshot(builds["second_dir"]) == (files, dirs)


def test_build_writes_the_site_and_keeps_stdout_clean(builds):
    files, _ = builds["first_snapshot"]
    assert "index.html" in files and ".calib-tutorial-site" in files
    for name in DATASET_NAMES:
        assert f"data/{name}.js" in files
        assert files[f"data/{name}.js"].startswith(b"window.CalibTutorial=")
    assert b"Traceback" not in files["index.html"]
    assert builds["first"].stdout == ""
    assert leftovers(builds["first_dir"].parent) == []


# --- failing builds ---------------------------------------------------------------------------

def test_broken_template_expression_fails_cleanly_and_keeps_the_previous_site(builds):
    line = assert_one_line_error(builds["broken"])
    assert builds["broken_section"] in line and "nope" in line
    assert snapshot(builds["previous_dir"]) == builds["first_snapshot"]
    assert leftovers(builds["previous_dir"].parent) == []


def test_missing_strings_table_is_a_one_line_error(builds):
    line = assert_one_line_error(builds["no_strings"])
    assert "strings.toml" in line
    assert not builds["no_strings_out"].exists()


# --- the writer (the build's last stage) ------------------------------------------------------

def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("not a site\n", encoding="utf-8")
    before = snapshot(foreign)
    with pytest.raises(BuildError, match="refusing to replace"):
        write_site(foreign, {"index.html": "new"})
    assert snapshot(foreign) == before
    assert leftovers(tmp_path) == []
    # a plain file in the way is refused too
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(BuildError, match="refusing to replace"):
        write_site(tmp_path / "file", {"index.html": "new"})


def test_replaces_its_own_folder_and_an_empty_one(tmp_path):
    write_site(tmp_path / "site", {"index.html": "one", "data/a.js": "a"})
    write_site(tmp_path / "site", {"index.html": "two"})
    files, _ = snapshot(tmp_path / "site")
    assert files == {".calib-tutorial-site": files[".calib-tutorial-site"], "index.html": b"two"}
    (tmp_path / "empty").mkdir()
    write_site(tmp_path / "empty", {"index.html": "three"})
    assert (tmp_path / "empty" / "index.html").read_text(encoding="utf-8") == "three"
    assert leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_old_folder(tmp_path):
    write_site(tmp_path / "site", {"index.html": "old"})
    before = snapshot(tmp_path / "site")
    with pytest.raises(BuildError, match="escapes the site folder"):
        write_site(tmp_path / "site", {"index.html": "new", "../outside.txt": "x"})
    assert snapshot(tmp_path / "site") == before
    assert not (tmp_path / "outside.txt").exists()
    assert leftovers(tmp_path) == []
