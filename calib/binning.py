"""Reliability-diagram bins and the binned calibration errors (ECE, MCE).

Two binning schemes, both on top-label confidence:

``"equal-width"``
    Edges are exactly ``numpy.linspace(0, 1, B + 1)``. Bin b holds confidences
    in ``[edge[b], edge[b+1])``; the last bin is closed, ``[edge[B-1], 1]``.
    Membership is decided by comparing with those edges (``searchsorted``), so
    a confidence lying on an edge always goes to the bin that starts there.
    Empty bins are kept, with count 0.
``"adaptive"``
    Equal-mass bins: sort the confidences ascending (stable sort) and cut them
    into ``min(B, n)`` consecutive groups whose sizes differ by at most one,
    larger groups first, as ``numpy.array_split`` does (:func:`equal_mass_bounds`,
    the one place these sizes are computed). A group's edges are its
    smallest and largest confidence. (This is top-label equal-mass binning, not
    Nixon et al.'s class-wise ACE.)

All functions accept a confidence array of shape (n,) or (G, n) — one row per
temperature — and bin every row in one vectorised pass.
"""

from typing import NamedTuple

import numpy as np

from .validation import as_correct, as_probabilities, check_choice, positive_int

__all__ = [
    "SCHEMES", "ReliabilityBins", "reliability_bins", "ece", "mce", "max_gap",
    "sort_by_confidence", "adaptive_bins_sorted", "equal_width_bins", "equal_width_ids", "equal_width_sums",
    "equal_mass_bounds", "bin_sums", "adaptive_sums", "finish_bins", "stable_order", "sorted_with_order",
    "adaptive_ece_resampled",
]

SCHEMES = ("equal-width", "adaptive")


class ReliabilityBins(NamedTuple):
    """Per-bin statistics, each an array of shape (..., B_used).

    ``lower``/``upper`` are the bin's edges (probabilities), ``count`` the
    number of examples, ``confidence`` their mean confidence and ``accuracy``
    their fraction correct (both NaN for an empty bin), and ``weighted_gap`` the
    bin's share of the ECE, ``count / n * |accuracy - confidence|`` (0 when
    empty). ``B_used`` is ``B`` for equal-width bins and ``min(B, n)`` for
    adaptive ones.
    """

    lower: np.ndarray
    upper: np.ndarray
    count: np.ndarray
    confidence: np.ndarray
    accuracy: np.ndarray
    weighted_gap: np.ndarray


def _validate(confidence, correct, n_bins, scheme):
    conf = as_probabilities(confidence)
    hits = np.broadcast_to(as_correct(correct, conf.shape), conf.shape)
    n_bins = positive_int(n_bins, "n_bins")
    check_choice(scheme, SCHEMES, "scheme")
    return conf, hits, n_bins


def _finish(lower, upper, count, conf_sum, hit_sum, n):
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_conf = np.where(count > 0, conf_sum / count, np.nan)
        accuracy = np.where(count > 0, hit_sum / count, np.nan)
    gap = np.where(count > 0, count / n * np.abs(np.nan_to_num(accuracy) - np.nan_to_num(mean_conf)), 0.0)
    return ReliabilityBins(lower, upper, count.astype(np.int64), mean_conf, accuracy, gap)


def equal_width_ids(confidence, n_bins):
    """Equal-width bin of each confidence: int array of the input's shape, values in [0, n_bins).

    Exactly ``clip(searchsorted(linspace(0, 1, B + 1), c, side="right") - 1, 0, B - 1)``
    (a confidence on an edge goes to the bin that starts there, 1 to the last
    bin), computed without a search: ``floor(c · B)`` is off by at most one
    bin near an edge (rounding of c · B and of the edges), so it is corrected
    once against the bin's own lower and upper edge (looked up in a table). ``confidence`` must hold
    probabilities (not checked here).

    >>> equal_width_ids(np.array([0.0, 0.2, 0.5, 0.99, 1.0]), 5).tolist()
    [0, 1, 2, 4, 4]
    """
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    # index b in 0..B: the bin's lower and upper edge; b = B (c · B rounded to B) steps down to the last bin
    lower = np.append(edges[:-1], np.inf)
    upper = np.append(edges[1:-1], [np.inf, np.inf])
    ids = np.multiply(confidence, n_bins).astype(np.intp)
    step_up = confidence >= upper.take(ids)
    ids -= confidence < lower.take(ids)
    ids += step_up
    return ids


def equal_width_sums(confidence, hits, n_bins):
    """``(count, confidence_sum, hit_sum)`` per equal-width bin, each (G, B), for validated input.

    ``confidence`` (G, n) probabilities, ``hits`` (n,) or (G, n) of 0/1 (bool
    or int), ``n_bins`` B. The counts of hits and misses come from one
    ``bincount`` over (row, bin, hit) and the confidence sums from one
    weighted ``bincount`` over (row, bin), adding each bin's confidences in
    row order.
    """
    rows, n = confidence.shape
    size = rows * n_bins
    ids = equal_width_ids(confidence, n_bins)
    ids += (np.arange(rows) * n_bins)[:, None]
    conf_sum = np.bincount(ids.ravel(), weights=confidence.ravel(), minlength=size).reshape(rows, n_bins)
    ids += np.asarray(hits, dtype=np.intp) * size  # hits count in a second copy of the bins
    split = np.bincount(ids.ravel(), minlength=2 * size)
    hit_count = split[size:]
    count = (split[:size] + hit_count).reshape(rows, n_bins)
    return count, conf_sum, hit_count.astype(np.float64).reshape(rows, n_bins)


def equal_width_bins(confidence, correct, n_bins):
    """Equal-width :class:`ReliabilityBins` (edges ``linspace(0, 1, B + 1)``); see :func:`reliability_bins`."""
    conf, hits, n_bins = _validate(confidence, correct, n_bins, "equal-width")
    rows = conf.reshape(-1, conf.shape[-1])
    count, conf_sum, hit_sum = equal_width_sums(rows, hits.reshape(-1, conf.shape[-1]) if hits.ndim == 2
                                                else hits, n_bins)
    shape = conf.shape[:-1] + (n_bins,)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    lower = np.broadcast_to(edges[:-1], shape).copy()
    upper = np.broadcast_to(edges[1:], shape).copy()
    return _finish(lower, upper, count.reshape(shape), conf_sum.reshape(shape), hit_sum.reshape(shape),
                   conf.shape[-1])


def sort_by_confidence(confidence, correct):
    """``(sorted_confidence, sorted_correct)``: each row ordered by ascending confidence (stable sort).

    Sorting is the costly step of adaptive binning; sort once and pass the
    result to :func:`adaptive_bins_sorted` for several bin counts.
    """
    conf, hits, _ = _validate(confidence, correct, 1, "adaptive")
    order = np.argsort(conf, axis=-1, kind="stable")
    return np.take_along_axis(conf, order, axis=-1), np.take_along_axis(hits, order, axis=-1)


def stable_order(values, hint=None):
    """The order of a stable ascending argsort of the 1-D array ``values`` (ties by index), computed faster.

    Exactly ``numpy.argsort(values, kind="stable")``: an unstable (SIMD)
    argsort, or, when ``hint`` is a permutation that nearly sorts ``values``
    (the order at a neighbouring temperature), a stable sort of the hinted
    order, which has long sorted runs; then ties are put in index order by
    sorting the integers ``run · n + index``, where ``run`` numbers the
    distinct values. Every position of the result is therefore determined by
    ``values`` alone, whatever the hint.

    >>> stable_order(np.array([0.5, 0.2, 0.5, 0.2])).tolist()
    [1, 3, 0, 2]
    """
    return sorted_with_order(values, hint)[0]


def sorted_with_order(values, hint=None):
    """``(order, sorted_values)``: :func:`stable_order` of the 1-D array ``values`` and ``values[order]``, which
    the sort has at hand (a gather from the hinted order, almost sequential, instead of a random one)."""
    n = values.shape[0]
    if hint is None:
        order = np.argsort(values)
        ordered = values[order]
    else:
        hinted = values[hint]
        moves = np.argsort(hinted, kind="stable")
        order, ordered = hint[moves], hinted[moves]
    run = np.zeros(n, dtype=np.int64)
    if n > 1:
        np.cumsum(ordered[1:] != ordered[:-1], out=run[1:])
        if run[-1] == n - 1:  # no ties
            return order, ordered
    run *= n
    run += order
    run.sort()
    # ties only swap equal values: the sorted values stay as they are
    return (run % n if n else order), ordered


def equal_mass_bounds(n, n_bins):
    """Boundaries of the adaptive scheme's groups: int64 array (min(n_bins, n) + 1,), from 0 to n.

    ``n`` sorted items are cut into ``min(n_bins, n)`` consecutive groups whose
    sizes differ by at most one, larger groups first (as ``numpy.array_split``
    cuts); group b holds sorted positions ``[bounds[b], bounds[b + 1])``. Every
    equal-mass binning in the engine takes its group sizes from here.

    >>> equal_mass_bounds(5, 3).tolist()
    [0, 2, 4, 5]
    """
    n = positive_int(n, "n")
    n_bins = positive_int(n_bins, "n_bins")
    groups = min(n_bins, n)
    small, extra = divmod(n, groups)
    sizes = np.full(groups, small) + (np.arange(groups) < extra)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def adaptive_bins_sorted(sorted_confidence, sorted_correct, n_bins):
    """Equal-mass :class:`ReliabilityBins` from rows already sorted by :func:`sort_by_confidence`.

    ``sorted_confidence`` and ``sorted_correct`` are (n,) or (G, n) with n ≥ 1;
    the result's arrays are (..., min(n_bins, n)). Raises ``ValueError`` naming
    ``n_bins`` unless it is a positive integer, or ``sorted_confidence`` unless
    it holds probabilities.
    """
    n_bins = positive_int(n_bins, "n_bins")
    sorted_conf = as_probabilities(sorted_confidence, "sorted_confidence")
    sorted_hits = np.asarray(sorted_correct, dtype=np.float64)
    return _finish(*adaptive_sums(sorted_conf, sorted_hits, n_bins), sorted_conf.shape[-1])


def adaptive_sums(sorted_conf, sorted_hits, n_bins):
    """``(lower, upper, count, confidence_sum, hit_sum)`` of the equal-mass groups of sorted rows (…, n).

    ``sorted_conf`` and ``sorted_hits`` (float 0/1) are already ordered by
    :func:`sort_by_confidence` (or the same stable sort); nothing is checked.
    """
    n = sorted_conf.shape[-1]
    bounds = equal_mass_bounds(n, n_bins)
    starts, sizes = bounds[:-1], np.diff(bounds)
    conf_sum = np.add.reduceat(sorted_conf, starts, axis=-1)
    hit_sum = np.add.reduceat(sorted_hits, starts, axis=-1)
    count = np.broadcast_to(sizes, conf_sum.shape).astype(np.float64)
    return sorted_conf[..., starts], sorted_conf[..., starts + sizes - 1], count, conf_sum, hit_sum


def bin_sums(confidence, hits, n_bins, scheme):
    """``(lower, upper, count, confidence_sum, hit_sum)`` per bin for validated rows, each (G, B_used).

    ``confidence`` (G, n) probabilities, ``hits`` (n,) of 0/1 (bool or int),
    ``n_bins`` a positive int, ``scheme`` one of :data:`SCHEMES`; no argument
    is checked. :func:`finish_bins` turns these sums into
    :class:`ReliabilityBins`; the two steps are split so that a long grid can
    be binned a block of temperatures at a time and finished once.
    """
    if scheme == "equal-width":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
        count, conf_sum, hit_sum = equal_width_sums(confidence, hits, n_bins)
        shape = count.shape
        return (np.broadcast_to(edges[:-1], shape).copy(), np.broadcast_to(edges[1:], shape).copy(),
                count, conf_sum, hit_sum)
    order = np.argsort(confidence, axis=-1, kind="stable")
    sorted_hits = np.asarray(hits, dtype=np.float64)[order]
    return adaptive_sums(np.take_along_axis(confidence, order, axis=-1), sorted_hits, n_bins)


def finish_bins(lower, upper, count, conf_sum, hit_sum, n):
    """:class:`ReliabilityBins` from the per-bin sums of :func:`bin_sums` over ``n`` examples per row."""
    return _finish(lower, upper, count, conf_sum, hit_sum, n)


def reliability_bins(confidence, correct, n_bins, scheme="equal-width"):
    """Bin top-label predictions by confidence and summarise each bin.

    Parameters
    ----------
    confidence : array (n,) or (G, n)
        Top-label confidences in [0, 1]; a 2-D array bins each row separately.
    correct : array (n,) or (G, n) of bool
        Whether each prediction is right.
    n_bins : int
        Number of bins B requested.
    scheme : {"equal-width", "adaptive"}

    Returns
    -------
    ReliabilityBins
        Arrays of shape (..., B) for equal-width, (..., min(B, n)) for adaptive.

    Examples
    --------
    >>> bins = reliability_bins([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1], 2)
    >>> bins.count.tolist(), bins.accuracy.tolist()
    ([1, 3], [0.0, 0.6666666666666666])
    """
    conf, hits, n_bins = _validate(confidence, correct, n_bins, scheme)
    if scheme == "equal-width":
        return equal_width_bins(conf, hits, n_bins)
    return adaptive_bins_sorted(*sort_by_confidence(conf, hits), n_bins)


def ece(confidence, correct, n_bins, scheme="equal-width"):
    """Expected calibration error: sum over bins of (count / n) · |accuracy − mean confidence|.

    A probability in [0, 1]; a float for 1-D input, an array (G,) for (G, n).
    """
    values = reliability_bins(confidence, correct, n_bins, scheme).weighted_gap.sum(axis=-1)
    return float(values) if np.ndim(values) == 0 else values


def adaptive_ece_resampled(confidence, correct, counts, n_bins, order=None):
    """Adaptive-bin ECE of resamples of one set of rows: array (R,), a probability per resample.

    ``confidence`` (n,) and ``correct`` (n,) are the rows; ``counts`` (R, n) how often resample r draws each
    row (every resample drawing the same number of rows). Equal, to rounding, to :func:`ece` with
    ``"adaptive"`` bins of each resample's rows taken in ascending row order: the stable sort of such a
    resample is the stable sort of all rows with each row repeated as often as it is drawn, so the equal-mass
    groups are cut from cumulative counts along one sort of the rows, and no resample is sorted. ``order``
    is that sort, ``argsort(confidence, kind="stable")``, when the caller has it (blocks of resamples of the
    same rows sort them once).
    """
    conf = np.asarray(confidence, dtype=np.float64)
    order = np.argsort(conf, kind="stable") if order is None else order
    c = conf[order]
    h = np.asarray(correct, dtype=np.float64)[order]
    w = np.asarray(counts)[:, order]  # counts stay integers: every sum of them below is exact
    if w.dtype.kind not in "iub":
        w = w.astype(np.int64)
    r, n = w.shape
    m = int(w[0].sum(dtype=np.int64))
    wide = np.int32 if m < 2 ** 31 else np.int64
    bounds = equal_mass_bounds(m, n_bins)
    drawn = np.cumsum(w, axis=1, dtype=wide)  # (R, n): copies up to and including each sorted row
    prefix = {"conf": np.cumsum(w * c, axis=1), "hits": np.cumsum(w * (h != 0), axis=1, dtype=wide)}
    # sorted rows wholly before each cut, per resample (R, B + 1)
    full = np.stack([np.searchsorted(drawn[i], bounds, side="right") for i in range(r)]).reshape(r, -1)
    rows = np.arange(r)[:, None]
    before = np.where(full > 0, drawn[rows, np.maximum(full - 1, 0)], 0)
    partial = (bounds[None, :] - before).astype(np.float64)  # copies of the next row still before the cut
    nxt = np.minimum(full, n - 1)
    sums = {}
    for name, values in (("conf", c), ("hits", h)):
        upto = np.where(full > 0, prefix[name][rows, np.maximum(full - 1, 0)], 0).astype(np.float64)
        sums[name] = np.diff(upto + partial * values[nxt], axis=1)
    return np.abs(sums["hits"] - sums["conf"]).sum(axis=1) / m


def max_gap(bins):
    """The largest |accuracy − mean confidence| over the non-empty bins of ``bins``, along the last axis.

    ``bins`` is a :class:`ReliabilityBins` of arrays (..., B); returns a
    probability in [0, 1] of shape (...) (0 if every bin is empty). This is the
    reduction behind :func:`mce`, for bins that are already computed.
    """
    gaps = np.where(bins.count > 0, np.abs(bins.accuracy - bins.confidence), 0.0)
    return np.nan_to_num(gaps).max(axis=-1)


def mce(confidence, correct, n_bins, scheme="equal-width"):
    """Maximum calibration error: the largest |accuracy − mean confidence| over non-empty bins.

    A probability in [0, 1]; a float for 1-D input, an array (G,) for (G, n).
    """
    values = max_gap(reliability_bins(confidence, correct, n_bins, scheme))
    return float(values) if np.ndim(values) == 0 else values
