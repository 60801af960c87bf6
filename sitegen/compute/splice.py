"""One more temperature in a finished precomputation, computed at that point alone.

A reader's model (``build.py --data``) adds its fitted T to the shared grid. Instead of recomputing every
built-in dataset over the whole grid, :func:`insert_temperature` takes the plain build's precomputation
(cached) and inserts, into every array with a grid axis, each dataset's values at the new temperature
(one pass of the same functions over a grid of at most three points: T = 1, the dataset's fitted T and the
new one). Everything else (the sub-grid's temperatures, the worked examples at T = 1 and the fitted T,
the group fits, the bin sweeps) does not depend on the new point and is kept; grid indices are shifted.
The result equals a full precomputation on the larger grid (tests/test_splice.py compares every field).
"""

import numpy as np

from calib import ReliabilityBins, part_masks, scaled_probs
from sitegen.compute.precompute import (
    OFFERED_BIN_COUNTS,
    GroupResult,
    PartResult,
    Precomputed,
    grid_index,
    precompute_part,
    round_significant,
)

__all__ = ["insert_temperature"]


def insert_temperature(precomputed, temperature):
    """``precomputed`` (a :class:`sitegen.compute.precompute.Precomputed`) on its grid with ``temperature``
    (rounded as every grid point is) inserted; unchanged if the grid already holds it."""
    t = float(round_significant(temperature)[0])
    grid = precomputed.grid
    if np.any(grid == t):
        return precomputed
    at = int(np.searchsorted(grid, t))
    datasets = {name: _with_point(result, at, t) for name, result in precomputed.datasets.items()}
    t1_index = precomputed.t1_index + (precomputed.t1_index >= at)
    return Precomputed(np.insert(grid, at, t), t1_index, datasets, precomputed.softmax)


def _with_point(result, at, t):
    """One :class:`DatasetResult` with the values at ``t`` inserted at grid index ``at``."""
    data = result.dataset
    mini = np.unique([1.0, result.fitted_t, t])
    k, fitted, one = (grid_index(mini, v) for v in (t, result.fitted_t, 1.0))

    def point(name, rows, **options):
        return precompute_part(name, data.logits[rows], data.labels[rows], mini, fitted, one, **options)

    masks = part_masks(data)
    parts = {name: _insert_part(part, point(name, masks[name]), at, k) for name, part in result.parts.items()}
    groups = result.groups
    if groups is not None:
        names = np.asarray(data.groups)
        groups = GroupResult(groups.scores, {
            part: {g: _insert_part(p, point(g, masks[part] & (names == g), sub_bin_counts=OFFERED_BIN_COUNTS,
                                             all_counts=False), at, k)
                   for g, p in by_group.items()}
            for part, by_group in groups.parts.items()})
    probs = np.insert(result.showcase_probs, at, scaled_probs(data.logits[result.showcase], np.array([t]))[0],
                      axis=0)
    subgrid = None if result.subgrid is None else result.subgrid + (result.subgrid >= at)
    return result._replace(parts=parts, showcase_probs=probs, subgrid=subgrid, groups=groups)


def _insert_part(part, point, at, k):
    """``part`` (a :class:`PartResult` over the grid) with row ``k`` of ``point`` (the same rows over the small
    grid) inserted at grid index ``at`` in every field with a grid axis."""
    def put(values, new):
        return np.insert(values, at, np.asarray(new)[k], axis=0)

    def per_count(table, new):
        return {scheme: {b: put(v, new[scheme][b]) for b, v in by_count.items()} for scheme, by_count in table.items()}

    bins = {scheme: {b: ReliabilityBins(*(put(v, n) for v, n in zip(bins, point.bins[scheme][b])))
                     for b, bins in by_count.items()}
            for scheme, by_count in part.bins.items()}
    nll = put(part.nll, point.nll)
    return PartResult(
        name=part.name, n=part.n, accuracy=part.accuracy, nll=nll, brier=put(part.brier, point.brier),
        mean_confidence=put(part.mean_confidence, point.mean_confidence), bins=bins,
        ece=per_count(part.ece, point.ece), mce=per_count(part.mce, point.mce), ece_by_bins=part.ece_by_bins,
        nll_argmin=int(np.argmin(nll)), sub_bins=part.sub_bins,
        extra={key: put(v, point.extra[key]) for key, v in part.extra.items()})
