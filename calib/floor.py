"""The noise floor: what a perfectly calibrated model with the same confidences would score.

A binned ECE is not zero even for a perfectly calibrated model, because it is
computed from one finite sample. :func:`noise_floor` keeps the confidences,
redraws every outcome as ``correct ~ Bernoulli(confidence)`` and recomputes:
per-bin bands for the accuracy, how many bins of one draw fall outside their
bands, the distribution of the ECE such a model would score, and its median
and 95% quantile for every bin count 1..max_bins. :func:`bins_outside` counts
the observed bins outside their bands, and :func:`tail_share` turns that count
into the share of calibrated draws with at least as many outside.

The simulation is exact and cheap: each temperature's sorted examples are cut
into runs at every bin boundary (:mod:`calib.runs`), and each run's number of
successes is drawn from its exact Poisson-binomial law (:func:`segment_cdfs`),
so the cost grows with the number of runs, not of examples.

Randomness comes only from the ``rng`` argument (a ``numpy.random.Generator``
or an integer seed), and only through ``Generator.random``; integers are
derived from those uniforms, so results depend on the seed alone.
"""

from typing import Dict, NamedTuple, Tuple

import numpy as np

from .binning import SCHEMES
from .quantiles import FLOOR_QUANTILES, SPREAD_QUANTILES, SWEEP_QUANTILES, count_quantiles, sorted_quantiles
from .runs import bin_layout, sort_rows
from .validation import as_bin_counts, as_generator, as_probability_rows, as_quantile_levels, positive_int

__all__ = [
    "DEFAULT_DRAWS", "DEFAULT_SWEEP_DRAWS", "UNIFORM_BITS", "segment_cdfs", "NoiseFloor", "noise_floor",
    "bins_outside", "tail_share",
]

DEFAULT_DRAWS = 2000
DEFAULT_SWEEP_DRAWS = 200
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
    """``columns`` independent columns of ``draws`` uniforms, each sorted.

    Stored as int64 keys ``(column << 41) + u·2**40``.
    """

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


CDF_BLOCK_ELEMENTS = 1 << 20  # sorted confidences whose run CDFs are built in one call (bounds memory)
MAX_RUN = 256  # longer runs of sorted examples are cut into runs of at most this many (see _split_long_runs)


def _split_long_runs(bounds, max_run=None):
    """Run boundaries ``bounds`` (ascending sorted positions, first 0, last n) with every run longer than
    ``max_run`` (default :data:`MAX_RUN`) cut into equal pieces of at most ``max_run``.

    The pieces are disjoint runs of independent trials, so drawing each piece's successes and adding them
    is an exact draw of the whole run's count: the simulated law is unchanged, only more uniform columns
    are used. It keeps the exact Poisson-binomial CDFs (quadratic in a run's length) linear in n overall.

    The run of 7 becomes pieces of 4 and 3 (:func:`equal_split` puts the larger pieces first):

    >>> _split_long_runs(np.array([0, 3, 10]), 4).tolist()
    [0, 3, 7, 10]
    """
    max_run = MAX_RUN if max_run is None else max_run
    lengths = np.diff(bounds)
    pieces = -(-lengths // max_run)  # ceil
    if np.all(pieces <= 1):
        return bounds
    cuts = [bounds]
    for start, length, count in zip(bounds[:-1][pieces > 1], lengths[pieces > 1], pieces[pieces > 1]):
        cuts.append(start + equal_split(int(length), int(count))[1:-1])
    return np.unique(np.concatenate(cuts))


def equal_split(length, count):
    """``count + 1`` boundaries cutting ``length`` items into ``count`` runs whose sizes differ by at most one."""
    small, extra = divmod(length, count)
    return np.concatenate([[0], np.cumsum(np.full(count, small) + (np.arange(count) < extra))]).astype(np.int64)


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
    all bins exactly, at a cost of O(runs × S) instead of O(n × S). Runs
    longer than :data:`MAX_RUN` are cut further (:func:`_split_long_runs`),
    so the CDFs cost O(n · MAX_RUN) per temperature rather than O(n² / B).
    """
    temps, n = sorted_conf.shape
    per_temp = []
    for g in range(temps):
        bounds = np.unique(np.concatenate([layout.starts[g], layout.ends[g], [0, n]]))
        per_temp.append(_split_long_runs(bounds))
    columns = max(b.size - 1 for b in per_temp)
    uniforms = _sorted_uniforms(gen, columns, n_draws)
    unsort = (uniforms.rank + (np.arange(columns) * n_draws)[:, None]).ravel()  # flat index of each draw's value
    scale = 2.0 ** UNIFORM_BITS
    draws = n_draws
    block = max(1, CDF_BLOCK_ELEMENTS // n)  # temperatures whose run CDFs are built in one call
    for g in range(temps):
        if g % block == 0:  # the CDFs of the next block of temperatures: O(block · n) memory
            chunk = range(g, min(temps, g + block))
            seg_g = np.concatenate([np.full(per_temp[h].size - 1, h - g) for h in chunk])
            seg_start = np.concatenate([per_temp[h][:-1] for h in chunk])
            seg_len = np.concatenate([np.diff(per_temp[h]) for h in chunk])
            cdf, offsets = segment_cdfs(sorted_conf[chunk.start:chunk.stop].ravel(), seg_g * n + seg_start, seg_len)
            first_seg = np.concatenate([[0], np.cumsum([per_temp[h].size - 1 for h in chunk])])
        bounds = per_temp[g]
        lengths = np.diff(bounds)
        offset = offsets[first_seg[g - chunk.start]:first_seg[g - chunk.start + 1]]
        local = np.arange(lengths.size)
        # CDF values F(h) for h < length (F(length) = 1 is never below a uniform)
        entry_seg = np.repeat(local, lengths)
        within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        entry_pos = np.repeat(offset, lengths) + within
        query = (entry_seg.astype(np.int64) << (UNIFORM_BITS + 1)) + np.floor(cdf[entry_pos] * scale).astype(np.int64)
        below = np.searchsorted(uniforms.keys, query, side="right") - entry_seg * draws  # draws with u ≤ F(h)
        marks = np.bincount(entry_seg * (draws + 1) + below, minlength=local.size * (draws + 1))
        sorted_hits = np.cumsum(marks.reshape(local.size, draws + 1)[:, :draws], axis=1, dtype=np.int32)
        seg_hits = np.take(sorted_hits.ravel(), unsort[:local.size * draws]).reshape(local.size, draws)
        prefix = np.zeros((local.size + 1, draws), dtype=np.int32)
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
    (NaN for an empty bin). ``sweep[scheme]`` is (G, max_bins, 2): the
    :data:`~calib.quantiles.SWEEP_QUANTILES` (median and 95%) of the ECE for
    B = 1..max_bins. ``n_draws`` simulated outcome sets back ``ece`` and
    ``band``; ``sweep_draws`` back ``sweep``, except at the bin counts of
    ``ece``, where the sweep repeats those values.

    ``outside[scheme][B]`` is (G, B_used + 1): entry k is the share of the
    ``n_draws`` simulated outcome sets in which exactly k non-empty bins have
    an accuracy outside their band (below its low end or above its high end,
    the rule of :func:`bins_outside`), from the same draws that set the bands.
    Each row sums to 1; :func:`tail_share` reads "k or more" from it.
    """

    quantiles: Tuple[float, ...]
    band_quantiles: Tuple[float, ...]
    n_draws: int
    sweep_draws: int
    ece: Dict[str, Dict[int, np.ndarray]]
    band: Dict[str, Dict[int, np.ndarray]]
    sweep: Dict[str, np.ndarray]
    outside: Dict[str, Dict[int, np.ndarray]]


def noise_floor(confidence, bin_counts, max_bins, n_draws=DEFAULT_DRAWS, sweep_draws=DEFAULT_SWEEP_DRAWS, rng=0,
                quantiles=FLOOR_QUANTILES, band_quantiles=SPREAD_QUANTILES):
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
        Simulated outcome sets (at least 2; ``sweep_draws`` may be 0).
    rng : numpy.random.Generator or int
    quantiles, band_quantiles : increasing probabilities

    Returns
    -------
    NoiseFloor

    Notes
    -----
    Given the confidences, bins hold disjoint examples, so in a calibrated
    model their exceedances are independent, each with probability at most
    about ``1 − (band_quantiles[1] − band_quantiles[0])`` (less for a
    discrete accuracy); ``outside`` is the simulated law of their number.

    The simulation is exact (see :func:`_null_bin_hits`): per temperature the
    sorted examples are cut into runs at all bin boundaries, each run's
    success count is drawn from its exact Poisson-binomial law, and bins add
    up runs. Uniforms are multiples of 2⁻⁴⁰, the only approximation. Run k
    uses the same uniforms at every temperature, so the floors change smoothly
    with T, and each run's uniforms are stratified (Latin hypercube), which
    roughly halves the Monte Carlo spread of the reported quantiles.
    """
    conf = as_probability_rows(confidence)
    counts = as_bin_counts(bin_counts)
    max_bins = positive_int(max_bins, "max_bins")
    draws = positive_int(n_draws, "n_draws", 2)
    sweep_draws = positive_int(sweep_draws, "sweep_draws", 0)
    q = as_quantile_levels(quantiles)
    band_q = as_quantile_levels(band_quantiles, "band_quantiles")
    if len(band_q) != 2:
        raise ValueError(f"band_quantiles must hold two probabilities; got {band_quantiles!r}")
    gen = as_generator(rng)
    temps, n = conf.shape
    _, sorted_conf = sort_rows(conf)
    layout = bin_layout(sorted_conf, counts)
    ece = {s: {b: np.empty((temps, len(q))) for b in counts} for s in SCHEMES}
    band = {s: {b: np.empty((temps, int(layout.size[k]), 2)) for k, (s2, b) in enumerate(layout.keys) if s2 == s}
            for s in SCHEMES}
    outside = {s: {b: np.empty((temps, int(layout.size[k]) + 1)) for k, (s2, b) in enumerate(layout.keys) if s2 == s}
               for s in SCHEMES}
    # where binning k's counts 0..size[k] start, laid end to end
    count_start = np.concatenate([[0], np.cumsum(layout.size + 1)[:-1]])
    conf_prefix = np.concatenate([np.zeros((temps, 1)), np.cumsum(sorted_conf, axis=1)], axis=1)
    for g, bounds, prefix in _null_bin_hits(sorted_conf, layout, draws, gen):
        starts, ends = layout.starts[g], layout.ends[g]
        used, hits, draws_ece = _bin_draws(bounds, prefix, conf_prefix[g], starts, ends, layout.first, n)
        stats = sorted_quantiles(draws_ece, q)  # (Q, binnings)
        size = (ends - starts)[used]
        bounds_q = np.full((2, starts.size), np.nan)  # NaN for an empty bin
        bounds_q[:, used] = count_quantiles(hits, size, band_q) / size
        # bins outside their band in each draw, by the rule of bins_outside (accuracy = successes / count)
        accuracy = hits / size[:, None]
        out_of_band = (accuracy < bounds_q[0, used][:, None]) | (accuracy > bounds_q[1, used][:, None])
        used_before = np.concatenate([[0], np.cumsum(used)])[layout.first]
        per_draw = np.add.reduceat(out_of_band, used_before, axis=0, dtype=np.int64)  # (binnings, S)
        shares = np.bincount((per_draw + count_start[:, None]).ravel(),
                             minlength=int((layout.size + 1).sum())) / draws
        for k, (scheme, b) in enumerate(layout.keys):
            ece[scheme][b][g] = stats[:, k]
            band[scheme][b][g] = bounds_q[:, layout.first[k]:layout.first[k] + layout.size[k]].T
            outside[scheme][b][g] = shares[count_start[k]:count_start[k] + layout.size[k] + 1]
    sweep = {s: np.full((temps, max_bins, 2), np.nan) for s in SCHEMES}
    if sweep_draws:
        sweep_layout = bin_layout(sorted_conf, range(1, max_bins + 1))
        for g, bounds, prefix in _null_bin_hits(sorted_conf, sweep_layout, sweep_draws, gen):
            draws_ece = _bin_draws(bounds, prefix, conf_prefix[g], sweep_layout.starts[g],
                                   sweep_layout.ends[g], sweep_layout.first, n)[2]
            stats = sorted_quantiles(draws_ece, SWEEP_QUANTILES)
            for k, (scheme, b) in enumerate(sweep_layout.keys):
                sweep[scheme][g, b - 1] = stats[:, k]
    if all(level in q for level in SWEEP_QUANTILES):  # one number per bin count wherever both simulations report it
        columns = [q.index(level) for level in SWEEP_QUANTILES]
        for scheme in SCHEMES:
            for b in counts:
                if b <= max_bins:
                    sweep[scheme][:, b - 1] = ece[scheme][b][:, columns]
    return NoiseFloor(q, band_q, draws, sweep_draws, ece, band, sweep, outside)


def bins_outside(accuracy, count, band):
    """How many non-empty bins have an accuracy outside their band: int array (G,) (or an int for one row).

    Parameters
    ----------
    accuracy : array (G, B_used) or (B_used,)
        Each bin's fraction correct (NaN allowed where the bin is empty), as in
        :class:`calib.ReliabilityBins`.
    count : array like ``accuracy``
        Each bin's number of examples; bins with 0 are skipped.
    band : array (G, B_used, 2) or (B_used, 2)
        Each bin's accuracy band (low, high), e.g. ``NoiseFloor.band[scheme][B]``.

    A bin is outside when its accuracy is strictly below the band's low end
    or strictly above its high end: the rule behind ``NoiseFloor.outside``.

    >>> bins_outside([0.2, np.nan, 0.9, 0.5], [5, 0, 5, 5], [[0.3, 0.7], [np.nan, np.nan], [0.4, 0.9], [0.1, 0.4]])
    2
    """
    acc = np.asarray(accuracy, dtype=np.float64)
    sizes = np.asarray(count)
    limits = np.asarray(band, dtype=np.float64)
    if sizes.shape != acc.shape or limits.shape != acc.shape + (2,):
        raise ValueError(f"count and band must match accuracy {acc.shape} (band with a last axis of 2); "
                         f"got {sizes.shape} and {limits.shape}")
    used = sizes > 0
    if np.any(np.isnan(acc[used])) or np.any(np.isnan(limits[used])):
        raise ValueError("accuracy and band must be numbers wherever count > 0")
    with np.errstate(invalid="ignore"):
        out = used & ((acc < limits[..., 0]) | (acc > limits[..., 1]))
    total = out.sum(axis=-1)
    return int(total) if np.ndim(total) == 0 else total


def tail_share(outside, observed):
    """Share of calibrated draws with at least ``observed`` bins outside their bands: array (G,) (or a float).

    Parameters
    ----------
    outside : array (G, B_used + 1) or (B_used + 1,)
        The law of the number of bins outside (``NoiseFloor.outside[scheme][B]``):
        entry k is the share of draws with exactly k outside.
    observed : int or int array (G,)
        The observed number k of bins outside (e.g. :func:`bins_outside`), per
        row; it may exceed B_used (share 0).

    Returns
    -------
    The sum of entries k, k + 1, …: "a calibrated model with these
    confidences puts k or more bins outside in this share of draws". It is 1
    at k = 0 and never increases with k.

    >>> tail_share([0.5, 0.3, 0.2], 1)
    0.5
    """
    law = np.asarray(outside, dtype=np.float64)
    if law.ndim not in (1, 2) or law.shape[-1] < 1 or not np.all(np.isfinite(law)) or law.min() < 0:
        raise ValueError(f"outside must be non-negative shares of shape (B_used + 1,) or (G, B_used + 1); "
                         f"got {np.shape(outside)}")
    k = np.asarray(observed)
    if k.dtype == bool or not np.issubdtype(k.dtype, np.integer) or (k.size and k.min() < 0):
        raise ValueError(f"observed must be non-negative integer counts; got {observed!r}")
    k = np.broadcast_to(k, law.shape[:-1])
    # tail[..., k] = Σ_{j ≥ k} law[..., j], with a 0 after the last entry
    tail = np.concatenate([np.cumsum(law[..., ::-1], axis=-1)[..., ::-1], np.zeros(law.shape[:-1] + (1,))], axis=-1)
    np.minimum(tail, 1.0, out=tail)  # a rounded sum of shares may exceed 1 by an ulp
    tail[..., 0] = 1.0  # every draw has at least 0 outside (exact, not a rounded sum)
    picked = np.take_along_axis(tail, np.minimum(k, law.shape[-1])[..., None], axis=-1)[..., 0]
    return float(picked) if picked.ndim == 0 else picked
