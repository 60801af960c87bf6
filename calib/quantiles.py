"""Quantiles of many short rows, and the quantile levels the analyses report.

:func:`sorted_quantiles` sorts once for all levels; :func:`count_quantiles`
counts instead of sorting when the rows hold small non-negative integers (such
as simulated successes in a bin). Both follow numpy's default ("linear") rule,
so they equal ``numpy.quantile(values, levels, axis=-1)``.

:func:`order_statistic_ranks` and :func:`quantile_interval` say how far such a
quantile of R random draws may sit from the quantile of infinitely many: a
distribution-free interval between two order statistics, from the binomial law
of how many draws fall below the true quantile.
"""

import numpy as np

from .validation import as_quantile_levels, positive_int

__all__ = [
    "SPREAD_QUANTILES", "FLOOR_QUANTILES", "SWEEP_QUANTILES", "sorted_quantiles", "count_quantiles",
    "order_statistic_ranks", "quantile_interval",
]

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


def _binomial_pmf(trials, p):
    """P(Binomial(trials, p) = k) for k = 0..trials: array (trials + 1,), from log-factorials (no overflow)."""
    k = np.arange(trials + 1)
    log_factorial = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, trials + 1)))])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pmf = (log_factorial[trials] - log_factorial[k] - log_factorial[trials - k]
                   + np.where(k > 0, k * np.log(p), 0.0) + np.where(k < trials, (trials - k) * np.log1p(-p), 0.0))
    return np.exp(log_pmf)


def order_statistic_ranks(n_draws, quantiles, level=0.95):
    """Ranks of the order statistics that bracket each population quantile: ``(ranks, coverage)``.

    Parameters
    ----------
    n_draws : int
        R, the number of independent draws.
    quantiles : increasing probabilities
        Levels q of the population quantiles ξ_q to bracket.
    level : float in (0, 1)
        The smallest acceptable coverage.

    Returns
    -------
    ranks : int array (Q, 2)
        0-based ranks ``(a, b)`` into the sorted draws, equal-tailed: ``a`` is
        the largest rank with P(X₍ₐ₎ > ξ_q) ≤ (1 − level)/2, ``b`` the smallest
        with P(X₍b₎ < ξ_q) ≤ (1 − level)/2. ``a = −1`` or ``b = R`` mean that R
        draws are too few for that side (the interval is unbounded there).
    coverage : array (Q,)
        The exact P(X₍ₐ₎ ≤ ξ_q ≤ X₍b₎) for a continuous distribution, ≥ ``level``.

    Notes
    -----
    The number of draws below ξ_q is Binomial(R, q), whatever the
    distribution of the draws, so X₍ₐ₎ ≤ ξ_q ≤ X₍b₎ holds exactly when
    a + 1 ≤ Binomial(R, q) ≤ b (Hahn & Meeker, *Statistical Intervals*, 1991,
    §5.2). With R = 200 and q = 0.05 (about 10 draws below), the interval
    runs from the 4th to the 17th smallest draw (0-based ranks 3 and 16).

    >>> ranks, coverage = order_statistic_ranks(200, (0.05, 0.95))
    >>> ranks.tolist(), coverage.round(3).tolist()
    ([[3, 16], [183, 196]], [0.967, 0.967])
    """
    draws = positive_int(n_draws, "n_draws")
    q = as_quantile_levels(quantiles)
    level = float(level)
    if not 0 < level < 1:
        raise ValueError(f"level must lie strictly between 0 and 1; got {level!r}")
    tail = (1.0 - level) / 2.0
    ranks = np.empty((len(q), 2), dtype=np.int64)
    coverage = np.empty(len(q))
    for row, p in enumerate(q):
        pmf = _binomial_pmf(draws, p)
        below = np.cumsum(pmf)  # below[k] = P(Bin ≤ k)
        above = np.cumsum(pmf[::-1])[::-1]  # above[k] = P(Bin ≥ k)
        # X_(a) (0-based) exceeds ξ_q when at most a draws fall below it: P(Bin ≤ a) ≤ tail
        a = int(np.sum(below <= tail)) - 1
        # X_(b) falls short of ξ_q when at least b + 1 draws fall below it: P(Bin ≥ b + 1) ≤ tail
        b = int(np.argmax(np.append(above[1:], 0.0) <= tail))
        ranks[row] = a, b
        coverage[row] = min(1.0, (below[b] if b < draws else 1.0) - (below[a] if a >= 0 else 0.0))
    return ranks, coverage


def quantile_interval(values, quantiles, level=0.95):
    """Distribution-free interval for the population quantile behind R draws: array (Q, ..., 2).

    ``values`` (..., R) are R independent draws along the last axis (e.g. R
    bootstrap ECEs). For each level q and row, returns the two order
    statistics of :func:`order_statistic_ranks` (lower, upper), in the units of
    ``values``: with probability at least ``level`` they bracket the q-quantile
    that infinitely many draws would give, so their distance is the Monte Carlo
    uncertainty of the reported quantile. A side that R draws cannot bound is
    −inf or +inf.

    >>> quantile_interval(np.arange(200.0), (0.05,)).tolist()
    [[3.0, 16.0]]
    """
    data = np.asarray(values, dtype=np.float64)
    if data.ndim < 1 or data.shape[-1] < 1 or np.any(np.isnan(data)):
        raise ValueError(f"values must hold draws along the last axis, without NaN; got shape {np.shape(values)}")
    draws = data.shape[-1]
    ranks, _ = order_statistic_ranks(draws, quantiles, level)
    padded = np.concatenate([np.full(data.shape[:-1] + (1,), -np.inf), np.sort(data, axis=-1),
                             np.full(data.shape[:-1] + (1,), np.inf)], axis=-1)
    picked = np.take(padded, ranks + 1, axis=-1)  # (..., Q, 2)
    return np.moveaxis(picked, -2, 0)
