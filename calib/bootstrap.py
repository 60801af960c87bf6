"""The bootstrap spread of ECE and NLL: how much they move when the sample is redrawn from itself.

:func:`bootstrap_spread` resamples the examples with replacement and
recomputes the binned ECE (both schemes, several bin counts) and the mean NLL
at every temperature. The 5–95% range over resamples is a *spread*, not a
confidence interval. A resample is a row of counts (:func:`resample_counts`)
used as weights over the order sorted once per temperature, so each bin's
residual sum is a difference of weighted prefix sums (:func:`count_prefix` and
:mod:`calib.runs`), never an explicit copy of the data.

Randomness comes only from the ``rng`` argument (a ``numpy.random.Generator``
or an integer seed), and only through ``Generator.random``.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binning import SCHEMES, equal_mass_bounds
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .runs import bin_layout, ece_from_prefix, sort_rows
from .validation import (
    as_bin_counts, as_correct, as_generator, as_probability_rows, as_quantile_levels, positive_int,
)

__all__ = ["DEFAULT_RESAMPLES", "resample_counts", "count_prefix", "BootstrapSpread", "bootstrap_spread"]

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


class BootstrapSpread(NamedTuple):
    """Quantiles over bootstrap resamples, at each of G temperatures.

    ``quantiles`` are the probabilities (e.g. 0.05, 0.95); ``ece[scheme][B]``
    is (G, Q) in probability units; ``nll`` is (G, Q) in nats. ``n_resamples``
    is how many resamples the quantiles summarise.
    """

    quantiles: Tuple[float, ...]
    n_resamples: int
    ece: Dict[str, Dict[int, np.ndarray]]
    nll: np.ndarray


def bootstrap_spread(confidence, correct, example_nll, bin_counts,
                     n_resamples=DEFAULT_RESAMPLES, rng=0, quantiles=SPREAD_QUANTILES):
    """Spread of ECE (both schemes, each bin count) and of mean NLL over bootstrap resamples.

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
    quantiles : increasing probabilities

    Returns
    -------
    BootstrapSpread

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
    by at most 2⁻⁴¹.
    """
    conf = as_probability_rows(confidence)
    hits = as_correct(correct, conf.shape[1:])
    losses = np.asarray(example_nll, dtype=np.float64)
    if losses.size != conf.size or not np.all(np.isfinite(losses)):
        raise ValueError(f"example_nll must be finite with the shape of confidence {conf.shape}")
    losses = losses.reshape(conf.shape)
    counts = as_bin_counts(bin_counts)
    q = as_quantile_levels(quantiles)
    temps, n = conf.shape
    weights = resample_counts(n, n_resamples, rng)
    resamples = weights.shape[0]
    nll_draws = weights.astype(np.float64) @ losses.T / n  # (R, G)
    compact = weights.astype(np.int8 if weights.max() < 128 else np.int32)
    # |running sum| ≤ R · n · 2^bits over all rows end to end: keep it inside int64
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
    value_prefix = np.zeros(resamples * n + 1, dtype=np.int64)
    row_start = np.arange(resamples)[:, None] * n
    ece = {scheme: {b: np.empty((temps, len(q))) for b in counts} for scheme in SCHEMES}
    for g in range(temps):
        o = order[g]
        residual = np.rint((hits[o] - sorted_conf[g]) * scale).astype(np.int64)
        w = compact[:, o]
        weight_prefix = count_prefix(w)
        np.cumsum((w * residual).ravel(), out=value_prefix[1:])
        # equal-width bins: fixed runs of the sorted order
        at_edges = value_prefix[row_start + layout.ends[g][None, :]] - value_prefix[row_start + layout.starts[g][None, :]]
        width_draws = np.add.reduceat(np.abs(at_edges), layout.first, axis=1) / n
        # adaptive bins: equal-mass groups of each resampled multiset
        at = _flat_prefix_at(weight_prefix, value_prefix, residual, union, n)
        mass_draws = ece_from_prefix(at, adaptive_starts, adaptive_ends, adaptive_first, n)
        stats = sorted_quantiles((np.concatenate([width_draws, mass_draws], axis=1) / scale).T, q)
        for k, b in enumerate(counts):
            ece["equal-width"][b][g] = stats[:, k]
            ece["adaptive"][b][g] = stats[:, len(counts) + k]
    nll_q = sorted_quantiles(nll_draws.T, q).T
    return BootstrapSpread(q, int(resamples), ece, nll_q)
