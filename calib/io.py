"""Reading a user's model: validation logits (or probabilities) and labels from a ``.npz`` or ``.csv`` file.

:func:`load_predictions` returns a :class:`Predictions`; :func:`split_masks`
is the one rule that turns a split choice into calibration and test rows.
Every problem with the input raises :class:`InputError` (a ``ValueError``)
whose message starts with the file's name and then names the place (the
array or column, and the row: ``logits[17, 3]`` in an ``.npz``; ``line 18``
in a ``.csv``, counted from 1 as editors do) and, where it can, the fix.
The CSV reader is :mod:`calib.io_csv`; the plausibility checks (probabilities
given as logits, 1-based or one-hot labels, a split given as index arrays,
warnings about a fit) are :mod:`calib.io_checks`.

Formats
-------
``.npz`` (``numpy.savez`` or ``savez_compressed``; loaded with
``allow_pickle=False``, so object arrays are refused):

* ``logits`` (n, K), real numbers: float32 and float64 are kept as given,
  float16 becomes float32, integers become float64. Any finite size is
  accepted (the engine subtracts each row's maximum before exponentiating).
  Logits whose every row lies in [0, 1] and sums to 1 are refused as
  probabilities unless ``kind="logits"`` says they are logits.
* or ``probabilities`` (n, K) in [0, 1], each row summing to 1 within
  :data:`PROBABILITY_SUM_TOLERANCE`: turned into float64 logits by
  ``log(max(p, PROBABILITY_FLOOR))``. Softmax of ``log p`` is ``p`` again, so
  T = 1 reproduces the given probabilities; a zero becomes 1e-300 (logit
  ≈ −690.8), so that class keeps a probability below 1e-15 at every T ≤ 20,
  and a label given probability zero costs about 690.8 / T nats.
  ``kind`` (``--input``) overrides the array's name.
* ``labels`` (n,), integer class indices in [0, K) (floats that are whole
  numbers are accepted); labels that look 1-based are refused.
* optional ``split`` (n,): True / 1 / ``"calibration"`` (or ``"cal"``,
  ``"val"``, ``"validation"``) marks a calibration row, False / 0 /
  ``"test"`` a test row (strings case-insensitive); or instead two index
  arrays, one of :data:`~calib.io_checks.CALIBRATION_INDEX_NAMES` (e.g.
  ``val_idx``) and ``test_idx``, that together list every row once.
* optional ``groups`` (n,): strings or integers, kept as strings.
* optional ``class_names`` (K,): strings.

``.csv`` (UTF-8, comma-separated, one row per example; :mod:`calib.io_csv`):

* without a header: the label, then the K logits;
* with a header (a first row whose first cell is not a number, or that names
  a ``label`` column): a ``label`` column, optional ``split`` and ``group``
  columns (any position, names case-insensitive), and every other column is
  a class, in order. Class columns all named ``p_<class>``, ``prob_<class>``
  or ``proba_<class>`` hold probabilities; otherwise logits, and the header
  cells are the class names. ``split`` cells are those of an ``.npz``, or
  ``1`` / ``0``, ``true`` / ``false`` (1 and true: calibration).

Limits (checked before anything large is read): no ``.npy`` member may
declare more than :data:`MAX_ARRAY_BYTES` (its header is read first, so a
small compressed archive cannot claim gigabytes), a ``.csv`` file may not
exceed :data:`MAX_CSV_BYTES`, and n · K may not exceed :data:`MAX_LOGITS`.
"""

import hashlib
import math
import zipfile
from pathlib import Path
from typing import NamedTuple, Optional, Tuple

import numpy as np
import numpy.lib.format as npy_format

from .datasets import even_odd_split
from .io_checks import (
    CALIBRATION_INDEX_NAMES,
    PROBABILITY_SUM_TOLERANCE,
    SAVEZ_HINT,
    TEST_INDEX_NAMES,
    InputError,
    Problems,
    check_dropped_column,
    check_one_based,
    extension_hint,
    fail,
    row_name,
)
from .io_csv import read_csv
from .io_fields import SPLIT_WORDS, as_labels, as_split, as_text, binary_names, found_arrays
from .io_values import PROBABILITY_FLOOR, read_values

__all__ = [
    "InputError", "Predictions", "load_predictions", "split_masks", "SPLIT_RULES", "DEFAULT_SPLIT_SEED",
    "MIN_PART_ROWS", "MAX_ARRAY_BYTES", "MAX_CSV_BYTES", "MAX_LOGITS", "PROBABILITY_FLOOR",
    "PROBABILITY_SUM_TOLERANCE", "INPUT_KINDS", "SPLIT_WORDS",
]

MAX_ARRAY_BYTES = 2 ** 30     # largest array an .npz member may declare: 1 GiB
MAX_CSV_BYTES = 2 ** 30       # largest .csv file: 1 GiB of text
MAX_LOGITS = 2 ** 27          # largest n · K (134,217,728 values: 1 GiB as float64), e.g. 131,072 × 1,000
MIN_PART_ROWS = 10            # fewest rows in each part (calibration and test, or all rows with no split)
INPUT_KINDS = ("logits", "probabilities")  # what the numbers are (--input); None: the file's names decide
SPLIT_RULES = ("file", "random", "even-odd", "none")
DEFAULT_SPLIT_SEED = 0
# What a tool says when --split none is asked for (python -m calib fit and build.py print it on stderr).
SPLIT_NONE_NOTE = ("--split none fits T and measures on the same rows, so the figures at the fitted T are "
                   "optimistic")
_NPZ_ARRAYS = ("logits", "probabilities", "labels", "split", "groups", "class_names") + CALIBRATION_INDEX_NAMES \
    + TEST_INDEX_NAMES



class Predictions(NamedTuple):
    """A user's model outputs, validated.

    ``logits`` (n, K) float32 or float64 (see the module docstring), all finite;
    ``labels`` (n,) int64 in [0, K); ``split`` (n,) bool (True: calibration
    row) or None; ``groups`` (n,) str or None; ``class_names`` (K,) str or
    None; ``sha256`` the hex digest of the file's bytes; ``path`` the file;
    ``kind`` what the file's numbers were, ``"logits"`` or ``"probabilities"``
    (then ``logits`` holds their logarithms); ``notes`` what was read in a way
    the file did not spell out (one English sentence each: rounded
    probabilities renormalised, a European CSV, training rows dropped, …);
    ``binary`` True when the file gave one column (a binary model's score or
    positive-class probability, held as the two logits of K = 2);
    ``split_rule`` the rule the file's split asks for when it is not a
    calibration/test column (``"none"``: every row marked ``all``), else None;
    ``decimals`` the places of rounded probabilities with cells printed as 0 (:mod:`calib.rounding`), else None;
    ``looks`` what the numbers look like whatever ``kind=`` said, ``"logits"`` or ``"probabilities"``.
    """

    logits: np.ndarray
    labels: np.ndarray
    split: Optional[np.ndarray]
    groups: Optional[np.ndarray]
    class_names: Optional[np.ndarray]
    sha256: str
    path: str
    kind: str = "logits"
    notes: Tuple[str, ...] = ()
    binary: bool = False
    split_rule: Optional[str] = None
    decimals: Optional[int] = None
    looks: str = "logits"


def load_predictions(path, kind=None):
    """Read and validate a ``.npz`` or ``.csv`` file of logits and labels; return :class:`Predictions`.

    ``kind`` is None (the file's array or column names say whether the numbers
    are logits or probabilities) or one of :data:`INPUT_KINDS` (the
    ``--input`` option: it overrides the names, and ``"logits"`` also accepts
    logits that look like probabilities).

    Raises :class:`InputError` for every problem: a missing or unreadable
    file, an unknown extension, an archive needing pickle, an array too large,
    non-real or non-finite logits, wrong shapes or lengths, ragged or
    non-numeric CSV rows, labels that are not integers in [0, K) or look
    1-based, K < 2, a split value other than the accepted spellings, and the
    mistakes :mod:`calib.io_checks` and :mod:`calib.io_csv` name.
    """
    path = Path(path)
    if kind not in (None,) + INPUT_KINDS:
        raise ValueError(f"kind must be None or one of {INPUT_KINDS}, not {kind!r}")
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".csv"):
        fail(path, "", extension_hint(path.suffix))
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
        size = path.stat().st_size
    except OSError as error:
        fail(path, "", f"cannot read the file ({error.strerror or error})")
    if suffix == ".npz":
        arrays = _read_npz(path)
    else:
        if size > MAX_CSV_BYTES:
            fail(path, "", f"{size:,} bytes; the limit for a .csv file is {MAX_CSV_BYTES:,}")
        arrays = read_csv(path, MAX_LOGITS, kind)
    return Predictions(**_validate(path, arrays, kind), sha256=digest.hexdigest(), path=str(path))


# --- .npz ---------------------------------------------------------------------------------------

def _member_header(path, archive, member):
    """``(shape, dtype)`` declared by one ``.npy`` member, read from its header only."""
    with archive.open(member) as stream:
        try:
            version = npy_format.read_magic(stream)
            if version == (1, 0):
                shape, _, dtype = npy_format.read_array_header_1_0(stream)
            elif version == (2, 0):
                shape, _, dtype = npy_format.read_array_header_2_0(stream)
            else:
                fail(path, member[:-4], f".npy format version {version} is not supported (use 1.0 or 2.0)")
        except (ValueError, EOFError) as error:
            fail(path, member[:-4], f"not a valid .npy array ({error})")
    return shape, dtype


def _read_npz(path):
    """The known arrays of an ``.npz`` as a dict, after checking each member's header (size, no pickle), and
    ``found``: the names of every array in the archive (for messages)."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = {name[:-4]: name for name in archive.namelist() if name.endswith(".npy")}
            for name in _NPZ_ARRAYS:
                if name not in members:
                    continue
                shape, dtype = _member_header(path, archive, members[name])
                if dtype.hasobject:
                    fail(path, name, "an object array, which needs pickle to load; save plain numeric "
                         "or string arrays (pickle is never loaded)")
                declared = math.prod(shape) * dtype.itemsize
                if declared > MAX_ARRAY_BYTES:
                    fail(path, name, f"declares shape {tuple(shape)} of {dtype} ({declared:,} bytes); "
                         f"the limit is {MAX_ARRAY_BYTES:,} bytes")
    except zipfile.BadZipFile:
        fail(path, "", "not a valid .npz archive (not a zip file)")
    except OSError as error:
        fail(path, "", f"cannot read the archive ({error})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in _NPZ_ARRAYS if name in archive.files}
    except ValueError as error:  # e.g. a member needing pickle that slipped past the header check
        fail(path, "", f"cannot load the arrays ({error})")
    except (OSError, EOFError, zipfile.BadZipFile) as error:
        fail(path, "", f"cannot read the archive ({error})")
    arrays["found"] = sorted(members)
    return arrays


# --- validation shared by both formats ----------------------------------------------------------

def _first_nonfinite(path, arrays, name, values):
    bad = ~np.isfinite(values)
    if bad.any():
        row, column = np.unravel_index(np.argmax(bad), bad.shape) if bad.ndim == 2 else (int(np.argmax(bad)), None)
        value = values[row, column] if column is not None else values[row]
        fail(path, row_name(arrays, name, row, column), f"{value}; every value must be finite")


def _raw_values(path, arrays):
    """``(name, values)``: the array of logits or probabilities, checked for type, shape and size only."""
    has_logits, has_probs = "logits" in arrays, "probabilities" in arrays
    if has_logits and has_probs:
        fail(path, "", "has both 'logits' and 'probabilities'; keep one")
    if not (has_logits or has_probs):
        fail(path, "", f"needs an array named 'logits' (or 'probabilities'); found {found_arrays(arrays)}; rename: "
             + SAVEZ_HINT)
    name = "logits" if has_logits else "probabilities"
    values = arrays[name]
    kind_code = values.dtype.kind
    if kind_code not in "fiu":
        what = {"c": "complex numbers", "U": "strings", "S": "bytes", "O": "objects", "b": "booleans"}
        fail(path, name, f"holds {what.get(kind_code, values.dtype)}; {name} must be real numbers")
    if values.ndim not in (1, 2):
        fail(path, name, f"shape {values.shape}; must be 2-D (n examples, K classes), or 1-D (n,) for a binary "
             "model's score or positive-class probability")
    if values.shape[0] < 1:
        fail(path, name, "has no rows")
    n, k = values.shape[0], (values.shape[1] if values.ndim == 2 else 1)
    if k < 1:
        fail(path, name, f"shape {values.shape}: no class columns")
    if n * max(k, 2) > MAX_LOGITS:
        fail(path, name, f"{n:,} × {k:,} values; the limit is {MAX_LOGITS:,}")
    labels = arrays.get("labels")
    if labels is not None and labels.ndim == 1 and values.ndim == 2 and labels.shape[0] == k != n:
        fail(path, "labels", f"{k} labels for {n} rows of {name} (shape {values.shape}): transposed? give "
             f"{name}.T, shape (n, K)")
    if values.dtype == np.float16:
        values = values.astype(np.float32)
    elif kind_code in "iu" or values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    _first_nonfinite(path, arrays, name, values)
    return name, values


def _keep_rows(arrays, kept):
    """The arrays with only the ``kept`` rows (n,) of every per-row array; messages keep the original rows."""
    n = kept.size
    out = {}
    for name, value in arrays.items():
        per_row = isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == n and name not in (
            "class_names",) + CALIBRATION_INDEX_NAMES + TEST_INDEX_NAMES
        out[name] = value[kept] if per_row else value
    if "lines" not in arrays:
        out["rows"] = np.flatnonzero(kept)
    out.pop("split", None)
    return out


def _validate(path, arrays, kind):
    """Every check of the arrays; the problems of independent checks are raised together (:class:`Problems`).
    Returns the fields of :class:`Predictions` but ``sha256`` and ``path``, as a dict."""
    problems = Problems(path)
    problems.found.extend(arrays.get("problems", ()))  # a CSV's cells that are not numbers
    unreadable = bool(problems.found)
    notes = list(arrays.get("notes", ()))
    raw = None
    with problems.collect():
        name, raw = _raw_values(path, arrays)
    if raw is None:  # without the values, nothing else can be checked but whether the labels are there
        if "labels" not in arrays:
            with problems.collect():
                as_labels(path, arrays, 0, 0, None, False)
        problems.done()
    n = raw.shape[0]
    split = kept = rule = None
    with problems.collect():
        split, kept, rule, note = as_split(path, arrays, n)
        notes += [note] if note else []
    if kept is not None:
        arrays, raw, n = _keep_rows(arrays, kept), raw[kept], int(kept.sum())
    read = None
    if not unreadable:  # values with holes are not interpreted (their problems are already named)
        with problems.collect():
            read = read_values(path, arrays, name, raw, arrays.get("declared", name), kind)
            notes += read.notes
    binary = raw.ndim == 1 or raw.shape[1] == 1
    k = 2 if binary else raw.shape[1]
    class_names = None
    with problems.collect():
        class_names = binary_names(path, arrays) if binary else as_text(path, arrays, "class_names", k, "class")
    labels = None
    with problems.collect():
        labels, class_names, note = as_labels(path, arrays, n, k, class_names, binary)
        notes += [note] if note else []
    groups = None
    with problems.collect():
        groups = as_text(path, arrays, "groups", n, "row")
    if read is not None and labels is not None:
        with problems.collect():
            check_one_based(path, arrays, read.logits, labels)
            check_dropped_column(path, arrays, read.logits, labels)
    problems.done()
    if class_names is not None:
        class_names = None if None in list(class_names) else np.array(list(class_names), dtype=str)
    return dict(logits=read.logits, labels=labels, split=split, groups=groups, class_names=class_names,
                kind=read.kind, notes=tuple(notes), binary=binary, split_rule=rule, decimals=read.decimals,
                looks=read.looks)


# --- the split ----------------------------------------------------------------------------------

def split_masks(n, rule=None, file_split=None, seed=DEFAULT_SPLIT_SEED, min_rows=MIN_PART_ROWS, source="data"):
    """The rows of each part as ``{name: bool mask (n,)}``: ``calibration`` and ``test``, or ``all``.

    ``rule`` is one of :data:`SPLIT_RULES`; None picks ``"file"`` when
    ``file_split`` (n,) bool (True: calibration) is given and ``"random"``
    otherwise.

    * ``"file"``: the file's own split column;
    * ``"random"``: a seeded half split: ``numpy.random.default_rng(seed)
      .permutation(n)``, whose first ⌈n/2⌉ entries are the calibration rows;
    * ``"even-odd"``: rows 0, 2, 4, … calibrate, the odd rows test (the
      built-in datasets' rule);
    * ``"none"``: one part ``all``: T is fitted and evaluated on the same
      rows, which makes the after-scaling figures optimistic.

    Raises :class:`InputError` naming ``source`` if ``"file"`` is asked for
    without a split, or a part has fewer than ``min_rows`` rows
    (:data:`MIN_PART_ROWS`).

    >>> {k: v.tolist() for k, v in split_masks(4, "even-odd", min_rows=1).items()}
    {'calibration': [True, False, True, False], 'test': [False, True, False, True]}
    """
    if rule is None:
        rule = "file" if file_split is not None else "random"
    if rule not in SPLIT_RULES:
        raise InputError(f"{source}: split: unknown rule {rule!r}; use one of {', '.join(SPLIT_RULES)}")
    if rule == "none":
        parts = {"all": np.ones(n, dtype=bool)}
    else:
        if rule == "file":
            if file_split is None:
                raise InputError(f"{source}: split: the file has no split column; choose --split random, "
                                 "even-odd or none")
            calibration = np.asarray(file_split, dtype=bool)
        elif rule == "random":
            calibration = np.zeros(n, dtype=bool)
            calibration[np.random.default_rng(seed).permutation(n)[: (n + 1) // 2]] = True
        else:
            calibration = even_odd_split(n)
        parts = {"calibration": calibration, "test": ~calibration}
    for name, mask in parts.items():
        rows = int(mask.sum())
        if rows < min_rows:
            raise InputError(f"{source}: split ({rule}): the {name} part has {rows} row(s); each part needs "
                             f"at least {min_rows}")
    return parts
