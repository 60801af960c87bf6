"""Reading a user's model: validation logits (or probabilities) and labels from a ``.npz`` or ``.csv`` file.

:func:`load_predictions` returns a :class:`Predictions`; :func:`split_masks`
is the one rule that turns a split choice into calibration and test rows.
Every problem with the input raises :class:`InputError` (a ``ValueError``)
whose message starts with the file's name and then names the place: the
array or column, and the row (``logits[17, 3]`` in an ``.npz``; ``line 18``
in a ``.csv``, counted from 1 as editors do).

Formats
-------
``.npz`` (``numpy.savez`` or ``savez_compressed``; loaded with
``allow_pickle=False``, so object arrays are refused):

* ``logits`` (n, K), real numbers: float32 and float64 are kept as given,
  float16 becomes float32, integers become float64. Any finite size is
  accepted (the engine subtracts each row's maximum before exponentiating).
* or ``probabilities`` (n, K) in [0, 1], each row summing to 1 within
  :data:`PROBABILITY_SUM_TOLERANCE`: turned into float64 logits by
  ``log(max(p, PROBABILITY_FLOOR))``. Softmax of ``log p`` is ``p`` again, so
  T = 1 reproduces the given probabilities; a zero becomes 1e-300 (logit
  ≈ −690.8), so that class keeps a probability below 1e-15 at every T ≤ 20,
  and a label given probability zero costs about 690.8 / T nats.
* ``labels`` (n,), integer class indices in [0, K) (floats that are whole
  numbers are accepted).
* optional ``split`` (n,): True / 1 / ``"calibration"`` marks a calibration
  row, False / 0 / ``"test"`` a test row (strings case-insensitive).
* optional ``groups`` (n,): strings or integers, kept as strings.
* optional ``class_names`` (K,): strings.

``.csv`` (UTF-8, comma-separated, one row per example):

* without a header: the label, then the K logits;
* with a header (a first row whose first cell is not a number): a ``label``
  column, optional ``split`` and ``group`` columns (any position, names
  case-insensitive), and every other column is a logit, in order; their
  header cells are the class names. ``split`` cells are ``calibration`` /
  ``test``, ``1`` / ``0`` or ``true`` / ``false`` (1 and true: calibration).

Limits (checked before anything large is read): no ``.npy`` member may
declare more than :data:`MAX_ARRAY_BYTES` (its header is read first, so a
small compressed archive cannot claim gigabytes), a ``.csv`` file may not
exceed :data:`MAX_CSV_BYTES`, and n · K may not exceed :data:`MAX_LOGITS`.
"""

import csv
import hashlib
import math
import zipfile
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np
import numpy.lib.format as npy_format

from .datasets import even_odd_split

__all__ = [
    "InputError", "Predictions", "load_predictions", "split_masks", "SPLIT_RULES", "DEFAULT_SPLIT_SEED",
    "MIN_PART_ROWS", "MAX_ARRAY_BYTES", "MAX_CSV_BYTES", "MAX_LOGITS", "PROBABILITY_FLOOR",
    "PROBABILITY_SUM_TOLERANCE",
]

MAX_ARRAY_BYTES = 2 ** 30     # largest array an .npz member may declare: 1 GiB
MAX_CSV_BYTES = 2 ** 30       # largest .csv file: 1 GiB of text
MAX_LOGITS = 2 ** 27          # largest n · K (134,217,728 values: 1 GiB as float64), e.g. 131,072 × 1,000
MIN_PART_ROWS = 10            # fewest rows in each part (calibration and test, or all rows with no split)
PROBABILITY_FLOOR = 1e-300    # probabilities are floored here before the log (a zero → logit ≈ −690.8)
PROBABILITY_SUM_TOLERANCE = 1e-3  # |row sum − 1| allowed for probabilities
SPLIT_RULES = ("file", "random", "even-odd", "none")
DEFAULT_SPLIT_SEED = 0
# What a tool says when --split none is asked for (python -m calib fit and build.py print it on stderr).
SPLIT_NONE_NOTE = ("--split none fits T and measures on the same rows, so the figures at the fitted T are "
                   "optimistic")
_NPZ_ARRAYS = ("logits", "probabilities", "labels", "split", "groups", "class_names")
_SPLIT_WORDS = {"calibration": True, "test": False, "1": True, "0": False, "true": True, "false": False}


class InputError(ValueError):
    """Bad input: the message names the file and the place (array or column, row)."""


class Predictions(NamedTuple):
    """A user's model outputs, validated.

    ``logits`` (n, K) float32 or float64 (see the module docstring), all finite;
    ``labels`` (n,) int64 in [0, K); ``split`` (n,) bool (True: calibration
    row) or None; ``groups`` (n,) str or None; ``class_names`` (K,) str or
    None; ``sha256`` the hex digest of the file's bytes; ``path`` the file.
    """

    logits: np.ndarray
    labels: np.ndarray
    split: Optional[np.ndarray]
    groups: Optional[np.ndarray]
    class_names: Optional[np.ndarray]
    sha256: str
    path: str


def _fail(path, place, problem):
    where = f"{path}: {place}: " if place else f"{path}: "
    raise InputError(where + problem)


def load_predictions(path):
    """Read and validate a ``.npz`` or ``.csv`` file of logits and labels; return :class:`Predictions`.

    Raises :class:`InputError` for every problem: a missing or unreadable
    file, an unknown extension, an archive needing pickle, an array too large,
    non-real or non-finite logits, wrong shapes or lengths, ragged or
    non-numeric CSV rows, labels that are not integers in [0, K), K < 2, or a
    split value other than the accepted spellings.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".csv"):
        _fail(path, "", f"unknown extension {path.suffix or '(none)'!r}; use .npz or .csv")
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as stream:
            for chunk in iter(lambda: stream.read(1 << 20), b""):
                digest.update(chunk)
        size = path.stat().st_size
    except OSError as error:
        _fail(path, "", f"cannot read the file ({error.strerror or error})")
    if suffix == ".npz":
        arrays = _read_npz(path)
    else:
        if size > MAX_CSV_BYTES:
            _fail(path, "", f"{size:,} bytes; the limit for a .csv file is {MAX_CSV_BYTES:,}")
        arrays = _read_csv(path)
    return Predictions(*_validate(path, arrays), sha256=digest.hexdigest(), path=str(path))


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
                _fail(path, member[:-4], f".npy format version {version} is not supported (use 1.0 or 2.0)")
        except (ValueError, EOFError) as error:
            _fail(path, member[:-4], f"not a valid .npy array ({error})")
    return shape, dtype


def _read_npz(path):
    """The known arrays of an ``.npz`` as a dict, after checking each member's header (size, no pickle)."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = {name[:-4]: name for name in archive.namelist() if name.endswith(".npy")}
            for name in _NPZ_ARRAYS:
                if name not in members:
                    continue
                shape, dtype = _member_header(path, archive, members[name])
                if dtype.hasobject:
                    _fail(path, name, "an object array, which needs pickle to load; save plain numeric "
                          "or string arrays (pickle is never loaded)")
                declared = math.prod(shape) * dtype.itemsize
                if declared > MAX_ARRAY_BYTES:
                    _fail(path, name, f"declares shape {tuple(shape)} of {dtype} ({declared:,} bytes); "
                          f"the limit is {MAX_ARRAY_BYTES:,} bytes")
    except zipfile.BadZipFile:
        _fail(path, "", "not a valid .npz archive (not a zip file)")
    except OSError as error:
        _fail(path, "", f"cannot read the archive ({error})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in _NPZ_ARRAYS if name in archive.files}
    except ValueError as error:  # e.g. a member needing pickle that slipped past the header check
        _fail(path, "", f"cannot load the arrays ({error})")
    except (OSError, EOFError, zipfile.BadZipFile) as error:
        _fail(path, "", f"cannot read the archive ({error})")


# --- .csv ---------------------------------------------------------------------------------------

def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_csv(path):
    """The columns of a ``.csv`` as a dict of arrays, plus ``lines`` (n,): each row's line number."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as stream:
            records = [(reader_line, row) for reader_line, row in _csv_rows(stream) if row]
    except UnicodeDecodeError as error:
        _fail(path, "", f"not UTF-8 text ({error.reason} at byte {error.start})")
    except csv.Error as error:
        _fail(path, "", f"not a valid CSV file ({error})")
    except OSError as error:
        _fail(path, "", f"cannot read the file ({error.strerror or error})")
    if not records:
        _fail(path, "", "no rows")
    first_line, first = records[0]
    header = None
    if not _is_number(first[0]):
        header = [cell.strip() for cell in first]
        records = records[1:]
    if header is None:
        columns = {"label": 0}
        logit_columns = list(range(1, len(first)))
        width = len(first)
        class_names = None
    else:
        lowered = [cell.lower() for cell in header]
        for name in ("label", "split", "group"):
            if lowered.count(name) > 1:
                _fail(path, f"line {first_line}", f"the header names the {name!r} column twice")
        if "label" not in lowered:
            _fail(path, f"line {first_line}", "the header has no 'label' column")
        columns = {name: lowered.index(name) for name in ("label", "split", "group") if name in lowered}
        logit_columns = [i for i in range(len(header)) if i not in columns.values()]
        width = len(header)
        class_names = np.array([header[i] for i in logit_columns], dtype=str)
    if not records:
        _fail(path, "", "no data rows")
    n, k = len(records), len(logit_columns)
    if k < 2:
        _fail(path, f"line {records[0][0]}", f"{k} logit column(s); need at least 2 classes")
    if n * k > MAX_LOGITS:
        _fail(path, "", f"{n:,} rows × {k:,} classes; the limit is {MAX_LOGITS:,} logits")
    names = header or ["label"] + [f"logit {i}" for i in range(1, width)]
    logits = np.empty((n, k))
    labels = np.empty(n)
    lines = np.empty(n, dtype=np.int64)
    split = [] if "split" in columns else None
    groups = [] if "group" in columns else None
    for i, (line, row) in enumerate(records):
        if len(row) != width:
            _fail(path, f"line {line}", f"{len(row)} fields, but the {'header' if header else 'first row'} "
                  f"has {width}")
        lines[i] = line
        for j, column in enumerate(logit_columns):
            try:
                logits[i, j] = float(row[column])
            except ValueError:
                _fail(path, f"line {line}, column {names[column]!r}", f"{row[column]!r} is not a number")
        cell = row[columns["label"]]
        try:
            labels[i] = float(cell)
        except ValueError:
            _fail(path, f"line {line}, column {names[columns['label']]!r}",
                  f"{cell!r} is not a class index (an integer in [0, {k}))")
        if split is not None:
            split.append(row[columns["split"]])
        if groups is not None:
            groups.append(row[columns["group"]].strip())
    arrays = {"logits": logits, "labels": labels, "lines": lines,
              "logit_names": [names[column] for column in logit_columns]}
    if split is not None:
        arrays["split"] = np.array(split, dtype=str)
    if groups is not None:
        arrays["groups"] = np.array(groups, dtype=str)
    if class_names is not None:
        arrays["class_names"] = class_names
    return arrays


def _csv_rows(stream):
    reader = csv.reader(stream)
    for row in reader:
        yield reader.line_num, row


# --- validation shared by both formats ----------------------------------------------------------

def _row_name(arrays, name, row, column=None):
    """Where row ``row`` (and ``column``) of array ``name`` is: ``name[row, column]`` in an ``.npz``,
    ``line L, column 'C'`` in a ``.csv``."""
    if "lines" in arrays:
        title = arrays["logit_names"][column] if column is not None else {"labels": "label"}.get(name, name)
        return f"line {arrays['lines'][row]}, column {title!r}"
    return f"{name}[{row}]" if column is None else f"{name}[{row}, {column}]"


def _first_nonfinite(path, arrays, name, values):
    bad = ~np.isfinite(values)
    if bad.any():
        row, column = np.unravel_index(np.argmax(bad), bad.shape)
        _fail(path, _row_name(arrays, name, row, column), f"{values[row, column]}; every value must be finite")


def _as_logits(path, arrays):
    """The logits (n, K) from ``logits`` or ``probabilities``, checked."""
    has_logits, has_probs = "logits" in arrays, "probabilities" in arrays
    if has_logits and has_probs:
        _fail(path, "", "has both 'logits' and 'probabilities'; keep one")
    if not (has_logits or has_probs):
        _fail(path, "", "needs an array named 'logits' (or 'probabilities'); found "
              f"{', '.join(sorted(arrays)) or 'none of the known arrays'}")
    name = "logits" if has_logits else "probabilities"
    values = arrays[name]
    kind = values.dtype.kind
    if kind not in "fiu":
        what = {"c": "complex numbers", "U": "strings", "S": "bytes", "O": "objects", "b": "booleans"}
        _fail(path, name, f"holds {what.get(kind, values.dtype)}; {name} must be real numbers")
    if values.ndim != 2:
        _fail(path, name, f"shape {values.shape}; must be 2-D (n examples, K classes)")
    n, k = values.shape
    if n < 1:
        _fail(path, name, "has no rows")
    if k < 2:
        _fail(path, name, f"shape {values.shape}: K = {k}; need at least 2 classes")
    if n * k > MAX_LOGITS:
        _fail(path, name, f"{n:,} × {k:,} values; the limit is {MAX_LOGITS:,}")
    if kind in "iu":
        values = values.astype(np.float64)
    elif values.dtype == np.float16:
        values = values.astype(np.float32)
    elif values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    _first_nonfinite(path, arrays, name, values)
    if has_logits:
        return np.ascontiguousarray(values)
    probs = values.astype(np.float64)
    outside = (probs < 0) | (probs > 1)
    if outside.any():
        row, column = np.unravel_index(np.argmax(outside), outside.shape)
        _fail(path, _row_name(arrays, name, row, column), f"{probs[row, column]} is not a probability in [0, 1]")
    off = np.abs(probs.sum(axis=1) - 1.0) > PROBABILITY_SUM_TOLERANCE
    if off.any():
        row = int(np.argmax(off))
        _fail(path, _row_name(arrays, name, row), f"the row sums to {probs[row].sum()}, not 1 "
              f"(within {PROBABILITY_SUM_TOLERANCE})")
    return np.log(np.maximum(probs, PROBABILITY_FLOOR))


def _as_labels(path, arrays, n, k):
    if "labels" not in arrays:
        _fail(path, "", "needs an array named 'labels'" if "lines" not in arrays else "needs a label column")
    values = arrays["labels"]
    if values.dtype.kind not in "fiu":
        _fail(path, "labels", f"holds {values.dtype} values; labels must be integer class indices in [0, {k})")
    if values.ndim != 1:
        _fail(path, "labels", f"shape {values.shape}; must be 1-D (n,)")
    if values.shape[0] != n:
        _fail(path, "labels", f"{values.shape[0]} labels for {n} rows of logits")
    if values.dtype.kind == "f":
        whole = np.isfinite(values) & (values == np.round(values))
        if not whole.all():
            row = int(np.argmax(~whole))
            _fail(path, _row_name(arrays, "labels", row), f"{values[row]} is not a whole number; labels "
                  "must be class indices")
    outside = (values < 0) | (values >= k)
    if outside.any():
        row = int(np.argmax(outside))
        _fail(path, _row_name(arrays, "labels", row), f"{values[row]} is outside [0, {k}) for K = {k} "
              "classes")
    return values.astype(np.int64)


def _as_split(path, arrays, n):
    if "split" not in arrays:
        return None
    values = arrays["split"]
    if values.ndim != 1 or values.shape[0] != n:
        _fail(path, "split", f"shape {values.shape}; must be ({n},), one value per row")
    kind = values.dtype.kind
    if kind == "b":
        return values.astype(bool)
    if kind in "iuf":
        bad = ~np.isin(values, (0, 1))
        if bad.any():
            row = int(np.argmax(bad))
            _fail(path, _row_name(arrays, "split", row), f"{values[row]}; split values are 1 (calibration) "
                  "or 0 (test)")
        return values == 1
    if kind in "US":
        words = np.char.lower(np.char.strip(values.astype(str)))
        allowed = ("calibration", "test") if "lines" not in arrays else tuple(_SPLIT_WORDS)
        bad = ~np.isin(words, allowed)
        if bad.any():
            row = int(np.argmax(bad))
            _fail(path, _row_name(arrays, "split", row), f"{str(values[row])!r}; split values are "
                  f"{' / '.join(allowed)}")
        return np.array([_SPLIT_WORDS[word] for word in words.tolist()], dtype=bool) if n else np.zeros(0, bool)
    _fail(path, "split", f"holds {values.dtype} values; use bool, 0/1 or 'calibration'/'test'")


def _as_text(path, arrays, name, length, what):
    if name not in arrays:
        return None
    values = arrays[name]
    if values.dtype.kind not in "USiub":
        _fail(path, name, f"holds {values.dtype} values; {name} must be strings")
    if values.ndim != 1 or values.shape[0] != length:
        _fail(path, name, f"shape {values.shape}; must be ({length},), one per {what}")
    if values.dtype.kind == "S":
        try:
            return np.array([v.decode("utf-8") for v in values.tolist()], dtype=str)
        except UnicodeDecodeError:
            _fail(path, name, "bytes that are not UTF-8")
    return values.astype(str)


def _validate(path, arrays):
    logits = _as_logits(path, arrays)
    n, k = logits.shape
    labels = _as_labels(path, arrays, n, k)
    split = _as_split(path, arrays, n)
    groups = _as_text(path, arrays, "groups", n, "row")
    class_names = _as_text(path, arrays, "class_names", k, "class")
    return logits, labels, split, groups, class_names


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
