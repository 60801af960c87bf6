"""How much a fitted T depends on the probabilities a file printed as 0: the check behind the warning
``rounded_zeros`` of :func:`calib.fit_warnings`.

Probabilities written with d decimals (``float_format="%.3f"``) print every value below half a unit of the last
digit, u / 2 with u = 10^-d, as 0; :mod:`calib.io_values` reads such a zero as u · :data:`calib.io_values.
ROUNDED_ZERO`. What it stood for is lost, and an over-confident model puts most of its probabilities there: the
NLL of the rows whose label was printed as 0 then sets T, and T follows wherever in [0, u / 2) the zeros are put.
:func:`rounding_range` refits T with every zero read at each end: u · :data:`ZERO_TOP` = u / 2, the largest value
a printed 0 can stand for, and u / 10^:data:`ZERO_BOTTOM_DIGITS` = u / 1000, one unit of the digit three places
further down. When the two Ts differ by more than :data:`calib.io_checks.ROUNDING_T_TOLERANCE` (relative), the file
does not determine T. Zeros below u / 1000 push T further still: the range is the least T is uncertain by.

On simulated models (6 and 10 classes, 6,000 rows, labels drawn at T₀), rounded to 3 decimals: calibrated
(T₀ = 1) or mildly over-confident (T₀ = 1.3) models with about a tenth of the values printed as 0 move T by
0.3–2.2% across the two ends; over-confident ones (T₀ = 2–3) by 7–20%, and by up to 47% with a third of the
values printed as 0.
"""

from typing import NamedTuple

import numpy as np

from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .io_values import ROUNDED_ZERO

__all__ = ["RoundingRange", "rounding_range", "zero_cells", "zero_readings", "zeros_read_at", "ZERO_TOP",
           "ZERO_BOTTOM_DIGITS"]

ZERO_TOP = 0.5            # units of the last digit: the most a printed 0 can stand for
ZERO_BOTTOM_DIGITS = 3    # the low end: one unit of the digit this many places below the last printed one


class RoundingRange(NamedTuple):
    """What the printed zeros of a fit's rows do to T: ``decimals`` d, ``zeros`` (cells printed as 0), ``values``
    (the two readings of a zero, u / 2 and u / 1000 with u = 10^-d) and ``temperatures`` (T fitted with the zeros at
    each, same order)."""

    decimals: int
    zeros: int
    values: tuple
    temperatures: tuple

    @property
    def spread(self):
        """How far apart the two Ts are: the larger over the smaller, minus 1 (0: the zeros do not matter)."""
        low, high = min(self.temperatures), max(self.temperatures)
        return high / low - 1.0


def zero_cells(logits, decimals):
    """The cells (n, K) bool of ``logits`` that :mod:`calib.io_values` read from a probability printed as 0 at
    ``decimals`` places: log(u · ROUNDED_ZERO) with u = 10^-d. A printed nonzero is at least u, log(1 / ROUNDED_ZERO)
    ≈ 3 above it, so a cell within 1 of it is a zero (whatever the last bits of a vectorised log)."""
    return np.asarray(logits) < np.log(10.0 ** -decimals * ROUNDED_ZERO) + 1.0


def zero_readings(decimals):
    """The two values (probabilities) a printed 0 of ``decimals`` places is read at, top end first: u · ZERO_TOP
    = u / 2 and u / 10^ZERO_BOTTOM_DIGITS = u / 1000, with u = 10^-d."""
    return ZERO_TOP * 10.0 ** -decimals, 10.0 ** -(decimals + ZERO_BOTTOM_DIGITS)


def zeros_read_at(logits, decimals, value):
    """``logits`` (n, K) with the cells :func:`zero_cells` finds set to log(``value``): a printed 0 read as the
    probability ``value``."""
    z = np.asarray(logits, dtype=np.float64)
    return np.where(zero_cells(z, decimals), np.log(value), z)


def rounding_range(logits, labels, decimals, bounds=DEFAULT_BOUNDS, tolerance=DEFAULT_TOLERANCE, workers=1):
    """The :class:`RoundingRange` of the rows ``logits`` (n, K), ``labels`` (n,) T is fitted on, read from
    probabilities rounded to ``decimals`` places; None when ``decimals`` is None or no cell was printed as 0. Two
    bounded NLL fits of T (``bounds``, ``tolerance``: :func:`calib.fit_temperature`)."""
    if decimals is None:
        return None
    z = np.asarray(logits, dtype=np.float64)
    zero = zero_cells(z, decimals)
    zeros = int(np.count_nonzero(zero))
    if not zeros:
        return None
    values = zero_readings(decimals)
    temperatures = tuple(float(fit_temperature(zeros_read_at(z, decimals, value), labels, method="bounded",
                                               bounds=bounds, tolerance=tolerance, workers=workers))
                         for value in values)
    return RoundingRange(int(decimals), zeros, values, temperatures)
