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

from .bootstrap import resample_counts
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .validation import as_correct, as_generator, as_probabilities, as_quantile_levels, positive_int

__all__ = ["pav", "ScoreDecomposition", "CORP", "corp", "CORPBand", "corp_band", "DEFAULT_BAND_RESAMPLES",
           "DecompositionSpread", "corp_decomposition_spread", "brier_decomposition"]

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


def brier_decomposition(confidence, hits, weights=None):
    """CORP's decomposition of the mean Brier score of (confidence, 0/1 outcome) pairs, rows weighted by ``weights``
    (None: 1; a weight of 0 leaves the row out): ``(score, MCB, DSC, UNC)``, Brier units, score = MCB − DSC + UNC.

    The recalibrated forecast is the weighted PAV fit (:func:`pav`); UNC = r̄ (1 − r̄) with r̄ the weighted mean
    outcome. Inputs are validated by the caller: 1-D float arrays of one length, outcomes 0 or 1.

    >>> [round(v, 4) for v in brier_decomposition(np.array([0.6, 0.7, 0.8, 0.9]), np.array([1.0, 0.0, 1.0, 1.0]))]
    [0.175, 0.05, 0.0625, 0.1875]
    """
    w = np.ones_like(confidence) if weights is None else np.asarray(weights, dtype=np.float64)
    keep = w > 0
    conf, y, w = confidence[keep], hits[keep], w[keep]
    knots, fitted, _ = pav(conf, y, w)
    recalibrated = fitted[np.searchsorted(knots, conf)]
    total = w.sum()
    rate = float(w @ y / total)
    score = float(w @ (conf - y) ** 2 / total)
    recal = float(w @ (recalibrated - y) ** 2 / total)
    uncertainty = rate * (1.0 - rate)
    return score, score - recal, uncertainty - recal, uncertainty


class DecompositionSpread(NamedTuple):
    """How much CORP's Brier decomposition moves (see :func:`corp_decomposition_spread`).

    ``quantiles`` the levels; ``score``, ``miscalibration``, ``discrimination``, ``uncertainty``: each (Q,), the
    bootstrap quantiles of that term over ``n_resamples`` resamples of the rows; ``null_miscalibration`` (Q,):
    the quantiles of MCB when every outcome is redrawn as Bernoulli(confidence), i.e. for a calibrated model
    with the same confidences (how far above zero MCB sits by chance).
    """

    quantiles: tuple
    score: np.ndarray
    miscalibration: np.ndarray
    discrimination: np.ndarray
    uncertainty: np.ndarray
    null_miscalibration: np.ndarray
    n_resamples: int


def corp_decomposition_spread(confidence, correct, n_resamples=DEFAULT_BAND_RESAMPLES, quantiles=SPREAD_QUANTILES,
                              rng=0):
    """Uncertainty of CORP's decomposition S = MCB − DSC + UNC of the Brier score (Dimitriadis et al. 2021).

    ``n_resamples`` bootstrap resamples of the (confidence, correct) rows (:func:`calib.resample_counts`, the
    PAV refitted to each, the rows weighted by their counts) give each term's ``quantiles`` (numpy's "linear"
    rule; default 5% and 95%); as many outcome sets redrawn as Bernoulli(confidence) give MCB's distribution
    under calibration. ``rng`` a Generator or a non-negative int seed (the resamples first, then the outcome
    sets). Returns a :class:`DecompositionSpread`.

    >>> spread = corp_decomposition_spread([0.6, 0.7, 0.8, 0.9] * 5, [1, 0, 1, 1] * 5, n_resamples=50, rng=1)
    >>> spread.miscalibration.shape, bool(np.all(spread.null_miscalibration >= 0))
    ((2,), True)
    """
    conf, hits = _check_pairs(confidence, correct)
    n_resamples = positive_int(n_resamples, "n_resamples")
    levels = as_quantile_levels(quantiles)
    generator = as_generator(rng)
    counts = resample_counts(conf.size, n_resamples, generator)
    terms = np.array([brier_decomposition(conf, hits, row) for row in counts])  # (R, 4), one PAV per resample
    outcomes = generator.random((n_resamples, conf.size)) < conf
    null = np.array([brier_decomposition(conf, o.astype(np.float64))[1] for o in outcomes])
    q = sorted_quantiles(np.concatenate([terms.T, null[None]]), levels)  # (Q, 5)
    return DecompositionSpread(levels, q[:, 0], q[:, 1], q[:, 2], q[:, 3], q[:, 4], n_resamples)
