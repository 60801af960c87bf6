"""What one sample can and cannot tell: bootstrap spread, noise floor, bin sensitivity.

A binned ECE is computed from one finite sample, so it moves when the sample
moves, and it is not zero even for a perfectly calibrated model. This module
measures both effects, at any set of temperatures, in vectorised passes:

:func:`bootstrap_spread`
    Resample the examples with replacement and recompute ECE and NLL. The 5–95%
    range over resamples is a *spread*: how much the number moves when the
    sample is redrawn from itself. It is not a confidence interval.
:func:`noise_floor`
    Keep the confidences, redraw every outcome as ``correct ~ Bernoulli(confidence)``
    (what a perfectly calibrated model would produce) and recompute. This gives
    per-bin bands for the accuracy and the distribution of the ECE such a model
    would score.
:func:`ece_sweep`
    The ECE for every bin count 1..``max_bins``, both schemes.

All three rest on one observation: both binning schemes cut the examples,
sorted by confidence, into *contiguous runs*, so the sum of any per-example
quantity over a bin is a difference of two prefix sums, and one sort per
temperature serves every bin of every bin count. The bootstrap takes weighted
prefix sums (one per resample); the noise floor cuts the sorted examples at
every bin boundary and draws each run's number of successes from its exact
distribution, so its cost grows with the number of runs, not of examples. The
binning rules are exactly those of :mod:`calib.binning` (edges
``linspace(0, 1, B + 1)`` with a closed last bin; ``array_split``-style
equal-mass groups over a stable sort).

Randomness comes only from the ``rng`` argument (a ``numpy.random.Generator``
or an integer seed), and only through ``Generator.random``; integers are
derived from those uniforms, so results depend on the seed alone.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binning import SCHEMES, as_probability_rows

__all__ = [
    "SPREAD_QUANTILES", "FLOOR_QUANTILES", "DEFAULT_RESAMPLES", "DEFAULT_DRAWS", "SWEEP_MAX_BINS",
    "as_generator", "sorted_quantiles", "count_quantiles", "subgrid_indices", "sort_rows", "bin_positions",
    "BinLayout", "bin_layout", "ece_from_prefix", "ece_sweep",
    "resample_counts", "count_prefix", "BootstrapSpread", "bootstrap_spread",
    "NoiseFloor", "noise_floor",
]

SPREAD_QUANTILES = (0.05, 0.95)
FLOOR_QUANTILES = (0.05, 0.5, 0.95)
DEFAULT_RESAMPLES = 200
DEFAULT_DRAWS = 2000
SWEEP_MAX_BINS = 50
DEFAULT_BIN_COUNTS = (4, 5, 10, 15, 20)


# ----------------------------------------------------------------------------- validation

def as_generator(rng):
    """``rng`` as a ``numpy.random.Generator``: a Generator is returned as is, an int seeds a new PCG64 one."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise ValueError(f"rng must be a numpy.random.Generator or a non-negative int seed; got {rng!r}")


def _correct_vector(correct, n):
    hits = np.asarray(correct)
    if hits.shape != (n,):
        raise ValueError(f"correct must have shape ({n},), one outcome per example; got {hits.shape}")
    if not np.all((hits == 0) | (hits == 1)):
        raise ValueError("correct must hold booleans (or 0/1)")
    return hits.astype(np.float64)


def _bin_counts(bin_counts, name="bin_counts"):
    counts = tuple(int(b) for b in bin_counts)
    if not counts or any(b < 1 for b in counts) or any(isinstance(b, bool) for b in bin_counts):
        raise ValueError(f"{name} must be a non-empty sequence of positive integers; got {bin_counts!r}")
    return counts


def _quantiles(quantiles, name="quantiles"):
    q = tuple(float(x) for x in quantiles)
    if not q or any(not 0 <= x <= 1 for x in q) or list(q) != sorted(q):
        raise ValueError(f"{name} must be increasing probabilities in [0, 1]; got {quantiles!r}")
    return q


def _positive_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer ≥ {minimum}; got {value!r}")
    return int(value)


def sorted_quantiles(values, quantiles):
    """Quantiles along the last axis, by numpy's default ("linear") rule: array (len(quantiles), ...).

    Sorts once for all quantiles, which is several times faster than
    ``numpy.quantile`` on the many short rows used here.

    >>> sorted_quantiles(np.array([[3.0, 1.0, 2.0, 4.0]]), (0.0, 0.5, 0.95)).round(2).tolist()
    [[1.0], [2.5], [3.85]]
    """
    ordered = np.sort(np.asarray(values), axis=-1).astype(np.float64)
    last = ordered.shape[-1] - 1
    out = []
    for q in quantiles:
        position = q * last
        low = int(np.floor(position))
        high = min(low + 1, last)
        frac = position - low
        out.append(ordered[..., low] + (ordered[..., high] - ordered[..., low]) * frac)
    return np.stack(out)


def count_quantiles(values, upper, quantiles):
    """:func:`sorted_quantiles` of rows of small non-negative integers, by counting instead of sorting.

    ``values`` (rows, S) with row r in [0, upper[r]]; returns (len(quantiles), rows).

    >>> count_quantiles(np.array([[3, 1, 2, 4]]), np.array([4]), (0.0, 0.5, 0.95)).round(2).tolist()
    [[1.0], [2.5], [3.85]]
    """
    values = np.asarray(values, dtype=np.int64)
    rows, draws = values.shape
    width = np.asarray(upper, dtype=np.int64) + 1
    start = np.concatenate([[0], np.cumsum(width)[:-1]])
    cumulative = np.cumsum(np.bincount((values + start[:, None]).ravel(), minlength=int(width.sum())))
    before = np.concatenate([[0], cumulative])[start]  # draws in earlier rows

    def order_statistic(k):  # the k-th smallest value of every row (0-based)
        return np.searchsorted(cumulative, before + k, side="right") - start

    out = []
    for q in quantiles:
        position = q * (draws - 1)
        low = int(np.floor(position))
        low_value = order_statistic(low)
        high_value = order_statistic(min(low + 1, draws - 1))
        out.append(low_value + (high_value - low_value) * (position - low))
    return np.stack(out).astype(np.float64)


# ----------------------------------------------------------------------------- layout

def subgrid_indices(grid_size, keep=(), step=10):
    """Indices of a coarse sub-grid: every ``step``-th point of a grid of ``grid_size`` points,
    the last point, and every index in ``keep`` (e.g. T = 1 and the fitted T), sorted and unique.

    >>> subgrid_indices(25, keep=[7], step=10).tolist()
    [0, 7, 10, 20, 24]
    """
    size = _positive_int(grid_size, "grid_size")
    step = _positive_int(step, "step")
    keep = np.asarray(keep, dtype=np.int64).ravel()
    if keep.size and (keep.min() < 0 or keep.max() >= size):
        raise ValueError(f"keep must hold indices in [0, {size}); got {keep.tolist()}")
    return np.unique(np.concatenate([np.arange(0, size, step), [size - 1], keep])).astype(np.int64)


def sort_rows(confidence):
    """``(order, sorted_confidence)``: each row's stable ascending order (G, n) and the sorted rows (G, n)."""
    conf = as_probability_rows(confidence)
    order = np.argsort(conf, axis=1, kind="stable")
    return order, np.take_along_axis(conf, order, axis=1)


def _adaptive_positions(n, n_bins):
    """Boundaries of ``min(n_bins, n)`` equal-mass groups of n sorted items (larger groups first), shape (B_used + 1,)."""
    groups = min(n_bins, n)
    small, extra = divmod(n, groups)
    sizes = np.full(groups, small) + (np.arange(groups) < extra)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def bin_positions(sorted_confidence, n_bins, scheme):
    """Where each bin starts in the ascending order, plus n at the end: int array (G, B_used + 1).

    Bin b holds sorted positions ``[pos[b], pos[b + 1])``. For equal-width bins
    the start of bin b is the number of confidences below ``b / B`` (so a value on
    an edge belongs to the bin starting there, and 1.0 to the last bin).

    >>> bin_positions([[0.1, 0.5, 0.5, 0.9]], 2, "equal-width").tolist()
    [[0, 1, 4]]
    """
    conf = as_probability_rows(sorted_confidence, "sorted_confidence")
    n_bins = _positive_int(n_bins, "n_bins")
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {SCHEMES}; got {scheme!r}")
    rows, n = conf.shape
    if scheme == "adaptive":
        return np.broadcast_to(_adaptive_positions(n, n_bins), (rows, min(n_bins, n) + 1)).copy()
    inner = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    starts = np.stack([np.searchsorted(row, inner, side="left") for row in conf]).reshape(rows, -1)
    return np.concatenate([np.zeros((rows, 1), np.int64), starts, np.full((rows, 1), n)], axis=1)


class BinLayout(NamedTuple):
    """Several binnings of the same sorted rows, flattened along one bin axis.

    ``keys[k]`` is the ``(scheme, B)`` of binning k; its bins are columns
    ``first[k] : first[k] + size[k]`` of ``starts``/``ends`` (each (G, total)),
    which hold sorted positions (bin = ``[start, end)``).
    """

    keys: Tuple[Tuple[str, int], ...]
    first: np.ndarray
    size: np.ndarray
    starts: np.ndarray
    ends: np.ndarray


def bin_layout(sorted_confidence, bin_counts, schemes=SCHEMES):
    """A :class:`BinLayout` for every ``(scheme, B)`` in ``schemes × bin_counts``."""
    conf = as_probability_rows(sorted_confidence, "sorted_confidence")
    counts = _bin_counts(bin_counts)
    keys, blocks = [], []
    for scheme in schemes:
        if scheme not in SCHEMES:
            raise ValueError(f"schemes must be drawn from {SCHEMES}; got {scheme!r}")
        if scheme == "equal-width":
            # one searchsorted per row for every edge of every bin count
            inner = [np.linspace(0.0, 1.0, b + 1)[1:-1] for b in counts]
            cuts = np.concatenate(inner) if sum(len(x) for x in inner) else np.zeros(0)
            found = np.stack([np.searchsorted(row, cuts, side="left") for row in conf]).reshape(conf.shape[0], -1)
            split = np.cumsum([len(x) for x in inner])[:-1]
            for b, part in zip(counts, np.split(found, split, axis=1)):
                pos = np.concatenate([np.zeros((conf.shape[0], 1), np.int64), part,
                                      np.full((conf.shape[0], 1), conf.shape[1])], axis=1)
                keys.append((scheme, b))
                blocks.append(pos)
        else:
            for b in counts:
                keys.append((scheme, b))
                positions = _adaptive_positions(conf.shape[1], b)
                blocks.append(np.broadcast_to(positions, (conf.shape[0], positions.size)))
    size = np.array([blk.shape[1] - 1 for blk in blocks], dtype=np.int64)
    first = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
    starts = np.concatenate([blk[:, :-1] for blk in blocks], axis=1).astype(np.int64)
    ends = np.concatenate([blk[:, 1:] for blk in blocks], axis=1).astype(np.int64)
    return BinLayout(tuple(keys), first, size, starts, ends)


def ece_from_prefix(prefix, starts, ends, first, n):
    """Binned ECEs from prefix sums of the residual ``correct − confidence`` in sorted order.

    ``prefix`` is (..., n + 1) with ``prefix[..., j]`` the sum over the first j
    sorted examples; ``starts``/``ends``/``first`` describe the bins (one row of
    a :class:`BinLayout`). Returns (..., len(first)): for each binning,
    ``Σ_bins |Σ_{i in bin} (correct_i − confidence_i)| / n``, which equals
    ``Σ_bins (count / n) · |accuracy − mean confidence|``.
    """
    gaps = np.abs(np.take(prefix, ends, axis=-1) - np.take(prefix, starts, axis=-1))
    return np.add.reduceat(gaps, first, axis=-1) / n


def ece_sweep(confidence, correct, max_bins=SWEEP_MAX_BINS, schemes=SCHEMES):
    """ECE (probability in [0, 1]) for every bin count 1..``max_bins``: ``{scheme: array (G, max_bins)}``.

    ``confidence`` is (n,) or (G, n), one row per temperature; column B − 1 of
    the result is the ECE with B bins, equal to ``calib.binning.ece`` up to
    floating-point rounding.

    With 3 equal-width bins: 0.2 (wrong) gives 1/4 · 0.2, 0.6 (right) gives
    1/4 · 0.4, and {0.7 wrong, 1.0 right} gives 2/4 · |0.5 − 0.85|:

    >>> ece_sweep([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1], 3)["equal-width"].round(4).tolist()
    [[0.125, 0.125, 0.325]]
    """
    conf = as_probability_rows(confidence)
    hits = _correct_vector(correct, conf.shape[1])
    max_bins = _positive_int(max_bins, "max_bins")
    order, sorted_conf = sort_rows(conf)
    residual = hits[order] - sorted_conf
    prefix = np.concatenate([np.zeros((conf.shape[0], 1)), np.cumsum(residual, axis=1)], axis=1)
    layout = bin_layout(sorted_conf, range(1, max_bins + 1), schemes)
    result = {}
    values = np.stack([
        ece_from_prefix(prefix[g], layout.starts[g], layout.ends[g], layout.first, conf.shape[1])
        for g in range(conf.shape[0])
    ])
    for k, (scheme, b) in enumerate(layout.keys):
        result.setdefault(scheme, np.empty((conf.shape[0], max_bins)))[:, b - 1] = values[:, k]
    return result


# ----------------------------------------------------------------------------- bootstrap

def resample_counts(n, n_resamples, rng):
    """How often each of n examples is drawn in each of ``n_resamples`` resamples: int array (R, n), rows summing to n.

    Each resample draws n indices uniformly with replacement (``floor(n · u)``
    from uniforms ``u``); the counts are a Multinomial(n, 1/n) draw per row.
    """
    n = _positive_int(n, "n")
    resamples = _positive_int(n_resamples, "n_resamples")
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
    if not np.issubdtype(values.dtype, np.integer) or (values.size and values.min() < 0):
        raise ValueError(f"counts must be non-negative integers; got dtype {values.dtype}")
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


def bootstrap_spread(confidence, correct, example_nll, bin_counts=DEFAULT_BIN_COUNTS,
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
    hits = _correct_vector(correct, conf.shape[1])
    losses = np.asarray(example_nll, dtype=np.float64)
    if losses.size != conf.size or not np.all(np.isfinite(losses)):
        raise ValueError(f"example_nll must be finite with the shape of confidence {conf.shape}")
    losses = losses.reshape(conf.shape)
    counts = _bin_counts(bin_counts)
    q = _quantiles(quantiles)
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
    adaptive_pos = [_adaptive_positions(n, b) for b in counts]
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


# ----------------------------------------------------------------------------- noise floor

UNIFORM_BITS = 40  # the simulation's uniforms are multiples of 2**-40 in (0, 1]


def segment_cdfs(probs, seg_start, seg_len):
    """Exact CDFs of the number of successes in runs of independent Bernoulli trials (Poisson-binomial).

    Parameters
    ----------
    probs : array (N,)
        Success probabilities, laid end to end.
    seg_start, seg_len : int arrays (P,)
        Run p covers ``probs[seg_start[p] : seg_start[p] + seg_len[p]]`` (length ≥ 1).

    Returns
    -------
    cdf : array (Σ (seg_len + 1),)
        Run p's CDF ``P(successes ≤ h)`` for h = 0..seg_len[p], at ``offset[p] + h``.
    offset : int array (P,)

    The distribution is built by the recursion ``pmf ← pmf · (1 − p) + shift(pmf) · p``
    over the run's trials, vectorised over runs of similar length.

    >>> cdf, offset = segment_cdfs(np.array([0.5, 0.5, 0.2]), np.array([0, 2]), np.array([2, 1]))
    >>> cdf.round(3).tolist(), offset.tolist()
    ([0.25, 0.75, 1.0, 0.8, 1.0], [0, 3])
    """
    probs = np.asarray(probs, dtype=np.float64)
    seg_start = np.asarray(seg_start, dtype=np.int64)
    seg_len = np.asarray(seg_len, dtype=np.int64)
    if seg_len.size and seg_len.min() < 1:
        raise ValueError("seg_len must be ≥ 1 for every run")
    offset = np.concatenate([[0], np.cumsum(seg_len + 1)[:-1]]).astype(np.int64)
    cdf = np.empty(int((seg_len + 1).sum()))
    bucket = np.ceil(np.log2(np.maximum(seg_len, 1))).astype(np.int64)
    for level in np.unique(bucket):
        idx = np.flatnonzero(bucket == level)
        lengths = seg_len[idx]
        width = int(lengths.max())
        steps = np.arange(width)
        take = np.minimum(seg_start[idx, None] + steps, probs.size - 1)
        p = np.where(steps < lengths[:, None], probs[take], 0.0)
        pmf = np.zeros((idx.size, width + 1))
        pmf[:, 0] = 1.0
        for step in range(width):
            chance = p[:, step:step + 1]
            moved = pmf[:, :step + 1] * chance
            pmf[:, :step + 2] *= 1.0 - chance
            pmf[:, 1:step + 2] += moved
        cumulative = np.minimum(np.cumsum(pmf, axis=1), 1.0)
        keep = np.arange(width + 1) <= lengths[:, None]
        cdf[(offset[idx, None] + np.arange(width + 1))[keep]] = cumulative[keep]
    return cdf, offset


class _SortedUniforms(NamedTuple):
    """``columns`` independent columns of ``draws`` uniforms, each sorted, as int64 keys ``(column << 41) + u·2**40``."""

    keys: np.ndarray   # (columns · draws,) ascending
    rank: np.ndarray   # (columns, draws): sorted position of draw s in column c
    draws: int


def _sorted_uniforms(gen, columns, draws):
    """Latin-hypercube uniforms: in each column, draw i's stratum is [r/S, (r+1)/S) for a random rank r.

    Every single draw is uniform on (0, 1] and columns are independent, so each
    simulated outcome set is an exact draw; the strata only make the S draws
    of a column spread evenly, which steadies the estimated quantiles.
    """
    u = (np.arange(draws) + gen.random((columns, draws))) / draws  # sorted along each row
    keys = np.floor(u * 2.0 ** UNIFORM_BITS).astype(np.int64) + 1  # in [1, 2**40]
    rank = np.argsort(gen.random((columns, draws)), axis=1, kind="stable")
    keys += (np.arange(columns, dtype=np.int64) << (UNIFORM_BITS + 1))[:, None]
    return _SortedUniforms(keys.ravel(), rank, draws)


def _null_bin_hits(sorted_conf, layout, n_draws, gen):
    """For each temperature g, yield ``(g, bounds, prefix)`` under ``correct ~ Bernoulli(confidence)``.

    ``bounds`` (P + 1,) are the sorted positions where runs start (and n);
    ``prefix`` (P + 1, S) int32 counts the simulated successes before each of
    them, so a bin [a, b) whose ends are in ``bounds`` has
    ``prefix[index(b)] − prefix[index(a)]`` successes in each draw.

    Each temperature's sorted examples are cut at every bin boundary of every
    binning into runs; a run's success count is drawn exactly from its
    Poisson-binomial CDF by inverse transform, with run k always using uniform
    column k (common random numbers across temperatures; Latin-hypercube
    uniforms, see :func:`_sorted_uniforms`). Runs are disjoint,
    so their counts are independent and their sums reproduce the joint law of
    all bins exactly, at a cost of O(runs × S) instead of O(n × S).
    """
    temps, n = sorted_conf.shape
    per_temp = []
    for g in range(temps):
        bounds = np.unique(np.concatenate([layout.starts[g], layout.ends[g], [0, n]]))
        per_temp.append(bounds)
    seg_g = np.concatenate([np.full(b.size - 1, g) for g, b in enumerate(per_temp)])
    seg_start = np.concatenate([b[:-1] for b in per_temp])
    seg_len = np.concatenate([np.diff(b) for b in per_temp])
    cdf, offset = segment_cdfs(sorted_conf.ravel(), seg_g * n + seg_start, seg_len)
    columns = max(b.size - 1 for b in per_temp)
    uniforms = _sorted_uniforms(gen, columns, n_draws)
    unsort = (uniforms.rank + (np.arange(columns) * n_draws)[:, None]).ravel()  # flat index of each draw's value
    first_seg = np.concatenate([[0], np.cumsum([b.size - 1 for b in per_temp])])
    scale = 2.0 ** UNIFORM_BITS
    draws = n_draws
    for g in range(temps):
        bounds = per_temp[g]
        segs = np.arange(first_seg[g], first_seg[g + 1])
        local = np.arange(segs.size)
        lengths = seg_len[segs]
        # CDF values F(h) for h < length (F(length) = 1 is never below a uniform)
        entry_seg = np.repeat(local, lengths)
        within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        entry_pos = np.repeat(offset[segs], lengths) + within
        query = (entry_seg.astype(np.int64) << (UNIFORM_BITS + 1)) + np.floor(cdf[entry_pos] * scale).astype(np.int64)
        below = np.searchsorted(uniforms.keys, query, side="right") - entry_seg * draws  # draws with u ≤ F(h)
        marks = np.bincount(entry_seg * (draws + 1) + below, minlength=segs.size * (draws + 1))
        sorted_hits = np.cumsum(marks.reshape(segs.size, draws + 1)[:, :draws], axis=1, dtype=np.int32)
        seg_hits = np.take(sorted_hits.ravel(), unsort[:segs.size * draws]).reshape(segs.size, draws)
        prefix = np.zeros((segs.size + 1, draws), dtype=np.int32)
        np.cumsum(seg_hits, axis=0, out=prefix[1:])
        yield g, bounds, prefix


def _bin_totals(bounds, prefix, conf_prefix_row, starts, ends):
    """Simulated successes (bins, S) and expected successes (bins,) for bins [starts, ends) of one temperature."""
    hits = prefix[np.searchsorted(bounds, ends)] - prefix[np.searchsorted(bounds, starts)]
    return hits, conf_prefix_row[ends] - conf_prefix_row[starts]


def _bin_draws(bounds, prefix, conf_prefix_row, starts, ends, first, n):
    """Simulated draws of one temperature's non-empty bins: ``(used, hits, ece)``.

    ``used`` marks the layout's non-empty bins, ``hits`` (used bins, S) are their
    simulated successes and ``ece`` (binnings, S) each binning's simulated ECE
    (an empty bin adds nothing to it, and every binning has a non-empty bin).
    """
    used = ends > starts
    hits, expected = _bin_totals(bounds, prefix, conf_prefix_row, starts[used], ends[used])
    gaps = hits.astype(np.float32)
    gaps -= expected.astype(np.float32)[:, None]
    np.abs(gaps, out=gaps)
    used_before = np.concatenate([[0], np.cumsum(used)])[first]
    return used, hits, np.add.reduceat(gaps, used_before, axis=0) / n


class NoiseFloor(NamedTuple):
    """What a perfectly calibrated model with these confidences would show, at each of G temperatures.

    ``ece[scheme][B]`` is (G, Q): quantiles ``quantiles`` (e.g. 5%, 50%, 95%)
    of the ECE it would score (probability units). ``band[scheme][B]`` is
    (G, B_used, 2): the ``band_quantiles`` (5%, 95%) of each bin's accuracy
    (NaN for an empty bin). ``sweep[scheme]`` is (G, max_bins, 2): the median
    and 95% quantile of the ECE for B = 1..max_bins. ``n_draws`` simulated
    outcome sets back ``ece`` and ``band``; ``sweep_draws`` back ``sweep``,
    except at the bin counts of ``ece``, where the sweep repeats those values.
    """

    quantiles: Tuple[float, ...]
    band_quantiles: Tuple[float, ...]
    n_draws: int
    sweep_draws: int
    ece: Dict[str, Dict[int, np.ndarray]]
    band: Dict[str, Dict[int, np.ndarray]]
    sweep: Dict[str, np.ndarray]


def noise_floor(confidence, bin_counts=DEFAULT_BIN_COUNTS, max_bins=SWEEP_MAX_BINS, n_draws=DEFAULT_DRAWS,
                sweep_draws=200, rng=0, quantiles=FLOOR_QUANTILES, band_quantiles=SPREAD_QUANTILES):
    """Simulate a perfectly calibrated model: ``correct_i ~ Bernoulli(confidence_i)`` with the confidences fixed.

    Parameters
    ----------
    confidence : array (G, n) or (n,)
        Top-label confidences at G temperatures. Bins depend only on them, so
        every draw uses the same bins.
    bin_counts : sequence of int
        Bin counts that get per-bin accuracy bands and full ECE quantiles
        (``n_draws`` draws).
    max_bins : int
        The sweep covers B = 1..max_bins: median and 95% quantile of the ECE
        (``sweep_draws`` draws; 0 skips the sweep, leaving NaN).
    n_draws, sweep_draws : int
    rng : numpy.random.Generator or int
    quantiles, band_quantiles : increasing probabilities

    Returns
    -------
    NoiseFloor

    Notes
    -----
    The simulation is exact (see :func:`_null_bin_hits`): per temperature the
    sorted examples are cut into runs at all bin boundaries, each run's
    success count is drawn from its exact Poisson-binomial law, and bins add
    up runs. Uniforms are multiples of 2⁻⁴⁰, the only approximation. Run k
    uses the same uniforms at every temperature, so the floors change smoothly
    with T, and each run's uniforms are stratified (Latin hypercube), which
    roughly halves the Monte Carlo spread of the reported quantiles.
    """
    conf = as_probability_rows(confidence)
    counts = _bin_counts(bin_counts)
    max_bins = _positive_int(max_bins, "max_bins")
    draws = _positive_int(n_draws, "n_draws", 2)
    sweep_draws = _positive_int(sweep_draws, "sweep_draws", 0)
    q = _quantiles(quantiles)
    band_q = _quantiles(band_quantiles, "band_quantiles")
    if len(band_q) != 2:
        raise ValueError(f"band_quantiles must hold two probabilities; got {band_quantiles!r}")
    gen = as_generator(rng)
    temps, n = conf.shape
    _, sorted_conf = sort_rows(conf)
    layout = bin_layout(sorted_conf, counts)
    ece = {s: {b: np.empty((temps, len(q))) for b in counts} for s in SCHEMES}
    band = {s: {b: np.empty((temps, int(layout.size[k]), 2)) for k, (s2, b) in enumerate(layout.keys) if s2 == s}
            for s in SCHEMES}
    conf_prefix = np.concatenate([np.zeros((temps, 1)), np.cumsum(sorted_conf, axis=1)], axis=1)
    for g, bounds, prefix in _null_bin_hits(sorted_conf, layout, draws, gen):
        starts, ends = layout.starts[g], layout.ends[g]
        used, hits, draws_ece = _bin_draws(bounds, prefix, conf_prefix[g], starts, ends, layout.first, n)
        stats = sorted_quantiles(draws_ece, q)  # (Q, binnings)
        size = (ends - starts)[used]
        bounds_q = np.full((2, starts.size), np.nan)  # NaN for an empty bin
        bounds_q[:, used] = count_quantiles(hits, size, band_q) / size
        for k, (scheme, b) in enumerate(layout.keys):
            ece[scheme][b][g] = stats[:, k]
            band[scheme][b][g] = bounds_q[:, layout.first[k]:layout.first[k] + layout.size[k]].T
    sweep = {s: np.full((temps, max_bins, 2), np.nan) for s in SCHEMES}
    if sweep_draws:
        sweep_layout = bin_layout(sorted_conf, range(1, max_bins + 1))
        for g, bounds, prefix in _null_bin_hits(sorted_conf, sweep_layout, sweep_draws, gen):
            draws_ece = _bin_draws(bounds, prefix, conf_prefix[g], sweep_layout.starts[g],
                                   sweep_layout.ends[g], sweep_layout.first, n)[2]
            stats = sorted_quantiles(draws_ece, (0.5, 0.95))
            for k, (scheme, b) in enumerate(sweep_layout.keys):
                sweep[scheme][g, b - 1] = stats[:, k]
    if 0.5 in q and 0.95 in q:  # one number per bin count wherever both simulations report it
        for scheme in SCHEMES:
            for b in counts:
                if b <= max_bins:
                    sweep[scheme][:, b - 1] = ece[scheme][b][:, [q.index(0.5), q.index(0.95)]]
    return NoiseFloor(q, band_q, draws, sweep_draws, ece, band, sweep)
