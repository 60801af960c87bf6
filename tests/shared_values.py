"""Values that every pytest process of a run computes once: the first process to ask computes and saves
them (pickle) in the run's shared folder (``$CALIB_TEST_SHARED``, set by tests/conftest.py); the others
wait for the file and load it. Without the variable (a test run outside the suite's conftest), each process
computes its own."""

import os
import pickle
import time
from pathlib import Path

WAIT_SECONDS = 900


def shared_value(name, compute):
    """``compute()``'s result, computed once per test run under ``name``."""
    root = os.environ.get("CALIB_TEST_SHARED")
    if not root:
        return compute()
    folder = Path(root) / "values" / name
    saved = folder / "value.pickle"
    try:
        folder.mkdir(parents=True)
    except FileExistsError:  # another process computes it
        deadline = time.monotonic() + WAIT_SECONDS
        while not saved.exists():
            if (folder / "failed").exists() or time.monotonic() > deadline:
                return compute()  # its error, if any, is raised here too
            time.sleep(0.1)
        return pickle.loads(saved.read_bytes())
    try:
        value = compute()
    except BaseException:
        (folder / "failed").write_text("")
        raise
    part = folder / "value.part"
    part.write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    part.replace(saved)
    return value
