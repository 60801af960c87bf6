"""Plausibility checks of a user's file: the mistakes that would otherwise be fitted without a word.

Every check raises :class:`InputError` (a ``ValueError``) with one line that
names the file, the place and the fix; :class:`Problems` collects the
problems of independent checks so that a file with several is refused with
all of them at once. :func:`fit_warnings` is the check of a fit that did run
(the fitted T pressed against a search bound, accuracy no better than
chance, scores that predict the labels no better than the class frequencies,
a T decided by probabilities printed as 0).
Used by :mod:`calib.io`, :mod:`calib.io_csv` and :mod:`calib.io_values`.

* labels that look 1-based (:func:`check_one_based`), a label equal to K
  when a class column is missing (:func:`label_hint`), one-hot labels,
  transposed logits;
* a split given as index arrays (:data:`CALIBRATION_INDEX_NAMES`,
  :data:`TEST_INDEX_NAMES`) must partition the rows.
"""

from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

__all__ = [
    "InputError", "Problems", "FitWarning", "fit_warnings", "fail", "row_name", "check_one_based", "check_one_hot",
    "check_dropped_column",
    "label_hint", "split_from_indices", "extension_hint", "BOUND_MARGIN", "SIGMOID_SUM_GAP",
    "CALIBRATION_INDEX_NAMES", "TEST_INDEX_NAMES", "PROBABILITY_SUM_TOLERANCE", "SAVEZ_HINT", "whole_numbers",
    "INFORMATION_MARGIN", "WARNING_CODES", "ROUNDING_FIX", "ROUNDING_FORMAT", "ROUNDING_T_TOLERANCE",
]

PROBABILITY_SUM_TOLERANCE = 1e-3  # |row sum − 1| allowed for probabilities
SIGMOID_SUM_GAP = 0.05            # a typical (median) |row sum − 1| above this: per-class sigmoids, not a softmax
BOUND_MARGIN = 0.01               # a fitted T within 1% of a search bound is warned about
INFORMATION_MARGIN = 0.01         # calibrated NLL within 1% of the class frequencies' NLL: the scores say nothing
ROUNDING_T_TOLERANCE = 0.05       # Ts more than 5% apart as printed zeros move within their interval: they decide T
#                                   (calib.rounding)
# every code of fit_warnings, in the order they are checked
WARNING_CODES = ("t_low_bound", "t_high_bound", "chance_accuracy", "no_information", "rounded_zeros")
ROUNDING_FORMAT = "float_format='%.6g'"  # pandas' to_csv option that keeps six significant digits
ROUNDING_FIX = f"export logits, or write the probabilities with more digits, e.g. {ROUNDING_FORMAT}"
CALIBRATION_INDEX_NAMES = ("cal_idx", "calib_idx", "calibration_idx", "val_idx", "valid_idx", "validation_idx")
TEST_INDEX_NAMES = ("test_idx",)
SAVEZ_HINT = "np.savez(path, logits=..., labels=...)"


def is_number(text):
    """Whether the text ``text`` reads as a float (``float(text)`` succeeds)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def whole_numbers(values):
    """Elementwise: ``values`` (a float array) is finite and a whole number (a class index or a row number)."""
    return np.isfinite(values) & (values == np.round(values))


# files a model's outputs are often saved as, and why they are not read
_PICKLE = "is not read (loading a pickle can run code)"
_OTHER_FORMATS = {".pt": f"a PyTorch file {_PICKLE}", ".pth": f"a PyTorch file {_PICKLE}",
                  ".pkl": f"a pickle {_PICKLE}", ".pickle": f"a pickle {_PICKLE}",
                  ".joblib": f"a joblib file {_PICKLE}", ".npy": "a .npy file holds one array"}


class InputError(ValueError):
    """Bad input: the message names the file and the place (array or column, row). ``problems`` holds every
    problem found, each a line of its own (one for most errors); the message is them all on one line."""

    def __init__(self, message, problems=None):
        super().__init__(message)
        self.problems = tuple(problems) if problems else (message,)


def fail(path, place, problem):
    """Raise :class:`InputError` ``"path: place: problem"`` (no place: ``"path: problem"``)."""
    where = f"{path}: {place}: " if place else f"{path}: "
    raise InputError(where + problem)


class Problems:
    """The problems of a file's independent checks: each ``with problems.collect():`` block records the
    :class:`InputError` it raises and goes on; :meth:`done` raises them all at once (one message, one line:
    ``"path: 3 problems: place: …; place: …"``, and ``problems``, one line each)."""

    def __init__(self, path):
        self.path, self.found = path, []

    @contextmanager
    def collect(self):
        try:
            yield
        except InputError as error:
            self.found.extend(p for p in error.problems if p not in self.found)

    def done(self):
        if len(self.found) == 1:
            raise InputError(self.found[0])
        if self.found:
            prefix = f"{self.path}: "
            parts = [p[len(prefix):] if p.startswith(prefix) else p for p in self.found]
            raise InputError(f"{self.path}: {len(parts)} problems: " + "; ".join(parts), self.found)


def row_name(arrays, name, row, column=None):
    """Where row ``row`` (and ``column``) of array ``name`` is: ``name[row, column]`` in an ``.npz``,
    ``line L, column 'C'`` in a ``.csv`` (``arrays`` holds ``lines`` and ``column_names`` then)."""
    if "lines" in arrays:
        title = arrays["column_names"][column] if column is not None else {"labels": "label"}.get(name, name)
        return f"line {arrays['lines'][row]}, column {title!r}"
    row = int(arrays["rows"][row]) if "rows" in arrays else row  # rows left after the 'train' rows were dropped
    return f"{name}[{row}]" if column is None else f"{name}[{row}, {column}]"


def extension_hint(suffix):
    """What to say about a file of extension ``suffix`` that is neither ``.npz`` nor ``.csv``."""
    what = _OTHER_FORMATS.get(suffix.lower())
    if what is None:
        return f"unknown extension {suffix or '(none)'!r}; use .npz or .csv"
    return f"{what}; save the logits and labels together as .npz with numpy: {SAVEZ_HINT} (a torch tensor: t.numpy())"


def label_hint(values, k):
    """A hint for labels outside [0, K) when the largest is K and none is negative: with a label 0 a class
    column is missing (K + 1 classes, K columns); without one, the labels look 1-based."""
    if values.size and values.min() >= 0 and values.max() == k:
        if values.min() == 0:
            return (f"; the labels run from 0 to {k}, so there are {k + 1} classes but {k} class columns: is a "
                    "class column missing (the last one, or one in the middle)?")
        return "; 1-based labels? subtract 1"
    return ""


def check_one_based(path, arrays, logits, labels):
    """Refuse labels that agree with the logits' argmax shifted by one: ``labels − 1`` matches the top class at
    least twice as often as ``labels`` and more often than chance (1/K)."""
    n, k = logits.shape
    if k == 2:  # labels 0/1 shifted by one are the classes swapped: a fit warning (chance accuracy), not this
        return
    top = np.argmax(logits, axis=1)
    same = np.count_nonzero(top == labels)
    shifted = np.count_nonzero(top == labels - 1)
    if shifted >= 2 * same and shifted * k > n:
        where = "labels" if "lines" not in arrays else "column 'label'"
        fail(path, where, f"the top class equals label − 1 on {shifted / n:.1%} of rows but the label on "
             f"{same / n:.1%}: 1-based labels? subtract 1 (labels run from 0 to K − 1 = {k - 1})")


def check_dropped_column(path, arrays, logits, labels):
    """Refuse labels that match the top class from some class j on only shifted by one (top = label − 1) while the
    labels below j match it: a column around class j − 1 was dropped (the later columns moved left, the labels did
    not; which of j − 1 and j is ambiguous, as class j − 1's own rows have no column to agree with). The shifted
    rows must be at least twice the agreeing ones among labels ≥ j, more than chance (1/K) and at least 10, with
    two thirds of those labels shifted more often than not and than chance, one by one; the labels below j must
    agree at least twice as often as they are shifted."""
    n, k = logits.shape
    if k < 3 or n == 0:
        return
    top = np.argmax(logits, axis=1)
    same = np.bincount(labels[top == labels], minlength=k)[:k]
    shift = np.bincount(labels[top == labels - 1], minlength=k)[:k]
    rows = np.bincount(labels, minlength=k)[:k]
    agree = np.cumsum(same)[:-1] + (shift.sum() - np.cumsum(shift)[:-1])  # j = 1 … K − 1: below j same, from j shifted
    j = int(np.argmax(agree)) + 1  # where the shift starts, if anywhere: the split that explains the most rows
    shifted, agreeing, total = shift[j:].sum(), same[j:].sum(), rows[j:].sum()
    # and class by class: most labels from j on are shifted more often than not, and more often than chance
    each = (shift[j:] > same[j:]) & (shift[j:] * k > rows[j:])
    broad = 3 * np.count_nonzero(each) >= 2 * np.count_nonzero(rows[j:])
    if broad and shifted >= max(10, 2 * agreeing) and shifted * k > total and \
            same[:j].sum() >= max(1, 2 * shift[:j].sum()):
        where = "labels" if "lines" not in arrays else "column 'label'"
        fail(path, where, f"labels {j} and up match the top class shifted by one (top = label − 1 on "
             f"{shifted / total:.0%} of their rows, the label itself on {agreeing / total:.0%}) while the labels "
             f"below match it: is a class column missing, around class {j - 1} (dropped, so the later columns "
             "moved left under their labels)?")


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
    """Something about a fit that ran and should be checked before deploying it: ``code`` (one of
    :data:`WARNING_CODES`) and ``message``, one English sentence for the command lines."""

    code: str
    message: str


def fit_warnings(temperature, accuracy, k, bounds, part="test", nll=None, prior_nll=None, rounding=None,
                 rounding_tolerance=None):
    """The warnings of a fit, a list of :class:`FitWarning` (empty if none): the fitted T within
    :data:`BOUND_MARGIN` of a search bound ``bounds`` (low, high); the accuracy of the ``part`` rows at or below
    chance (1/K); when ``nll`` (the part's NLL at the fitted T, nats) and ``prior_nll`` (its NLL under the
    class frequencies alone) are given, scores that do no better than those frequencies (within
    :data:`INFORMATION_MARGIN`): labels that do not belong to the rows; and, when ``rounding`` (a
    :class:`calib.rounding.RoundingRange` of the fit's rows) is given, Ts more than ``rounding_tolerance``
    (relative; None: :data:`ROUNDING_T_TOLERANCE`) apart as the probabilities printed as 0 are read at
    either end of what they can stand for: the file does not determine T."""
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
        swapped = " (or, for two classes, are they swapped?)" if k == 2 else ""
        out.append(FitWarning("chance_accuracy", f"accuracy on the {part} rows is {accuracy:.1%}, no better than "
                              f"chance (1/K = {1 / k:.1%}): check that the labels match the classes' order{swapped}"))
    if nll is not None and prior_nll is not None and nll >= prior_nll * (1 - INFORMATION_MARGIN):
        out.append(FitWarning("no_information", f"on the {part} rows the calibrated scores' NLL ({nll:.4f} nats) "
                              f"is no better than the class frequencies' alone ({prior_nll:.4f}): do the labels "
                              "belong to these rows (same order, not shuffled, no class column dropped)?"))
    rounding_tolerance = ROUNDING_T_TOLERANCE if rounding_tolerance is None else rounding_tolerance
    if rounding is not None and rounding.spread > rounding_tolerance:
        (top, bottom), (t_top, t_bottom) = rounding.values, rounding.temperatures
        out.append(FitWarning("rounded_zeros", f"{rounding.zeros:,} probabilities printed as 0 at {rounding.decimals} "
                              f"decimals decide T (counted in the rows T is fitted on): read as {top:g} (the most a "
                              f"printed 0 stands for) they give T = "
                              f"{t_top:.4g}, read as {bottom:g} T = {t_bottom:.4g}, more than {rounding_tolerance:.0%} "
                              f"apart, and smaller values more: the model's T could lie anywhere from "
                              f"{min(t_top, t_bottom):.4g} to above {max(t_top, t_bottom):.4g}, not only at the "
                              f"fitted {temperature:.4g}; {ROUNDING_FIX}"))
    return out
