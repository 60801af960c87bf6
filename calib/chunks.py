"""What one partition of rows contributes to a fit and its report: sums that add up across partitions.

Every figure ``python -m calib fit`` reports at a fixed temperature is a sum over rows divided by a
count (mean NLL, Brier and confidence, accuracy, and the equal-width bins behind ECE, MCE and the
reliability diagram), and so is the slope and curvature of mean NLL in β = 1/T that a Newton step needs
(:func:`calib.refit.beta_derivative_rows`). :func:`partition_sums` computes those sums for one partition
of rows, with the engine's own kernels (:func:`calib.scaling.example_scores`,
:func:`calib.binning.equal_width_sums`); :func:`add_sums` adds two partitions' sums. A partition is read
a window of rows at a time, so its memory is bounded by the window, not by the partition.

Four kinds of pass (a :class:`Plan`):

``"digits"``
    probabilities only, before the fit: the decimals every window's values are rounded to, and the cells that
    are 0 (:mod:`calib.rounding`: a printed 0, read as :func:`calib.io_values.probability_floor`, then at each
    end of what it can stand for);
``"slope"``
    one Newton step: the count, slope sum and curvature sum of the calibration rows at β;
``"final"``
    the same at the fitted β, and the test rows' sums at each temperature of the plan: the exact
    scores, the equal-width bins, a fine confidence histogram (for the equal-mass bins of
    :mod:`calib.chunked`) and the Poisson-bootstrap sums;
``"refine"``
    the test rows' sub-histograms of the fine bins that the equal-mass cuts fall in.

Binary models and Platt scaling (issue 29's binary support) plug in here: a binary score column becomes
the two-column logits [0, s] (softmax of those is the sigmoid of s, so temperature scaling is unchanged),
and Platt's (a, b) adds a plan kind whose sums are the gradient (2,) and Hessian (2, 2) of the logistic
NLL over the calibration rows, for a two-dimensional Newton step in :mod:`calib.chunked` (the NLL is
convex in (a, b)). Until then, give binary rows as two logit columns.

The Poisson bootstrap gives row i the weights ``poisson_weights(seed, i, i + 1, R)``: Poisson(1) counts
drawn from a stream seeded by (seed, i // POISSON_BLOCK), so a row's weights never depend on how the rows
are partitioned.
"""

from functools import lru_cache
from typing import NamedTuple, Optional

import numpy as np

from .binning import equal_width_ids, equal_width_sums
from .blocks import ROW_ALIGN
from .io_checks import InputError
from .io_values import MAX_DECIMALS, PROBABILITY_FLOOR, decimals_of, probability_floor
from .refit import beta_derivative_rows
from .rounding import zero_cells, zeros_read_at
from .scaling import example_scores

__all__ = ["Plan", "SPLIT_RULES", "WINDOW_ELEMENTS", "POISSON_WINDOW", "POISSON_BLOCK", "FINE_BINS", "SUB_BINS",
           "fine_edges", "fine_ids", "poisson_weights", "row_parts", "partition_sums", "add_sums", "PROBABILITY_FLOOR",
           "rounded_decimals"]

SPLIT_RULES = ("file", "even-odd", "none")  # the rules a partitioned fit can apply row by row
WINDOW_ELEMENTS = 1 << 18   # (temperature, row, class) values per kernel call: 2 MiB of float64 per work array
POISSON_WINDOW = 4096       # rows per window when the Poisson bootstrap runs: (rows, R) weights, 6 MiB at R = 200
POISSON_BLOCK = 4096        # rows per seeded stream of Poisson weights (whole blocks are drawn, then sliced)
FINE_BINS = 1 << 16         # bins of the fine confidence histogram (equal width in −log2(1 − c), see fine_edges)
SUB_BINS = 1 << 12          # sub-bins of a fine bin that an equal-mass cut falls in (the "refine" pass)
FINE_SPAN = 52.0            # the fine histogram spans 1 − c from 1 down to 2⁻⁵²; c = 1 falls in the last bin
# Poisson(1) by inverse CDF on 32-bit uniform integers: a weight is the number of cuts at or below the draw
_CDF = np.cumsum([np.exp(-1.0) / np.prod(np.arange(1, k + 1, dtype=np.float64)) for k in range(12)])
_POISSON_CUTS = np.floor(_CDF * 2.0 ** 32).astype(np.uint32)


class Plan(NamedTuple):
    """One pass over the partitions.

    ``kind`` is ``"digits"``, ``"slope"``, ``"final"`` or ``"refine"``; ``beta`` the inverse temperature of the
    calibration rows' derivatives; ``temperatures`` those at which a final pass scores the test rows; ``split``
    one of :data:`SPLIT_RULES`; ``n_bins`` the equal-width bin count; ``fine_bins`` the fine histogram's bins (0:
    none); ``resamples`` the Poisson bootstrap's R (0: none) and ``seed`` its seed; ``probabilities`` whether
    the numbers are probabilities (their logarithms are then the logits); ``cut_bins`` (G rows of fine-bin
    indices) the fine bins a ``"refine"`` pass splits into :data:`SUB_BINS` equal-width sub-bins each;
    ``decimals`` the places the probabilities were rounded to (None: full precision), which set what a 0 is
    read as (:func:`calib.io_values.probability_floor`); ``zero``, if not 0, the probability a printed 0 is
    read as instead (:func:`calib.rounding.zeros_read_at`: the rounding check's refits).
    """

    kind: str
    beta: float
    temperatures: tuple = ()
    split: str = "even-odd"
    n_bins: int = 15
    fine_bins: int = FINE_BINS
    resamples: int = 0
    seed: int = 0
    probabilities: bool = False
    cut_bins: tuple = ()
    decimals: Optional[int] = None
    zero: float = 0.0


@lru_cache(maxsize=4)
def fine_edges(fine_bins=FINE_BINS):
    """Edges (F + 1,) of the fine confidence histogram: ``1 − 2^(−s)`` for s equally spaced on [0, 52), then 1.

    Bin j holds confidences in [edge[j], edge[j + 1]); the last bin is closed. Equal steps in −log2(1 − c)
    keep the bins narrow where a confident model's rows crowd, near 1. (Cached: do not write into it.)
    """
    s = np.arange(fine_bins) * (FINE_SPAN / fine_bins)
    return np.append(-np.expm1(-s * np.log(2.0)), 1.0)


def fine_ids(confidence, edges):
    """The fine bin of each confidence (any shape): ``edges[j] <= c < edges[j + 1]``, the last bin closed.

    Exactly ``clip(searchsorted(edges, c, side="right") - 1, 0, F - 1)``, computed from −log2(1 − c) (the
    edges' own scale), corrected by one step against the edges, and searched only where that is not enough
    (edges that rounding made equal, near c = 1).
    """
    f = edges.size - 1
    with np.errstate(divide="ignore"):
        scaled = np.log2(1.0 - confidence) * (-f / FINE_SPAN)
    ids = np.clip(scaled, 0, f - 1).astype(np.intp)
    ids -= confidence < edges[ids]
    ids += (ids < f - 1) & (confidence >= edges[np.minimum(ids + 1, f)])
    np.clip(ids, 0, f - 1, out=ids)
    wrong = (confidence < edges[ids]) | ((ids < f - 1) & (confidence >= edges[ids + 1]))
    if wrong.any():
        ids[wrong] = np.clip(np.searchsorted(edges, confidence[wrong], side="right") - 1, 0, f - 1)
    return ids


def poisson_weights(seed, start, stop, resamples):
    """Poisson(1) bootstrap weights of the global rows [start, stop): float64 array (stop − start, R).

    Row i's R weights come from the stream seeded by ``(seed, i // POISSON_BLOCK)`` (numpy's PCG64), which
    draws its block's rows in order, R 32-bit integers per row; a weight is the number of Poisson(1) CDF
    cuts (scaled to 2³²) at or below the integer, so P(weight = k) is Poisson(1)'s to within 2⁻³² (weights
    above 12, probability 1e-10, are cut to 12). Independent of how the rows are split into calls.
    """
    out = np.empty((stop - start, resamples))
    for block in range(start // POISSON_BLOCK, (stop - 1) // POISSON_BLOCK + 1 if stop > start else 0):
        first = block * POISSON_BLOCK
        lo, hi = max(start, first), min(stop, first + POISSON_BLOCK)
        gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), block])))
        draws = gen.integers(0, 2 ** 32, size=(hi - first, resamples), dtype=np.uint32)[lo - first:]
        counts = np.zeros(draws.shape, dtype=np.uint8)
        for cut in _POISSON_CUTS[:4]:  # weights 0 to 4; the 1.9% of draws beyond the fourth cut are counted exactly
            counts += draws >= cut
        rare = np.flatnonzero(draws >= _POISSON_CUTS[3])
        counts.reshape(-1)[rare] = np.searchsorted(_POISSON_CUTS, draws.reshape(-1)[rare], side="right")
        out[lo - start:hi - start] = counts
    return out


def row_parts(split, offset, m, split_values):
    """``(calibration, test)`` bool masks (m,) of a partition whose first row is global row ``offset``.

    ``"even-odd"``: even global rows calibrate, odd ones test; ``"none"``: every row does both;
    ``"file"``: ``split_values`` (m,) bool, True for a calibration row.
    """
    if split == "none":
        every = np.ones(m, dtype=bool)
        return every, every
    if split == "file":
        if split_values is None:
            raise InputError("split: the data have no split column; choose --split even-odd or none")
        calibration = np.asarray(split_values, dtype=bool)
    else:
        calibration = (offset + np.arange(m)) % 2 == 0
    return calibration, ~calibration


def _window_rows(plan, k):
    """Rows per window: a multiple of ROW_ALIGN whose kernel call stays within WINDOW_ELEMENTS values."""
    g = max(1, len(plan.temperatures))
    rows = max(ROW_ALIGN, WINDOW_ELEMENTS // (g * k) // ROW_ALIGN * ROW_ALIGN)
    return min(rows, POISSON_WINDOW) if plan.resamples else rows


def _as_window(raw, labels, first, where, k, plan, index=None):
    """A window's logits as float64 (r, K) and labels as int64 (r,), checked; ``first`` is the window's first
    row as messages count it, ``index`` the positions in the window of the rows given (None: all), ``where``
    the source's name; probabilities (``plan.probabilities``) as :class:`Plan` says to read them."""
    def row_of(i):
        return first + int(i if index is None else index[i])

    z = np.asarray(raw, dtype=np.float64)
    if not np.isfinite(z.sum()):  # one sum finds a NaN or inf (or an overflow, checked below) in one pass
        bad = ~np.isfinite(z)
        if bad.any():
            row, column = np.unravel_index(np.argmax(bad), bad.shape)
            raise InputError(f"{where}: logits[{row_of(row)}, {column}]: {z[row, column]}; every value must be "
                             "finite")
    if plan.probabilities:
        if z.min() < 0 or z.max() > 1:
            row = int(np.argmax(((z < 0) | (z > 1)).any(axis=1)))
            raise InputError(f"{where}: probabilities[{row_of(row)}]: values outside [0, 1]")
        z = np.log(np.maximum(z, probability_floor(plan.decimals)))
        if plan.zero:
            z = zeros_read_at(z, plan.decimals, plan.zero)
    y = np.asarray(labels)
    whole = np.isfinite(y) & (y == np.round(y)) if y.dtype.kind == "f" else np.ones(y.shape, dtype=bool)
    outside = ~whole | (y < 0) | (y >= k)
    if outside.any():
        row = int(np.argmax(outside))
        raise InputError(f"{where}: labels[{row_of(row)}]: {y[row]} is not a class index in [0, {k})")
    return z, y.astype(np.int64)


def _padded_scores(z, y, divisor):
    """:func:`calib.scaling.example_scores` of the rows, computed in a call padded to a multiple of ROW_ALIGN
    rows (the last row repeated): BLAS sums the last rows of a call of another length on another path, so
    every row gets the value it gets inside ``calib fit``'s aligned chunks."""
    r = z.shape[0]
    pad = -r % ROW_ALIGN
    if pad:
        z = np.concatenate([z, np.repeat(z[-1:], pad, axis=0)])
        y = np.concatenate([y, np.repeat(y[-1:], pad)])
    return tuple(values[:, :r] for values in example_scores(z, y, divisor))


def _empty_sums(plan):
    g, b, f, r = len(plan.temperatures), plan.n_bins, plan.fine_bins, plan.resamples
    sums = {"fit_rows": np.zeros(1, np.int64), "eval_rows": np.zeros(1, np.int64),
            "slope": np.zeros(1), "curvature": np.zeros(1)}
    if plan.kind == "digits":
        sums.update(digits=np.zeros(MAX_DECIMALS + 2, np.int64), zeros=np.zeros(1, np.int64))
    if plan.kind == "refine":
        sums.update(sub_count=np.zeros((g, len(plan.cut_bins[0]), SUB_BINS), np.int64),
                    sub_confidence=np.zeros((g, len(plan.cut_bins[0]), SUB_BINS)),
                    sub_hits=np.zeros((g, len(plan.cut_bins[0]), SUB_BINS)))
    if plan.kind == "final":
        sums.update(hits=np.zeros(1, np.int64), nll=np.zeros(g), brier=np.zeros(g), confidence=np.zeros(g),
                    bin_count=np.zeros((g, b), np.int64), bin_confidence=np.zeros((g, b)), bin_hits=np.zeros((g, b)))
        if plan.decimals:
            sums.update(zero_cells=np.zeros(1, np.int64))
        if f:
            sums.update(fine_count=np.zeros((g, f), np.int64), fine_confidence=np.zeros((g, f)),
                        fine_hits=np.zeros((g, f)))
        if r:
            sums.update(boot_fit=np.zeros((r, 3)), boot_eval=np.zeros((r, 1 + 2 * g + g * b)))
    return sums


def partition_sums(logits, labels, split_values, offset, plan, where="data", first_row=None, into=None):
    """The sums one partition contributes to ``plan``'s pass: a dict of arrays, added across partitions by
    :func:`add_sums` (counts are int64 and add exactly).

    ``logits`` (m, K) of any real dtype (a memory map is read a window at a time), ``labels`` (m,),
    ``split_values`` (m,) bool or None, ``offset`` the global index of the partition's first row;
    ``where`` and ``first_row`` (default ``offset``) name the rows in error messages (an
    :class:`calib.InputError` for a non-finite logit or a label outside [0, K)); ``into``, the sums of
    earlier rows of the same pass, is added to in place and returned (for a partition read in batches).

    Keys: ``fit_rows``, ``eval_rows`` (counts), ``slope`` and ``curvature`` (sums over calibration rows at
    ``plan.beta``, nats per unit β and β²); a final pass adds ``hits``, and per temperature ``nll``,
    ``brier``, ``confidence`` (sums), ``bin_count``/``bin_confidence``/``bin_hits`` (G, B),
    ``fine_count``/``fine_confidence``/``fine_hits`` (G, F) and, with resamples, ``boot_fit`` (R, 3:
    Σw, Σw·slope, Σw·curvature) and ``boot_eval`` (R, 1 + 2G + GB: Σw, Σw·NLL and Σw·Brier per T, then each
    equal-width bin's Σw·(hit − confidence), T-major).
    """
    m, k = logits.shape
    first_row = offset if first_row is None else first_row
    calibration, test = row_parts(plan.split, offset, m, split_values)
    sums = _empty_sums(plan) if into is None else into
    final = plan.kind in ("final", "refine")  # a final or refine pass scores the test rows
    temps = np.asarray(plan.temperatures, dtype=np.float64)
    edges = fine_edges(plan.fine_bins) if final and plan.fine_bins else None
    window = _window_rows(plan, k)
    for start in range(0, m, window):
        part = slice(start, min(m, start + window))
        cal, ev = calibration[part], test[part]
        if not final:
            sums["eval_rows"] += int(ev.sum())
        want = cal if plan.kind == "slope" else ev if plan.kind == "refine" else cal | ev
        if not want.any():
            continue
        index = None if want.all() else np.flatnonzero(want)  # only the rows this pass reads are converted
        raw, labels_part = logits[part], labels[part]
        if index is not None:
            raw, labels_part, cal, ev = raw[index], labels_part[index], cal[index], ev[index]
        if plan.kind == "digits":
            _digits_window(sums, raw)
            continue
        z, y = _as_window(raw, labels_part, first_row + start, where, k, plan, index)
        if plan.kind == "refine":
            _refine_window(sums, z, y, temps, plan, edges)
            continue
        weights = None
        if final and plan.resamples:
            weights = poisson_weights(plan.seed, offset + part.start, offset + part.stop, plan.resamples)
            weights = weights if index is None else weights[index]
        if cal.any():
            zc = z[cal] if plan.kind == "final" else z
            slope, curvature = beta_derivative_rows(zc - zc.max(axis=1, keepdims=True), y[cal], 1.0 / plan.beta)
            sums["fit_rows"] += int(cal.sum())
            sums["slope"] += slope.sum()
            sums["curvature"] += curvature.sum()
            if plan.kind == "final" and plan.decimals:
                sums["zero_cells"] += int(np.count_nonzero(zero_cells(zc, plan.decimals)))
            if weights is not None:
                columns = np.column_stack([np.ones(slope.size), slope, curvature])
                sums["boot_fit"] += (columns.T @ weights[cal]).T
        if final and ev.any():
            _score_window(sums, z[ev], y[ev], temps, plan, edges, None if weights is None else weights[ev])
    return sums


def _digits_window(sums, raw):
    """Add one window's values (r, K) to a digits pass: the window's decimals (:func:`calib.io_values.decimals_of`,
    in their float dtype as ``calib fit`` reads them; full precision counted at the end) and its zeros."""
    values = np.asarray(raw)
    values = values if values.dtype.kind == "f" else values.astype(np.float64)
    d = decimals_of(values)
    sums["digits"][MAX_DECIMALS + 1 if d is None else d] += 1
    sums["zeros"] += int(np.count_nonzero(values == 0))


def rounded_decimals(sums):
    """The places a ``"digits"`` pass's sums say the probabilities were rounded to, when some of them were
    printed as 0: the most any window needs (``calib fit``'s :func:`calib.io_values.decimals_of` of all the
    values), or None (full precision, whole numbers, or no 0)."""
    d = int(np.flatnonzero(sums["digits"])[-1]) if sums["digits"].any() else None
    return d if d and d <= MAX_DECIMALS and sums["zeros"][0] else None


def _score_window(sums, z, y, temps, plan, edges, weights):
    """Add one window's test rows to a final pass's ``sums`` (see :func:`partition_sums`)."""
    r = z.shape[0]
    nll, brier, conf = _padded_scores(z, y, temps[:, None, None])
    hits = np.argmax(z, axis=1) == y
    sums["eval_rows"] += r
    sums["hits"] += int(hits.sum())
    sums["nll"] += nll.sum(axis=1)
    sums["brier"] += brier.sum(axis=1)
    sums["confidence"] += conf.sum(axis=1)
    count, conf_sum, hit_sum = equal_width_sums(conf, hits, plan.n_bins)
    sums["bin_count"] += count
    sums["bin_confidence"] += conf_sum
    sums["bin_hits"] += hit_sum
    g = temps.size
    if edges is not None:
        f = plan.fine_bins
        ids = fine_ids(conf, edges) + (np.arange(g) * f)[:, None]
        sums["fine_count"] += np.bincount(ids.ravel(), minlength=g * f).reshape(g, f)
        sums["fine_confidence"] += np.bincount(ids.ravel(), conf.ravel(), g * f).reshape(g, f)
        hit_weights = np.broadcast_to(hits, conf.shape).ravel().astype(np.float64)
        sums["fine_hits"] += np.bincount(ids.ravel(), hit_weights, g * f).reshape(g, f)
    if weights is not None:
        b = plan.n_bins
        columns = np.zeros((r, 1 + 2 * g + g * b))
        columns[:, 0] = 1.0
        columns[:, 1:1 + g] = nll.T
        columns[:, 1 + g:1 + 2 * g] = brier.T
        ids = equal_width_ids(conf, b) + (np.arange(g) * b)[:, None] + 1 + 2 * g  # (G, r): each row's bin column
        rows = np.arange(r)
        for t in range(g):
            columns[rows, ids[t]] = hits - conf[t]  # a bin's weighted hits − confidence sum is all its ECE needs
        sums["boot_eval"] += (columns.T @ weights).T


def _refine_window(sums, z, y, temps, plan, edges):
    """Add one window's test rows to a refine pass's sub-histograms of the fine bins ``plan.cut_bins``."""
    conf = _padded_scores(z, y, temps[:, None, None])[2]
    hits = (np.argmax(z, axis=1) == y).astype(np.float64)
    ids = fine_ids(conf, edges)
    for g, bins in enumerate(plan.cut_bins):
        near = np.flatnonzero(np.isin(ids[g], bins))  # the few rows in any cut's bin
        for c, j in enumerate(bins):
            inside = near[ids[g, near] == j]
            if not inside.size:
                continue
            low, width = edges[j], edges[j + 1] - edges[j]
            values = conf[g, inside]
            sub = np.clip(((values - low) / width * SUB_BINS).astype(np.intp), 0, SUB_BINS - 1)
            sums["sub_count"][g, c] += np.bincount(sub, minlength=SUB_BINS)
            sums["sub_confidence"][g, c] += np.bincount(sub, values, SUB_BINS)
            sums["sub_hits"][g, c] += np.bincount(sub, hits[inside], SUB_BINS)
    sums["eval_rows"] += z.shape[0]


def add_sums(first, second):
    """The sums of two sets of partitions: key by key, ``first + second`` (neither is changed)."""
    return {key: first[key] + second[key] for key in first}
