"""The bootstrap: how much ECE, NLL and Brier move when the sample is redrawn from itself.

:func:`bootstrap_draws`
    Resamples the examples with replacement and recomputes, for every
    resample and every temperature, the binned ECE (both schemes, several bin
    counts), the mean NLL and (optionally) the mean Brier score.
:func:`bootstrap_spread`
    Quantiles of those draws at each temperature. The 5–95% range over
    resamples is a *spread*, not a confidence interval.
:func:`quantile_standard_error`
    The Monte Carlo standard error of a quantile of R draws, by resampling the
    draws themselves (see also :func:`calib.quantiles.quantile_interval`).

The paired bootstrap of a change between two temperatures, over the same
resamples, is :func:`calib.paired.paired_difference`.

A resample is a row of counts (:func:`resample_counts`) used as weights over
the order sorted once per temperature, so each bin's residual sum is a
difference of weighted prefix sums (:func:`count_prefix` and
:mod:`calib.runs`), never an explicit copy of the data.

Randomness comes only from the ``rng`` argument (a ``numpy.random.Generator``
or an integer seed), and only through ``Generator.random``.
"""

from typing import Dict, NamedTuple, Optional, Tuple

import numpy as np

from .binning import SCHEMES, adaptive_bins_sorted, equal_mass_bounds, equal_width_bins, sort_by_confidence
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .runs import bin_layout, ece_from_prefix, sort_rows
from .validation import as_bin_counts, as_correct, as_generator, as_probability_rows, as_quantile_levels, positive_int

__all__ = [
    "DEFAULT_RESAMPLES", "resample_counts", "count_prefix", "ScoreSet", "BootstrapDraws", "bootstrap_draws",
    "BootstrapSpread", "bootstrap_spread", "quantile_standard_error",
]

DEFAULT_RESAMPLES = 200


def resample_counts(n, n_resamples, rng):
    """How often each of n examples is drawn in each of ``n_resamples`` resamples: int array (R, n), rows summing to n.

    Each resample draws n indices uniformly with replacement (``floor(n · u)``
    from uniforms ``u``); the counts are a Multinomial(n, 1/n) draw per row.
    """
    n = positive_int(n, "n")
    resamples = positive_int(n_resamples, "n_resamples")
    gen = as_generator(rng)
    picks = np.minimum((gen.random((resamples, n)) * n).astype(np.int64), n - 1)
    flat = (np.arange(resamples)[:, None] * n + picks).ravel()
    return np.bincount(flat, minlength=resamples * n).reshape(resamples, n)


def count_prefix(counts):
    """Running sums of non-negative integer counts with a leading 0: int array (N + 1,).

    ``counts`` (any shape, N values) is read in C order; ``prefix[j]`` is the
    sum of its first j values. The sums are taken in int32 while the total
    stays below 2³¹, else in int64, so they never wrap.

    >>> count_prefix(np.array([[2, 0], [1, 3]], dtype=np.int8)).tolist()
    [0, 2, 2, 3, 6]
    """
    values = np.asarray(counts)
    if not np.issubdtype(values.dtype, np.integer):
        raise ValueError(f"counts must be non-negative integers; got dtype {values.dtype}")
    if values.size and values.min() < 0:
        raise ValueError(f"counts must be non-negative integers; got {values.min()}")
    total = int(values.sum(dtype=np.int64))
    dtype = np.int32 if total < 2 ** 31 else np.int64
    prefix = np.zeros(values.size + 1, dtype=dtype)
    np.cumsum(values.ravel(), dtype=dtype, out=prefix[1:])  # accumulate in the wide type, not only store in it
    return prefix


def _flat_prefix_at(weight_prefix, value_prefix, values, positions, n):
    """Weighted prefix sums of resampled rows, at positions counted in each row's *expanded* multiset.

    ``weight_prefix``/``value_prefix`` (R·n + 1,) are running sums, with a
    leading 0, of the weights and of weight·value over all rows laid end to
    end (every row's weights sum to n, so row r's running weight lies in
    [r·n, (r + 1)·n]). For each row r and each p in ``positions`` (P,), returns
    the sum of ``values`` over the first p items of the multiset in which item
    j appears ``weight[r, j]`` times: (R, P).
    """
    rows = (weight_prefix.size - 1) // n
    base = (np.arange(rows, dtype=np.int64) * n)[:, None]
    # the item holding expanded position p: how many items end at or before p
    item = np.searchsorted(weight_prefix[1:], base + positions, side="right") - base
    item = np.minimum(item, n)  # p = n may run past the row's zero-weight tail
    before = weight_prefix[base + item] - base  # copies of earlier items
    padded = np.append(values, np.zeros(1, dtype=values.dtype))
    return value_prefix[base + item] - value_prefix[base] + (positions - before) * padded[item]


class ScoreSet(NamedTuple):
    """NLL (nats), Brier score (0–2) and binned ECE (probability units), as arrays of one common shape.

    What the shape means is stated by the tuple that holds the set. ``ece`` is
    keyed ``[scheme][B]``; ``brier`` is None when no per-example Brier scores
    were given.
    """

    nll: np.ndarray
    brier: Optional[np.ndarray]
    ece: Dict[str, Dict[int, np.ndarray]]


class BootstrapDraws(NamedTuple):
    """Every bootstrap resample's scores at each of G temperatures, and the full sample's own scores.

    ``draws`` is a :class:`ScoreSet` of (R, G) arrays: row r is resample r's
    mean NLL, mean Brier score and binned ECE at every temperature. The same R
    resamples serve every temperature and every score, so a difference of two
    columns is a *paired* bootstrap draw of a change. ``observed`` is a
    :class:`ScoreSet` of (G,) arrays: the scores of the sample itself (the ECE
    by :func:`calib.ece`).
    """

    n_resamples: int
    draws: ScoreSet
    observed: ScoreSet


def _as_example_scores(values, shape, name, bounds=None):
    """Per-example scores as float64 (G, n), finite and within ``bounds`` if given.

    Otherwise a ``ValueError`` naming ``name``.
    """
    scores = np.asarray(values, dtype=np.float64)
    if scores.size != int(np.prod(shape)) or not np.all(np.isfinite(scores)):
        raise ValueError(f"{name} must be finite with the shape of confidence {shape}")
    scores = scores.reshape(shape)
    if bounds is not None and (scores.min() < bounds[0] or scores.max() > bounds[1]):
        raise ValueError(f"{name} must lie in [{bounds[0]:g}, {bounds[1]:g}]")
    return scores


RESAMPLE_BLOCK_ELEMENTS = 1 << 21  # resample counts (R × n) held at once: bounds the bootstrap's memory
# (16 MiB as float64: below glibc's 32 MiB mmap threshold, temporaries are reused, not zero-filled afresh)


def _ece_block(compact, order, sorted_conf, hits, residuals, scale, layout, union, adaptive_starts, adaptive_ends,
               adaptive_first, counts, out):
    """Binned ECE of a block of resamples (counts ``compact`` (r, n)) at every temperature, into ``out[scheme][B]``
    (views (r, G)). ``residuals[g]`` are the fixed-point residuals in sorted order (None: computed here)."""
    resamples, n = compact.shape
    value_prefix = np.zeros(resamples * n + 1, dtype=np.int64)
    row_start = np.arange(resamples)[:, None] * n
    # scratch reused at every temperature (fresh (r, n) arrays would be page-faulted in at each one)
    w, weighted = np.empty_like(compact), np.empty(compact.shape, dtype=np.int64)
    for g in range(order.shape[0]):
        o = order[g]
        residual = residuals[g] if residuals is not None else \
            np.rint((hits[o] - sorted_conf[g]) * scale).astype(np.int64)
        np.take(compact, o, axis=1, out=w)
        weight_prefix = count_prefix(w)
        np.cumsum(np.multiply(w, residual, out=weighted).ravel(), out=value_prefix[1:])
        # equal-width bins: fixed runs of the sorted order
        at_edges = (value_prefix[row_start + layout.ends[g][None, :]]
                    - value_prefix[row_start + layout.starts[g][None, :]])
        width_draws = np.add.reduceat(np.abs(at_edges), layout.first, axis=1) / n
        # adaptive bins: equal-mass groups of each resampled multiset
        at = _flat_prefix_at(weight_prefix, value_prefix, residual, union, n)
        mass_draws = ece_from_prefix(at, adaptive_starts, adaptive_ends, adaptive_first, n)
        values = np.concatenate([width_draws, mass_draws], axis=1) / scale  # (r, 2 · len(counts))
        for k, b in enumerate(counts):
            out["equal-width"][b][:, g] = values[:, k]
            out["adaptive"][b][:, g] = values[:, len(counts) + k]


def _observed_ece(conf, hits, counts):
    """``{scheme: {B: (G,)}}``: :func:`calib.ece` of every row of ``conf`` (G, n), the same numbers, computed a
    block of rows at a time (bounded memory) with one stable sort per block for every adaptive bin count."""
    temps, n = conf.shape
    out = {scheme: {b: np.empty(temps) for b in counts} for scheme in SCHEMES}
    step = max(1, RESAMPLE_BLOCK_ELEMENTS // n)
    for g0 in range(0, temps, step):
        rows = conf[g0:g0 + step]
        for b in counts:
            out["equal-width"][b][g0:g0 + step] = equal_width_bins(rows, hits, b).weighted_gap.sum(axis=-1)
        ordered = sort_by_confidence(rows, hits)
        for b in counts:
            out["adaptive"][b][g0:g0 + step] = adaptive_bins_sorted(*ordered, b).weighted_gap.sum(axis=-1)
    return out


def bootstrap_draws(confidence, correct, example_nll, bin_counts, n_resamples=DEFAULT_RESAMPLES, rng=0,
                    example_brier=None):
    """Mean NLL, mean Brier and binned ECE of every bootstrap resample, at every temperature.

    Parameters
    ----------
    confidence : array (G, n) or (n,)
        Top-label confidence of each example at each of G temperatures.
    correct : array (n,) of bool
        Whether each prediction is right (it does not depend on T).
    example_nll : array (G, n) or (n,)
        Each example's negative log-likelihood (nats) at each temperature.
    bin_counts : sequence of int
        The bin counts B to report, for both schemes.
    n_resamples : int
        Resamples R (the same R resamples serve every temperature).
    rng : numpy.random.Generator or int
    example_brier : array (G, n) or (n,), optional
        Each example's multiclass Brier score (squared error to the one-hot
        label, summed over classes: 0–2) at each temperature.

    Returns
    -------
    BootstrapDraws
        ``draws.nll``, ``draws.brier`` and ``draws.ece[scheme][B]`` are (R, G);
        ``observed`` holds the full sample's scores, (G,) each.

    Notes
    -----
    A resample is a multiset of the n examples, represented by counts
    (:func:`resample_counts`) used as weights over the order sorted once per
    temperature. Equal-width bins are fixed runs of that order, so a bin's
    residual sum is a difference of two weighted prefix sums. Adaptive bins
    split the resampled multiset itself into ``min(B, n)`` equal-mass groups
    (larger first), so a boundary can fall between copies of one example; the
    prefix sum is then taken part-way through that example's copies. Prefix
    sums run on int64, over all resamples laid end to end, with each residual
    ``correct − confidence`` rounded to a multiple of 2⁻⁴⁰ (coarser only when
    R · n ≥ 2²²), which keeps them exact and fast; the rounding moves an ECE
    by at most 2⁻⁴¹. Mean NLL and Brier are one matrix product each,
    ``counts @ scores.T / n``.
    """
    conf = as_probability_rows(confidence)
    hits = as_correct(correct, conf.shape[1:])
    losses = _as_example_scores(example_nll, conf.shape, "example_nll")
    squares = None
    if example_brier is not None:
        squares = _as_example_scores(example_brier, conf.shape, "example_brier", (0.0, 2.0))
    counts = as_bin_counts(bin_counts)
    temps, n = conf.shape
    resamples = positive_int(n_resamples, "n_resamples")
    gen = as_generator(rng)
    # |running sum| ≤ R · n · 2^bits over all rows end to end: keep it inside int64 (set by the whole R, so a
    # resample's figures do not depend on the block it falls in)
    bits = int(min(40, 62 - np.ceil(np.log2(resamples * n + 1))))
    scale = 2.0 ** bits
    order, sorted_conf = sort_rows(conf)
    layout = bin_layout(sorted_conf, counts, ("equal-width",))
    adaptive_pos = [equal_mass_bounds(n, b) for b in counts]
    union = np.unique(np.concatenate(adaptive_pos))
    columns = [np.searchsorted(union, pos) for pos in adaptive_pos]
    adaptive_first = np.concatenate([[0], np.cumsum([c.size - 1 for c in columns])[:-1]])
    adaptive_starts = np.concatenate([c[:-1] for c in columns])
    adaptive_ends = np.concatenate([c[1:] for c in columns])
    residuals = [np.rint((hits[order[g]] - sorted_conf[g]) * scale).astype(np.int64) for g in range(temps)] \
        if temps * n <= RESAMPLE_BLOCK_ELEMENTS else None  # else recomputed per block, in bounded memory
    nll_draws = np.empty((resamples, temps))
    brier_draws = None if squares is None else np.empty((resamples, temps))
    ece_draws = {scheme: {b: np.empty((resamples, temps)) for b in counts} for scheme in SCHEMES}
    block = max(1, RESAMPLE_BLOCK_ELEMENTS // n)
    for r0 in range(0, resamples, block):
        # consecutive rows of uniforms: the same counts as one call for all R resamples
        weights = resample_counts(n, min(block, resamples - r0), gen)
        rows = slice(r0, r0 + weights.shape[0])
        float_weights = weights.astype(np.float64)
        nll_draws[rows] = float_weights @ losses.T / n  # (r, G)
        if squares is not None:
            brier_draws[rows] = float_weights @ squares.T / n
        del float_weights
        compact = weights.astype(np.int8 if weights.max() < 128 else np.int32)
        del weights
        _ece_block(compact, order, sorted_conf, hits, residuals, scale, layout, union, adaptive_starts,
                   adaptive_ends, adaptive_first, counts, {s: {b: v[rows] for b, v in d.items()}
                                                           for s, d in ece_draws.items()})
    observed = ScoreSet(
        losses.mean(axis=1),
        None if squares is None else squares.mean(axis=1),
        _observed_ece(conf, hits, counts),
    )
    return BootstrapDraws(int(resamples), ScoreSet(nll_draws, brier_draws, ece_draws), observed)


class BootstrapSpread(NamedTuple):
    """Quantiles over bootstrap resamples, at each of G temperatures.

    ``quantiles`` are the probabilities (e.g. 0.05, 0.95); ``ece[scheme][B]``
    is (G, Q) in probability units; ``nll`` is (G, Q) in nats; ``brier`` is
    (G, Q) (Brier units, 0–2), or None when no per-example Brier scores were
    given. ``n_resamples`` is how many resamples the quantiles summarise.
    """

    quantiles: Tuple[float, ...]
    n_resamples: int
    ece: Dict[str, Dict[int, np.ndarray]]
    nll: np.ndarray
    brier: Optional[np.ndarray] = None


def bootstrap_spread(confidence, correct, example_nll, bin_counts,
                     n_resamples=DEFAULT_RESAMPLES, rng=0, quantiles=SPREAD_QUANTILES, example_brier=None):
    """Spread of ECE (both schemes, each bin count), of mean NLL and of mean Brier over bootstrap resamples.

    Parameters
    ----------
    confidence, correct, example_nll, bin_counts, n_resamples, rng, example_brier
        As for :func:`bootstrap_draws`, which draws the resamples.
    quantiles : increasing probabilities

    Returns
    -------
    BootstrapSpread
        Per temperature, ``quantiles`` of the draws of :func:`bootstrap_draws`
        (numpy's default "linear" rule, :func:`calib.sorted_quantiles`).
    """
    q = as_quantile_levels(quantiles)
    sample = bootstrap_draws(confidence, correct, example_nll, bin_counts, n_resamples, rng, example_brier)
    draws = sample.draws

    def spread(values):  # (R, G) → (G, Q)
        return sorted_quantiles(values.T, q).T

    ece_q = {scheme: {b: spread(v) for b, v in by_bins.items()} for scheme, by_bins in draws.ece.items()}
    brier_q = None if draws.brier is None else spread(draws.brier)
    return BootstrapSpread(q, sample.n_resamples, ece_q, spread(draws.nll), brier_q)


def quantile_standard_error(values, quantiles=SPREAD_QUANTILES, n_resamples=1000, rng=0):
    """Monte Carlo standard error of sample quantiles of R draws, by resampling the draws: array (Q, ...).

    Parameters
    ----------
    values : array (..., R)
        R ≥ 2 independent draws along the last axis (e.g. R bootstrap ECEs).
    quantiles : increasing probabilities
        Levels q; each sample quantile is numpy's default ("linear") one.
    n_resamples : int
        How many times the R draws are resampled with replacement (M).
    rng : numpy.random.Generator or int

    Returns
    -------
    array (Q, ...)
        For each level and each row, the standard deviation (ddof = 1) over M
        resamples of the row's q-quantile, in the units of ``values``: how far
        the reported quantile of R draws typically sits from the quantile of
        infinitely many (:func:`calib.quantiles.quantile_interval` gives a
        distribution-free interval instead).

    Notes
    -----
    The draws are exchangeable, so resampling *sorted positions* is the same
    as resampling the draws; one set of M count rows (:func:`resample_counts`)
    then serves every row of ``values``, and the linear-rule quantile of a
    resampled multiset is read off its cumulative counts without a copy.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.ndim < 1 or data.shape[-1] < 2 or not np.all(np.isfinite(data)):
        raise ValueError(f"values must be finite with at least 2 draws along the last axis; got {np.shape(values)}")
    q = as_quantile_levels(quantiles)
    ordered = np.sort(data, axis=-1)
    draws = ordered.shape[-1]
    ends = np.cumsum(resample_counts(draws, n_resamples, rng), axis=1)  # (M, R): copies at or before each position
    out = []
    for level in q:
        position = level * (draws - 1)
        low = int(np.floor(position))
        high = min(low + 1, draws - 1)
        # the sorted position holding expanded item p (0-based): how many positions end at or before p
        low_item = np.sum(ends <= low, axis=1)
        high_item = np.sum(ends <= high, axis=1)
        estimate = ordered[..., low_item] + (ordered[..., high_item] - ordered[..., low_item]) * (position - low)
        out.append(estimate.std(axis=-1, ddof=1))
    return np.stack(out)
