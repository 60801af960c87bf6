"""What a file's class columns hold, and how they become logits: logits, probabilities (rounded or not),
percentages, log-probabilities, or one column of a binary model. Used by :mod:`calib.io`.

:func:`read_values` turns the values of a file (n, K) into float logits (n, K ≥ 2) and says what it read:

* **declared logits** (an ``.npz`` ``logits`` array): kept, unless every row looks like probabilities or
  percentages (then refused with the fix; ``--input logits`` keeps them anyway);
* **declared probabilities** (an ``.npz`` ``probabilities`` array, ``prob_<class>`` CSV columns, or
  ``--input probabilities``): rows in [0, 1] summing to 1 within :func:`sum_tolerance` are read (a row's
  softmax at T = 1 is the row divided by its sum: the rows are renormalised); values that are all ≤ 0 with
  rows whose exponentials sum to 1 are log-probabilities, and rows summing to 100 are percentages: both
  read as what they are, with a note;
* **undeclared** (CSV class columns named by class only, or no header): probabilities and percentages are
  recognised by the same rules and read as such, with a note (``--input logits`` reads them as logits);
  values in [0, 1] whose rows do not sum to 1 are refused with what they look like; anything else is logits.

Rounded probabilities (every value a multiple of 10^-d, d ≤ 6: what ``float_format="%.3f"`` writes) may
miss 1 by up to K · 10^-d / 2 per row, and a printed 0 stands for a value below 10^-d / 2: such a zero is
read as 10^-d · :data:`ROUNDED_ZERO` instead of :data:`PROBABILITY_FLOOR` (a 0.000 read as 1e-300 would cost
its row 690 nats and drag T far from the model's). What a zero stood for is lost; the small values of an
over-confident model crowd towards 0, below the middle of that interval: on simulated over-confident models
(labels drawn at T = 2), 1/20 of the last digit gave T within about 3% of the unrounded T at 3 decimals and 10%
at 2 (the middle, 1/4, gave 5% and 15–25% too low). Write more digits to lose nothing.

A binary model's single column (a logit or score x, or the positive class's probability p) becomes the two
logits (0, x), or log(1 − p) and log p: softmax gives back sigmoid(x), or (1 − p, p).
"""

from typing import NamedTuple, Optional, Tuple

import numpy as np

from .io_checks import PROBABILITY_SUM_TOLERANCE, SIGMOID_SUM_GAP, fail, row_name

__all__ = ["ReadValues", "read_values", "decimals_of", "sum_tolerance", "probability_floor", "rounded_zeros_note",
           "PROBABILITY_FLOOR", "MAX_DECIMALS", "ROUNDED_ZERO"]

PROBABILITY_FLOOR = 1e-300  # full-precision probabilities are floored here before the log (a zero → ≈ −690.8)
MAX_DECIMALS = 6            # values on a grid of 10^-d for some d ≤ this are taken as rounded to d decimals
ROUNDED_ZERO = 0.05         # a rounded probability printed as 0 is read as this many units of its last digit
_SAMPLE = 4096              # rows looked at first, before a check runs on every row
MISSING_SHARE = 0.05        # rows in [0, 1] none above 1, more than this share below by more than the rounding:
#                             a class column is missing


class ReadValues(NamedTuple):
    """The logits (n, K ≥ 2) read from a file's values, ``kind`` (``"logits"`` or ``"probabilities"``: what the
    numbers were, after any note), ``binary`` (one column was given), ``notes`` (what was read how) and
    ``decimals``: the places of rounded probabilities some of whose cells were printed as 0 (read as
    :data:`ROUNDED_ZERO` of the last digit; :mod:`calib.rounding`), else None; ``looks``: what the numbers
    look like whatever ``--input`` said (``"probabilities"``: in [0, 1] and, for K ≥ 2, rows summing to 1, or
    rows summing to 100; else ``"logits"``)."""

    logits: np.ndarray
    kind: str
    binary: bool
    notes: Tuple[str, ...]
    decimals: Optional[int] = None
    looks: str = "logits"


def decimals_of(values):
    """The fewest decimals d ≤ :data:`MAX_DECIMALS` with every value a multiple of 10^-d (to the dtype's
    precision), or None: full-precision numbers.

    >>> decimals_of(np.array([0.25, 0.5, 0.125])), decimals_of(np.array([1 / 3]))
    (3, None)
    """
    if values.size == 0:
        return None
    eps = float(np.finfo(values.dtype).eps) if values.dtype.kind == "f" else 0.0
    top = min(MAX_DECIMALS, int(np.floor(-np.log10(eps))) - 3) if eps else MAX_DECIMALS
    scale = float(np.max(np.abs(values))) or 1.0
    d = 0
    for part in (values[:_SAMPLE], values):  # a few rows first: full-precision numbers stop there
        flat = part.astype(np.float64).ravel()
        while d <= top:
            scaled = flat * 10.0 ** d
            if np.all(np.abs(scaled - np.rint(scaled)) <= 4 * eps * scale * 10.0 ** d + 1e-9):
                break
            d += 1
        else:
            return None
    return d


def sum_tolerance(k, decimals):
    """How far a row of K probabilities rounded to ``decimals`` places may miss 1: K · 10^-d / 2 (each value
    is off by at most half its last digit), never below :data:`PROBABILITY_SUM_TOLERANCE` (the tolerance of
    full-precision values, ``decimals`` None, and of whole numbers, 0).

    >>> round(sum_tolerance(6, 3), 12), sum_tolerance(6, None)
    (0.003000000003, 0.001)
    """
    if not decimals:  # full precision, or whole numbers (0 and 1: nothing was rounded away)
        return PROBABILITY_SUM_TOLERANCE
    return max(PROBABILITY_SUM_TOLERANCE, k * 0.5 * 10.0 ** -decimals * (1 + 1e-9))


def probability_floor(decimals):
    """What a probability is raised to before its log, so that a 0 is read as it: 10^-d · :data:`ROUNDED_ZERO`
    for values rounded to ``decimals`` = d ≥ 1 places (a printed 0), else :data:`PROBABILITY_FLOOR`."""
    return 10.0 ** -decimals * ROUNDED_ZERO if decimals else PROBABILITY_FLOOR


def rounded_zeros_note(decimals, zeros):
    """The note that ``zeros`` probabilities rounded to ``decimals`` places were printed as 0, and what they are
    read as."""
    return (f"probabilities rounded to {decimals} decimals: {zeros:,} zero(s) read as {probability_floor(decimals):g} "
            f"(a printed 0 is below {10.0 ** -decimals / 2:g}; write more digits to keep them)")


def _declare(arrays):
    """How to say "these are probabilities" in this file's format."""
    if "lines" in arrays:
        return "name the columns prob_<class> (or p_<class>) or pass --input probabilities"
    return "save them as 'probabilities' (np.savez(path, probabilities=..., labels=...)) or pass --input probabilities"


def _place(arrays, name):
    """The place of a whole array: its name in an ``.npz``, the class columns of a ``.csv``."""
    return "class columns" if "lines" in arrays else name


def _first_row(arrays, row):
    if "lines" in arrays:
        return f"line {arrays['lines'][row]}"
    return f"row {arrays['rows'][row] if 'rows' in arrays else row}"


def _form(values, binary):
    """What the numbers look like: ``"probabilities"``, ``"percentages"``, ``"log-probabilities"``, ``"unit"``
    (all in [0, 1], rows not summing to 1) or None, with the rows' sums and the tolerance used."""
    low, high = float(values.min()), float(values.max())
    k = values.shape[1]
    decimals = decimals_of(values) if high <= 100 and (low >= 0 or high <= 0) else None
    if low >= 0 and high <= 1:
        if binary:
            return "probabilities", decimals
        gap = np.abs(values.sum(axis=1, dtype=np.float64) - 1.0)
        return ("probabilities" if np.all(gap <= sum_tolerance(k, decimals)) else "unit"), decimals
    if low >= 0 and high <= 100 and not binary:
        gap = np.abs(values.sum(axis=1, dtype=np.float64) - 100.0)
        if np.all(gap <= 100 * sum_tolerance(k, None if decimals is None else decimals + 2)):
            return "percentages", decimals
    if high <= 0 and not binary:
        top = values.max(axis=1, keepdims=True).astype(np.float64)
        lse = top[:, 0] + np.log(np.exp(values - top).sum(axis=1))
        tolerance = PROBABILITY_SUM_TOLERANCE if decimals is None else max(PROBABILITY_SUM_TOLERANCE,
                                                                            k * 10.0 ** -decimals)
        if np.all(np.abs(lse) <= tolerance):
            return "log-probabilities", decimals
    return None, decimals


def _unit_problem(path, arrays, name, probs, declared):
    """Refuse rows in [0, 1] that do not sum to 1, saying what they look like: each row's top-k probabilities
    (sorted, summing below 1), a missing class column (all below 1), per-class sigmoid outputs, or too few digits."""
    k = probs.shape[1]
    decimals = decimals_of(probs)
    tolerance = sum_tolerance(k, decimals)
    sums = probs.sum(axis=1)
    gap = np.abs(sums - 1.0)
    row = int(np.argmax(gap > tolerance))
    span = f"the rows sum to {sums.min():.3g}–{sums.max():.3g}, not 1 ({_first_row(arrays, row)}: {sums[row]:.6g})"
    undeclared = "" if declared else " (or pass --input logits if they are logits)"
    below = bool(np.all(sums <= 1 + tolerance))
    if below and k >= 2 and np.all(np.diff(probs, axis=1) <= 0):
        fail(path, _place(arrays, name), f"{span}, and every row is sorted largest first: each row's top {k} "
             f"probabilities, not every class's; give all K classes' probabilities (or logits) in class order, "
             f"the label a class index{undeclared}")
    if below and np.mean(gap > tolerance) > MISSING_SHARE:
        fail(path, _place(arrays, name), f"{span}, none above 1: some classes' probabilities are missing (a "
             f"dropped class column?); give one column per class, {k} given{undeclared}")
    if np.median(gap) > SIGMOID_SUM_GAP:
        fail(path, _place(arrays, name), f"{span}: they look like per-class sigmoid (one-vs-rest) outputs, not a "
             "softmax; give the scores before the sigmoid as logits (log(p / (1 - p)) if only p is kept)"
             + undeclared)
    digits = "" if decimals is None else f", the rounding of {decimals} decimals"
    where = _first_row(arrays, row) if "lines" in arrays else row_name(arrays, name, row)
    fail(path, where, f"the row sums to {float(sums[row])}, not 1 (within {tolerance:.3g}{digits}); write the "
         f"probabilities with more digits{undeclared}")


def _probability_logits(path, arrays, name, probs, decimals, notes):
    """Logits log(max(p, floor)) of probability rows (n, K): softmax renormalises each row. Rounded values have
    their zeros read as :data:`ROUNDED_ZERO` of the last digit (the module docstring)."""
    outside = (probs < 0) | (probs > 1)
    if outside.any():
        row, column = np.unravel_index(np.argmax(outside), outside.shape)
        fail(path, row_name(arrays, name, row, column), f"{probs[row, column]} is not a probability in [0, 1]")
    k = probs.shape[1]
    gap = np.abs(probs.sum(axis=1) - 1.0)
    if np.any(gap > sum_tolerance(k, decimals)):
        _unit_problem(path, arrays, name, probs, True)
    floor = probability_floor(decimals)
    zeros = int(np.count_nonzero(probs == 0)) if decimals else 0
    if zeros:
        notes.append(rounded_zeros_note(decimals, zeros))
    if float(gap.max(initial=0.0)) > 1e-6:
        notes.append(f"rows of probabilities that sum to 1 only within {float(gap.max()):.3g} were renormalised")
    return np.log(np.maximum(probs, floor))


def read_values(path, arrays, name, values, declared, forced):
    """:class:`ReadValues` of ``values`` (n, K) or (n,), finite (float or integer), from array or columns ``name``.

    ``declared`` is what the file's names say (``"logits"``, ``"probabilities"`` or None: not said);
    ``forced`` is ``--input`` (None, or a kind that wins over every rule here except the log-probability and
    percentage readings of declared probabilities).
    """
    values = np.asarray(values)
    binary = values.ndim == 1 or values.shape[1] == 1
    values = values.reshape(values.shape[0], -1)
    if values.dtype.kind != "f":
        values = values.astype(np.float64)
    notes = []
    kind = forced or declared
    form, decimals = _form(values, binary)
    looks = "probabilities" if form in ("probabilities", "percentages") else "logits"
    place = _place(arrays, name)
    if kind is None:  # undeclared: what the numbers look like decides
        if form in ("probabilities", "percentages"):
            what, rule = ("the positive class's probability", "every value lies in [0, 1]") if binary else (
                form, "every row sums to " + ("1" if form == "probabilities" else "100"))
            notes.append(f"{place}: read as {what} ({rule}); pass --input logits to read them as logits")
            kind = "probabilities"
            if form == "percentages":
                values, decimals, form = values / 100.0, None if decimals is None else decimals + 2, "probabilities"
        elif form == "unit":
            _unit_problem(path, arrays, name, values, False)
        elif binary and float(values.min()) >= 0 and 1 < float(values.max()) <= 100:
            fail(path, place, "every value lies in [0, 100]: percentages? divide by 100 (then they are read as the "
                 "positive class's probability), or pass --input logits if they are scores")
    if kind == "logits" and forced is None and form in ("probabilities", "percentages"):
        what = "probabilities of the positive class" if binary else form
        rule = "every value lies in [0, 1]" if binary else (
            "every row lies in [0, 1] and sums to 1" if form == "probabilities" else
            "every row lies in [0, 100] and sums to 100")
        fix = "divide by 100 and " if form == "percentages" else ""
        fail(path, place, f"{rule}: these are {what}, not logits; {fix}{_declare(arrays)} (--input logits keeps "
             "them as logits)")
    low, high = float(values.min()), float(values.max())
    if kind == "probabilities" and (form == "log-probabilities" or (binary and high <= 0 and low < 0)):
        notes.append(f"{place}: every value is ≤ 0 and {'is' if binary else 'each row is'} a log-probability: "
                     "read as log-probabilities")
        if not binary:
            return ReadValues(np.ascontiguousarray(values), "logits", False, tuple(notes), looks=looks)
        values, decimals = np.exp(values), None
    elif kind == "probabilities" and (form == "percentages" or (binary and low >= 0 and 1 < high <= 100)):
        notes.append(f"{place}: {'values up to 100' if binary else 'rows sum to 100'}: read as percentages "
                     "(divided by 100)")
        values, decimals = values / 100.0, None if decimals is None else decimals + 2
    if kind == "probabilities":
        probs = np.concatenate([1.0 - values, values], axis=1) if binary else values.astype(np.float64)
        logits = _probability_logits(path, arrays, name, probs, decimals, notes)
        zeros = bool(decimals) and bool(np.any(probs == 0))
        return ReadValues(logits, "probabilities", binary, tuple(notes), int(decimals) if zeros else None, looks)
    if binary:
        values = np.concatenate([np.zeros_like(values), values], axis=1)
    return ReadValues(np.ascontiguousarray(values), "logits", binary, tuple(notes), looks=looks)
