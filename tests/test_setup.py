"""The set-up (tools/setup.sh), the README's two commands and .ci/run.

The slow test here checks the build-only set-up under Debian's own /usr/bin/python3, which refuses
``pip install`` outside a virtual environment (PEP 668), made once per run in a throwaway copy of this
checkout (tests/build_only.py; pip from its cache); tests/test_cache.py builds the whole site with it.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from build_only import CLEAN_ENV, DEBIAN_PYTHON, build_only_setup

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "tools" / "setup.sh"
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def readme_commands():
    """The README's two commands, (build, test): the ``sh`` blocks of its "Two commands" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Two commands\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 2, f"the README's Two commands section has {len(blocks)} sh blocks, not 2"
    for block in blocks:
        assert block.count("\n") == 1, f"not one line: {block!r}"
    return tuple(block.strip() for block in blocks)


def test_the_readme_has_two_one_line_commands():
    build, test = readme_commands()
    assert build == "bash tools/setup.sh --build && .venv/bin/python build.py --serve"
    assert test == "bash tools/setup.sh && .venv/bin/python -m pytest"


# .ci/run's one other use of Python: it chooses the interpreter the set-up makes .venv/ with
CHOOSES_PYTHON = ("if [ -z \"${PYTHON:-}\" ] && /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' "
                  "2>/dev/null; then", "export PYTHON=/usr/bin/python3")


def test_ci_runs_the_readme_test_command_exactly():
    _, test = readme_commands()
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    commands = [line for line in lines if re.search(r"setup\.sh|pytest|python", line) and not line.startswith("echo ")
                and line not in CHOOSES_PYTHON]
    assert commands == [f"{test} || status=$?"], commands
    assert [line for line in lines if "PYTHON" in line] == list(CHOOSES_PYTHON), "only the interpreter is chosen"


def test_pytest_n_auto_starts_a_worker_more_than_the_cores_unless_told(monkeypatch):
    """docs/testing.md: a worker per core and one more; ``PYTEST_XDIST_AUTO_NUM_WORKERS`` left to pytest-xdist."""
    from conftest import pytest_xdist_auto_num_workers
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert pytest_xdist_auto_num_workers(None) == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5}, raising=False)
    assert pytest_xdist_auto_num_workers(None) == 2
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "1")
    assert pytest_xdist_auto_num_workers(None) is None, "pytest-xdist's own hook reads the variable"


def test_the_venv_imports_this_checkout(tmp_path):
    """The editable install in .venv/ points at this checkout, not at another worktree on the machine."""
    python = ROOT / ".venv" / "bin" / "python"
    if not python.exists():
        if IN_CI:
            pytest.fail("CI: .venv/ is missing: tools/setup.sh makes it", pytrace=False)
        pytest.skip("no .venv/ here: run bash tools/setup.sh")
    result = subprocess.run([str(python), "-c",
                             "import calib, sitegen; print(calib.__file__); print(sitegen.__file__)"],
                            cwd=tmp_path, env=CLEAN_ENV, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(ROOT / "calib" / "__init__.py"), str(ROOT / "sitegen" / "__init__.py")]


def test_an_unknown_option_is_refused():
    result = subprocess.run(["bash", str(SETUP), "--bild"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "unknown option: --bild" in result.stderr


def stub(folder, name, body):
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


def test_without_venv_and_root_it_stops_with_the_command_to_run(tmp_path):
    """A Python without ensurepip (Debian without python3-venv), run by a user who is not root."""
    checkout = tmp_path / "checkout"
    (checkout / "tools").mkdir(parents=True)
    shutil.copy(SETUP, checkout / "tools" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", checkout)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub(bin_dir, "python3", 'case "$*" in *version_info*) echo 3.11 ;; *) exit 1 ;; esac')
    stub(bin_dir, "id", "echo 1000")
    env = dict(CLEAN_ENV, PATH=f"{bin_dir}:/usr/bin:/bin")
    result = subprocess.run(["bash", "tools/setup.sh", "--build"], cwd=checkout, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert "python3 -m venv is unavailable" in result.stderr
    # Debian's python3-venv when the stub's version is Debian's default Python's, else python3.11-venv.
    debian = subprocess.run([str(DEBIAN_PYTHON), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                            capture_output=True, text=True).stdout.strip() if DEBIAN_PYTHON.exists() else ""
    package = "python3-venv" if debian == "3.11" else "python3.11-venv"
    assert f"sudo apt-get update && sudo apt-get install -y {package}" in result.stderr
    assert not (checkout / ".venv").exists()


def test_the_build_only_setup_works_under_debians_python():
    """PEP 668: Debian's python3 refuses pip outside a venv; the set-up makes .venv/, installs what a build
    imports and no test tool, and a second run installs nothing. The venv then builds the whole site:
    tests/test_cache.py's uncached build runs with its Python (tests/build_only.py)."""
    if not DEBIAN_PYTHON.exists():
        if IN_CI:
            pytest.fail(f"CI: {DEBIAN_PYTHON} is missing: tools/setup.sh installs Debian's python3", pytrace=False)
        pytest.skip(f"{DEBIAN_PYTHON} is missing; install it with: apt-get install python3 python3-venv")
    stdlib = subprocess.run([str(DEBIAN_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert (Path(stdlib) / "EXTERNALLY-MANAGED").exists(), f"{DEBIAN_PYTHON} is not marked externally managed"

    setup = build_only_setup()
    status, stderr = setup["first"]
    assert status == 0, stderr
    config = (setup["checkout"] / ".venv" / "pyvenv.cfg").read_text(encoding="utf-8")
    assert re.search(r"^home = /usr/bin$", config, re.M), config
    status, stderr = setup["again"]
    assert status == 0 and ".venv matches pyproject.toml" in stderr, stderr
    assert "pip install" not in stderr
    assert not setup["pytest_imports"], "the build-only install brought pytest along"
    # every module of the engine and the page imports with what the build-only install brought
    script = ("import importlib, pkgutil, calib, sitegen\n"
              "for package in (calib, sitegen):\n"
              "    for m in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
              "        importlib.import_module(m.name)\n"
              "import build\n")
    imported = subprocess.run([str(setup["python"]), "-c", script], cwd=setup["checkout"], env=CLEAN_ENV,
                              capture_output=True, text=True, timeout=300)
    assert imported.returncode == 0, imported.stderr[-3000:]
    print(f"build-only set-up under {DEBIAN_PYTHON}: {setup['seconds']:.1f} s", file=sys.stderr)
