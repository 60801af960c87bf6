"""Calibrators with one interface: the base class, temperature scaling and ensemble temperature scaling.

Every calibrator maps a classifier's logits (n, K) to class probabilities
(n, K), each row summing to 1. It follows scikit-learn's estimator shape:
``fit(logits, labels)`` learns from the calibration rows and returns the
calibrator itself, ``predict_proba(logits)`` applies it to any rows, and the
fitted parameters are attributes whose names end in an underscore. Fits are
deterministic (no random state) and vectorised over rows.

The other calibrators live in :mod:`calib.matrix` (vector, matrix and
Dirichlet scaling) and :mod:`calib.binned` (histogram binning, isotonic
regression, scaling-binning).

References
----------
C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern
Neural Networks", ICML 2017.
J. Zhang, B. Kailkhura and T. Y.-J. Han, "Mix-n-Match: Ensemble and
Compositional Methods for Uncertainty Calibration in Deep Learning", ICML 2020.
"""

import numpy as np

from .blocks import one_blas_thread
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .scaling import as_labels, as_logits, scaled_probs

__all__ = ["Calibrator", "TemperatureScaling", "EnsembleTemperatureScaling", "renormalise", "mean_nll",
           "OPTIMISER_TOLERANCE", "OPTIMISER_FTOL", "lbfgs", "in_row_blocks", "ROW_BLOCK_VALUES"]

OPTIMISER_TOLERANCE = 1e-8   # L-BFGS-B: stop when every projected-gradient component is below this (nats/unit)
OPTIMISER_FTOL = 1e-12       # L-BFGS-B: or when one step lowers the loss (≈ 1 nat) by a relative amount below this
_MAX_ITERATIONS = 10_000     # L-BFGS-B iteration cap; the tolerance, not the cap, ends every fit we ran
# (row, class) values a calibrator maps at once: each (rows, K) temporary of its map stays near 16 MiB, below
# glibc's mmap threshold, whatever the number of rows (a 25,000 × 1,000 model's held five of 191 MiB each)
ROW_BLOCK_VALUES = 1 << 21


def in_row_blocks(function, *arrays, block_values=ROW_BLOCK_VALUES):
    """``function(*blocks)`` over blocks of the rows of ``arrays`` (each (n, ...); the first is (n, K) and sets
    the block: about ``block_values // K`` rows, a multiple of 64), the results stacked along their first axis.
    The same as ``function(*arrays)`` whenever each row of the result depends on its own row alone, with
    temporaries bounded by the block."""
    n, k = arrays[0].shape
    # a multiple of 64 rows: BLAS kernels take rows in small groups from the array's first row, and a block that
    # starts inside a group would sum some rows in another order (a last-bit difference from one whole call)
    rows = max(64, block_values // max(1, k) // 64 * 64)
    if n <= rows:
        return function(*arrays)
    out = None
    for start in range(0, n, rows):
        part = function(*(a[start:start + rows] for a in arrays))
        if out is None:
            out = np.empty((n,) + part.shape[1:], dtype=part.dtype)
        out[start:start + part.shape[0]] = part
    return out


def lbfgs(loss, start, args, bounds=None):
    """Minimise ``loss(params, *args) -> (value, gradient)`` by SciPy's L-BFGS-B from ``start``; the minimiser.

    Stops on :data:`OPTIMISER_TOLERANCE` or :data:`OPTIMISER_FTOL`. BLAS is
    held to one thread meanwhile: the optimiser's own vector work is far too
    small for threads, and on a busy machine OpenBLAS's waiting threads made
    each fit about ten times slower.
    """
    import scipy.optimize  # imported on first use: it costs more than all of the rest of `import calib`

    with one_blas_thread():
        result = scipy.optimize.minimize(loss, start, args=args, jac=True, method="L-BFGS-B", bounds=bounds,
                                         options={"gtol": OPTIMISER_TOLERANCE, "ftol": OPTIMISER_FTOL,
                                                  "maxiter": _MAX_ITERATIONS, "maxcor": 20})
    return result.x


def renormalise(values):
    """Rows of non-negative scores (n, K) divided by their sums; a row that sums to 0 becomes uniform, 1/K.

    The last step of every one-vs-rest calibrator, whose per-class outputs need
    not sum to 1.

    >>> renormalise(np.array([[1.0, 3.0], [0.0, 0.0]])).tolist()
    [[0.25, 0.75], [0.5, 0.5]]
    """
    values = np.asarray(values, dtype=np.float64)
    totals = values.sum(axis=1)
    empty = totals == 0
    out = values / np.where(empty, 1.0, totals)[:, None]
    out[empty] = 1.0 / values.shape[1]
    return out


def mean_nll(probs, labels):
    """Mean negative log-likelihood (nats) of ``labels`` (n,) under probability rows ``probs`` (n, K).

    ``inf`` if some label has probability 0.

    >>> round(mean_nll(np.array([[0.5, 0.5], [0.25, 0.75]]), np.array([0, 1])), 6)
    0.490415
    """
    probs = np.asarray(probs, dtype=np.float64)
    picked = probs[np.arange(probs.shape[0]), np.asarray(labels)]
    with np.errstate(divide="ignore"):
        return float(-np.log(picked).mean())


def plain_values(value):
    """``value`` with tuples, numpy arrays and numpy scalars made lists and Python numbers (JSON-ready)."""
    if isinstance(value, dict):
        return {key: plain_values(v) for key, v in value.items()}
    if isinstance(value, (tuple, list, np.ndarray)):
        return [plain_values(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


class Calibrator:
    """What every calibrator shares: argument checks, the fitted-state guard and the hyperparameter record.

    A subclass implements ``_fit(z, y)`` on validated logits (n, K) float64 and
    labels (n,) int64, and ``_predict(z)`` on validated logits, returning rows
    that sum to 1; it states ``chosen_by`` (how its hyperparameters are chosen,
    one sentence), ``keeps_ranking`` (True if it never changes the order of a
    row's classes, so never its most probable class) and, where the fit picks
    a hyperparameter itself, ``_chosen()`` (those values).
    """

    keeps_ranking = False
    chosen_by = "no hyperparameter"

    def fit(self, logits, labels):
        """Learn the calibration map from ``logits`` (n, K) and integer ``labels`` (n,) in [0, K); returns self."""
        z = as_logits(logits)
        y = as_labels(labels, z.shape[0], z.shape[1])
        vars(self).pop("n_classes_", None)  # a refit that raises leaves the calibrator unfitted
        self._fit(z, y)
        self.n_classes_ = z.shape[1]
        return self

    def predict_proba(self, logits):
        """Calibrated class probabilities for ``logits`` (m, K): float64 (m, K), each row summing to 1."""
        if not hasattr(self, "n_classes_"):
            raise ValueError(f"{type(self).__name__} is not fitted: call fit(logits, labels) first")
        z = as_logits(logits)
        if z.shape[1] != self.n_classes_:
            raise ValueError(f"logits must have {self.n_classes_} columns, as in fit; got {z.shape[1]}")
        return in_row_blocks(self._predict, z)  # every calibrator maps each row on its own

    def _fit(self, z, y):  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict(self, z):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        params = ", ".join(f"{name}={value!r}" for name, value in self._params().items())
        return f"{type(self).__name__}({params})"

    def _params(self):
        return {}

    def _settings(self):
        """The hyperparameters fixed before the fit: the constructor's arguments but a temperature handed over from
        temperature scaling's own fit (that one is reported as fitted)."""
        return {key: value for key, value in self._params().items() if key != "temperature"}

    def _chosen(self):
        """The hyperparameters the fit chose from the rows (default: none)."""
        return {}

    def hyperparameters(self):
        """What the calibrator depends on besides its parameters, as plain (JSON-ready) values: ``settings`` (fixed
        before the fit), ``fitted`` (chosen by the fit from the calibration rows; empty before :meth:`fit`),
        ``chosen_by`` (how, one sentence) and ``keeps_ranking``.

        >>> TemperatureScaling().hyperparameters()["settings"]
        {'bounds': [0.05, 10.0], 'tolerance': 1e-07}
        """
        fitted = self._chosen() if hasattr(self, "n_classes_") else {}
        return {"settings": plain_values(self._settings()), "fitted": plain_values(fitted),
                "chosen_by": self.chosen_by, "keeps_ranking": self.keeps_ranking}


def _check_bounds(bounds):
    low, high = bounds
    if not (0 < low < high and np.isfinite(high)):
        raise ValueError(f"bounds must satisfy 0 < low < high < inf; got {bounds!r}")
    return (float(low), float(high))


def given_temperature(temperature):
    """A temperature given instead of a search: None, or a positive finite float (else ValueError)."""
    if temperature is None:
        return None
    if isinstance(temperature, bool) or not (np.isfinite(temperature) and temperature > 0):
        raise ValueError(f"temperature must be None or positive and finite; got {temperature!r}")
    return float(temperature)


class _TemperatureSearch(Calibrator):
    """A calibrator that fits a temperature by bounded search: its ``bounds`` and ``tolerance``, checked once."""

    def __init__(self, bounds=DEFAULT_BOUNDS, tolerance=DEFAULT_TOLERANCE):
        self.bounds = _check_bounds(bounds)
        if not (np.isfinite(tolerance) and tolerance > 0):
            raise ValueError(f"tolerance must be positive and finite; got {tolerance!r}")
        self.tolerance = float(tolerance)

    def _params(self):
        return {"bounds": self.bounds, "tolerance": self.tolerance}


class TemperatureScaling(_TemperatureSearch):
    """Temperature scaling (Guo et al. 2017): softmax(z / T) with the one T that minimises the mean NLL.

    A wrapper of :func:`calib.fit_temperature` (golden-section search for T in
    ``bounds`` down to a bracket of ``tolerance``). Fitted attribute:
    ``temperature_`` (dimensionless, > 0). Dividing every logit by one
    positive number never changes a row's argmax.

    >>> z = [[3, 1, 0], [2.5, 1, 0], [3, .5, 0], [1.5, 2, 0], [.5, 0, 1.5], [2, 2.2, 0]]
    >>> round(TemperatureScaling().fit(z, [0, 0, 1, 1, 2, 0]).temperature_, 5)
    1.22975
    """

    keeps_ranking = True
    chosen_by = ("T minimises the mean NLL of the calibration rows (golden-section search within bounds, to a "
                 "bracket of tolerance)")

    def _chosen(self):
        return {"temperature": self.temperature_}

    def _fit(self, z, y):
        self.temperature_ = fit_temperature(z, y, bounds=self.bounds, tolerance=self.tolerance)

    def _predict(self, z):
        return scaled_probs(z, self.temperature_)


def _mixture_nll(v, parts):
    """Mean NLL of the mixture with weights v / Σv and its gradient in v (v ≥ 0, not all 0).

    ``parts`` (n, 3) holds each row's probability of its label under the three components.
    """
    total = v.sum()
    mix = parts @ v
    loss = -np.mean(np.log(mix)) + np.log(total)
    grad = -(parts / mix[:, None]).mean(axis=0) + 1.0 / total
    return loss, grad


class EnsembleTemperatureScaling(_TemperatureSearch):
    """Ensemble temperature scaling (Zhang, Kailkhura & Han 2020): a convex mixture of three distributions.

    ``p = w₀ · softmax(z / T) + w₁ · softmax(z) + w₂ · (1/K)``: the
    temperature-scaled, the uncalibrated and the uniform distribution. T is the
    NLL-minimising temperature of :class:`TemperatureScaling` (the paper's code
    may fit T with the squared error instead; here both steps minimise NLL);
    the weights then minimise the mean NLL of the mixture over the simplex
    (w ≥ 0, Σw = 1). The mixture's NLL is convex in w; it is minimised by
    L-BFGS-B over unnormalised weights v ≥ 0 with w = v / Σv, whose every
    stationary point is the simplex minimum (the loss is constant along
    rays). Fitted attributes: ``temperature_`` and ``weights_`` (3,), in the
    order above. ``temperature`` (None: search) is a T already fitted by
    :class:`TemperatureScaling` on the same rows with the same ``bounds`` and
    ``tolerance``, used instead of a second, identical search.

    >>> z = np.array([[3, 1, 0], [2.5, 1, 0], [3, .5, 0], [1.5, 2, 0], [.5, 0, 1.5], [2, 2.2, 0]])
    >>> ets = EnsembleTemperatureScaling().fit(z, [0, 0, 1, 1, 2, 0])
    >>> bool(np.isclose(ets.weights_.sum(), 1.0)), ets.predict_proba(z).shape
    (True, (6, 3))
    """

    keeps_ranking = True  # each component orders a row's classes as its logits do (all-uniform weights aside)
    chosen_by = ("T as temperature scaling chooses it; then the three weights minimise the mixture's mean NLL on "
                 "the same calibration rows")

    def _chosen(self):
        return {"temperature": self.temperature_, "weights": self.weights_}

    def __init__(self, bounds=DEFAULT_BOUNDS, tolerance=DEFAULT_TOLERANCE, temperature=None):
        super().__init__(bounds, tolerance)
        self.temperature = given_temperature(temperature)

    def _params(self):
        given = {} if self.temperature is None else {"temperature": self.temperature}
        return {**super()._params(), **given}

    def _components(self, z):
        k = z.shape[1]
        return scaled_probs(z, self.temperature_), scaled_probs(z, 1.0), np.full(z.shape, 1.0 / k)

    def _fit(self, z, y):
        self.temperature_ = self.temperature or fit_temperature(z, y, bounds=self.bounds, tolerance=self.tolerance)
        parts = in_row_blocks(self._label_parts, z, y)
        start = np.full(3, 1.0 / 3.0)
        weights = lbfgs(_mixture_nll, start, (parts,), bounds=[(0.0, None)] * 3)
        self.weights_ = weights / weights.sum()

    def _label_parts(self, z, y):
        """Each row's probability of its label under the three components: (n, 3)."""
        rows = np.arange(z.shape[0])
        return np.stack([component[rows, y] for component in self._components(z)], axis=1)

    def _predict(self, z):
        scaled, raw, uniform = self._components(z)
        return self.weights_[0] * scaled + self.weights_[1] * raw + self.weights_[2] * uniform
