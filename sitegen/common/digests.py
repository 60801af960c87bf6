"""What the build cache's base key is made of: the sources' digest and the environment's.

:func:`source_digest` covers every file under ``calib/`` and ``sitegen/`` and ``build.py`` (so no module name is
hard-coded, and a renamed or split module still changes it); :func:`environment_digest` the Python, every
installed distribution's name and version, numpy's CPU features in use and the variables that switch them
(numpy's SIMD results differ in the last bits). Both are independent of where the checkout is.
"""

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["CHECKOUT", "source_digest", "environment_digest"]

SOURCE_FOLDERS = ("calib", "sitegen")
SOURCE_FILES = ("build.py",)
CHECKOUT = Path(__file__).resolve().parents[2]  # the sources' folder: build.py's
# Variables that change numpy's arithmetic (which SIMD paths run), hence the engine's last bits.
NUMPY_VARIABLES = ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES")


def _source_files(root, folders, files):
    root = Path(root)
    for name in folders:
        for path in sorted((root / name).rglob("*")):
            parts = path.relative_to(root).parts
            if path.is_file() and not any(p == "__pycache__" or p.startswith(".") for p in parts) \
                    and path.suffix not in (".pyc", ".pyo"):
                yield path
    for name in files:
        if (root / name).is_file():
            yield root / name


def source_digest(root, folders=SOURCE_FOLDERS, files=SOURCE_FILES):
    """SHA-256 (hex) over the relative name and bytes of every file of ``folders`` (recursively, without
    ``__pycache__`` and dot-files) and of ``files`` under ``root``: the engine and page code."""
    digest = hashlib.sha256()
    for path in _source_files(root, folders, files):
        data = path.read_bytes()
        name = path.relative_to(root).as_posix().encode("utf-8")
        digest.update(b"%d:%s%d:" % (len(name), name, len(data)) + data)
    return digest.hexdigest()


def _distributions():
    """Every installed distribution's metadata folder name (it carries the version), from ``sys.path``,
    but not the checkout's own (``pip install -e`` writes it beside build.py): its code is in the source
    digest, and a copy of the sources elsewhere must find the same entries."""
    found = set()
    for entry in sys.path:
        if Path(entry or ".").resolve() == CHECKOUT:
            continue
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        found.update(name for name in names if name.endswith((".dist-info", ".egg-info")))
    return sorted(found)


def environment_digest():
    """SHA-256 (hex) of what, besides the sources, decides the engine's bits: the interpreter, every
    installed distribution and version, numpy's CPU features in use and the variables that set them."""
    import numpy  # the engine's results are numpy arrays: loading them imports it anyway

    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # numpy 1.x
        from numpy.core import _multiarray_umath as umath
    features = sorted(name for name, on in getattr(umath, "__cpu_features__", {}).items() if on)
    facts = [sys.version, sys.platform, sys.implementation.cache_tag, numpy.__version__, features,
             _distributions(), [(name, os.environ.get(name)) for name in NUMPY_VARIABLES]]
    return hashlib.sha256(repr(facts).encode("utf-8")).hexdigest()
