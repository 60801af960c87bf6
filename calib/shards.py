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
    they are probabilities). Each row group is a piece, read :data:`BATCH_BYTES` at a time.

Every problem raises :class:`calib.InputError` naming the file and the place.
"""

import glob
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

from .blocks import ROW_ALIGN
from .chunks import SPLIT_RULES, partition_sums
from .io_checks import InputError, fail
from .io_fields import _CSV_SPLIT_WORDS

__all__ = ["Piece", "Source", "PIECE_BYTES", "BATCH_BYTES", "PILOT_ROWS", "PILOT_VALUES", "open_source",
           "read_piece", "piece_sums", "load_piece", "loaded_sums", "pilot_rows", "pilot_size", "array_pieces",
           "split_rule", "split_values_of", "source_files"]

PIECE_BYTES = 1 << 26  # a .npy piece holds about this many bytes of float64 logits (64 MiB)
PILOT_ROWS = 20_000    # rows of the pilot fit, where Newton's passes start (calib.chunked) ...
PILOT_VALUES = 1 << 21  # ... and at most this many logits (64 rows of 32,000 classes)
BATCH_BYTES = 1 << 20  # a Parquet row group is read this many bytes of float64 logits at a time (1 MiB)
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

    batch = next(pq.ParquetFile(piece.path).iter_batches(batch_size=1, row_groups=[piece.group], columns=[column]))
    values = batch.column(column)[0].values
    if len(values) < 2:
        fail(piece.path, column, f"rows of {len(values)} value(s); need at least two classes")
    return len(values)


def split_values_of(path, values):
    """A split column as bool (True: calibration row)."""
    values = np.asarray(values)
    if values.dtype.kind == "b":
        return values
    if values.dtype.kind in "iu" and np.isin(values, (0, 1)).all():
        return values.astype(bool)
    words = np.char.lower(np.char.strip(values.astype(str)))
    # a partition is summed as calibration or test rows: training rows and "all" have no place in that split
    usable = tuple(w for w, meaning in _CSV_SPLIT_WORDS.items() if isinstance(meaning, bool))
    bad = ~np.isin(words, usable)
    if bad.any():
        fail(path, "split", f"{values[np.argmax(bad)]!r}; split values here are {' / '.join(usable)} "
                            "(drop training rows first, or use --split to split the rows)")
    return np.array([_CSV_SPLIT_WORDS[w] for w in words.tolist()], dtype=bool)


def _parquet_batches(piece, source):
    """``(logits, labels, split, start)`` of one row group, :data:`BATCH_BYTES` of float64 logits at a time
    (``start``: the batch's first row within the row group). Reading in batches keeps pyarrow's buffers to
    a batch's size, whatever the row group's."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns, label, split = source.columns
    wanted = list(columns) + [label] + ([split] if split else [])
    rows = max(ROW_ALIGN, BATCH_BYTES // (8 * source.k) // ROW_ALIGN * ROW_ALIGN)
    start = 0
    for batch in pq.ParquetFile(piece.path).iter_batches(batch_size=rows, row_groups=[piece.group], columns=wanted,
                                                         use_threads=False):
        m = batch.num_rows
        for c in wanted:
            if batch.column(c).null_count:
                fail(piece.path, c, f"row group {piece.group} has missing values")
        if len(columns) == 1:
            values = batch.column(columns[0])
            if not pa.types.is_fixed_size_list(values.type):
                lengths = np.diff(values.offsets.to_numpy())
                if (lengths != source.k).any():
                    row = int(np.argmax(lengths != source.k))
                    fail(piece.path, columns[0], f"row {_file_row(piece, source) + start + row} has {lengths[row]} "
                         f"values; the first has {source.k}")
            flat = values.flatten()
            if flat.null_count:
                fail(piece.path, columns[0], f"row group {piece.group} has missing values")
            logits = flat.to_numpy(zero_copy_only=False).reshape(m, source.k)
        else:
            logits = np.column_stack([batch.column(c).to_numpy() for c in columns])
        labels = batch.column(label).to_numpy()
        split_values = split_values_of(piece.path, batch.column(split).to_numpy(zero_copy_only=False)) \
            if split else None
        yield logits, labels, split_values, start
        start += m


def _file_row(piece, source):
    """The row of the piece's file that the piece starts at."""
    return piece.offset - next(p.offset for p in source.pieces if p.path == piece.path)


def read_piece(piece, source):
    """The batches of one piece: ``(logits (m, K), labels (m,), split (m,) bool or None, where, first_row,
    offset)``: one memory-mapped view for ``.npy`` (read when used), arrays of a bounded number of rows for
    Parquet; ``where`` and ``first_row`` name the rows in messages (the file, and the batch's first row
    counted within it), ``offset`` is the batch's first row in the data set."""
    if piece.kind == "npy":
        z = _open_npy(piece.path)[piece.start:piece.stop]
        y = _open_npy(piece.labels)[piece.start:piece.stop]
        s = _open_npy(piece.split)[piece.start:piece.stop] if piece.split else None
        yield z, y, s, piece.path, piece.start, piece.offset
        return
    first = _file_row(piece, source)
    for logits, labels, split, start in _parquet_batches(piece, source):
        yield logits, labels, split, piece.path, first + start, piece.offset + start


def pilot_size(k):
    """Rows of the pilot fit for K classes: :data:`PILOT_ROWS`, fewer when they would hold over
    :data:`PILOT_VALUES` logits (at least 64)."""
    return int(min(PILOT_ROWS, max(ROW_ALIGN, PILOT_VALUES // k)))


def pilot_rows(source):
    """``(logits, labels, split)`` of the data set's first batch, at most :func:`pilot_size` rows: the pilot
    fit's rows."""
    rows = pilot_size(source.k)
    z, y, s, *_ = next(read_piece(source.pieces[0], source))
    return np.asarray(z[:rows]), np.asarray(y[:rows]), None if s is None else np.asarray(s[:rows])


def load_piece(piece, source):
    """Every batch of one piece, read now (a list of :func:`read_piece`'s tuples): what ``persist`` keeps."""
    return [(np.asarray(z), np.asarray(y), None if s is None else np.asarray(s), where, first, offset)
            for z, y, s, where, first, offset in read_piece(piece, source)]


def loaded_sums(batches, plan):
    """:func:`calib.chunks.partition_sums` of a piece's batches already read (:func:`load_piece`)."""
    sums = None
    for z, y, s, where, first, offset in batches:
        sums = partition_sums(z, y, s, offset, plan, where, first, into=sums)
    return sums


def piece_sums(piece, source, plan):
    """:func:`calib.chunks.partition_sums` of one piece (its batches' sums added in order)."""
    sums = None
    for z, y, s, where, first, offset in read_piece(piece, source):
        sums = partition_sums(z, y, s, offset, plan, where, first, into=sums)
    return sums


def source_files(source):
    """One dict per file of a :class:`Source`, in order: ``file`` and ``rows`` (as ``calib fit``'s ``files``,
    without the SHA-256, which would read every byte once more)."""
    rows = {}
    for piece in source.pieces:
        rows[piece.path] = rows.get(piece.path, 0) + piece.stop - piece.start
    return [{"file": path, "rows": count} for path, count in rows.items()]


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
