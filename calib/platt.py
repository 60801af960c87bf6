"""Platt scaling: a slope and a bias on a binary model's log-odds, as scikit-learn's ``method="sigmoid"``.

For two classes the score is the log-odds x = z₁ − z₀ of the logits (a binary
file's single score x is held as the logits (0, x), so this is x itself; a
file of probabilities p gives log(p / (1 − p))), and

    p₁ = sigmoid(a · x + b),   p₀ = 1 − p₁.

With more classes, each class k gets its own sigmoid of its logit z_k
(one-vs-rest), and the K values of a row are divided by their sum, as
scikit-learn does for a multiclass ``decision_function``.

a and b minimise the cross-entropy against Platt's smoothed targets: a row of
the class gets (N₊ + 1) / (N₊ + 2), any other row 1 / (N₋ + 2), with N₊ and N₋
the rows of and not of the class (Platt 1999, section 2.2; scikit-learn's
``_sigmoid_calibration``). The loss is convex in (a, b); L-BFGS-B on its mean
with the analytic gradient reaches the same minimum as scikit-learn's (which
stops at a gradient of 1e-6 on the sum), to its tolerance. Unlike temperature
scaling, a and b can shift and even reverse the scores: a > 0 keeps the
ranking, b ≠ 0 moves the decision threshold.

How it relates to temperature scaling: T divides the log-odds, p₁ =
sigmoid(x / T), so temperature scaling is Platt scaling with b = 0 and a = 1/T
(fitted without the smoothed targets).

References
----------
J. Platt, "Probabilistic outputs for support vector machines and comparisons to
regularized likelihood methods", Advances in Large Margin Classifiers, 1999.
"""

import numpy as np

from .calibrators import Calibrator, lbfgs, renormalise

__all__ = ["PlattScaling", "platt_targets", "platt_features", "sigmoid"]


def platt_features(z):
    """The scores the sigmoids take: the log-odds z₁ − z₀ (n, 1) for two classes, else the logits (n, K)."""
    return z[:, 1:2] - z[:, 0:1] if z.shape[1] == 2 else z


def platt_targets(y, k):
    """Platt's smoothed targets (n, C): C = 1 (the positive class) for K = 2, else K one-vs-rest columns.

    >>> platt_targets(np.array([0, 1, 1]), 2).ravel().tolist()
    [0.3333333333333333, 0.75, 0.75]
    """
    classes = np.array([1]) if k == 2 else np.arange(k)
    hit = y[:, None] == classes[None, :]
    positives = hit.sum(axis=0)
    negatives = y.size - positives
    return np.where(hit, (positives + 1.0) / (positives + 2.0), 1.0 / (negatives + 2.0))


def sigmoid(s):
    """1 / (1 + e^−s), elementwise, without overflow and with full relative precision for negative s."""
    e = np.exp(-np.abs(s))
    return np.where(s >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _platt_loss(params, features, targets):
    """Mean over rows of the summed cross-entropy of every column, and its gradient in (slopes, biases)."""
    c = features.shape[1]
    slopes, biases = params[:c], params[c:]
    s = features * slopes + biases
    # −t log σ(s) − (1 − t) log(1 − σ(s)) = log(1 + e^s) − t s
    loss = np.sum(np.logaddexp(0.0, s) - targets * s) / features.shape[0]
    residual = (sigmoid(s) - targets) / features.shape[0]
    return loss, np.concatenate([np.sum(residual * features, axis=0), np.sum(residual, axis=0)])


class PlattScaling(Calibrator):
    """Platt scaling (Platt 1999): sigmoid(a · x + b) on the log-odds, one-vs-rest above two classes.

    See the module docstring. Fitted attributes: ``slope_`` and ``bias_``,
    arrays of one value for two classes (the positive class, 1) and K values
    otherwise (one per class).

    >>> z = np.stack([np.zeros(6), [2.0, 1.0, -1.0, 0.5, -2.0, 0.2]], axis=1)
    >>> platt = PlattScaling().fit(z, [1, 1, 0, 0, 0, 1])
    >>> bool(platt.slope_[0] > 0), platt.predict_proba(z).shape
    (True, (6, 2))
    """

    def _fit(self, z, y):
        features = platt_features(z)
        targets = platt_targets(y, z.shape[1])
        c = features.shape[1]
        scale = np.maximum(np.max(np.abs(features), axis=0), 1.0)  # the fit is invariant to it; it helps L-BFGS
        positives = targets.mean(axis=0)
        start = np.concatenate([np.zeros(c), np.log(positives / (1.0 - positives))])
        params = lbfgs(_platt_loss, start, (features / scale, targets))
        self.slope_, self.bias_ = params[:c] / scale, params[c:]

    def _predict(self, z):
        s = platt_features(z) * self.slope_ + self.bias_
        if z.shape[1] == 2:  # both from σ: 1 − σ(s) = σ(−s), each with full relative precision
            return np.concatenate([sigmoid(-s), sigmoid(s)], axis=1)
        p = sigmoid(s)
        return renormalise(p)
