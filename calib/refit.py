"""How the fitted temperature itself moves, and why a compromise lands where it does.

:func:`fit_weighted_temperatures`
    The NLL-minimising temperature for many weightings of the same rows at
    once (one bootstrap resample, or one group, per weighting). A golden-section
    search runs on every weighting in lock-step, so each step costs one
    vectorised evaluation instead of one Python call per weighting.
:func:`nll_beta_derivatives`
    The slope and curvature of mean NLL in the inverse temperature β = 1/T.
    NLL is convex in β; at a pooled optimum the groups' slopes (weighted by
    their share of rows) cancel, and the group whose NLL curves more steeply
    moves least from its own optimum.
:func:`marginal_balance`
    Those derivatives split by group (or by row): the :class:`Balance` of a compromise.
"""

from typing import NamedTuple, Tuple

import numpy as np

from .fitting import _INV_PHI, DEFAULT_BOUNDS, DEFAULT_TOLERANCE
from .rowscores import log_normaliser
from .scaling import as_labels, as_logits

__all__ = ["weighted_nll", "fit_weighted_temperatures", "nll_beta_derivatives", "beta_derivative_rows", "Balance",
           "marginal_balance"]

_BLOCK_ELEMENTS = 1 << 22  # temperatures × rows × classes evaluated at once: bounds memory at 32 MiB


def _as_weights(weights, n):
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim == 1:
        w = w[None]
    if w.ndim != 2 or w.shape[1] != n:
        raise ValueError(f"weights must have shape (R, {n}); got {np.shape(weights)}")
    if not np.all(np.isfinite(w)) or w.min() < 0 or np.any(w.sum(axis=1) <= 0):
        raise ValueError("weights must be finite, non-negative, with a positive sum in every row")
    return w


def weighted_nll(logits, labels, temperatures, weights):
    """Weighted mean NLL (nats) of the labels, weighting r at temperature ``temperatures[r]``: shape (R,).

    ``weights`` (R, n) are non-negative row weights (bootstrap counts, a 0/1
    group mask, …); row r's result is Σ_j w_rj · (−log softmax(z_j / T_r)[y_j]) / Σ_j w_rj.
    Evaluated in blocks of weightings so at most about 4 million
    (temperature, row, class) values exist at once.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    w = _as_weights(weights, z.shape[0])
    temps = np.asarray(temperatures, dtype=np.float64).reshape(-1)
    if temps.shape != (w.shape[0],) or not np.all(np.isfinite(temps)) or np.any(temps <= 0):
        raise ValueError(f"temperatures must be {w.shape[0]} positive finite values, one per weighting")
    return _weighted_nll(z - z.max(axis=1, keepdims=True), y, temps, w)


def _weighted_nll(shifted, y, temps, w):
    """:func:`weighted_nll` on validated arrays; ``shifted`` is z minus each row's maximum (every entry ≤ 0)."""
    n, k = shifted.shape
    rows = np.arange(n)
    true_shifted = shifted[rows, y]
    totals = w.sum(axis=1)
    out = np.empty(temps.size)
    block = max(1, _BLOCK_ELEMENTS // (n * k))
    for start in range(0, temps.size, block):
        part = slice(start, start + block)
        inverse = 1.0 / temps[part]
        work = np.multiply(shifted[None], inverse[:, None, None])
        log_norm = log_normaliser(work, out=work)  # (b, n)
        losses = log_norm - true_shifted[None] * inverse[:, None]
        out[part] = np.einsum("bn,bn->b", w[part], losses) / totals[part]
    return out


def fit_weighted_temperatures(logits, labels, weights, bounds=DEFAULT_BOUNDS, tolerance=DEFAULT_TOLERANCE):
    """The temperature minimising :func:`weighted_nll` for each weighting of the rows: shape (R,).

    Parameters
    ----------
    logits : array (n, K)
    labels : array (n,) of class indices
    weights : array (R, n) or (n,)
        Non-negative weights; e.g. bootstrap resample counts
        (:func:`calib.resample_counts`) give the bootstrap distribution of the
        fitted temperature.
    bounds : (low, high)
        The search interval for T.
    tolerance : float
        The search stops when every bracket is narrower than this (units of T).

    A golden-section search per weighting, run in lock-step: weighted NLL is
    convex in 1/T, hence unimodal in T, so each search converges to its
    bounded minimiser. With one weighting of all ones it agrees with
    :func:`calib.fit_temperature` to within the tolerance.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    w = _as_weights(weights, z.shape[0])
    low, high = (float(b) for b in bounds)
    if not (0 < low < high and np.isfinite(high)):
        raise ValueError(f"bounds must satisfy 0 < low < high < inf; got {bounds!r}")
    if not (np.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be positive; got {tolerance!r}")
    shifted = z - z.max(axis=1, keepdims=True)
    r = w.shape[0]
    lo, hi = np.full(r, low), np.full(r, high)
    left, right = hi - _INV_PHI * (hi - lo), lo + _INV_PHI * (hi - lo)
    loss_left = _weighted_nll(shifted, y, left, w)
    loss_right = _weighted_nll(shifted, y, right, w)
    while np.any(hi - lo > tolerance):
        active = hi - lo > tolerance
        keep_left = active & (loss_left <= loss_right)
        keep_right = active & ~keep_left
        # keep_left: the minimum lies left of the right probe, which becomes the upper end
        hi = np.where(keep_left, right, hi)
        lo = np.where(keep_right, left, lo)
        new_left = hi - _INV_PHI * (hi - lo)
        new_right = lo + _INV_PHI * (hi - lo)
        right, loss_right = np.where(keep_left, left, right), np.where(keep_left, loss_left, loss_right)
        left, loss_left = np.where(keep_right, right, left), np.where(keep_right, loss_right, loss_left)
        left = np.where(keep_left, new_left, left)
        right = np.where(keep_right, new_right, right)
        probe = np.where(keep_left, left, right)
        losses = np.full(r, np.nan)
        losses[active] = _weighted_nll(shifted, y, probe[active], w[active])
        loss_left = np.where(keep_left, losses, loss_left)
        loss_right = np.where(keep_right, losses, loss_right)
    return (lo + hi) / 2.0


def nll_beta_derivatives(logits, labels, temperature, weights=None):
    """Slope and curvature of mean NLL in β = 1/T at ``temperature``: ``(slope, curvature)``, nats per unit β
    (and per β²).

    With p = softmax(β z) for one row, −log p_y = −β z_y + log Σ_k exp(β z_k), so

    * d/dβ = E_p[z] − z_y  (expected logit minus the true class's logit),
    * d²/dβ² = Var_p[z]   (the spread of the logits under p; never negative).

    Both are averaged over the rows, with ``weights`` (n,) if given (e.g. a
    group's 0/1 mask divided by the pooled row count, so that groups' slopes
    add up to the pooled slope). A slope of zero marks the NLL-minimising β.
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    t = float(temperature)
    if not (np.isfinite(t) and t > 0):
        raise ValueError(f"temperature must be positive and finite; got {temperature!r}")
    w = np.full(z.shape[0], 1.0 / z.shape[0]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (z.shape[0],) or not np.all(np.isfinite(w)):
        raise ValueError(f"weights must be finite with shape ({z.shape[0]},)")
    slope, curvature = beta_derivative_rows(z - z.max(axis=1, keepdims=True), y, t)
    return float(w @ slope), float(w @ curvature)


def beta_derivative_rows(shifted, y, temperature):
    """Each row's slope and curvature of its NLL in β = 1/T at ``temperature``: ``(slope (n,), curvature (n,))``.

    ``shifted`` (n, K) float64 is the logits minus each row's maximum and ``y`` (n,) the labels, both
    already checked; the slope is E_p[z] − z_y and the curvature Var_p[z] (see :func:`nll_beta_derivatives`),
    nats per unit β and per β². Rows are independent, so sums of these over any partition of the rows add
    up to the whole set's (the distributed fit, :mod:`calib.chunks`, relies on it).
    """
    ones = np.ones(shifted.shape[1])  # row sums as matrix products: several times faster over a short class axis
    p = np.exp(shifted / temperature)
    p /= (p @ ones)[:, None]
    mean_z = (p * shifted) @ ones
    deviation = shifted - mean_z[:, None]
    deviation *= deviation
    var_z = (p * deviation) @ ones
    return mean_z - shifted[np.arange(shifted.shape[0]), y], var_z  # the row maximum cancels in E_p[z] − z_y


class Balance(NamedTuple):
    """Why a fitted T lands where it does: each group's share of the slope and curvature of NLL in β = 1/T.

    At ``temperature`` (the T fitted to all ``n`` rows), ``slope[g]`` and
    ``curvature[g]`` are group ``names[g]``'s contributions to the first and
    second derivative of the mean NLL in β (weights: the group's rows / n, so
    the groups add up to the pooled derivatives; :func:`calib.nll_beta_derivatives`).
    The slopes sum to zero at the optimum; ``pooled_slope`` and
    ``pooled_curvature`` are the pooled values.
    """

    n: int
    temperature: float
    names: Tuple
    slope: np.ndarray
    curvature: np.ndarray
    pooled_slope: float
    pooled_curvature: float


def marginal_balance(logits, labels, temperature, groups):
    """The :class:`Balance` at ``temperature`` (the T fitted to all rows), split by ``groups`` (one label per
    row, e.g. a group name, or the row's own index for per-example contributions); nats per unit β."""
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    groups = np.asarray(groups)
    if groups.shape != y.shape:
        raise ValueError(f"groups must have shape {y.shape}; got {groups.shape}")
    names = tuple(np.unique(groups).tolist())
    n = y.size
    parts = [nll_beta_derivatives(z, y, temperature, (groups == g) / n) for g in names]
    pooled = nll_beta_derivatives(z, y, temperature)
    return Balance(int(n), float(temperature), names, np.array([p[0] for p in parts]),
                   np.array([p[1] for p in parts]), pooled[0], pooled[1])
