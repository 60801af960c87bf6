"""Reading a user's ``.csv`` file of logits (or probabilities) and labels into arrays; see :mod:`calib.io`.

The columns: without a header, the label then the K class columns; with a
header (a first row whose first cell is not a number), a ``label`` column,
optional ``split`` and ``group`` columns (names case-insensitive, any
position), optional row identifiers ``index`` or ``id`` (ignored, with a
note), and every other column a class, in order (a first row naming one of
these columns is a header too, e.g. ``0,1,…,9,label``). Class columns named
``p_<class>``, ``prob_<class>`` or ``proba_<class>`` (all of them) are
declared probabilities and ``<class>`` is the class name; otherwise the
header cells are the class names and what the numbers are is left to
:mod:`calib.io_values` (``kind``, the ``--input`` option, overrides both).
One class column is a binary model's score or positive-class probability.

Fields are separated by commas, or by semicolons (or tabs) when every one of
the first lines has the same number of them (a spreadsheet's European export):
then a comma inside a number is its decimal mark (``0,25``), with a note. Label
cells that are not numbers are kept as text, to be mapped through the class
names (:mod:`calib.io`).

Refused with the fix named: an empty or ``Unnamed: N`` header cell, or a first
column holding 0, 1, …, n − 1 (a DataFrame's index: write with
``index=False``); a first row 0, 1, 2, … read as data (a header of column
numbers); a header mixing probability and other class columns. Cells that
are not numbers are named, the first of each column, and passed on under
``problems`` so that :mod:`calib.io` reports them with every other problem.
"""

import csv
import re

import numpy as np

from .io_checks import Problems, fail, is_number, whole_numbers

__all__ = ["read_csv", "PROBABILITY_PREFIX", "INDEX_HINT", "IGNORED_COLUMNS"]

PROBABILITY_PREFIX = re.compile(r"^(?:p|prob|proba)_(.+)$", re.IGNORECASE)  # a class column of probabilities
INDEX_HINT = "write with index=False (df.to_csv(path, index=False))"
IGNORED_COLUMNS = ("index", "id")  # row identifiers (df.reset_index() writes 'index'): read past, with a note
_UNNAMED = re.compile(r"^unnamed: \d+$", re.IGNORECASE)  # pandas' name for a header cell it read empty
_ROLES = ("label", "split", "group")
_DECIMAL_COMMA = re.compile(r"^\s*[-+]?(?:\d+,\d*|,\d+)(?:[eE][-+]?\d+)?\s*$")
_SNIFF_LINES = 50
_MAX_NAMED = 3  # bad cells named per message (the first of each column)


def _dialect(path):
    """``(delimiter, decimal_comma)``: ``;`` (or a tab) when each of the first non-empty lines holds the same
    number of them (at least one) and, for a tab, no comma; then whether any cell is a number written with a
    decimal comma."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            head = [line for _, line in zip(range(_SNIFF_LINES), stream) if line.strip()]
    except (UnicodeDecodeError, OSError):
        return ",", False  # _records says what is wrong
    for delimiter in (";", "\t"):
        counts = {line.count(delimiter) for line in head}
        if not head or len(counts) != 1 or 0 in counts or (delimiter == "\t" and "," in head[0]):
            continue
        cells = [cell for row in csv.reader(head, delimiter=delimiter) for cell in row]
        return delimiter, any(_DECIMAL_COMMA.match(cell) for cell in cells)
    return ",", False


def _records(path, delimiter):
    try:
        with open(path, newline="", encoding="utf-8-sig") as stream:
            reader = csv.reader(stream, delimiter=delimiter)
            return [(reader.line_num, row) for row in reader if row]
    except UnicodeDecodeError as error:
        fail(path, "", f"not UTF-8 text ({error.reason} at byte {error.start})")
    except csv.Error as error:
        fail(path, "", f"not a valid CSV file ({error})")
    except OSError as error:
        fail(path, "", f"cannot read the file ({error.strerror or error})")


def _check_header(path, line, header):
    for i, cell in enumerate(header):
        if not cell or _UNNAMED.match(cell):
            what = "empty" if not cell else repr(cell)
            if i == 0:
                fail(path, f"line {line}", f"the first header cell is {what}: a DataFrame's index written as a "
                     f"column; {INDEX_HINT}")
            fail(path, f"line {line}", f"header cell {i + 1} is {what}; name every column ('label', the classes, "
                 "optional 'split' and 'group')")
    lowered = [cell.lower() for cell in header]
    for name in _ROLES + IGNORED_COLUMNS:
        if lowered.count(name) > 1:
            fail(path, f"line {line}", f"the header names the {name!r} column twice")
    if "label" not in lowered:
        found = ", ".join(header[:12]) + (f", … ({len(header)} columns)" if len(header) > 12 else "")
        fail(path, f"line {line}", f"the header has no 'label' column (found {found}); name the column of true "
             "classes 'label', e.g. df.rename(columns={'y_true': 'label'})")
    return lowered


def _class_columns(path, line, header, classes, kind):
    """``(declared, class names)`` of the class columns: ``"probabilities"`` when every header cell has a
    probability prefix (the names drop it), None (not said) otherwise; an explicit ``kind`` wins and keeps the
    cells as names."""
    matches = [PROBABILITY_PREFIX.match(header[i]) for i in classes]
    if kind is not None:
        return kind, [header[i] for i in classes]
    if matches and all(matches):
        return "probabilities", [m.group(1) for m in matches]
    if any(matches):
        prob = header[classes[[bool(m) for m in matches].index(True)]]
        other = header[classes[[bool(m) for m in matches].index(False)]]
        fail(path, f"line {line}", f"the header mixes probability columns ({prob!r}) and other class columns "
             f"({other!r}); name every class column prob_<class> for probabilities or none for logits, or pass "
             "--input logits|probabilities")
    return None, [header[i] for i in classes]


def _numbers(path, records, columns, names, decimal_comma):
    """The cells of ``columns`` as a float array (n, len(columns)); every column's first non-number is named
    (one :class:`InputError` for all of them)."""
    cells = [[row[c] for c in columns] for _, row in records]
    if decimal_comma:
        cells = [[cell.replace(",", ".") for cell in row] for row in cells]
    try:
        return np.array(cells, dtype=np.float64).reshape(len(records), len(columns))
    except ValueError:
        pass
    problems = Problems(path)
    for j, column in enumerate(columns):
        for i, row in enumerate(cells):
            if not is_number(row[j]):
                if len(problems.found) < _MAX_NAMED:
                    with problems.collect():
                        cell = records[i][1][column]
                        fail(path, f"line {records[i][0]}, column {names[column]!r}",
                             "an empty cell; every class cell must be a number" if not cell.strip() else
                             f"{cell!r} is not a number" + ("; decimal commas? this file separates fields with "
                                                            "commas, so write numbers with a '.'"
                                                            if _DECIMAL_COMMA.match(cell) else ""))
                break
    problems.done()
    return np.array([[float(cell) for cell in row] for row in cells]).reshape(len(records), len(columns))


def read_csv(path, max_values, kind=None):
    """The columns of a ``.csv`` as a dict: ``logits`` (n, K) (the class columns, whatever they hold), ``declared``
    (``"probabilities"``, ``"logits"`` or None: what the header says), ``labels`` (n,) float, or str when a cell
    is not a number, optional ``split``/``groups`` (n,) str and ``class_names`` (K,) str, ``notes``, plus
    ``lines`` (n,), each row's line number, and ``column_names``, each class column's title for messages. ``kind``
    None (the header decides), ``"logits"`` or ``"probabilities"``; at most ``max_values`` class values (n · K)."""
    delimiter, decimal_comma = _dialect(path)
    records = _records(path, delimiter)
    notes = []
    if delimiter != ",":
        notes.append(f"fields separated by {'tabs' if delimiter == chr(9) else repr(delimiter)}"
                     + (" and numbers written with a decimal comma" if decimal_comma else "")
                     + (" (a European spreadsheet export)" if delimiter == ";" else "") + ": read as such")
    if not records:
        fail(path, "", "no rows")
    first_line, first = records[0]
    header = None
    number = (lambda text: is_number(text.replace(",", "."))) if decimal_comma else is_number
    if not number(first[0]) or any(cell.strip().lower() in _ROLES for cell in first):
        header = [cell.strip() for cell in first]
        records = records[1:]
    elif len(first) >= 3 and [cell.strip() for cell in first] == [str(i) for i in range(len(first))]:
        fail(path, f"line {first_line}", f"the first row is 0, 1, …, {len(first) - 1}: a header of column numbers "
             "(pandas writes one for unnamed columns) read as data; write with header=False, or name the columns "
             "('label' and the classes)")
    if header is None:
        columns = {"label": 0}
        classes = list(range(1, len(first)))
        names = ["label"] + [f"logit {i}" for i in range(1, len(first))]
        declared, class_names = kind, None
    else:
        lowered = _check_header(path, first_line, header)
        columns = {name: lowered.index(name) for name in _ROLES + IGNORED_COLUMNS if name in lowered}
        for name in IGNORED_COLUMNS:
            if name in columns:
                notes.append(f"column {header[columns[name]]!r} ignored (row identifiers)")
        classes = [i for i in range(len(header)) if i not in columns.values()]
        names = header
        declared, class_names = _class_columns(path, first_line, header, classes, kind)
        class_names = np.array(class_names, dtype=str)
    width = len(names)
    if not records:
        fail(path, "", "no data rows")
    n, k = len(records), len(classes)
    if k < 1:
        fail(path, f"line {first_line}", "no class columns; give one column per class (or one score column for a "
             "binary model) besides 'label'")
    if n * k > max_values:
        fail(path, "", f"{n:,} rows × {k:,} classes; the limit is {max_values:,} values")
    for line, row in records:
        if len(row) != width:
            fail(path, f"line {line}", f"{len(row)} fields, but the {'header' if header else 'first row'} has {width}")
    problems = Problems(path)  # bad cells are passed on (arrays["problems"]), so the other checks still run
    values = np.zeros((n, k))
    with problems.collect():
        values = _numbers(path, records, classes, names, decimal_comma)
    label_cells = [row[columns["label"]].strip() for _, row in records]
    if any(not cell for cell in label_cells):
        with problems.collect():
            i = label_cells.index("")
            fail(path, f"line {records[i][0]}, column {names[columns['label']]!r}", "an empty cell; every row needs "
                 "its label")
        label_cells = [cell or "0" for cell in label_cells]
    try:
        labels = np.array([cell.replace(",", ".") if decimal_comma else cell for cell in label_cells],
                          dtype=np.float64)
    except ValueError:
        labels = np.array(label_cells, dtype=str)  # names, mapped through the class names by calib.io
    lines = np.array([line for line, _ in records], dtype=np.int64)
    # labels 0, …, n − 1 are refused as out of range anyway when n > K; say why they are
    first_column = labels if columns["label"] == 0 and n > k and labels.dtype.kind == "f" else (
        values[:, 0] if classes[0] == 0 else None)
    if first_column is not None and n >= 3 and np.array_equal(first_column, np.arange(n)):
        fail(path, f"column {names[0]!r}", f"holds 0, 1, …, {n - 1}: a DataFrame's index, not "
             f"{'labels' if columns['label'] == 0 else 'a class'}; {INDEX_HINT}")
    if header is None and labels.dtype.kind == "f" and k >= 2 and not problems.found:
        _check_label_first(path, labels, values)
    arrays = {"logits": values, "declared": declared, "labels": labels, "lines": lines,
              "column_names": [names[c] for c in classes], "notes": notes, "problems": problems.found}
    if "split" in columns:
        arrays["split"] = np.array([row[columns["split"]] for _, row in records], dtype=str)
    if "group" in columns:
        groups = np.array([row[columns["group"]].strip() for _, row in records], dtype=str)
        if np.any(groups != ""):  # an empty group column (a file written for every dataset alike): no groups
            arrays["groups"] = groups
    if class_names is not None:
        arrays["class_names"] = class_names
    return arrays


def _check_label_first(path, labels, values):
    """Refuse a headerless file whose first column (read as the label) is not whole numbers while its last
    column is whole numbers in [0, columns read): the label was written last (``np.column_stack([z, y])``)."""
    last = values[:, -1]
    last_is_label = whole_numbers(last).all() and last.min() >= 0 and last.max() < values.shape[1]
    if whole_numbers(labels).all() or not last_is_label:
        return
    fail(path, "column 1", "not whole numbers, but the last column is: a CSV without a header starts with the label; "
         "move the label column first, or write a header that names it 'label'")
