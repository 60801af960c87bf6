"""The page's reproduction section: ``content/reproduce.py``, run by the build, its source and its output shown."""

import subprocess
import sys

from sitegen.common.cache import cached
from sitegen.common.errors import BuildError

__all__ = ["run_reproduction"]


@cached("reproduction")  # keyed by the program's bytes (and the sources and environment)
def run_reproduction(program):
    """Run the page's self-contained Python program; return ``{"source", "output"}`` (empty if it does not exist)."""
    if not program.exists():
        return {"source": "", "output": ""}
    try:
        done = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{program}: did not finish within 120 s") from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BuildError(f"{program}: exited with status {done.returncode}: {last}")
    return {"source": program.read_text(encoding="utf-8").rstrip("\n"), "output": done.stdout.rstrip("\n")}
