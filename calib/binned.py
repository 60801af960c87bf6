"""One-vs-rest calibrators that replace each class probability by a bin's value or an isotonic fit.

Each treats class k as its own binary problem: the class probability p_k of
every row (softmax of the logits, or of the tempered logits for
scaling-binning) is mapped to a new value, and the K new values of a row are
divided by their sum (a row of zeros becomes uniform, 1/K; see
:func:`calib.calibrators.renormalise`).

* :class:`HistogramBinning` (Zadrozny & Elkan 2001): p_k's bin → the fraction
  of the calibration rows in that bin whose label is k;
* :class:`IsotonicCalibration` (Zadrozny & Elkan 2002): p_k → the isotonic
  (PAV) regression of [label = k] on p_k, linear between its knots and
  constant beyond them (scikit-learn's ``IsotonicRegression`` with
  ``out_of_bounds="clip"``);
* :class:`ScalingBinning` (Kumar, Liang & Ma 2019): q = softmax(z / T) with T
  from temperature scaling, then q_k's bin → the mean of q_k over the
  calibration rows in that bin (a bin mean of the scaled values, not of the
  labels).

Bins, per class (``scheme``, one of :data:`calib.SCHEMES`):

``"equal-width"``
    ``n_bins`` bins with edges ``linspace(0, 1, n_bins + 1)``, membership as in
    :func:`calib.reliability_bins` (a value on an edge goes to the bin that
    starts there; 1 to the last bin).
``"adaptive"``
    Equal mass on the calibration rows: sort the class's n values and cut
    them into ``min(n_bins, n)`` groups as :func:`calib.equal_mass_bounds`
    does; the cut points are each later group's smallest value, and a value v
    belongs to the bin after the last cut point ≤ v (so tied values on a cut
    all go to the later bin, and two equal cut points leave an empty bin).

An empty bin (no calibration row) keeps the midpoint of its edges. The edges
are the fitted attribute ``edges_`` (K, B + 1), with 0 and 1 as outer edges.

Histogram binning and isotonic calibration can map a class probability to
exactly 0 (a bin, or an isotonic block, with no row of that class), so a test
row of that class gets probability 0 and an infinite NLL; scaling-binning
cannot (its bin means are means of positive probabilities).

References
----------
B. Zadrozny and C. Elkan, "Obtaining calibrated probability estimates from
decision trees and naive Bayesian classifiers", ICML 2001.
B. Zadrozny and C. Elkan, "Transforming classifier scores into accurate
multiclass probability estimates", KDD 2002.
A. Kumar, P. Liang and T. Ma, "Verified Uncertainty Calibration", NeurIPS 2019.
"""

import numpy as np

from .binning import SCHEMES, equal_mass_bounds, equal_width_ids
from .calibrators import Calibrator, given_temperature, in_row_blocks, renormalise
from .corp import pav
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .scaling import scaled_probs
from .validation import check_choice, positive_int

__all__ = ["DEFAULT_CALIBRATOR_BINS", "HistogramBinning", "IsotonicCalibration", "ScalingBinning",
           "class_edges", "class_bin_ids", "class_bin_means"]

DEFAULT_CALIBRATOR_BINS = 15  # bins per class of the binned calibrators


def class_edges(values, n_bins, scheme):
    """Bin edges per class, (K, B + 1), of the columns of ``values`` (n, K) in [0, 1] (module docstring).

    B is ``n_bins`` for equal-width bins and ``min(n_bins, n)`` for adaptive ones.

    >>> class_edges(np.array([[0.1, 0.9], [0.4, 0.6], [0.7, 0.3]]), 2, "adaptive").tolist()
    [[0.0, 0.7, 1.0], [0.0, 0.9, 1.0]]
    """
    n, k = values.shape
    if scheme == "equal-width":
        return np.broadcast_to(np.linspace(0.0, 1.0, n_bins + 1), (k, n_bins + 1)).copy()
    positions = equal_mass_bounds(n, n_bins)[1:-1]
    cuts = np.empty((k, positions.size))  # (K, B − 1): each later group's smallest value
    for column in range(k):  # one class at a time: no sorted (n, K) copy
        cuts[column] = np.sort(values[:, column])[positions]
    return np.concatenate([np.zeros((k, 1)), cuts, np.ones((k, 1))], axis=1)


def class_bin_ids(values, edges, scheme):
    """The bin of every value of ``values`` (n, K) under each class's ``edges`` (K, B + 1): int (n, K) in [0, B)."""
    if scheme == "equal-width":
        return equal_width_ids(values, edges.shape[1] - 1)
    ids = np.empty(values.shape, dtype=np.intp)
    for k in range(values.shape[1]):  # one search per class, each vectorised over the rows
        ids[:, k] = np.searchsorted(edges[k, 1:-1], values[:, k], side="right")
    return ids


def class_bin_means(ids, targets, edges):
    """``(means, counts)``, each (K, B): the mean of ``targets`` over each class's bin, and its size.

    ``targets`` is a float array (n, K), or an int label vector (n,) standing
    for its one-hot rows (the bin's fraction of rows labelled k, counted
    without building the (n, K) one-hot array). One ``bincount`` over (class,
    bin) per sum; an empty bin's mean is the midpoint of its edges (K, B + 1).
    """
    k, b = edges.shape[0], edges.shape[1] - 1
    # one class at a time (each bin's sum in row order, as one bincount over (class, bin) adds it): no (n, K)
    # index array beside ids
    counts = np.stack([np.bincount(ids[:, c], minlength=b) for c in range(k)])
    if targets.ndim == 1:  # labels: only the entry of each row's own class is 1
        rows = np.arange(targets.size)
        sums = np.bincount(targets * b + ids[rows, targets], minlength=k * b).reshape(k, b).astype(np.float64)
    else:
        sums = np.stack([np.bincount(ids[:, c], weights=targets[:, c], minlength=b) for c in range(k)])
    midpoints = (edges[:, :-1] + edges[:, 1:]) / 2.0
    means = np.where(counts > 0, sums / np.maximum(counts, 1), midpoints)
    return means, counts


class _Binned(Calibrator):
    """Shared parameters and prediction of the two binned calibrators."""

    chosen_by = "fixed in advance, not tuned: n_bins bins per class under scheme"

    def __init__(self, n_bins=DEFAULT_CALIBRATOR_BINS, scheme="equal-width"):
        self.n_bins = positive_int(n_bins, "n_bins")
        self.scheme = check_choice(scheme, SCHEMES, "scheme")

    def _params(self):
        return {"n_bins": self.n_bins, "scheme": self.scheme}

    def _inputs(self, z):
        return scaled_probs(z, 1.0)

    def _bin(self, values, targets):
        self.edges_ = class_edges(values, self.n_bins, self.scheme)
        ids = in_row_blocks(lambda rows: class_bin_ids(rows, self.edges_, self.scheme), values)
        self.bin_values_, self.bin_counts_ = class_bin_means(ids, targets, self.edges_)

    def _predict(self, z):
        values = self._inputs(z)
        ids = class_bin_ids(values, self.edges_, self.scheme)
        ids += np.arange(ids.shape[1]) * self.bin_values_.shape[1]  # index into the flat (K · B) table
        return renormalise(self.bin_values_.ravel()[ids])


class HistogramBinning(_Binned):
    """Histogram binning (Zadrozny & Elkan 2001), one-vs-rest on softmax(z), renormalised.

    ``n_bins`` bins per class under ``scheme`` (``"equal-width"`` or
    ``"adaptive"``: see the module docstring). Fitted attributes: ``edges_``
    (K, B + 1), ``bin_values_`` (K, B) the fraction of each bin's calibration
    rows whose label is the class, ``bin_counts_`` (K, B) their number.

    >>> z = np.log([[0.7, 0.3], [0.6, 0.4], [0.2, 0.8], [0.35, 0.65]])
    >>> HistogramBinning(n_bins=2).fit(z, [0, 1, 1, 1]).bin_values_.tolist()
    [[0.0, 0.5], [0.5, 1.0]]
    """

    def _fit(self, z, y):
        self._bin(in_row_blocks(self._inputs, z), y)


class ScalingBinning(_Binned):
    """Scaling-binning (Kumar, Liang & Ma 2019): temperature scaling, then bin means of the scaled probabilities.

    T minimises the mean NLL (:func:`calib.fit_temperature` within ``bounds``
    to ``tolerance``); then, one-vs-rest on q = softmax(z / T), each q_k is
    replaced by the mean of q_k over its bin's calibration rows, and rows are
    renormalised. The default scheme is ``"adaptive"`` (equal mass, as in the
    paper); the same rows fit T and the bins; ``temperature`` (None: search) is a T already fitted by
    :class:`calib.TemperatureScaling` on the same rows with the same ``bounds`` and ``tolerance``, used instead
    of a second, identical search. Fitted attributes:
    ``temperature_``, ``edges_`` (K, B + 1), ``bin_values_`` (K, B) and
    ``bin_counts_`` (K, B).
    """

    def __init__(self, n_bins=DEFAULT_CALIBRATOR_BINS, scheme="adaptive", bounds=DEFAULT_BOUNDS,
                 tolerance=DEFAULT_TOLERANCE, temperature=None):
        super().__init__(n_bins, scheme)
        self.temperature = given_temperature(temperature)
        low, high = bounds
        if not (0 < low < high and np.isfinite(high)):
            raise ValueError(f"bounds must satisfy 0 < low < high < inf; got {bounds!r}")
        if not (np.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"tolerance must be positive and finite; got {tolerance!r}")
        self.bounds, self.tolerance = (float(low), float(high)), float(tolerance)

    chosen_by = ("T as temperature scaling chooses it; n_bins and scheme fixed in advance, not tuned; T and the "
                 "bins are fitted on the same calibration rows (Kumar et al. use separate splits for the scaler "
                 "and the bins)")

    def _params(self):
        given = {} if self.temperature is None else {"temperature": self.temperature}
        return {**super()._params(), "bounds": self.bounds, "tolerance": self.tolerance, **given}

    def _chosen(self):
        return {"temperature": self.temperature_}

    def _inputs(self, z):
        return scaled_probs(z, self.temperature_)

    def _fit(self, z, y):
        self.temperature_ = self.temperature or fit_temperature(z, y, bounds=self.bounds, tolerance=self.tolerance)
        scaled = in_row_blocks(self._inputs, z)
        self._bin(scaled, scaled)


class IsotonicCalibration(Calibrator):
    """Isotonic calibration (Zadrozny & Elkan 2002), one-vs-rest on softmax(z), renormalised.

    For each class k, the PAV fit of [label = k] on p_k (:func:`calib.corp.pav`,
    ties pooled); a new p_k is mapped by linear interpolation between the
    knots and clipped to the end values beyond them. Fitted attributes:
    ``thresholds_`` and ``values_``, tuples of K arrays (the knots and the
    fitted values at them, with the interior points of flat runs dropped:
    they change no interpolated value).

    >>> z = np.log([[0.7, 0.3], [0.6, 0.4], [0.2, 0.8], [0.35, 0.65]])
    >>> iso = IsotonicCalibration().fit(z, [0, 1, 1, 1])
    >>> [v.tolist() for v in iso.values_]
    [[0.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    """

    chosen_by = "none: the isotonic (PAV) fit has no hyperparameter"

    def _fit(self, z, y):
        probs = in_row_blocks(lambda rows: scaled_probs(rows, 1.0), z)
        thresholds, values = [], []
        for k in range(z.shape[1]):  # one PAV per class, each vectorised over the rows
            knots, fitted, _ = pav(probs[:, k], (y == k).astype(np.float64))
            keep = np.ones(knots.size, dtype=bool)  # drop the middle of runs of equal fitted values
            keep[1:-1] = (fitted[1:-1] != fitted[:-2]) | (fitted[1:-1] != fitted[2:])
            thresholds.append(knots[keep])
            values.append(fitted[keep])
        self.thresholds_, self.values_ = tuple(thresholds), tuple(values)

    def _predict(self, z):
        probs = scaled_probs(z, 1.0)
        mapped = np.empty_like(probs)
        for k in range(z.shape[1]):
            mapped[:, k] = np.interp(probs[:, k], self.thresholds_[k], self.values_[k])
        return renormalise(mapped)
