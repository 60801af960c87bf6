"""The rows' other fields of a user's file: labels (class indices, or text mapped through the class names), the
split (calibration, test, training rows dropped, or one part), class names and groups. Used by :mod:`calib.io`;
every problem raises :class:`calib.io_checks.InputError` naming the file and the place.
"""

import numpy as np

from .io_checks import (
    SAVEZ_HINT,
    check_one_hot,
    fail,
    is_number,
    label_hint,
    row_name,
    split_from_indices,
    whole_numbers,
)

__all__ = ["SPLIT_WORDS", "as_labels", "as_split", "as_text", "binary_names", "found_arrays"]

# split words (case-insensitive): True a calibration row, False a test row, None a training row (dropped, with a
# note: a model's own training rows say nothing about its calibration), "all" every row in one part
SPLIT_WORDS = {"calibration": True, "cal": True, "calib": True, "val": True, "valid": True, "validation": True,
               "dev": True, "test": False, "holdout": False, "train": None, "training": None, "all": "all"}
_CSV_SPLIT_WORDS = dict(SPLIT_WORDS, **{"1": True, "0": False, "true": True, "false": False})


def found_arrays(arrays):
    """The arrays or columns the file holds, for a message that says what is missing."""
    if "found" in arrays:
        return ", ".join(arrays["found"]) or "no arrays"
    return ", ".join(name for name in ("logits", "probabilities", "labels", "split", "groups") if name in arrays)


def as_text(path, arrays, name, length, what):
    """Array ``name`` (``length``,) of strings (or integers, kept as their text), or None when absent."""
    if name not in arrays:
        return None
    values = arrays[name]
    if values.dtype.kind not in "USiub":
        fail(path, name, f"holds {values.dtype} values; {name} must be strings")
    if values.ndim != 1 or values.shape[0] != length:
        fail(path, name, f"shape {values.shape}; must be ({length},), one per {what}")
    if values.dtype.kind == "S":
        try:
            return np.array([v.decode("utf-8") for v in values.tolist()], dtype=str)
        except UnicodeDecodeError:
            fail(path, name, "bytes that are not UTF-8")
    return values.astype(str)


def binary_names(path, arrays):
    """The class names of a binary file: an .npz's two ``class_names`` (negative, positive), or
    ``[None, positive]`` from a CSV's one column header (the class the score or probability is of); or None."""
    if "class_names" not in arrays:
        return None
    if "lines" in arrays:
        return [None, str(arrays["class_names"][0])]
    return as_text(path, arrays, "class_names", 2, "class of a binary model (the negative, then the positive)").tolist()


def _named_labels(path, arrays, values, class_names, binary):
    """Text labels as class indices through the class names (the header's, or ``class_names``); for a binary
    model with only the positive class named, any one other text is the negative class; ``true``/``false``
    are 1/0 for a binary model. Returns ``(indices (n,) float, class names or None, note)``."""
    text = np.char.strip(values.astype(str))
    seen = np.unique(text)
    names = list(class_names) if class_names is not None else None
    if binary and set(np.char.lower(seen).tolist()) <= {"true", "false"}:
        return (np.char.lower(text) == "true").astype(np.float64), names, None
    if binary and names is not None and names[0] is None:
        others = [v for v in seen.tolist() if v != names[1]]
        if len(others) == 1:
            names = [others[0], names[1]]
        elif len(others) == 2 == seen.size:
            fail(path, "column 'label'", f"a binary model's labels {others[0]!r} and {others[1]!r}, but the one class "
                 f"column is {names[1]!r}: which class is it the score or probability of? name the column after "
                 f"it ({others[1]!r} or 'prob_{others[1]}'), or give labels 0 and 1 (1: the column's class)")
    if names is not None and None not in names and set(seen.tolist()) <= set(names):
        lookup = {name: i for i, name in enumerate(names)}
        index = np.array([lookup[v] for v in seen.tolist()])[np.searchsorted(seen, text)]
        where = "the header's class names" if "lines" in arrays else "class_names"
        return index.astype(np.float64), names, f"text labels mapped to class indices through {where}"
    unknown = [v for v in seen.tolist() if names is None or v not in names]
    numeric = np.array([is_number(v) for v in unknown], dtype=bool)
    if numeric.any() and not numeric.all():  # class indices with a few other cells: name the first of those
        unknown = [v for v, is_number in zip(unknown, numeric) if not is_number]
    row = int(np.argmax(np.isin(text, unknown)))
    listed = ", ".join(n for n in (names or ()) if n is not None)
    known = f" (the class names: {listed[:200]})" if listed else ""
    fix = ("name the class columns after the labels, or map names to indices, e.g. np.searchsorted(classes, y) on "
           "the sorted class names" if "lines" in arrays else
           "save class_names (K,) in the class order, or map names to indices: np.searchsorted(model.classes_, y)")
    rows = int(np.count_nonzero(np.isin(text, unknown)))
    fail(path, row_name(arrays, "labels", row), f"{str(values[row])!r} is not a class index or a class "
         f"name{known}; {rows:,} such row(s), {len(unknown)} distinct label(s); {fix}")


def as_labels(path, arrays, n, k, class_names, binary):
    """``(labels (n,) int64, class names, note or None)``: the labels checked (whole numbers in [0, K), 1-D,
    one per row), text labels mapped through the class names first."""
    if "labels" not in arrays:
        fail(path, "", f"needs an array named 'labels'; found {found_arrays(arrays)}; rename: {SAVEZ_HINT}"
             if "lines" not in arrays else "needs a label column")
    values, note = arrays["labels"], None
    if values.ndim == 1 and values.dtype.kind == "b":  # y == positive: False / True are classes 0 and 1
        values = values.astype(np.int64)
    if values.ndim == 1 and values.dtype.kind in "US":
        values, class_names, note = _named_labels(path, arrays, values, class_names, binary)
    if values.dtype.kind not in "fiu" and not (values.dtype.kind == "b" and values.ndim == 2):
        fail(path, "labels", f"holds {values.dtype} values; labels must be integer class indices in [0, {k}) "
             "(map names to indices, e.g. np.searchsorted(model.classes_, y))")
    if values.ndim != 1:
        check_one_hot(path, "labels", values, n, k)
        fail(path, "labels", f"shape {values.shape}; must be 1-D (n,)")
    if values.shape[0] != n:
        fail(path, "labels", f"{values.shape[0]} labels for {n} rows of logits")
    if values.dtype.kind == "f":
        whole = whole_numbers(values)
        if not whole.all():
            row = int(np.argmax(~whole))
            fail(path, row_name(arrays, "labels", row), f"{values[row]} is not a whole number; labels "
                 "must be class indices")
    outside = (values < 0) | (values >= k)
    if outside.any():
        row = int(np.argmax(outside))
        value = values[row].item()
        value = int(value) if float(value).is_integer() else value
        binary_hint = "; a binary model's labels are 0 and 1 (1: the class its score is of)" if binary else ""
        fail(path, row_name(arrays, "labels", row), f"{value} is outside [0, {k}) for K = {k} "
             "classes" + (label_hint(values, k) or binary_hint))
    return values.astype(np.int64), class_names, note


def _split_words(path, arrays, values):
    """Split cells as :data:`SPLIT_WORDS` values: True, False, None (training) or ``"all"``; a list (n,)."""
    words = np.char.lower(np.char.strip(values.astype(str)))
    meaning = SPLIT_WORDS if "lines" not in arrays else _CSV_SPLIT_WORDS
    bad = ~np.isin(words, tuple(meaning))
    if bad.any():
        row = int(np.argmax(bad))
        fail(path, row_name(arrays, "split", row), f"{str(values[row])!r}; split values are "
             f"{' / '.join(meaning)} (calibration, test, training rows, or all rows in one part)")
    return [meaning[word] for word in words.tolist()]


def as_split(path, arrays, n):
    """``(split (n,) bool or None, kept rows (n,) bool or None, rule or None, note or None)``: ``kept`` drops
    the training rows (``split`` is then of the kept rows); the rule is ``"none"`` when every row is ``all``."""
    from_indices = split_from_indices(path, arrays, n)
    if from_indices is not None or "split" not in arrays:
        return from_indices, None, None, None
    values = arrays["split"]
    if values.ndim != 1 or values.shape[0] != n:
        fail(path, "split", f"shape {values.shape}; must be ({n},), one value per row")
    kind = values.dtype.kind
    if kind == "b":
        return values.astype(bool), None, None, None
    if kind in "iuf":
        bad = ~np.isin(values, (0, 1))
        if bad.any():
            row = int(np.argmax(bad))
            fail(path, row_name(arrays, "split", row), f"{values[row]}; split values are 1 (calibration) "
                 "or 0 (test)")
        return values == 1, None, None, None
    if kind not in "US":
        fail(path, "split", f"holds {values.dtype} values; use bool, 0/1 or 'calibration'/'test'")
    meaning = _split_words(path, arrays, values)
    train = np.array([m is None for m in meaning], dtype=bool)
    whole = np.array([m == "all" for m in meaning], dtype=bool)
    if train.all():
        fail(path, "split", "every row is marked as a training row; give the validation (and test) rows")
    kept = ~train if train.any() else None
    note = (f"{int(train.sum()):,} rows marked as training rows ignored (a model's own training rows say little "
            "about its calibration)") if train.any() else None
    if whole.any():
        if not whole[~train].all():
            row = int(np.argmax(~whole & ~train))
            fail(path, row_name(arrays, "split", row), f"{str(values[row])!r} beside rows marked 'all'; mark every "
                 "row 'all' (one part) or none")
        return None, kept, "none", note
    split = np.array([bool(m) for m in meaning], dtype=bool)
    return (split if kept is None else split[kept]), kept, None, note
