"""The grid pass: every metric at every temperature of a grid, in one pass over the rows and bounded memory.

:func:`grid_metrics` runs the softmax kernel of :mod:`calib.scaling` over blocks of temperatures and bins
each block's confidences before the next: the reliability bins, ECE and MCE of chosen bin counts, the ECE
and MCE of every bin count up to ``max_bins`` (run-wise, :mod:`calib.runs`), the bins of a few bin counts at
a few grid points, and any further metric of (confidence, correct) passed in by the caller. It returns
named fields (:class:`GridMetrics`), never a positional tuple.
"""

import inspect
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, NamedTuple

import numpy as np

from .binning import SCHEMES, ReliabilityBins, max_gap
from .blocks import BLOCK_ELEMENTS
from .runs import bins_by_count, rows_order, sweep_sorted
from .scaling import _grid_pass, _prepare, as_labels, as_logits, as_temperatures
from .validation import as_bin_counts, check_choice, positive_int

__all__ = ["GridMetrics", "grid_metrics", "BINNING_ELEMENTS"]

# Below glibc's largest mmap threshold (32 MiB), a block's temporaries are reused from one block to the next; at
# 64 MiB each was mmapped and zero-filled afresh (a fifth of a 1,000,000-row build's CPU time, as system time).
BINNING_ELEMENTS = 1 << 21  # (temperature, row) confidences binned at once: 16 MiB of float64 per block


class GridMetrics(NamedTuple):
    """Every metric at every temperature of a grid (see :func:`grid_metrics`).

    ``nll`` (G,) mean NLL in nats; ``brier`` (G,) multiclass Brier (0–2);
    ``mean_confidence`` (G,) mean top-label confidence; ``accuracy`` the
    fraction of rows whose raw-logit argmax is the label (a float: it does not
    depend on T); ``bins[scheme][B]`` a :class:`calib.binning.ReliabilityBins`
    of arrays (G, B) (B = ``min(B, n)`` for adaptive bins) for the requested
    bin counts; ``ece[scheme][B]`` and ``mce[scheme][B]`` (G,) the expected and
    maximum calibration error, for those bin counts and, with ``max_bins``,
    every count 1..max_bins; ``sub_bins[scheme][B]`` bins (S, B_used) at the
    ``sub_points`` temperatures (empty dicts without them); ``extra[name]``
    (G,) each extra metric's values.
    """

    nll: np.ndarray
    brier: np.ndarray
    mean_confidence: np.ndarray
    accuracy: float
    bins: Dict[str, Dict[int, ReliabilityBins]]
    ece: Dict[str, Dict[int, np.ndarray]]
    mce: Dict[str, Dict[int, np.ndarray]]
    sub_bins: Dict[str, Dict[int, ReliabilityBins]] = {}
    extra: Dict[str, np.ndarray] = {}


def _points(sub_points, size):
    """``sub_points`` as increasing int64 indices into a grid of ``size`` points."""
    points = np.asarray(() if sub_points is None else sub_points, dtype=np.int64).ravel()
    if np.any(np.diff(points) <= 0) or (points.size and (points[0] < 0 or points[-1] >= size)):
        raise ValueError(f"sub_points must hold increasing indices in [0, {size}); got {points.tolist()}")
    return points


def _extras(extra):
    """``extra`` checked: ``{name: (callable, whether it takes the rows' order)}`` (None: no extra metric)."""
    extra = dict(extra or {})
    for name, function in extra.items():
        if not isinstance(name, str) or not callable(function):
            raise ValueError(f"extra must map names to functions of (confidence, correct); got {name!r}: {function!r}")
    return {name: (function, _sort_keywords(function)) for name, function in extra.items()}


def _sort_keywords(function):
    """Which of the keyword parameters ``order`` (the rows' stable order) and ``sorted_rows`` (the rows in that
    order, ``(confidence, correct)``), both of which the grid pass knows, ``function`` has."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return ()
    return tuple(name for name in ("order", "sorted_rows") if name in parameters)


def _join(blocks):
    """The per-block results concatenated along the grid (arrays, dicts and named tuples of arrays)."""
    first = blocks[0]
    if isinstance(first, dict):
        return {key: _join([b[key] for b in blocks]) for key in first}
    if isinstance(first, tuple):
        joined = [_join(list(parts)) for parts in zip(*blocks)]
        return type(first)(*joined) if hasattr(first, "_fields") else tuple(joined)
    return first if len(blocks) == 1 else np.concatenate(blocks)


def grid_metrics(logits, labels, temps, bin_counts=(15,), schemes=SCHEMES, workers=1,
                 block_elements=BLOCK_ELEMENTS, max_bins=None, sub_points=None, sub_bin_counts=None,
                 extra=None, binning_elements=BINNING_ELEMENTS):
    """NLL, Brier, mean confidence, bins, ECE, MCE and extra metrics at every temperature, in bounded memory.

    The same numbers as :func:`calib.scores_over_grid` followed by
    :func:`calib.reliability_bins` on its (G, n) confidences for every scheme
    in ``schemes`` (``"equal-width"``, ``"adaptive"``) and every bin count in
    ``bin_counts``, but in one pass: the confidences of a block of about
    ``binning_elements`` (temperature, row) values are computed (the softmax
    in blocks of ``block_elements`` values, :func:`calib.scores_over_grid`),
    sorted once and binned, and dropped before the next block, so memory is
    O(workers × binning_elements + G × Σ bins) rather than O(G × n).

    ``max_bins`` (optional) adds the ECE and MCE of every other bin count
    1..max_bins, from one sort per temperature (:func:`calib.ece_sweep`,
    :func:`calib.mce_over_counts`: equal to the binned values up to rounding).
    ``sub_points`` (increasing indices into ``temps``) get the bins of
    ``sub_bin_counts`` (default: ``bin_counts``) in ``sub_bins``. ``extra`` maps a name to a function
    ``f(confidence, correct)`` of a block's confidences (g, n) and the rows'
    correctness (n,) returning (g,) values, such as
    :func:`calib.ks_calibration_error`; each is in ``extra[name]`` (a function with a
    keyword ``order`` is also given the rows' stable ascending order (g, n), and one with a keyword
    ``sorted_rows`` the rows in that order, ``(confidence, correct)``, when the pass sorts). With
    several blocks, ``workers`` threads share them (else they share the
    softmax). Nothing depends on ``workers``, ``block_elements`` or
    ``binning_elements``. Returns a :class:`GridMetrics`.

    >>> m = grid_metrics([[3.0, 1.0, 0.0], [0.0, 2.0, 0.5]], [0, 0], [1.0, 2.0], bin_counts=[2])  # both rows in bin 2
    >>> np.round(m.ece["equal-width"][2], 3).tolist(), m.accuracy
    ([0.29, 0.086], 0.5)
    """
    z = as_logits(logits)
    y = as_labels(labels, z.shape[0], z.shape[1])
    temps, _ = as_temperatures(temps)
    bin_counts = as_bin_counts(bin_counts)
    schemes = tuple(check_choice(scheme, SCHEMES, "scheme") for scheme in schemes)
    others = [] if max_bins is None else [b for b in range(1, positive_int(max_bins, "max_bins") + 1)
                                          if b not in bin_counts]
    points = _points(sub_points, temps.size)
    sub_counts = bin_counts if sub_bin_counts is None else as_bin_counts(sub_bin_counts, "sub_bin_counts")
    extra = _extras(extra)
    rows = _prepare(z, y)
    correct, n = rows.correct, z.shape[0]
    del z  # the pass reads only the shifted rows (with float32 logits, z was a float64 copy)
    step = max(1, positive_int(binning_elements, "binning_elements") // n)
    starts = range(0, temps.size, step)
    threads = min(positive_int(workers, "workers"), len(starts))
    sort = "adaptive" in schemes or bool(others)

    def block(start, buffers, hint):
        stop = min(temps.size, start + step)
        confidence = buffers[0][:(stop - start) * n].reshape(stop - start, n)
        nll_values, brier_values = _grid_pass(rows, temps[start:stop], block_elements, 1 if threads > 1 else workers,
                                              conf_out=confidence)
        order = ordered = None
        if sort:  # one stable sort per temperature serves every binning; the previous block's last order is the hint
            sorted_conf = buffers[1][:(stop - start) * n].reshape(stop - start, n)
            order = rows_order(confidence, hint, sorted_out=sorted_conf)
            ordered = (sorted_conf, correct[order])
        bins = bins_by_count(confidence, correct, bin_counts, order, schemes, ordered)
        ece = {s: {b: bins[s][b].weighted_gap.sum(axis=1) for b in bin_counts} for s in schemes}
        mce = {s: {b: max_gap(bins[s][b]) for b in bin_counts} for s in schemes}
        if others:  # one running sum of the sorted residuals: every other bin count's ECE and MCE
            sweep, sweep_mce = sweep_sorted(*ordered, max_bins, schemes, others)
            for (scheme, b), values in sweep_mce.items():
                ece[scheme][b] = sweep[scheme][:, b - 1]
                mce[scheme][b] = values
        inside = points[(points >= start) & (points < stop)] - start
        sub = bins_by_count(confidence[inside], correct, sub_counts, None if order is None else order[inside],
                            schemes, None if order is None else (ordered[0][inside], ordered[1][inside])) \
            if inside.size else None
        known = {"order": order, "sorted_rows": ordered}
        values = {name: np.asarray(f(confidence, correct, **({k: known[k] for k in keywords} if sort else {})),
                                   dtype=np.float64)
                  for name, (f, keywords) in extra.items()}
        for name, v in values.items():
            if v.shape != (stop - start,):
                raise ValueError(f"extra metric {name!r} returned shape {v.shape}, not ({stop - start},)")
        return (nll_values, brier_values, confidence.mean(axis=1), bins, ece, mce, values), sub, \
            None if order is None else order[-1]

    def run(first, last):
        """Blocks ``starts[first:last]``, in grid order, with one confidence buffer and the sort hint carried."""
        size = min(step, temps.size) * n  # the block's confidences, and (when it sorts) the sorted rows
        buffers, hint, out = (np.empty(size), np.empty(size if sort else 0)), None, []
        for start in starts[first:last]:
            whole, sub, hint = block(start, buffers, hint)
            out.append((whole, sub))
        return out

    cuts = [len(starts) * i // threads for i in range(threads + 1)]  # each thread a contiguous run of blocks
    if threads > 1:  # sorting and binning release the GIL
        with ThreadPoolExecutor(max_workers=threads) as pool:
            done = [d for part in pool.map(run, cuts[:-1], cuts[1:]) for d in part]
    else:
        done = run(0, len(starts))
    subs = [sub for _, sub in done if sub is not None]
    nll_values, brier_values, mean_confidence, bins, ece, mce, values = _join([whole for whole, _ in done])
    del done
    ece = {s: dict(sorted(v.items())) for s, v in ece.items()}
    mce = {s: dict(sorted(v.items())) for s, v in mce.items()}
    sub_bins = _join(subs) if subs else {s: {} for s in schemes}
    return GridMetrics(nll_values, brier_values, mean_confidence, float(correct.mean()), bins, ece, mce, sub_bins,
                       values)
