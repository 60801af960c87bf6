"""Plausibility checks of a user's file: the mistakes that would otherwise be fitted without a word.

Every check raises :class:`InputError` (a ``ValueError``) with one line that
names the file, the place and the fix; :func:`fit_warnings` is the check of a
fit that did run (the fitted T pressed against a search bound, or accuracy no
better than chance). Used by :mod:`calib.io` and :mod:`calib.io_csv`.

* numbers given as logits that are probabilities (every row in [0, 1] and
  summing to 1 within :data:`PROBABILITY_SUM_TOLERANCE`): refused, with how to
  declare them;
* probabilities whose rows do not sum to 1, most of them by more than
  :data:`SIGMOID_SUM_GAP`: they look like per-class (one-vs-rest) sigmoid
  outputs;
* labels that look 1-based (:func:`check_one_based`), one-hot labels,
  transposed logits;
* a split given as index arrays (:data:`CALIBRATION_INDEX_NAMES`,
  :data:`TEST_INDEX_NAMES`) must partition the rows.
"""

from typing import NamedTuple

import numpy as np

__all__ = [
    "InputError", "FitWarning", "fit_warnings", "fail", "row_name", "check_one_based", "check_one_hot",
    "check_not_probabilities", "check_probability_rows", "label_hint", "split_from_indices", "extension_hint",
    "BOUND_MARGIN", "SIGMOID_SUM_GAP", "CALIBRATION_INDEX_NAMES", "TEST_INDEX_NAMES", "PROBABILITY_SUM_TOLERANCE",
    "SAVEZ_HINT", "whole_numbers",
]

PROBABILITY_SUM_TOLERANCE = 1e-3  # |row sum − 1| allowed for probabilities
SIGMOID_SUM_GAP = 0.05            # a typical (median) |row sum − 1| above this: per-class sigmoids, not a softmax
BOUND_MARGIN = 0.01               # a fitted T within 1% of a search bound is warned about
CALIBRATION_INDEX_NAMES = ("cal_idx", "calib_idx", "calibration_idx", "val_idx", "valid_idx", "validation_idx")
TEST_INDEX_NAMES = ("test_idx",)
SAVEZ_HINT = "np.savez(path, logits=..., labels=...)"


def whole_numbers(values):
    """Elementwise: ``values`` (a float array) is finite and a whole number (a class index or a row number)."""
    return np.isfinite(values) & (values == np.round(values))


# files a model's outputs are often saved as, and why they are not read
_PICKLE = "is not read (loading a pickle can run code)"
_OTHER_FORMATS = {".pt": f"a PyTorch file {_PICKLE}", ".pth": f"a PyTorch file {_PICKLE}",
                  ".pkl": f"a pickle {_PICKLE}", ".pickle": f"a pickle {_PICKLE}",
                  ".joblib": f"a joblib file {_PICKLE}", ".npy": "a .npy file holds one array"}


class InputError(ValueError):
    """Bad input: the message names the file and the place (array or column, row)."""


def fail(path, place, problem):
    """Raise :class:`InputError` ``"path: place: problem"`` (no place: ``"path: problem"``)."""
    where = f"{path}: {place}: " if place else f"{path}: "
    raise InputError(where + problem)


def row_name(arrays, name, row, column=None):
    """Where row ``row`` (and ``column``) of array ``name`` is: ``name[row, column]`` in an ``.npz``,
    ``line L, column 'C'`` in a ``.csv`` (``arrays`` holds ``lines`` and ``column_names`` then)."""
    if "lines" in arrays:
        title = arrays["column_names"][column] if column is not None else {"labels": "label"}.get(name, name)
        return f"line {arrays['lines'][row]}, column {title!r}"
    return f"{name}[{row}]" if column is None else f"{name}[{row}, {column}]"


def extension_hint(suffix):
    """What to say about a file of extension ``suffix`` that is neither ``.npz`` nor ``.csv``."""
    what = _OTHER_FORMATS.get(suffix.lower())
    if what is None:
        return f"unknown extension {suffix or '(none)'!r}; use .npz or .csv"
    return f"{what}; save the logits and labels together as .npz with numpy: {SAVEZ_HINT} (a torch tensor: t.numpy())"


def _place(arrays, name):
    """The place of a whole array: its name in an ``.npz``, the class columns of a ``.csv``."""
    return "class columns" if "lines" in arrays else name


def _declare(arrays):
    """How to say "these are probabilities" in this file's format."""
    if "lines" in arrays:
        return "name the columns prob_<class> (or p_<class>) or pass --input probabilities"
    return "save them as 'probabilities' (np.savez(path, probabilities=..., labels=...)) or pass --input probabilities"


def check_not_probabilities(path, arrays, name, values):
    """Refuse logits whose every row lies in [0, 1] and sums to 1 within the tolerance: probabilities read as
    logits would be fitted to a meaningless T."""
    if values.size == 0 or values.min() < 0 or values.max() > 1:
        return
    sums = values.sum(axis=1, dtype=np.float64)
    if np.all(np.abs(sums - 1.0) <= PROBABILITY_SUM_TOLERANCE):
        fail(path, _place(arrays, name), "every row lies in [0, 1] and sums to 1: these are probabilities, not "
             f"logits; {_declare(arrays)} (--input logits keeps them as logits)")


def check_probability_rows(path, arrays, name, probs):
    """Refuse probabilities outside [0, 1] or whose rows do not sum to 1; rows that mostly miss 1 by more than
    :data:`SIGMOID_SUM_GAP` are named as per-class sigmoid outputs."""
    outside = (probs < 0) | (probs > 1)
    if outside.any():
        row, column = np.unravel_index(np.argmax(outside), outside.shape)
        fail(path, row_name(arrays, name, row, column), f"{probs[row, column]} is not a probability in [0, 1]")
    gap = np.abs(probs.sum(axis=1) - 1.0)
    off = gap > PROBABILITY_SUM_TOLERANCE
    if not off.any():
        return
    row = int(np.argmax(off))
    total = float(probs[row].sum())
    if np.median(gap) > SIGMOID_SUM_GAP:
        sums = probs.sum(axis=1)
        first = f"line {arrays['lines'][row]}" if "lines" in arrays else f"row {row}"
        fail(path, _place(arrays, name), f"the rows sum to {sums.min():.3g}–{sums.max():.3g}, not 1 ({first}: "
             f"{total:.6g}): they look like per-class sigmoid (one-vs-rest) outputs, not a softmax; give the "
             "scores before the sigmoid as logits (log(p / (1 - p)) if only p is kept)")
    fail(path, row_name(arrays, name, row), f"the row sums to {total}, not 1 (within {PROBABILITY_SUM_TOLERANCE}); "
         "write the probabilities with more digits")


def label_hint(values, k):
    """A hint for labels outside [0, K): the 1-based one when a label equals K and none is negative."""
    if values.size and values.min() >= 0 and values.max() == k:
        return "; 1-based labels? subtract 1"
    return ""


def check_one_based(path, arrays, logits, labels):
    """Refuse labels that agree with the logits' argmax shifted by one: ``labels − 1`` matches the top class at
    least twice as often as ``labels`` and more often than chance (1/K)."""
    n, k = logits.shape
    top = np.argmax(logits, axis=1)
    same = np.count_nonzero(top == labels)
    shifted = np.count_nonzero(top == labels - 1)
    if shifted >= 2 * same and shifted * k > n:
        where = "labels" if "lines" not in arrays else "column 'label'"
        fail(path, where, f"the top class equals label − 1 on {shifted / n:.1%} of rows but the label on "
             f"{same / n:.1%}: 1-based labels? subtract 1 (labels run from 0 to K − 1 = {k - 1})")


def check_one_hot(path, name, values, n, k):
    """Refuse 2-D labels that are one-hot rows (saying: take the argmax), or other 2-D labels."""
    if values.ndim == 2 and values.shape == (n, k) and values.dtype.kind in "fiub" and np.all(
            (values == 0) | (values == 1)) and np.all(values.sum(axis=1) == 1):
        fail(path, name, f"shape {values.shape}: one-hot rows; give class indices: labels = y.argmax(axis=1)")
    if values.ndim == 2 and 1 in values.shape:
        fail(path, name, f"shape {values.shape}; must be 1-D (n,): labels.ravel()")


def split_from_indices(path, arrays, n):
    """The split (n,) bool (True: calibration) from a calibration and a test index array, or None when the file
    has neither; both must be whole numbers in [0, n) that together cover every row exactly once."""
    found = [name for name in CALIBRATION_INDEX_NAMES + TEST_INDEX_NAMES if name in arrays]
    if not found:
        return None
    cal = [name for name in found if name in CALIBRATION_INDEX_NAMES]
    test = [name for name in found if name in TEST_INDEX_NAMES]
    if "split" in arrays:
        fail(path, "", f"has both 'split' and the index array(s) {', '.join(found)}; keep one")
    if len(cal) > 1:
        fail(path, "", f"has {' and '.join(cal)}; keep one calibration index array")
    if not cal or not test:
        missing = "test index array (test_idx)" if cal else \
            f"calibration index array ({', '.join(CALIBRATION_INDEX_NAMES)})"
        fail(path, found[0], f"is an index array of the split, but the file has no {missing}; give both, or a "
             "split array (n,) of True (calibration) / False (test)")
    split = np.zeros(n, dtype=bool)
    seen = np.zeros(n, dtype=np.int64)
    for name, is_calibration in ((cal[0], True), (test[0], False)):
        values = arrays[name]
        if values.ndim != 1 or values.dtype.kind not in "iuf":
            fail(path, name, f"{values.dtype} values of shape {values.shape}; an index array is 1-D row numbers")
        whole = whole_numbers(values) & (values >= 0) & (values < n)
        if not whole.all():
            row = int(np.argmax(~whole))
            fail(path, f"{name}[{row}]", f"{values[row]} is not a row number in [0, {n})")
        rows = values.astype(np.int64)
        np.add.at(seen, rows, 1)
        split[rows] = is_calibration
    if (seen > 1).any():
        row = int(np.argmax(seen > 1))
        fail(path, f"{cal[0]}, {test[0]}", f"row {row} is listed {int(seen[row])} times; each row must be in "
             "exactly one of them")
    if (seen == 0).any():
        missing = int(np.count_nonzero(seen == 0))
        fail(path, f"{cal[0]}, {test[0]}", f"{missing} of {n} rows are in neither (first: row "
             f"{int(np.argmax(seen == 0))}); keep only the rows of the two parts, or give every row a part")
    return split


class FitWarning(NamedTuple):
    """Something about a fit that ran and should be checked: ``code`` (``t_low_bound``, ``t_high_bound``,
    ``chance_accuracy``) and ``message``, one English sentence for the command lines."""

    code: str
    message: str


def fit_warnings(temperature, accuracy, k, bounds, part="test"):
    """The warnings of a fit: the fitted T within :data:`BOUND_MARGIN` of a search bound ``bounds`` (low, high), or
    the accuracy of the ``part`` rows at or below chance (1/K). A list of :class:`FitWarning`, empty if none."""
    low, high = bounds
    out = []
    if temperature <= low * (1 + BOUND_MARGIN):
        out.append(FitWarning("t_low_bound", f"the fitted T = {temperature:.6g} is within {BOUND_MARGIN:.0%} "
                              f"of the search's lower bound {low:g}: do the numbers hold logits "
                              "(not probabilities or sigmoid outputs)?"))
    elif temperature >= high * (1 - BOUND_MARGIN):
        out.append(FitWarning("t_high_bound", f"the fitted T = {temperature:.6g} is within {BOUND_MARGIN:.0%} "
                              f"of the search's upper bound {high:g}: the scores barely predict the labels; "
                              "do labels and rows match?"))
    if accuracy <= 1 / k:  # count/n and 1/K: equal rationals round to the same double
        out.append(FitWarning("chance_accuracy", f"accuracy on the {part} rows is {accuracy:.1%}, no better than "
                              f"chance (1/K = {1 / k:.1%}): check that the labels match the classes' order"))
    return out
