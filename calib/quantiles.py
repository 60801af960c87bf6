"""Quantiles of many short rows, and the quantile levels the analyses report.

:func:`sorted_quantiles` sorts once for all levels; :func:`count_quantiles`
counts instead of sorting when the rows hold small non-negative integers (such
as simulated successes in a bin). Both follow numpy's default ("linear") rule,
so they equal ``numpy.quantile(values, levels, axis=-1)``.
"""

import numpy as np

__all__ = ["SPREAD_QUANTILES", "FLOOR_QUANTILES", "SWEEP_QUANTILES", "sorted_quantiles", "count_quantiles"]

SPREAD_QUANTILES = (0.05, 0.95)  # a 5–95% spread (bootstrap, per-bin accuracy bands)
FLOOR_QUANTILES = (0.05, 0.5, 0.95)  # the noise floor's ECE
SWEEP_QUANTILES = (0.5, 0.95)  # the noise floor over every bin count 1..max_bins


def sorted_quantiles(values, quantiles):
    """Quantiles along the last axis, by numpy's default ("linear") rule: array (len(quantiles), ...).

    Sorts once for all quantiles, which is several times faster than
    ``numpy.quantile`` on the many short rows used here.

    >>> sorted_quantiles(np.array([[3.0, 1.0, 2.0, 4.0]]), (0.0, 0.5, 0.95)).round(2).tolist()
    [[1.0], [2.5], [3.85]]
    """
    ordered = np.sort(np.asarray(values), axis=-1).astype(np.float64)
    last = ordered.shape[-1] - 1
    out = []
    for q in quantiles:
        position = q * last
        low = int(np.floor(position))
        high = min(low + 1, last)
        frac = position - low
        out.append(ordered[..., low] + (ordered[..., high] - ordered[..., low]) * frac)
    return np.stack(out)


def count_quantiles(values, upper, quantiles):
    """:func:`sorted_quantiles` of rows of small non-negative integers, by counting instead of sorting.

    ``values`` (rows, S) with row r in [0, upper[r]]; returns (len(quantiles), rows).

    >>> count_quantiles(np.array([[3, 1, 2, 4]]), np.array([4]), (0.0, 0.5, 0.95)).round(2).tolist()
    [[1.0], [2.5], [3.85]]
    """
    values = np.asarray(values, dtype=np.int64)
    rows, draws = values.shape
    width = np.asarray(upper, dtype=np.int64) + 1
    start = np.concatenate([[0], np.cumsum(width)[:-1]])
    cumulative = np.cumsum(np.bincount((values + start[:, None]).ravel(), minlength=int(width.sum())))
    before = np.concatenate([[0], cumulative])[start]  # draws in earlier rows

    def order_statistic(k):  # the k-th smallest value of every row (0-based)
        return np.searchsorted(cumulative, before + k, side="right") - start

    out = []
    for q in quantiles:
        position = q * (draws - 1)
        low = int(np.floor(position))
        low_value = order_statistic(low)
        high_value = order_statistic(min(low + 1, draws - 1))
        out.append(low_value + (high_value - low_value) * (position - low))
    return np.stack(out).astype(np.float64)
