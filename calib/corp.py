"""The CORP reliability diagram: isotonic (PAV) recalibration, its consistency band, and the score decomposition.

CORP (Dimitriadis, Gneiting & Jordan 2021: Consistent, Optimally binned,
Reproducible, PAV-based) replaces chosen bins with the isotonic regression of
the outcome on the forecast, computed by the pool-adjacent-violators (PAV)
algorithm: the bins are the PAV's blocks, found from the data. Here the
forecast is the top-label confidence c and the outcome whether the prediction
was right, y ∈ {0, 1} (the (confidence, correct) reduction).

With ĉ the PAV-recalibrated confidence of each row and r̄ = mean(y), a mean
score S (Brier or logarithmic) splits exactly into

    S(c) = MCB − DSC + UNC,   MCB = S(c) − S(ĉ),   DSC = S(r̄) − S(ĉ),   UNC = S(r̄):

miscalibration (what recalibration would save), discrimination (what the
recalibrated forecast gains over always saying r̄) and uncertainty (the score
of that constant forecast).

References
----------
T. Dimitriadis, T. Gneiting and A. I. Jordan, "Stable reliability diagrams for
probabilistic classifiers", PNAS 118(8), 2021.
"""

from typing import NamedTuple

import numpy as np

from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .validation import as_correct, as_generator, as_probabilities, as_quantile_levels, positive_int

__all__ = ["pav", "ScoreDecomposition", "CORP", "corp", "CORPBand", "corp_band", "DEFAULT_BAND_RESAMPLES"]

DEFAULT_BAND_RESAMPLES = 1000  # outcome draws behind the consistency band


def _isotonic(values, weights):
    """SciPy's PAV: the non-decreasing fit of ``values`` in weighted squared error (imported on first use:
    ``scipy.optimize`` costs more than all of the rest of ``import calib``)."""
    from scipy.optimize import isotonic_regression

    return isotonic_regression(values, weights=weights, increasing=True).x


def pav(x, y, weights=None):
    """Increasing isotonic regression of ``y`` on ``x`` by PAV: ``(knots, fitted, weight)``, each (m,).

    ``knots`` are the distinct values of ``x`` in increasing order; tied
    ``x`` are pooled first (their weighted mean ``y``, their summed weight),
    as scikit-learn's ``IsotonicRegression`` does; ``fitted`` is the
    non-decreasing sequence closest to the pooled means in weighted squared
    error (SciPy's ``isotonic_regression``); ``weight`` the pooled weights
    (counts when ``weights`` is None). Inputs are validated by the caller:
    1-D float arrays of one length, finite, weights positive.

    >>> knots, fitted, weight = pav(np.array([0.1, 0.2, 0.2, 0.3]), np.array([1.0, 0.0, 0.0, 1.0]))
    >>> fitted.round(4).tolist(), weight.tolist()
    ([0.3333, 0.3333, 1.0], [1.0, 2.0, 1.0])
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], y[order], w[order]
    starts = np.flatnonzero(np.concatenate([[True], xs[1:] != xs[:-1]]))
    weight = np.add.reduceat(ws, starts)
    means = np.add.reduceat(ys * ws, starts) / weight
    fitted = _isotonic(means, weight)
    return xs[starts], fitted, weight


class ScoreDecomposition(NamedTuple):
    """A mean score and its CORP decomposition: ``score = miscalibration − discrimination + uncertainty``."""

    score: float
    miscalibration: float
    discrimination: float
    uncertainty: float


class CORP(NamedTuple):
    """The CORP reliability diagram of (confidence, correct) pairs (see :func:`corp`).

    ``confidence`` (m,) the distinct confidences, increasing; ``accuracy`` (m,)
    the PAV-recalibrated probability of being right at each, non-decreasing
    (the diagram's curve, a step function through these knots); ``count``
    (m,) the rows at each; ``brier`` and ``log`` the
    :class:`ScoreDecomposition` of the mean Brier score (c − y)² and of the
    mean logarithmic score −[y log c + (1 − y) log(1 − c)] in nats (infinite
    if a confidence of exactly 0 or 1 is wrong).
    """

    confidence: np.ndarray
    accuracy: np.ndarray
    count: np.ndarray
    brier: ScoreDecomposition
    log: ScoreDecomposition


def _brier(forecast, hits):
    return float(np.mean((forecast - hits) ** 2))


def _xlogy(x, y):
    """x · log y, with 0 where x = 0 (even where y = 0)."""
    with np.errstate(divide="ignore"):
        return np.where(x == 0, 0.0, x * np.log(np.where(x == 0, 1.0, y)))


def _log(forecast, hits):
    return float(-np.mean(_xlogy(hits, forecast) + _xlogy(1.0 - hits, 1.0 - forecast)))


def _decompose(score, confidence, recalibrated, base_rate, hits):
    original, recal, constant = score(confidence, hits), score(recalibrated, hits), score(base_rate, hits)
    return ScoreDecomposition(original, original - recal, constant - recal, constant)


def _check_pairs(confidence, correct):
    conf = as_probabilities(confidence)
    if conf.ndim != 1:
        raise ValueError(f"confidence must be 1-D, one value per example; got shape {conf.shape}")
    return conf, as_correct(correct, conf.shape)


def corp(confidence, correct):
    """CORP reliability diagram and score decompositions of top-label ``confidence`` (n,) and ``correct`` (n,).

    The PAV fit of ``correct`` (0/1) on ``confidence`` (probabilities), and
    the decomposition S = MCB − DSC + UNC (module docstring) of the Brier and
    logarithmic scores. Returns a :class:`CORP`.

    >>> result = corp([0.6, 0.7, 0.8, 0.9], [1, 0, 1, 1])
    >>> result.accuracy.round(3).tolist(), round(result.brier.miscalibration, 4)
    ([0.5, 0.5, 1.0, 1.0], 0.05)
    """
    conf, hits = _check_pairs(confidence, correct)
    knots, fitted, count = pav(conf, hits)
    recalibrated = fitted[np.searchsorted(knots, conf)]
    base_rate = np.full_like(conf, hits.mean())
    return CORP(knots, fitted, count.astype(np.int64),
                _decompose(_brier, conf, recalibrated, base_rate, hits),
                _decompose(_log, conf, recalibrated, base_rate, hits))


class CORPBand(NamedTuple):
    """Pointwise consistency band of a CORP curve (see :func:`corp_band`).

    ``confidence`` (m,) the distinct confidences (as :attr:`CORP.confidence`);
    ``quantiles`` the levels; ``bounds`` (len(quantiles), m) the PAV curve's
    quantiles at each confidence under the hypothesis of calibration.
    """

    confidence: np.ndarray
    quantiles: tuple
    bounds: np.ndarray


def corp_band(confidence, n_resamples=DEFAULT_BAND_RESAMPLES, quantiles=SPREAD_QUANTILES, rng=0):
    """Consistency band of the CORP curve: where the PAV curve of a calibrated model would fall.

    Under the hypothesis that the model is calibrated, each row's outcome is
    Bernoulli(confidence). ``n_resamples`` sets of outcomes are drawn (rows
    sharing a confidence are drawn together as one binomial count), the PAV
    curve is refitted to each, and its ``quantiles`` (numpy's "linear" rule;
    default 5% and 95%) are taken at every distinct confidence. ``rng`` is a
    ``numpy.random.Generator`` or a non-negative int seed. A CORP curve
    outside the band is evidence of miscalibration there. Returns a
    :class:`CORPBand`.

    >>> band = corp_band([0.6, 0.7, 0.8, 0.9], n_resamples=200, rng=1)
    >>> band.bounds.shape, bool(np.all(band.bounds[0] <= band.bounds[1]))
    ((2, 4), True)
    """
    conf = as_probabilities(confidence)
    if conf.ndim != 1:
        raise ValueError(f"confidence must be 1-D, one value per example; got shape {conf.shape}")
    n_resamples = positive_int(n_resamples, "n_resamples")
    levels = as_quantile_levels(quantiles)
    generator = as_generator(rng)
    knots, _, count = pav(conf, np.zeros_like(conf))
    successes = generator.binomial(count.astype(np.int64), knots, size=(n_resamples, knots.size))
    curves = np.empty((n_resamples, knots.size))
    for r in range(n_resamples):  # one PAV per resample (each a vectorised pass over the knots)
        curves[r] = _isotonic(successes[r] / count, count)
    return CORPBand(knots, levels, sorted_quantiles(curves.T, levels))
