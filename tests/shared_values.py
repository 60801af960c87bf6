"""Values that every pytest process of a run computes once: the first process to ask computes and saves
them (pickle) in the run's shared folder (``$CALIB_TEST_SHARED``, set by tests/conftest.py); the others
wait for the file and load it. Without the variable (a test run outside the suite's conftest), each process
computes its own.

Values a build also computes are read from the run's build cache instead (:func:`cached_step`, :func:`built_fits`,
:func:`with_run_cache`)."""

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


_RUN_CACHE = []


def run_cache():
    """The run's build cache (``$CALIB_BUILD_CACHE``) opened as build.py opens it, once per process."""
    if not _RUN_CACHE:
        from sitegen.common.cache import BuildCache, environment_digest, source_digest
        root = Path(__file__).resolve().parents[1]
        _RUN_CACHE.append(BuildCache(os.environ["CALIB_BUILD_CACHE"], source_digest(root) + environment_digest()))
    return _RUN_CACHE[0]


def cached_step(kind, inputs, compute):
    """``compute()``'s value through :func:`run_cache` (its ``kind`` entry over ``inputs``, as build.py keys it),
    with that cache active for the ``cached`` functions it calls."""
    return _through_run_cache(lambda cache: cache.get_or_compute(kind, inputs, compute))


def cached_reading(kind, inputs, strings, compute):
    """``compute(strings)``'s value through :func:`run_cache` as build.py draws a language's figures: its
    ``kind`` entry over ``inputs`` and the keys of ``strings`` that ``compute`` read."""
    return _through_run_cache(lambda cache: cache.get_or_compute_reading(kind, inputs, strings, compute))


def built_fits(name):
    """``sitegen.analyses.calibrator_fits.method_fits(name)`` read through :func:`run_cache` (the session's build
    fitted every built-in dataset's calibrators), and kept for the process as any call of it is: seconds of
    L-BFGS fits a test would otherwise repeat."""
    from sitegen.analyses.calibrator_fits import method_fits
    return with_run_cache(lambda: method_fits(name))


def with_run_cache(compute):
    """``compute()`` with :func:`run_cache` active for the ``cached`` functions it calls (the page stage's data
    files, for one): only where nothing the test changed is missing from their keys."""
    return _through_run_cache(lambda cache: compute())


def _through_run_cache(lookup):
    from sitegen.common.cache import using
    cache = run_cache()
    with using(cache):
        return lookup(cache)
