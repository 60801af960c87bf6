"""Rows too many for memory: ``.npy`` files read memory-mapped and Parquet files read a row group at a time.

:func:`open_source` lists a data set's pieces (bounded runs of rows, each with its global offset) from
a file, a folder or a glob, reading headers and metadata only; :func:`read_piece` reads one piece. No
cap on n · K or on a file's size applies (``calib.io``'s caps guard the in-memory path): memory is
bounded by the piece instead.

``.npy``
    a 2-D logits array (float16, float32, float64 or integers), memory-mapped; its labels in the
    ``.npy`` whose file name has ``labels`` in place of ``logits`` (``logits-003.npy`` →
    ``labels-003.npy``; what ``unzip model.npz -d model/`` gives), or ``labels=``; an optional
    ``split`` file the same way (True: calibration row). A file named with ``probabilities`` instead of
    ``logits`` holds probabilities. Several files (a glob or a folder) are shards, in sorted order.
``.parquet``
    a column ``label`` (or ``labels``), optional ``split`` (bool, 0/1, or ``calibration``/``test``
    words as in a CSV), and the logits as one list column ``logits`` (or ``probabilities``), or as one
    numeric column per class (every other column, in order; named ``p_*``, ``prob_*`` or ``proba_*``
    they are probabilities). Each row group is a piece: write row groups of a size that fits a worker.

Every problem raises :class:`calib.InputError` naming the file and the place.
"""

import glob
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

from .blocks import ROW_ALIGN
from .chunks import SPLIT_RULES
from .io import _CSV_SPLIT_WORDS
from .io_checks import InputError, fail

__all__ = ["Piece", "Source", "PIECE_BYTES", "open_source", "read_piece", "array_pieces", "split_rule"]

PIECE_BYTES = 1 << 26  # a .npy piece holds about this many bytes of float64 logits (64 MiB)
_LABEL_COLUMNS = ("label", "labels")
_LIST_COLUMNS = ("logits", "probabilities")
_OTHER_COLUMNS = ("split", "group", "groups") + _LABEL_COLUMNS
_PROBABILITY_PREFIXES = ("p_", "prob_", "proba_")


class Piece(NamedTuple):
    """Rows ``[start, stop)`` of one file (``.npy``: of the memory-mapped arrays; Parquet: of row group
    ``group``), whose first row is the data set's row ``offset``. ``labels`` and ``split`` are the ``.npy``
    files of the labels and split ('' for none, or for Parquet)."""

    kind: str
    path: str
    start: int
    stop: int
    offset: int
    group: int = -1
    labels: str = ""
    split: str = ""


class Source(NamedTuple):
    """A data set in pieces: ``name`` (what the report calls it), ``n`` rows, ``k`` classes, ``pieces``, whether
    it has a split column (``has_split``) and holds probabilities (``probabilities``); ``columns``: the
    Parquet columns read (logits list column or class columns, label, split)."""

    name: str
    n: int
    k: int
    pieces: tuple
    has_split: bool
    probabilities: bool
    columns: tuple = ()


def _files(path):
    """The files a path, folder or glob names, sorted; a folder gives its ``.parquet`` files, else its
    ``.npy`` files named with ``logits`` or ``probabilities``."""
    text = str(path)
    if any(c in text for c in "*?["):
        found = sorted(glob.glob(text))
        if not found:
            fail(text, "", "no file matches this pattern")
        return [Path(f) for f in found]
    path = Path(text)
    if path.is_dir():
        found = sorted(path.glob("*.parquet")) or sorted(
            p for p in path.glob("*.npy") if "logits" in p.name or "probabilities" in p.name)
        if not found:
            fail(path, "", "a folder of .parquet files, or of .npy files named logits*.npy (with labels*.npy)")
        return found
    if not path.exists():
        fail(path, "", "no such file")
    return [path]


def open_source(path, labels=None, kind=None, piece_rows=None):
    """The :class:`Source` of a ``.npy`` or Parquet file, folder or glob (see the module docstring).

    ``labels`` is the labels' ``.npy`` file or glob (default: each logits file's name with ``labels`` in
    place of ``logits``); ``kind`` ``"logits"`` or ``"probabilities"`` overrides the names; ``piece_rows``
    the rows of a ``.npy`` piece (default: :data:`PIECE_BYTES` of float64 logits, a multiple of 64 rows).
    """
    files = _files(path)
    suffixes = {f.suffix.lower() for f in files}
    if suffixes <= {".parquet", ".pq"}:
        return _parquet_source(str(path), files, kind)
    if suffixes == {".npy"}:
        return _npy_source(str(path), files, labels, kind, piece_rows)
    fail(path, "", f"found {', '.join(sorted(suffixes))} files; a large fit reads .npy (memory-mapped) or "
         ".parquet files (an .npz: unzip it into a folder of .npy files; a .csv: use calib fit)")


# --- .npy ---------------------------------------------------------------------------------------

def _open_npy(path):
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as error:
        fail(path, "", f"cannot read it as a .npy array ({error})")


def _sibling(path, word, given, index):
    """The ``.npy`` of ``word`` (labels, split) beside the logits file ``path``, or the given one."""
    if given is not None:
        return given[index]
    stem = "probabilities" if "probabilities" in path.name else "logits"
    if stem not in path.name:
        return None
    return path.with_name(path.name.replace(stem, word))


def _npy_source(name, files, labels, kind, piece_rows):
    given = None if labels is None else _files(labels)
    if given is not None and len(given) != len(files):
        fail(labels, "", f"{len(given)} labels file(s) for {len(files)} logits file(s)")
    pieces, offset, k = [], 0, None
    probabilities = kind == "probabilities" or (kind is None and "probabilities" in files[0].name)
    for index, path in enumerate(files):
        z = _open_npy(path)
        if z.ndim != 2 or z.dtype.kind not in "fiu" or z.shape[1] < 2:
            fail(path, "", f"shape {z.shape} of {z.dtype}; need a 2-D array (n, K ≥ 2) of real numbers")
        if k is not None and z.shape[1] != k:
            fail(path, "", f"{z.shape[1]} classes; the first file has {k}")
        k = z.shape[1]
        label_path = _sibling(path, "labels", given, index)
        if label_path is None or not Path(label_path).exists():
            fail(path, "", "no labels file beside it (name it with 'labels' in place of 'logits', or pass labels=)")
        y = _open_npy(label_path)
        if y.shape != (z.shape[0],) or y.dtype.kind not in "fiu":
            fail(label_path, "", f"shape {y.shape} of {y.dtype}; need ({z.shape[0]},) class indices")
        split_path = _sibling(path, "split", None, index)
        split = str(split_path) if split_path is not None and split_path.exists() else ""
        if split:
            s = _open_npy(split)
            if s.shape != (z.shape[0],) or s.dtype.kind not in "biu":
                fail(split, "", f"shape {s.shape} of {s.dtype}; need ({z.shape[0]},) of bool or 0/1")
        if index and bool(split) != bool(pieces and pieces[-1].split):
            fail(path, "", "some shards have a split file and others not")
        rows = piece_rows or max(ROW_ALIGN, PIECE_BYTES // (8 * k) // ROW_ALIGN * ROW_ALIGN)
        for start in range(0, z.shape[0], rows):
            stop = min(z.shape[0], start + rows)
            pieces.append(Piece("npy", str(path), start, stop, offset + start, -1, str(label_path), split))
        offset += z.shape[0]
    if offset == 0:
        fail(name, "", "no rows")
    return Source(name, offset, k, tuple(pieces), bool(pieces[0].split), probabilities)


# --- Parquet ------------------------------------------------------------------------------------

def _parquet_columns(path, schema, kind):
    """``(logits columns, label column, split column or None, probabilities)`` of a Parquet schema."""
    import pyarrow as pa

    names = schema.names
    label = next((c for c in _LABEL_COLUMNS if c in names), None)
    if label is None:
        fail(path, "", f"needs a column 'label'; found {', '.join(names)}")
    split = "split" if "split" in names else None
    listed = [c for c in _LIST_COLUMNS if c in names]
    if listed:
        column = listed[0]
        if not pa.types.is_list(schema.field(column).type) and not pa.types.is_fixed_size_list(
                schema.field(column).type) and not pa.types.is_large_list(schema.field(column).type):
            fail(path, column, f"type {schema.field(column).type}; need a list of numbers per row")
        return (column,), label, split, kind == "probabilities" or (kind is None and column == "probabilities")
    classes = tuple(c for c in names if c.lower() not in _OTHER_COLUMNS)
    for c in classes:
        if not (pa.types.is_floating(schema.field(c).type) or pa.types.is_integer(schema.field(c).type)):
            fail(path, c, f"type {schema.field(c).type}; class columns must be numbers")
    if len(classes) < 2:
        fail(path, "", f"needs a list column 'logits' or at least two class columns; found {', '.join(names)}")
    named = all(c.lower().startswith(_PROBABILITY_PREFIXES) for c in classes)
    return classes, label, split, kind == "probabilities" or (kind is None and named)


def _parquet_source(name, files, kind):
    try:
        import pyarrow.parquet as pq
    except ImportError as error:  # the optional extra is missing
        raise InputError(f"{name}: reading Parquet needs pyarrow: pip install 'calibration-tutorial[dask]'") \
            from error
    pieces, offset, first = [], 0, None
    for path in files:
        try:
            meta = pq.ParquetFile(path)
        except Exception as error:  # pyarrow raises several types for a file that is not Parquet
            fail(path, "", f"cannot read it as Parquet ({error})")
        found = _parquet_columns(path, meta.schema_arrow, kind)
        if first is None:
            first = found
        elif found != first:
            fail(path, "", "its columns differ from the first file's")
        for group in range(meta.metadata.num_row_groups):
            rows = meta.metadata.row_group(group).num_rows
            if rows:
                pieces.append(Piece("parquet", str(path), 0, rows, offset, group))
            offset += rows
    if offset == 0:
        fail(name, "", "no rows")
    columns, label, split, probabilities = first
    k = len(columns) if len(columns) > 1 else _list_width(pieces[0], columns[0])
    return Source(name, offset, k, tuple(pieces), split is not None, probabilities,
                  (columns, label, split))


def _list_width(piece, column):
    """K of a list column: the length of its first row."""
    import pyarrow.parquet as pq

    first = pq.ParquetFile(piece.path).read_row_group(piece.group, columns=[column]).column(column)
    values = first.chunk(0)[0].values
    if len(values) < 2:
        fail(piece.path, column, f"rows of {len(values)} value(s); need at least two classes")
    return len(values)


def _split_values(path, values):
    """A split column as bool (True: calibration row)."""
    values = np.asarray(values)
    if values.dtype.kind == "b":
        return values
    if values.dtype.kind in "iu" and np.isin(values, (0, 1)).all():
        return values.astype(bool)
    words = np.char.lower(np.char.strip(values.astype(str)))
    bad = ~np.isin(words, tuple(_CSV_SPLIT_WORDS))
    if bad.any():
        fail(path, "split", f"{values[np.argmax(bad)]!r}; split values are {' / '.join(_CSV_SPLIT_WORDS)}")
    return np.array([_CSV_SPLIT_WORDS[w] for w in words.tolist()], dtype=bool)


def _read_parquet(piece, source):
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns, label, split = source.columns
    wanted = list(columns) + [label] + ([split] if split else [])
    table = pq.ParquetFile(piece.path).read_row_group(piece.group, columns=wanted)
    m = table.num_rows
    for c in wanted:
        if table.column(c).null_count:
            fail(piece.path, c, f"row group {piece.group} has missing values")
    if len(columns) == 1:
        values = table.column(columns[0]).combine_chunks()
        if not pa.types.is_fixed_size_list(values.type):
            lengths = np.diff(values.offsets.to_numpy())
            if (lengths != source.k).any():
                row = int(np.argmax(lengths != source.k))
                fail(piece.path, columns[0], f"row {piece.offset + row} has {lengths[row]} values; the first has "
                     f"{source.k}")
        flat = values.flatten()
        if flat.null_count:
            fail(piece.path, columns[0], f"row group {piece.group} has missing values")
        logits = flat.to_numpy(zero_copy_only=False).reshape(m, source.k)
    else:
        logits = np.column_stack([table.column(c).to_numpy() for c in columns])
    labels = table.column(label).to_numpy()
    split_values = _split_values(piece.path, table.column(split).to_numpy(zero_copy_only=False)) if split else None
    return logits, labels, split_values


def read_piece(piece, source):
    """``(logits (m, K), labels (m,), split (m,) bool or None, where, first_row)`` of one piece: memory-mapped
    views for ``.npy`` (read when used), arrays for Parquet; ``where`` and ``first_row`` name its rows in
    messages (the file, and the piece's first row counted within it)."""
    if piece.kind == "npy":
        z = _open_npy(piece.path)[piece.start:piece.stop]
        y = _open_npy(piece.labels)[piece.start:piece.stop]
        s = _open_npy(piece.split)[piece.start:piece.stop] if piece.split else None
        return z, y, s, piece.path, piece.start
    logits, labels, split = _read_parquet(piece, source)
    file_start = piece.offset - next(p.offset for p in source.pieces if p.path == piece.path)
    return logits, labels, split, piece.path, file_start


def array_pieces(n, rows):
    """Pieces of rows ``[0, n)`` of in-memory arrays, ``rows`` at a time (``kind = "array"``)."""
    return tuple(Piece("array", "", s, min(n, s + rows), s) for s in range(0, n, rows))


def split_rule(split: Optional[str], has_split):
    """The split rule of a partitioned fit: ``split``, or ``"file"`` when the data have a split, else
    ``"even-odd"``."""
    rule = split or ("file" if has_split else "even-odd")
    if rule not in SPLIT_RULES:
        raise InputError(f"split: {rule!r} is not available for a partitioned fit; use one of "
                         f"{', '.join(SPLIT_RULES)} (a random split needs a global permutation of the rows)")
    return rule
