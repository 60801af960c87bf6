"""Reading a user's ``.csv`` file of logits (or probabilities) and labels into arrays; see :mod:`calib.io`.

The columns: without a header, the label then the K class columns; with a
header (a first row whose first cell is not a number), a ``label`` column,
optional ``split`` and ``group`` columns (names case-insensitive, any
position), and every other column a class, in order (a first row naming one
of these columns is a header too, e.g. ``0,1,…,9,label``). Class columns named
``p_<class>``, ``prob_<class>`` or ``proba_<class>`` (all of them) hold
probabilities and ``<class>`` is the class name; otherwise the class columns
hold logits and their header cells are the class names. ``kind`` (the
``--input`` option) overrides what the header says.

Refused with the fix named: an empty or ``Unnamed: N`` header cell, or a first
column holding 0, 1, …, n − 1 (a DataFrame's index: write with
``index=False``); a first row 0, 1, 2, … read as data (a header of column
numbers); a header mixing probability and other class columns.
"""

import csv
import re

import numpy as np

from .io_checks import fail, whole_numbers

__all__ = ["read_csv", "PROBABILITY_PREFIX", "INDEX_HINT"]

PROBABILITY_PREFIX = re.compile(r"^(?:p|prob|proba)_(.+)$", re.IGNORECASE)  # a class column of probabilities
INDEX_HINT = "write with index=False (df.to_csv(path, index=False))"
_UNNAMED = re.compile(r"^unnamed: \d+$", re.IGNORECASE)  # pandas' name for a header cell it read empty
_ROLES = ("label", "split", "group")


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _rows(stream):
    reader = csv.reader(stream)
    for row in reader:
        yield reader.line_num, row


def _records(path):
    try:
        with open(path, newline="", encoding="utf-8-sig") as stream:
            return [(line, row) for line, row in _rows(stream) if row]
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
    for name in _ROLES:
        if lowered.count(name) > 1:
            fail(path, f"line {line}", f"the header names the {name!r} column twice")
    if "label" not in lowered:
        found = ", ".join(header[:12]) + (f", … ({len(header)} columns)" if len(header) > 12 else "")
        fail(path, f"line {line}", f"the header has no 'label' column (found {found}); name the column of true "
             "classes 'label', e.g. df.rename(columns={'y_true': 'label'})")
    return lowered


def _class_columns(path, line, header, classes, kind):
    """``(kind, class names)`` of the class columns: probabilities when every header cell has a probability
    prefix (then the names drop it), logits otherwise; an explicit ``kind`` wins and keeps the cells as names."""
    matches = [PROBABILITY_PREFIX.match(header[i]) for i in classes]
    if kind is not None:
        return kind, [header[i] for i in classes]
    if all(matches):
        return "probabilities", [m.group(1) for m in matches]
    if any(matches):
        prob = header[classes[[bool(m) for m in matches].index(True)]]
        other = header[classes[[bool(m) for m in matches].index(False)]]
        fail(path, f"line {line}", f"the header mixes probability columns ({prob!r}) and other class columns "
             f"({other!r}); name every class column prob_<class> for probabilities or none for logits, or pass "
             "--input logits|probabilities")
    return "logits", [header[i] for i in classes]


def read_csv(path, max_values, kind=None):
    """The columns of a ``.csv`` as a dict: ``logits`` or ``probabilities`` (n, K), ``labels`` (n,) float,
    optional ``split``/``groups`` (n,) str and ``class_names`` (K,) str, plus ``lines`` (n,), each row's line
    number, and ``column_names``, each class column's title for messages. ``kind`` None (the header decides),
    ``"logits"`` or ``"probabilities"``; at most ``max_values`` class values (n · K)."""
    records = _records(path)
    if not records:
        fail(path, "", "no rows")
    first_line, first = records[0]
    header = None
    if not _is_number(first[0]) or any(cell.strip().lower() in _ROLES for cell in first):
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
        kind = kind or "logits"
        class_names = None
    else:
        lowered = _check_header(path, first_line, header)
        columns = {name: lowered.index(name) for name in _ROLES if name in lowered}
        classes = [i for i in range(len(header)) if i not in columns.values()]
        names = header
        kind, class_names = _class_columns(path, first_line, header, classes, kind)
        class_names = np.array(class_names, dtype=str)
    width = len(names)
    if not records:
        fail(path, "", "no data rows")
    n, k = len(records), len(classes)
    if k < 2:
        fail(path, f"line {records[0][0]}", f"{k} class column(s); need at least 2 classes")
    if n * k > max_values:
        fail(path, "", f"{n:,} rows × {k:,} classes; the limit is {max_values:,} values")
    values = np.empty((n, k))
    labels = np.empty(n)
    lines = np.empty(n, dtype=np.int64)
    split = [] if "split" in columns else None
    groups = [] if "group" in columns else None
    for i, (line, row) in enumerate(records):
        if len(row) != width:
            fail(path, f"line {line}", f"{len(row)} fields, but the {'header' if header else 'first row'} has {width}")
        lines[i] = line
        for j, column in enumerate(classes):
            try:
                values[i, j] = float(row[column])
            except ValueError:
                fail(path, f"line {line}, column {names[column]!r}", f"{row[column]!r} is not a number")
        cell = row[columns["label"]]
        try:
            labels[i] = float(cell)
        except ValueError:
            fail(path, f"line {line}, column {names[columns['label']]!r}",
                 ("an empty cell" if not cell.strip() else f"{cell!r} is not a class index")
                 + f"; labels must be integers in [0, {k}), the class columns' order (map names to indices, e.g. "
                 "with np.searchsorted(classes, y) on the sorted class names)")
        if split is not None:
            split.append(row[columns["split"]])
        if groups is not None:
            groups.append(row[columns["group"]].strip())
    # labels 0, …, n − 1 are refused as out of range anyway when n > K; say why they are
    first_column = labels if columns["label"] == 0 and n > k else (values[:, 0] if classes[0] == 0 else None)
    if first_column is not None and n >= 3 and np.array_equal(first_column, np.arange(n)):
        fail(path, f"column {names[0]!r}", f"holds 0, 1, …, {n - 1}: a DataFrame's index, not "
             f"{'labels' if columns['label'] == 0 else 'a class'}; {INDEX_HINT}")
    if header is None:
        _check_label_first(path, labels, values)
    arrays = {kind: values, "labels": labels, "lines": lines, "column_names": [names[c] for c in classes]}
    if split is not None:
        arrays["split"] = np.array(split, dtype=str)
    if groups is not None:
        arrays["groups"] = np.array(groups, dtype=str)
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
