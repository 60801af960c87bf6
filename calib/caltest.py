"""Tests of "this model is calibrated", each with a stated size (false-alarm rate on a calibrated model).

:func:`ece_consistency_test` — consistency resampling (Bröcker & Smith 2007). Under the hypothesis that the
top-label confidences are calibrated, each row's outcome is Bernoulli(confidence), independently, given the
confidences. Redraw every outcome that way ``n_draws`` times, recompute the binned ECE each time (the bins
depend on the confidences only, so they stay put), and count the draws whose ECE reaches the observed one:

    p = (1 + #{draws with ECE* ≥ ECE}) / (1 + n_draws).

This is a Monte Carlo test: rejecting when p ≤ α falsely rejects a calibrated model with probability at most
α, for every sample size, exactly α when α (n_draws + 1) is a whole number and the ECE has no ties (the
observed statistic is exchangeable with the draws; Davison & Hinkley 1997, ch. 4). It tests *confidence*
calibration, through the ECE's bins: a miscalibration the bins average away goes unseen.

:func:`skce_test` — the squared kernel calibration error (Widmann, Lindsten & Zachariah 2019) of the whole
probability vector, with the matrix-valued kernel κ(p, p') I_K and κ(p, p') = exp(−‖p − p'‖₂ / ν):

    SKCE = E[ κ(p, p') ⟨e_Y − p, e_Y' − p'⟩ ]   (two independent rows),

zero exactly when the model is calibrated in the canonical (full-vector) sense, for this characteristic kernel.
:func:`skce` is its unbiased quadratic estimator, the mean of h = κ(p_i, p_j) ⟨e_{y_i} − p_i, e_{y_j} − p_j⟩ over
every pair of rows. Under canonical calibration each label is Cat(p_i), independently given the vectors, so the
test redraws every label that way, as the ECE test redraws outcomes, and p = (1 + #{SKCE* ≥ SKCE}) / (1 +
n_draws): the same exact size. (Widmann et al. also give asymptotic tests; the linear-time one, which
averages h over disjoint pairs, is cheap but detected nothing on this page's clearly over-confident sets.) The
quadratic estimate costs O(n² K) per draw, so above ``max_rows`` rows the test runs on a random subsample of
that many, drawn from ``rng`` without looking at the labels (a valid test of those rows, with less power).
ν is the median heuristic: the median distance between the probability vectors of an evenly spaced subsample
(:func:`median_bandwidth`); it depends on the predictions only, not the labels, so the null distribution given
the predictions is unchanged.

References
----------
J. Bröcker and L. A. Smith, "Increasing the reliability of reliability diagrams", Weather and Forecasting
22(3), 2007.
D. Widmann, F. Lindsten and D. Zachariah, "Calibration tests in multi-class classification: a unifying
framework", NeurIPS 2019.
A. C. Davison and D. V. Hinkley, "Bootstrap Methods and their Application", Cambridge University Press, 1997.
"""

from typing import NamedTuple

import numpy as np

from .binning import SCHEMES, equal_mass_bounds, equal_width_ids
from .validation import as_correct, as_generator, as_probabilities, check_choice, positive_int

__all__ = ["DEFAULT_TEST_DRAWS", "DEFAULT_SKCE_DRAWS", "SKCE_ROWS", "BANDWIDTH_ROWS", "CalibrationTest",
           "ece_consistency_test", "skce", "skce_test", "median_bandwidth"]

DEFAULT_TEST_DRAWS = 999  # outcome sets redrawn under calibration: (999 + 1) α is whole for α = 5%, 1%, 0.1%
DEFAULT_SKCE_DRAWS = 199  # label sets redrawn for the SKCE test: (199 + 1) α is whole for α = 5%, 1%
SKCE_ROWS = 1000          # the SKCE test's rows at most (a random subsample above): O(n² K) per draw
BANDWIDTH_ROWS = 500      # rows of the evenly spaced subsample behind the median heuristic
_BLOCK_VALUES = 1 << 22   # (draw, row) outcomes held at once


class CalibrationTest(NamedTuple):
    """One test of calibration: ``statistic`` (the observed ECE, or the SKCE estimate), ``p_value``, ``method``
    (``"ece-consistency"`` or ``"skce-consistency"``), ``n_draws`` (outcome or label sets redrawn), ``null_mean``
    (the statistic's mean over the redrawn sets) and ``rows`` (the rows tested)."""

    statistic: float
    p_value: float
    method: str
    n_draws: int
    null_mean: float
    rows: int


def _bin_ids(conf, n_bins, scheme):
    """Each row's bin, fixed by the confidences alone (ties by position, as :func:`calib.ece` bins them)."""
    if scheme == "equal-width":
        return equal_width_ids(conf, n_bins)
    order = np.argsort(conf, kind="stable")
    bounds = equal_mass_bounds(conf.size, n_bins)
    ids = np.empty(conf.size, dtype=np.intp)
    ids[order] = np.repeat(np.arange(bounds.size - 1), np.diff(bounds))
    return ids


def ece_consistency_test(confidence, correct, n_bins=15, scheme="equal-width", n_draws=DEFAULT_TEST_DRAWS, rng=0):
    """Consistency-resampling test of confidence calibration by the binned ECE (module docstring).

    ``confidence`` (n,) top-label probabilities, ``correct`` (n,) 0/1; ``n_bins`` and ``scheme`` the ECE's bins;
    ``n_draws`` outcome sets redrawn as Bernoulli(confidence); ``rng`` a ``numpy.random.Generator`` or a
    non-negative int seed. Returns a :class:`CalibrationTest` whose ``statistic`` is the observed ECE (equal to
    :func:`calib.ece`'s to rounding) and whose ``p_value`` is at least 1 / (n_draws + 1).

    >>> result = ece_consistency_test([0.9] * 20, [1] * 18 + [0] * 2, n_bins=5, n_draws=99, rng=1)
    >>> round(result.statistic, 3), result.p_value
    (0.0, 1.0)
    """
    conf = as_probabilities(confidence)
    if conf.ndim != 1:
        raise ValueError(f"confidence must be 1-D, one value per example; got shape {conf.shape}")
    hits = as_correct(correct, conf.shape)
    n_bins = positive_int(n_bins, "n_bins")
    scheme = check_choice(scheme, SCHEMES, "scheme")
    n_draws = positive_int(n_draws, "n_draws")
    gen = as_generator(rng)
    n = conf.size
    ids = _bin_ids(conf, n_bins, scheme)
    members = np.zeros((n, int(ids.max()) + 1))
    members[np.arange(n), ids] = 1.0  # (n, B): each row's bin, one-hot
    expected = conf @ members  # per bin: the sum of the confidences

    def statistic(outcomes):  # (R, n) 0/1 → (R,) ECE
        return np.abs(outcomes @ members - expected).sum(axis=1) / n

    observed = float(statistic(hits[None])[0])
    null = np.empty(n_draws)
    block = max(1, _BLOCK_VALUES // n)
    for start in range(0, n_draws, block):
        size = min(block, n_draws - start)
        null[start:start + size] = statistic((gen.random((size, n)) < conf).astype(np.float64))
    # ≥ with a tolerance far below any ECE step (1/n): the same value reached by a draw counts as reaching it
    reached = int(np.sum(null >= observed - 1e-12))
    return CalibrationTest(observed, (1 + reached) / (1 + n_draws), "ece-consistency", n_draws, float(null.mean()), n)


def _probability_rows(probs, labels):
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim != 2 or p.shape[0] < 2 or p.shape[1] < 2:
        raise ValueError(f"probs must have shape (n, K) with n ≥ 2 and K ≥ 2; got {p.shape}")
    if not np.all(np.isfinite(p)) or p.min() < 0 or not np.allclose(p.sum(axis=1), 1.0, atol=1e-6):
        raise ValueError("probs: every row must hold non-negative probabilities that sum to 1")
    y = np.asarray(labels)
    if y.shape != (p.shape[0],) or not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= p.shape[1]:
        raise ValueError(f"labels must be {p.shape[0]} integers in [0, {p.shape[1]})")
    residual = -p
    residual[np.arange(y.size), y] += 1.0  # e_y − p
    return p, residual, y.astype(np.intp)


def median_bandwidth(probs, max_rows=BANDWIDTH_ROWS):
    """The median heuristic ν: the median Euclidean distance between the rows of ``probs`` (n, K) over every
    pair of an evenly spaced subsample of at most ``max_rows`` rows (all rows when n ≤ max_rows).

    >>> median_bandwidth(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]))
    0.7071067811865476
    """
    p = np.asarray(probs, dtype=np.float64)
    rows = p[evenly_spaced(p.shape[0], max_rows)]
    upper = np.triu_indices(rows.shape[0], k=1)
    distances = np.sqrt(np.maximum(((rows[:, None, :] - rows[None, :, :]) ** 2).sum(axis=2), 0.0))[upper]
    return float(np.median(distances))


def _kernel(a, b, bandwidth):
    return np.exp(-np.sqrt(np.maximum(((a - b) ** 2).sum(axis=-1), 0.0)) / bandwidth)


def skce(probs, labels, bandwidth=None):
    """Unbiased quadratic estimate of the squared kernel calibration error of ``probs`` (n, K) for ``labels`` (n,):
    the mean of κ(p_i, p_j) ⟨e_{y_i} − p_i, e_{y_j} − p_j⟩ over every pair i < j (module docstring; ``bandwidth``
    None: :func:`median_bandwidth`). Cost O(n² K), in blocks of rows.

    >>> round(skce(np.array([[0.8, 0.2], [0.8, 0.2], [0.3, 0.7]]), np.array([0, 1, 1]), bandwidth=1.0), 5)
    -0.0475
    """
    p, residual, _ = _probability_rows(probs, labels)
    nu = median_bandwidth(p) if bandwidth is None else float(bandwidth)
    n = p.shape[0]
    total = 0.0
    block = max(1, _BLOCK_VALUES // (n * p.shape[1]))
    for start in range(0, n, block):
        stop = min(n, start + block)
        kernel = _kernel(p[start:stop, None, :], p[None, :, :], nu)  # (b, n)
        inner = residual[start:stop] @ residual.T                     # (b, n)
        values = kernel * inner
        values[np.arange(stop - start), np.arange(start, stop)] = 0.0  # leave out i = j
        total += float(values.sum())
    return total / (n * (n - 1))


def evenly_spaced(n, count):
    """Indices of an evenly spaced subsample of ``count`` of ``n`` rows (all of them when n ≤ count)."""
    return np.unique(np.linspace(0, n - 1, min(count, n)).round().astype(np.intp))


def skce_test(probs, labels, bandwidth=None, n_draws=DEFAULT_SKCE_DRAWS, rng=0, max_rows=SKCE_ROWS):
    """Consistency-resampling test of canonical calibration by the quadratic SKCE (module docstring).

    ``probs`` (n, K) probability rows, ``labels`` (n,); ``bandwidth`` None: :func:`median_bandwidth` of the rows
    tested; ``n_draws`` label sets redrawn as Cat(p_i); ``rng`` a Generator or a non-negative int seed; above
    ``max_rows`` rows, a random subsample of that many (from ``rng``, in row order) is tested. Returns a
    :class:`CalibrationTest` whose ``statistic`` is :func:`skce` of the rows tested.

    >>> probs = np.tile([[0.9, 0.1], [0.6, 0.4]], (20, 1))  # the second row's class 1 comes up 3 times in 4
    >>> result = skce_test(probs, np.array([0, 1, 1, 1] * 10), n_draws=99, rng=1)
    >>> bool(result.statistic > 0), result.p_value
    (True, 0.01)
    """
    p, _, y = _probability_rows(probs, labels)
    n_draws = positive_int(n_draws, "n_draws")
    max_rows = positive_int(max_rows, "max_rows", minimum=2)
    gen = as_generator(rng)
    if p.shape[0] > max_rows:
        keep = np.sort(np.argsort(gen.random(p.shape[0]), kind="stable")[:max_rows])
        p, y = p[keep], y[keep]
    n, k = p.shape
    nu = median_bandwidth(p) if bandwidth is None else float(bandwidth)
    kernel = _kernel(p[:, None, :], p[None, :, :], nu)
    np.fill_diagonal(kernel, 0.0)  # pairs i ≠ j only
    kernel_p = kernel @ p
    fixed = float(np.sum(p * kernel_p))  # Σ κ_ij ⟨p_i, p_j⟩: the same for every label set

    def statistic(onehot):  # (n, K, D) one-hot labels → (D,) SKCE: Σ κ_ij ⟨e_i − p_i, e_j − p_j⟩ / (n (n − 1))
        flat = onehot.reshape(n, -1)
        same = np.einsum("ikd,ikd->d", onehot, (kernel @ flat).reshape(onehot.shape))
        cross = np.einsum("ikd,ik->d", onehot, kernel_p)
        return (same - 2.0 * cross + fixed) / (n * (n - 1))

    observed = float(statistic((y[:, None, None] == np.arange(k)[None, :, None]).astype(np.float64))[0])
    cumulative = np.cumsum(p, axis=1)
    null = np.empty(n_draws)
    block = max(1, _BLOCK_VALUES // (n * k))
    for start in range(0, n_draws, block):
        size = min(block, n_draws - start)
        drawn = np.minimum((cumulative[:, None, :] <= gen.random((n, size, 1))).sum(axis=2), k - 1)  # (n, D)
        onehot = (drawn[:, None, :] == np.arange(k)[None, :, None]).astype(np.float64)  # (n, K, D)
        null[start:start + size] = statistic(onehot)
    reached = int(np.sum(null >= observed - 1e-12))
    return CalibrationTest(observed, (1 + reached) / (1 + n_draws), "skce-consistency", n_draws, float(null.mean()),
                           n)
