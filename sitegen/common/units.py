"""Display units: every number the page shows is rounded once, here, to an integer in its unit.

Scores (NLL in nats, Brier) in units of 1/``SCORE_SCALE`` (1e-5), rates and probabilities in units of
1/``RATE_SCALE`` (1e-3), half away from zero; the payload, the tables and the number filters of the prose
all round through :func:`to_units`, so a sentence, a table and a slider show the same digits.
"""

import numpy as np

from sitegen.common.settings import RATE_SCALE, SCORE_SCALE

__all__ = ["RATE_SCALE", "SCORE_SCALE", "to_units", "displayed_difference", "change_fix", "shares_summing_to"]


def to_units(values, scale):
    """``values`` rounded to integers in units of 1/``scale`` (half away from zero), as int64."""
    x = np.asarray(values, dtype=np.float64) * scale
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.int64)


def displayed_difference(minuend, subtrahend, scale):
    """``minuend − subtrahend`` taken between the two values as displayed: each rounded by
    :func:`to_units` first, so a quoted gap is exactly the difference of the numbers printed beside
    it. Integers (int64) in units of 1/``scale``, same shape as the inputs.

    >>> int(displayed_difference(0.3305, 0.1004, 1000))
    231
    """
    return to_units(minuend, scale) - to_units(subtrahend, scale)


def change_fix(minuend, subtrahend, scale):
    """What to add to :func:`displayed_difference` to get the change rounded once, ``to_units(minuend −
    subtrahend)``: −1, 0 or +1 (int64, the inputs' broadcast shape; 0 where either value is not finite).

    >>> change_fix(0.1344, 0.1006, 1000).tolist(), change_fix(0.1346, 0.1004, 1000).tolist()
    (1, -1)
    """
    minuend, subtrahend = np.broadcast_arrays(np.asarray(minuend, np.float64), np.asarray(subtrahend, np.float64))
    finite = np.isfinite(minuend) & np.isfinite(subtrahend)
    once = to_units(np.where(finite, minuend - subtrahend, 0.0), scale)
    return np.where(finite, once - displayed_difference(np.where(finite, minuend, 0.0),
                                                        np.where(finite, subtrahend, 0.0), scale), 0)


def shares_summing_to(parts, scale, total=None):
    """Round each row of ``parts`` (…, m) to integer units so that each row sums to its rounded total.

    Largest-remainder rounding: floor every part, then give the missing units
    to the parts with the largest fractional remainders (first index on ties).
    It keeps a per-bin table's weighted gaps adding up exactly to the ECE shown.
    ``total`` (integer units, shape …), when given, is that displayed total (e.g. the ECE series
    the page prints beside the table); it may differ from the rounded sum by at most one unit.
    """
    parts = np.asarray(parts, dtype=np.float64)
    scaled = parts * scale
    floors = np.floor(scaled)
    # The total as it is displayed: the rounded sum of the unscaled parts (summing after scaling can
    # land on the other side of a half unit, e.g. 0.3305 vs 330.4999…).
    target = to_units(parts.sum(axis=-1), scale) if total is None else np.asarray(total, dtype=np.int64)
    if np.any(np.abs(target - to_units(parts.sum(axis=-1), scale)) > 1):
        raise ValueError("total differs from the rounded sum of parts by more than one unit")
    missing = target - floors.sum(axis=-1).astype(np.int64)
    order = np.argsort(-(scaled - floors), axis=-1, kind="stable")
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(order.shape[-1]) + np.zeros_like(order), axis=-1)
    return floors.astype(np.int64) + (rank < missing[..., None])
