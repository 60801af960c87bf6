"""The paired bootstrap: how much a change of temperature moves each score, over the same resamples.

:func:`paired_difference` takes the draws of :func:`calib.bootstrap.bootstrap_draws` and returns the
change of each score between two temperatures and the quantiles of that change over the *same*
resamples: the rows a resample over- or under-weights move both scores alike, so the change is usually
much steadier than either score. :func:`paired_against` does the same for the draws of several methods
scored on the same resamples, against the first of them (the calibrator comparison, :mod:`calib.compare`),
with :func:`inf_quantiles` keeping an infinite draw (an infinite NLL) infinite. :func:`change_side` says
where a range lies: below zero, above it, or neither (within :data:`NEGLIGIBLE_CHANGE` of it), for every
verdict that reads one.
"""

from typing import NamedTuple, Tuple

import numpy as np

from .bootstrap import ScoreSet
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .validation import as_quantile_levels

__all__ = ["PairedDifference", "paired_difference", "inf_quantiles", "paired_against", "NEGLIGIBLE_CHANGE",
           "change_side"]

# A change whose whole range lies within this of zero is no change: half the last digit the reports print (four
# decimals), so a verdict never rests on a range the table shows as -0.0000 to -0.0000 (ensemble temperature
# scaling's mixture, weighted 0.998 on temperature scaling, once "beat" it so on NLL).
NEGLIGIBLE_CHANGE = 5e-5


def change_side(spread):
    """Where a range of change (its quantiles, any shape) lies: -1 wholly below zero and 1 wholly above it, farther
    than :data:`NEGLIGIBLE_CHANGE`; 0 when it includes zero or stays within that of it.

    >>> change_side([-0.02, -0.01]), change_side([-0.02, 0.01]), change_side([-4e-5, -1e-6])
    (-1, 0, 0)
    """
    spread = np.asarray(spread, dtype=np.float64)
    return -1 if np.all(spread < -NEGLIGIBLE_CHANGE) else 1 if np.all(spread > NEGLIGIBLE_CHANGE) else 0


class PairedDifference(NamedTuple):
    """The change of each score from temperature index i to j, and its paired bootstrap spread.

    With P the broadcast shape of the indices (``()`` for two ints):
    ``change`` is a :class:`ScoreSet` of (P) arrays, the full sample's score at
    j minus its score at i; ``spread`` a :class:`ScoreSet` of (P + (Q,))
    arrays, the ``quantiles`` of ``draws[:, j] − draws[:, i]`` over the same
    resamples; ``share_lower`` a :class:`ScoreSet` of (P) arrays, the share of
    resamples in which the score at j is strictly below the score at i (for
    all three scores, lower is better). Units are those of the scores (nats,
    Brier units, probability).
    """

    quantiles: Tuple[float, ...]
    n_resamples: int
    change: ScoreSet
    spread: ScoreSet
    share_lower: ScoreSet


def _as_index(value, size, name):
    index = np.asarray(value)
    if index.dtype == bool or not np.issubdtype(index.dtype, np.integer) or index.size == 0 \
            or index.min() < 0 or index.max() >= size:
        raise ValueError(f"{name} must be integer temperature indices in [0, {size}); got {value!r}")
    return index.astype(np.int64)


def paired_difference(sample, i, j, quantiles=SPREAD_QUANTILES):
    """The paired bootstrap of a change of temperature, from index ``i`` to index ``j``.

    Parameters
    ----------
    sample : BootstrapDraws
        From :func:`calib.bootstrap.bootstrap_draws` over G temperatures.
    i, j : int or int array
        Temperature indices (columns of the draws), broadcast together to
        shape P; e.g. ``i = index of T = 1`` and ``j = index of the fitted T``.
    quantiles : increasing probabilities

    Returns
    -------
    PairedDifference

    Notes
    -----
    Both temperatures are scored on the *same* resampled rows, so the rows a
    resample happens to over-weight move both scores together and cancel in
    the difference: the spread of ``draws[:, j] − draws[:, i]`` is the
    spread of the change itself, usually far narrower than what the two
    marginal spreads suggest. With ``i == j`` every draw of the change is
    exactly 0.

    >>> conf = np.array([[0.6, 0.9, 0.7, 0.8], [0.5, 0.6, 0.55, 0.6]])
    >>> losses = -np.log(np.array([[0.6, 0.1, 0.7, 0.8], [0.5, 0.3, 0.55, 0.6]]))
    >>> from calib.bootstrap import bootstrap_draws
    >>> sample = bootstrap_draws(conf, [1, 0, 1, 1], losses, (2,), n_resamples=50, rng=1)
    >>> same = paired_difference(sample, 1, 1)
    >>> float(same.change.nll), same.spread.nll.tolist(), float(same.share_lower.nll)
    (0.0, [0.0, 0.0], 0.0)
    """
    q = as_quantile_levels(quantiles)
    temps = sample.draws.nll.shape[1]
    first = _as_index(i, temps, "i")
    second = _as_index(j, temps, "j")
    first, second = np.broadcast_arrays(first, second)

    def change(values):  # (G,) → P
        return values[second] - values[first]

    def spread(draws):  # (R, G) → P + (Q,)
        moved = draws[:, second] - draws[:, first]  # (R,) + P
        return np.moveaxis(sorted_quantiles(np.moveaxis(moved, 0, -1), q), 0, -1)

    def lower(draws):  # (R, G) → P
        return np.mean(draws[:, second] < draws[:, first], axis=0)

    def over(scores, func):
        return ScoreSet(func(scores.nll), None if scores.brier is None else func(scores.brier),
                        {s: {b: func(v) for b, v in by_bins.items()} for s, by_bins in scores.ece.items()})

    return PairedDifference(q, sample.n_resamples, over(sample.observed, change), over(sample.draws, spread),
                            over(sample.draws, lower))


def inf_quantiles(values, quantiles):
    """Linear-rule quantiles along axis 0 of ``values`` (R, ...) that may hold ``+inf``: array (Q, ...).

    Equal to ``numpy.quantile(values, quantiles, axis=0)`` for finite values; where the interpolation
    involves an infinite draw the quantile is ``inf`` (numpy would give NaN for inf − inf).
    """
    ordered = np.sort(np.asarray(values, dtype=np.float64), axis=0)
    out = []
    for level in quantiles:
        position = level * (ordered.shape[0] - 1)
        low = int(np.floor(position))
        high = min(low + 1, ordered.shape[0] - 1)
        frac = position - low
        a, b = ordered[low], ordered[high]
        with np.errstate(invalid="ignore"):
            value = np.where(frac == 0, a, np.where(np.isinf(b), b, a + (b - a) * frac))
        out.append(value)
    return np.stack(out)


def paired_against(draws, quantiles=SPREAD_QUANTILES):
    """The paired change of every column of ``draws`` (R, M) against column 0, over the same R resamples.

    ``draws[r, m]`` is method m's score on resample r (lower is better, ``+inf`` allowed). Returns
    ``(spread, share_lower)``: ``spread`` (M, Q), the ``quantiles`` of ``draws[:, m] − draws[:, 0]``
    (:func:`inf_quantiles`; a resample where both are infinite counts as no change), and ``share_lower`` (M,),
    the share of resamples in which method m scores strictly lower than column 0. Units: the score's.
    """
    d = np.asarray(draws, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        moved = d - d[:, :1]
    moved[np.isinf(d) & np.isinf(d[:, :1])] = 0.0
    return inf_quantiles(moved, as_quantile_levels(quantiles)).T, np.mean(d < d[:, :1], axis=0)
