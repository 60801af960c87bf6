"""Lint: ruff on the Python (config: pyproject.toml's [tool.ruff]) and ESLint on the JavaScript
(config: eslint.config.js, installed by ``npm ci`` from package-lock.json). Both must be clean.

A missing linter fails under CI and skips elsewhere, naming the install command, as the browser tests do.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _missing(what):
    message = f"{what} is missing; install it with: bash tools/setup.sh"
    if IN_CI:
        pytest.fail(f"CI: {message}", pytrace=False)
    pytest.skip(message)


def _run(command):
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    return result.returncode, (result.stdout + result.stderr).strip()


def test_ruff_is_clean():
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        _missing("ruff (the test extras of pyproject.toml)")
    code, output = _run([str(ruff), "check", "--no-cache", "."])
    assert code == 0, output


def test_eslint_is_clean():
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    if not eslint.exists() or shutil.which("node") is None:
        _missing("ESLint (the npm tools of package-lock.json) or Node.js")
    code, output = _run([str(eslint), "--max-warnings", "0", "."])
    assert code == 0, output
