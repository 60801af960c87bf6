"""Calibration beyond the top label: class-wise ECE (Kull et al. 2019) and static calibration error (Nixon et al. 2019).

Top-label ECE looks only at the winning class. These measures bin every
class's probability: for class k, the n values p_ik (i = 1..n) are binned
with the same schemes and edges as :func:`calib.ece` (``"equal-width"`` or
``"adaptive"``, :data:`calib.SCHEMES`), and in each bin B_kb the mean
probability conf(k, b) is set against the fraction of its rows whose label is
k, acc(k, b). With n rows, K classes and B bins per class,

    classwise-ECE = SCE = (1/K) Σ_k Σ_b (|B_kb| / n) · |acc(k, b) − conf(k, b)|.

Kull et al.'s class-wise ECE and Nixon et al.'s static calibration error are
the same estimator: the mean over classes of each class's binned calibration
error over all n rows (not only the rows where the class wins). Nixon et al.
define SCE with equal-width bins; with ``scheme="adaptive"`` it becomes the
equal-mass variant (their ACE weights each range by its size here, which
differs from 1/B only when n is not a multiple of B, and uses no threshold).
Both names are offered because both are cited; they return the same number.

References
----------
M. Kull et al., "Beyond temperature scaling: Obtaining well-calibrated
multi-class probabilities with Dirichlet calibration", NeurIPS 2019.
J. Nixon, M. W. Dusenberry, L. Zhang, G. Jerfel and D. Tran, "Measuring
Calibration in Deep Learning", CVPR Workshops 2019.
"""

import numpy as np

from .binning import reliability_bins
from .scaling import as_labels
from .validation import as_probability_rows

__all__ = ["classwise_bins", "classwise_ece", "static_calibration_error"]


def _check(probs, labels):
    rows = np.asarray(probs, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < 1 or rows.shape[1] < 2:
        raise ValueError(f"probs must be a 2-D array (n, K) with n ≥ 1 and K ≥ 2; got shape {np.shape(probs)}")
    as_probability_rows(rows, "probs")
    return rows, as_labels(labels, rows.shape[0], rows.shape[1])


def classwise_bins(probs, labels, n_bins, scheme="equal-width"):
    """Reliability bins of every class's probability: a :class:`calib.ReliabilityBins` of arrays (K, B).

    Row k bins the n values ``probs[:, k]`` (probabilities, (n, K)) against
    whether ``labels`` (n,) is k, by :func:`calib.reliability_bins` with
    ``n_bins`` and ``scheme``; B is ``n_bins`` (equal-width) or
    ``min(n_bins, n)`` (adaptive). ``weighted_gap`` holds each bin's
    (|B_kb| / n) · |acc − conf|.
    """
    rows, y = _check(probs, labels)
    hits = y[None, :] == np.arange(rows.shape[1])[:, None]
    return reliability_bins(rows.T, hits, n_bins, scheme)


def classwise_ece(probs, labels, n_bins, scheme="equal-width"):
    """Class-wise ECE (Kull et al. 2019): the mean over classes of each class's binned calibration error.

    ``(1/K) Σ_k Σ_b (|B_kb| / n) · |acc(k, b) − conf(k, b)|`` (module
    docstring) for ``probs`` (n, K) and ``labels`` (n,); a probability in
    [0, 1] (a float).

    >>> round(classwise_ece([[0.8, 0.2], [0.6, 0.4], [0.3, 0.7]], [0, 1, 1], 2), 4)
    0.2333
    """
    return float(classwise_bins(probs, labels, n_bins, scheme).weighted_gap.sum(axis=1).mean())


def static_calibration_error(probs, labels, n_bins, scheme="equal-width"):
    """Static calibration error (Nixon et al. 2019): the same number as :func:`classwise_ece`.

    ``SCE = (1/K) Σ_k Σ_b (n_bk / N) · |acc(b, k) − conf(b, k)|`` over the N
    rows of ``probs`` (N, K) and ``labels`` (N,): the estimator of
    :func:`classwise_ece` under Nixon et al.'s name (see the module
    docstring). Equal-width bins are Nixon et al.'s definition.
    """
    return classwise_ece(probs, labels, n_bins, scheme)
