"""Affine calibrators on the logits: vector scaling, matrix scaling and Dirichlet calibration.

Each maps a row of features x (K,) to ``softmax(W x + b)`` and minimises the
mean NLL of the calibration rows plus, for the matrix forms, the off-diagonal
and intercept regularisation (ODIR) of Kull et al. (2019):

    loss(W, b) = −(1/n) Σ_i log softmax(W x_i + b)_{y_i}
                 + λ · ( Σ_{j≠k} W_jk² / (K(K − 1)) + Σ_k b_k² / K )

* :class:`VectorScaling` (Guo et al. 2017): x = logits, W diagonal, λ = 0;
* :class:`MatrixScaling` (Guo et al. 2017, with ODIR): x = logits, W full;
* :class:`DirichletCalibration` (Kull et al. 2019): x = log-probabilities,
  log softmax(logits), W full, with ODIR.

One strength λ penalises both the off-diagonal weights and the intercepts (the
paper allows two, λ and μ; one keeps the search small). The division by
K(K − 1) and K is the authors' normalised form. W is penalised as it stands:
no row is fixed as a reference (the authors' code can subtract the last row
from every row first, which changes what the penalty sees), so the penalty
alone picks one W among those that give the same probabilities. It is chosen from a stated grid
(:data:`DEFAULT_STRENGTHS`) by K-fold cross-validation on the calibration rows:
deterministic stratified folds (:func:`stratified_folds`), the mean held-out
NLL per strength, the first smallest wins, then one fit on all rows. Above
:data:`CV_MAX_ROWS` calibration rows the cross-validation runs on that many
(:func:`cv_rows`, every class keeping its share) and the fit on all rows starts
from the last fold's solution at the chosen strength: the choice of λ needs
far fewer rows than the fit, whose cost grows with n. Every fit
is L-BFGS-B (SciPy) on the loss above with its analytic gradient, started at
the identity map (W = I, b = 0).

References
----------
C. Guo, G. Pleiss, Y. Sun and K. Q. Weinberger, "On Calibration of Modern
Neural Networks", ICML 2017.
M. Kull, M. Perelló-Nieto, M. Kängsepp, T. Silva Filho, H. Song and P. Flach,
"Beyond temperature scaling: Obtaining well-calibrated multi-class
probabilities with Dirichlet calibration", NeurIPS 2019.
"""

import functools

import numpy as np

from .calibrators import Calibrator, lbfgs
from .validation import positive_int

__all__ = [
    "DEFAULT_STRENGTHS", "DEFAULT_FOLDS", "SECOND_START", "SETTLED_NLL", "SETTLED_PARAMS",
    "VectorScaling", "MatrixScaling", "DirichletCalibration",
    "stratified_folds", "affine_loss", "fit_affine", "canonical", "log_softmax_rows", "cv_rows", "CV_MAX_ROWS",
]

DEFAULT_STRENGTHS = (1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3, 1e4)  # the ODIR grid searched by cross-validation (λ)
DEFAULT_FOLDS = 5                                  # folds of the cross-validation
CV_MAX_ROWS = 20_000  # above this many calibration rows the strength is cross-validated on this many (cv_rows)
SECOND_START = 0.5     # vector scaling's settling check: a second fit from every weight 0.5, intercepts 0 …
SETTLED_NLL = 1e-6     # … must reach the first fit's calibration NLL within this (nats) …
SETTLED_PARAMS = 1e-3  # … and its weights and centred intercepts within this share of (1 + their largest size):
# settled fits differ by about 1e-5 of that, unbounded ones by 1e-2 or more (the rows study's draws), so a
# threshold far from both keeps the verdict the same whatever the CPU's SIMD paths (1e-2 let one draw flip)


def log_softmax_rows(z):
    """Row-wise log softmax of a float64 array (n, K), with the log-sum-exp shift (every value ≤ 0)."""
    shifted = z - z.max(axis=1, keepdims=True)
    # sums over the short class axis as a matrix product: several times faster than sum(axis=1)
    return shifted - np.log(np.exp(shifted) @ np.ones(z.shape[1]))[:, None]


def _unpack(params, k, full):
    cut = k * k if full else k
    weights = params[:cut].reshape(k, k) if full else params[:cut]
    return weights, params[cut:]


def _penalty(weights, bias, full, strength):
    """The ODIR term at its best equivalent parameters, and its gradients: ``(value, grad_w, grad_b)``.

    Adding one vector v to every row of W (v·x to every score) and one
    constant c to every intercept leaves every probability unchanged, so the
    loss is minimised over those shifts too: the best v_k is minus the mean
    of column k's off-diagonal entries and the best c minus the mean
    intercept, which turns the penalty into λ(Σ_k Σ_{j≠k} (W_jk − m_k)² /
    (K(K−1)) + Σ_k (b_k − b̄)² / K), m_k the mean of column k off the
    diagonal. That form is exactly flat along the shifts, where the plain
    penalty is nearly flat (curvature ≈ λ / K², against the data's ≈ the
    features' variance), which made L-BFGS crawl; :func:`canonical` then
    applies the best shift. Same minimum; on the Dirichlet fits, up to 2.5×
    fewer steps.
    """
    k = bias.size
    centred = bias - bias.mean()
    value = strength * np.sum(centred ** 2) / k
    grad_b = 2.0 * strength * centred / k
    if not full:
        return value, np.zeros_like(weights), grad_b
    deviation = np.where(_off_diagonal(k), weights - _column_means_off_diagonal(weights), 0.0)
    value += strength * np.sum(deviation ** 2) / (k * (k - 1))
    return value, 2.0 * strength * deviation / (k * (k - 1)), grad_b


@functools.lru_cache(maxsize=None)
def _off_diagonal(k):
    """A read-only (k, k) mask, True off the diagonal (made once per k: fits evaluate the penalty thousands of
    times)."""
    mask = ~np.eye(k, dtype=bool)
    mask.flags.writeable = False
    return mask


def _column_means_off_diagonal(weights):
    k = weights.shape[0]
    return (weights.sum(axis=0) - weights.diagonal()) / (k - 1)


def canonical(weights, bias):
    """The equivalent (W, b) (same probabilities) with the smallest ODIR penalty (see :func:`_penalty`).

    Subtracts from every row of a full W its columns' off-diagonal means, and
    from b its mean (a diagonal W is returned as is).

    >>> w, b = canonical(np.array([[1.0, 2.0], [4.0, 3.0]]), np.array([1.0, 3.0]))
    >>> w.tolist(), b.tolist()
    ([[-3.0, 0.0], [0.0, 1.0]], [-1.0, 1.0])
    """
    if weights.ndim == 2:
        weights = weights - _column_means_off_diagonal(weights)
    return weights, bias - bias.mean()


def affine_loss(params, features, y, full, strength):
    """The regularised mean NLL of softmax(W x + b) and its gradient: ``(loss, gradient)``.

    ``params`` is W flattened (K² values, row-major, if ``full``; else the K
    diagonal values) followed by b (K,); ``features`` (K, n) holds the rows'
    features x class-major (one row per class: reductions over classes then
    run along contiguous memory, several times faster than over a short last
    axis); ``y`` (n,) labels; ``strength`` the λ of the module's formula. The
    penalty is taken at the best equivalent parameters (:func:`_penalty`), so
    at a ``canonical`` (W, b) the value is the module's formula exactly.
    """
    k, n = features.shape
    weights, bias = _unpack(params, k, full)
    scores = (weights @ features if full else weights[:, None] * features) + bias[:, None]
    scores -= scores.max(axis=0)
    scores -= np.log(np.exp(scores).sum(axis=0))  # log-probabilities (K, n)
    # each row's label score by its flat index (class-major) in a view of the fresh array: one gather, faster
    # than scores[y, arange(n)]; the sum over n is what .mean() computes, bit for bit
    flat, label = scores.reshape(-1), y * n + np.arange(n)
    loss = -(flat[label].sum() / n)
    residual = np.exp(scores, out=scores)
    flat[label] -= 1.0
    residual /= n
    grad_w = residual @ features.T if full else (residual * features).sum(axis=1)
    grad_b = residual.sum(axis=1)
    if strength > 0:
        value, pen_w, pen_b = _penalty(weights, bias, full, strength)
        loss += value
        grad_w += pen_w
        grad_b += pen_b
    return loss, np.concatenate([grad_w.ravel(), grad_b])


def fit_affine(x, y, full, strength, start=None):
    """``(weights, bias)`` minimising :func:`affine_loss` by L-BFGS-B, from ``start`` or the identity map.

    ``x`` (n, K) features, ``y`` (n,) labels; ``weights`` is (K, K) if
    ``full`` else (K,); ``bias`` (K,). ``start`` is an optional
    ``(weights, bias)`` pair to start from.
    """
    k = x.shape[1]
    weights, bias = start if start is not None else ((np.eye(k) if full else np.ones(k)), np.zeros(k))
    params = lbfgs(affine_loss, np.concatenate([np.ravel(weights), bias]),
                   (np.ascontiguousarray(x.T), y, full, strength))
    weights, bias = _unpack(params, k, full)
    return canonical(weights.copy(), bias.copy())


def cv_rows(labels, max_rows):
    """The rows (sorted indices) the strength is cross-validated on: None (every row) up to ``max_rows`` rows,
    else ``max_rows`` rows spread evenly over the rows sorted by label (stable), so each class keeps its share.

    >>> cv_rows(np.array([1, 0, 1, 0, 1, 1]), 3).tolist()  # one of the two 0s, two of the four 1s
    [0, 1, 4]
    """
    n = labels.size
    if n <= max_rows:
        return None
    order = np.argsort(labels, kind="stable")
    return np.sort(order[(np.arange(max_rows) * n) // max_rows])


def stratified_folds(labels, n_folds):
    """Fold of each row (n,) in [0, n_folds): within each class, rows in their order go to folds 0, 1, 2, … in turn.

    Deterministic and stratified: every fold holds each class's rows to within one.

    >>> stratified_folds(np.array([0, 1, 0, 0, 1, 0]), 2).tolist()
    [0, 0, 1, 0, 1, 1]
    """
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    ordered = labels[order]
    rank = np.arange(labels.size) - np.searchsorted(ordered, ordered, side="left")
    folds = np.empty(labels.size, dtype=np.int64)
    folds[order] = rank % n_folds
    return folds


def _check_strengths(strengths):
    try:
        values = tuple(float(s) for s in strengths)
    except (TypeError, ValueError):
        values = ()
    if not values or not all(np.isfinite(s) and s >= 0 for s in values):
        raise ValueError(f"strengths must be a non-empty sequence of non-negative finite numbers; got {strengths!r}")
    return values


class _Affine(Calibrator):
    """The shared fit of the three affine calibrators; subclasses set ``_full`` and ``_features``."""

    _full = True
    chosen_by = ("the strength λ of strengths with the lowest mean held-out NLL over n_folds stratified folds of "
                 "the calibration rows (above CV_MAX_ROWS rows, of that many spread evenly by class; the first "
                 "on ties), then one fit on all of them")

    def _chosen(self):
        return {"strength": self.strength_, "cv_nll": self.cv_scores_}

    def __init__(self, strengths=DEFAULT_STRENGTHS, n_folds=DEFAULT_FOLDS):
        self.strengths = _check_strengths(strengths)
        self.n_folds = positive_int(n_folds, "n_folds", minimum=2)

    def _params(self):
        return {"strengths": self.strengths, "n_folds": self.n_folds}

    @staticmethod
    def _features(z):
        return z

    def _cross_validate(self, x, y):
        """Mean held-out NLL (nats) of each strength, over the folds of :func:`stratified_folds`, and the last
        fold's solution at each strength (``{index: (weights, bias)}``).

        Each fold's fits run from the largest strength to the smallest, each
        started from the fold's previous solution (a continuation: the same
        minimum, far fewer steps).
        """
        if x.shape[0] < self.n_folds:
            raise ValueError(f"labels: cross-validation needs at least n_folds = {self.n_folds} rows; "
                             f"got {x.shape[0]}")
        folds = stratified_folds(y, self.n_folds)
        scores = np.zeros(len(self.strengths))
        solutions = {}
        for fold in range(self.n_folds):
            train, held = folds != fold, folds == fold
            start = None
            for i in np.argsort(self.strengths, kind="stable")[::-1]:
                start = solutions[i] = fit_affine(x[train], y[train], self._full, self.strengths[i], start)
                logp = log_softmax_rows(self._apply(x[held], *start))
                scores[i] -= logp[np.arange(held.sum()), y[held]].sum()
        return scores / x.shape[0], solutions

    def _apply(self, x, weights, bias):
        return (x @ weights.T if self._full else x * weights) + bias

    def _start(self, k):
        """Where the final fit starts: None, the identity map."""
        return None

    def _fit(self, z, y):
        x = self._features(z)
        start = None
        if len(self.strengths) == 1:
            self.cv_scores_ = None
            self.strength_ = self.strengths[0]
        else:
            rows = cv_rows(y, CV_MAX_ROWS)
            self.cv_scores_, solutions = self._cross_validate(x if rows is None else x[rows],
                                                              y if rows is None else y[rows])
            best = int(np.argmin(self.cv_scores_))
            self.strength_ = self.strengths[best]
            start = None if rows is None else solutions[best]  # a subsample's fit: a start near the minimum
        if start is None:
            start = self._start(x.shape[1])
        self.weights_, self.bias_ = fit_affine(x, y, self._full, self.strength_, start)

    def _predict(self, z):
        return np.exp(log_softmax_rows(self._apply(self._features(z), self.weights_, self.bias_)))


class VectorScaling(_Affine):
    """Vector scaling (Guo et al. 2017): softmax(w ⊙ z + b), one scale and one intercept per class.

    Minimises the unregularised mean NLL (λ = 0, no cross-validation) by
    L-BFGS-B from every weight ``start_weight`` and every intercept 0 (the
    identity map by default). The loss has no finite minimum when a class is
    missing from the rows or the rows are separable, and the optimiser then
    stops wherever its tolerance falls (where, moves with the CPU's
    arithmetic). So every fit is repeated from every weight
    :data:`SECOND_START`: ``settled_`` is True when both reach the same
    calibration-row NLL (within :data:`SETTLED_NLL` nats) and the same
    parameters (within :data:`SETTLED_PARAMS` times one plus the largest
    parameter: where the loss has no finite minimum, both fits reach its
    floor with parameters that differ by far more). Fitted attributes:
    ``weights_`` (K,), ``bias_`` (K,) (centred to sum to 0: adding a constant
    to every intercept changes no probability) and ``settled_``.
    """

    _full = False
    chosen_by = "none: no penalty (λ = 0), so nothing to choose"

    def __init__(self, start_weight=1.0):
        super().__init__(strengths=(0.0,))
        if isinstance(start_weight, bool) or not np.isfinite(start_weight):
            raise ValueError(f"start_weight must be a finite number; got {start_weight!r}")
        self.start_weight = float(start_weight)

    def _params(self):
        return {} if self.start_weight == 1.0 else {"start_weight": self.start_weight}

    def _start(self, k):
        return np.full(k, self.start_weight), np.zeros(k)

    def _fit(self, z, y):
        super()._fit(z, y)  # fit_affine returns b centred (canonical)
        del self.cv_scores_, self.strength_
        k = z.shape[1]
        weights, bias = fit_affine(z, y, False, 0.0, start=(np.full(k, SECOND_START), np.zeros(k)))
        rows = np.arange(y.size)
        nll = [-log_softmax_rows(z * w + b)[rows, y].mean() for w, b in ((self.weights_, self.bias_), (weights, bias))]
        moved = max(np.max(np.abs(weights - self.weights_)), np.max(np.abs(bias - self.bias_)))
        size = 1.0 + max(np.max(np.abs(self.weights_)), np.max(np.abs(self.bias_)))
        self.settled_ = bool(abs(nll[0] - nll[1]) < SETTLED_NLL and moved < SETTLED_PARAMS * size)

    def _settings(self):
        return {"strength": 0.0}

    def _chosen(self):
        return {}


class MatrixScaling(_Affine):
    """Matrix scaling (Guo et al. 2017) with ODIR (Kull et al. 2019): softmax(W z + b) on the logits.

    ``strengths`` is the grid of λ searched by ``n_folds``-fold cross-validation
    (see the module docstring); a single strength is used as given, without
    cross-validation. Fitted attributes: ``weights_`` (K, K), ``bias_`` (K,),
    ``strength_`` (the λ used) and ``cv_scores_`` (mean held-out NLL per
    strength in nats, or None without cross-validation).
    """


class DirichletCalibration(_Affine):
    """Dirichlet calibration (Kull et al. 2019): softmax(W log q + b), q = softmax(z), with ODIR.

    Matrix scaling applied to the log-probabilities instead of the logits
    (the two differ because log q shifts each row by its own log-sum-exp).
    Parameters and fitted attributes as :class:`MatrixScaling`.
    """

    @staticmethod
    def _features(z):
        return log_softmax_rows(z)
