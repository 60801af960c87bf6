"""The build-only set-up (``bash tools/setup.sh --build``) under Debian's own ``/usr/bin/python3``, made once per
test run in a copy of this checkout.

Not a test module: tests/test_setup.py checks the set-up itself, and tests/test_cache.py runs its uncached
build with the venv's Python. One cold build then shows that the build-only install builds the whole site and
that neither the cache nor numpy's SIMD paths change a byte (nor the interpreter, where the run's is another:
CI's venv is made with the same python3); a second cold build for the set-up alone cost the suite about 40
core-seconds. Debian's Python refuses ``pip install`` outside a virtual
environment (PEP 668): the set-up must make one.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shared_values import shared_value

ROOT = Path(__file__).resolve().parents[1]
DEBIAN_PYTHON = Path("/usr/bin/python3")
# Variables of an activated environment must not leak into a set-up that makes its own.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHON")}
# left out of the versions compared with the run's: the installers and this project itself
NOT_COMPARED = {"pip", "setuptools", "wheel", "calibration-tutorial"}


def tracked_files():
    """This checkout's files that git would commit (tracked, or new and not ignored)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def _distributions(python):
    """``{name: version}`` of what ``python`` has installed, names lower-cased."""
    script = ("import importlib.metadata as m\n"
              "for d in m.distributions(): print(d.metadata['Name'].lower(), d.version)")
    done = subprocess.run([str(python), "-c", script], env=CLEAN_ENV, capture_output=True, text=True, timeout=120,
                          check=True)
    return dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.strip())


def _set_up():
    """Copy the checkout, run the set-up twice, and record what happened (a dict: see :func:`build_only_setup`)."""
    if not DEBIAN_PYTHON.exists():
        return {"missing": str(DEBIAN_PYTHON)}
    shared = os.environ.get("CALIB_TEST_SHARED")
    base = Path(shared) / "build-only" if shared else Path(tempfile.mkdtemp(prefix="calib-build-only-"))
    checkout = base / "checkout"
    shutil.rmtree(checkout, ignore_errors=True)
    for name in tracked_files():
        (checkout / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, checkout / name)
    env = dict(CLEAN_ENV, PYTHON=str(DEBIAN_PYTHON))
    start = time.perf_counter()
    first = subprocess.run(["bash", "tools/setup.sh", "--build"], cwd=checkout, env=env,
                           capture_output=True, text=True, timeout=900)
    seconds = time.perf_counter() - start
    record = {"checkout": checkout, "python": checkout / ".venv" / "bin" / "python", "seconds": seconds,
              "first": (first.returncode, first.stderr[-3000:])}
    if first.returncode != 0:
        return record
    again = subprocess.run(["bash", "tools/setup.sh", "--build"], cwd=checkout, env=env,
                           capture_output=True, text=True, timeout=120)
    record["again"] = (again.returncode, again.stderr[-3000:])
    python = record["python"]
    record["pytest_imports"] = subprocess.run([str(python), "-c", "import pytest"], env=CLEAN_ENV,
                                              capture_output=True, timeout=60).returncode == 0
    theirs = _distributions(python)
    ours = _distributions(Path(sys.executable))
    record["version_differences"] = sorted(f"{name} {version} (the run's: {ours.get(name, 'none')})"
                                           for name, version in theirs.items()
                                           if name not in NOT_COMPARED and ours.get(name) != version)
    return record


def build_only_setup():
    """The run's build-only set-up: ``{"missing": path}`` without Debian's Python, else ``checkout`` (the copy),
    ``python`` (its venv's), ``seconds`` (the first set-up's), ``first`` and ``again`` (each run's exit status and
    stderr tail), ``pytest_imports`` (whether the venv imports pytest: it must not) and ``version_differences``
    (the venv's distributions whose version differs from this interpreter's: what to suspect first when the
    venv's build differs from the run's)."""
    return shared_value("build-only-setup", _set_up)
