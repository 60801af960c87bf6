"""Everything the page shows, computed once over the shared temperature grid.

``precompute_all()`` calls the engine (:mod:`calib`) with the page's choices
from :mod:`sitegen.common.settings` and returns plain numpy arrays and floats in
natural units (probabilities, nats). Every number the prose quotes is computed
here too (the worked examples' per-row scores and bins, the fit on the plain grid, the softmax
walk-through), so the facts only select and format. Rounding to display units is the payload's job
(:mod:`sitegen.render.payload`), drawing is the figures' job (:mod:`sitegen.figures.static_svg`).
"""

from typing import Dict, NamedTuple, Optional

import numpy as np

from calib import (
    BINNING_ELEMENTS,
    SCHEMES,
    Dataset,
    ReliabilityBins,
    SubgroupAnalysis,
    block_shape,
    ece_sweep,
    fit_temperature,
    grid_metrics,
    load,
    nll,
    part_masks,
    positive_int,
    reliability_bins,
    row_chunks,
    row_scores,
    scaled_probs,
    scores_over_grid,
    subgroup_analysis,
)
from sitegen.common.metrics import grid_extras
from sitegen.common.settings import (
    DATASETS,
    EXAMPLE_LIST_MAX_ROWS,
    FIT_BOUNDS,
    FIT_TOLERANCE,
    GRID_BOUNDS,
    GRID_POINTS,
    MAX_SWEEP_BINS,
    OFFERED_BIN_COUNTS,
    SHOWCASE_SIZE,
    SIGNIFICANT_DIGITS,
    SOFTMAX_SHARP_T,
    SOFTMAX_SOFT_T,
    SUBGRID_ROWS,
    SUBGRID_STEP,
    SUBGROUP_BIN_COUNTS,
    TABLE_BINS,
    WORKED_EXAMPLE,
    WORKED_EXAMPLE_BINS,
)

__all__ = [
    "round_significant", "base_grid", "build_grid", "grid_index", "subgrid_indices", "subgrid_on",
    "subgrid_step_for",
    "PartResult", "ExampleScores", "GroupResult", "DatasetResult", "SoftmaxWalkthrough", "Precomputed",
    "GROUP_BIN_COUNTS", "showcase_examples", "precompute_part", "precompute_groups", "fit_for", "example_table",
    "softmax_walkthrough", "precompute_dataset", "precompute_all",
]

# Bin counts of the group scores: the explorer's detailed counts (its group view), the subgroup table's and
# the table's reliability bins; each consumer reads its own counts from the one record.
GROUP_BIN_COUNTS = tuple(sorted({*OFFERED_BIN_COUNTS, *SUBGROUP_BIN_COUNTS, TABLE_BINS}))


def round_significant(values, digits=SIGNIFICANT_DIGITS):
    """Round each value to ``digits`` significant digits (so the grid prints exactly as it is computed).

    >>> round_significant([1.23456789012345, 2.0], digits=4).tolist()
    [1.235, 2.0]
    """
    values = np.asarray(values, dtype=np.float64)
    return np.array([float(f"{v:.{digits}g}") for v in np.atleast_1d(values)])


def base_grid(points=GRID_POINTS, bounds=GRID_BOUNDS):
    """``points`` geometric temperatures over ``bounds`` (the page: 534 over [0.05, 10], relative step
    ≈ 0.99%), rounded by :func:`round_significant`."""
    return round_significant(np.geomspace(*bounds, points))


def build_grid(extra_temperatures):
    """The shared grid: :func:`base_grid` plus T = 1 and each extra temperature, sorted, duplicates removed."""
    extra = round_significant(np.concatenate([[1.0], np.asarray(extra_temperatures, dtype=np.float64)]))
    return np.unique(np.concatenate([base_grid(), extra]))


def grid_index(grid, temperature):
    """Index of the point of ``grid`` equal to ``temperature`` after :func:`round_significant`.

    Every temperature the page marks (T = 1, each fitted T) is inserted into the
    grid, so it is found exactly; anything else is an error.

    >>> grid_index(np.array([0.5, 1.0, 1.229751]), 1.2297510001)
    2
    """
    found = np.flatnonzero(np.asarray(grid) == round_significant(temperature)[0])
    if found.size == 0:
        raise ValueError(f"temperature {temperature!r} is not a point of the grid")
    return int(found[0])


def subgrid_indices(grid_size, keep=(), step=10):
    """Indices of a coarse sub-grid: every ``step``-th point of a grid of ``grid_size`` points,
    the last point, and every index in ``keep`` (e.g. T = 1 and the fitted T), sorted and unique.

    >>> subgrid_indices(25, keep=[7], step=10).tolist()
    [0, 7, 10, 20, 24]
    """
    grid_size, step = positive_int(grid_size, "grid_size"), positive_int(step, "step")
    keep = np.asarray(keep, dtype=np.int64).ravel()
    if keep.size and (keep.min() < 0 or keep.max() >= grid_size):
        raise ValueError(f"keep must hold indices in [0, {grid_size}); got {keep.tolist()}")
    return np.unique(np.concatenate([np.arange(0, grid_size, step), [grid_size - 1], keep])).astype(np.int64)


def subgrid_on(grid, keep=(), step=SUBGRID_STEP):
    """Indices into ``grid`` of a coarse sub-grid that does not move when a temperature is inserted: every
    ``step``-th point of :func:`base_grid` and its last (:func:`subgrid_indices` over the base grid), and
    every index in ``keep``. A grid that lacks a point of the base grid (not the page's) gets
    :func:`subgrid_indices` of its own points. The built-in datasets' sub-grid (and so their analyses)
    is then the same with and without a reader's temperature in the grid (``build.py --data``).

    >>> grid = build_grid([1.234567])
    >>> picked = grid[subgrid_on(grid, [grid_index(grid, 1.234567)])]
    >>> picked.size, bool(np.isin(base_grid()[::10], picked).all()), 1.234567 in picked
    (56, True, True)
    """
    base = base_grid()
    picks = base[subgrid_indices(base.size, (), step)]
    at = np.searchsorted(grid, picks)
    if at.max() >= len(grid) or not np.array_equal(np.asarray(grid)[at], picks):
        return subgrid_indices(len(grid), keep, step)
    return np.unique(np.concatenate([at, np.asarray(keep, dtype=np.int64).ravel()])).astype(np.int64)


def subgrid_step_for(rows, step=SUBGRID_STEP, row_budget=SUBGRID_ROWS):
    """The sub-grid step for a largest part of ``rows`` rows: ``step · ⌈rows / row_budget⌉`` (at least ``step``).

    >>> subgrid_step_for(600), subgrid_step_for(50_000), subgrid_step_for(50_001), subgrid_step_for(500_000)
    (10, 10, 20, 100)
    """
    return positive_int(step, "step") * max(1, -(-positive_int(rows, "rows") // positive_int(row_budget, "budget")))


class PartResult(NamedTuple):
    """Metrics of one part (all rows, calibration or test rows, …) over the grid G.

    Probabilities are in [0, 1], NLL in nats. ``bins[scheme][B]`` is a
    :class:`ReliabilityBins` of shape (G, B_used) for the full-grid bin counts;
    ``ece[scheme][B]``/``mce[scheme][B]`` hold (G,) arrays for every bin count
    1..max_bins (those of the full-grid counts from their bins, the others from
    the engine's run-wise binning); ``sub_bins[scheme][B]`` is a
    :class:`ReliabilityBins` (G_s, B_used) at the sub-grid temperatures
    ``grid[subgrid]`` for the bin counts whose diagrams are sent on the sub-grid;
    ``ece_by_bins[scheme]`` is (2, max_bins): ECE for 1..max_bins bins at T = 1
    (row 0) and at the fitted T (row 1); ``extra[key]`` (G,) each extra metric of the registry
    (:mod:`sitegen.common.metrics`).
    """

    name: str
    n: int
    accuracy: float
    nll: np.ndarray
    brier: np.ndarray
    mean_confidence: np.ndarray
    bins: Dict[str, Dict[int, ReliabilityBins]]
    ece: Dict[str, Dict[int, np.ndarray]]
    mce: Dict[str, Dict[int, np.ndarray]]
    ece_by_bins: Dict[str, np.ndarray]
    nll_argmin: int
    sub_bins: Dict[str, Dict[int, ReliabilityBins]]
    extra: Dict[str, np.ndarray]


class ExampleScores(NamedTuple):
    """Every example of a small dataset at T = 1 (row 0) and at the fitted T (row 1).

    ``predicted`` (n,) is the raw-logit argmax and ``correct`` (n,) whether it is
    the label; ``confidence``, ``p_true`` (the label's probability) and ``loss``
    (its own NLL, nats) are (2, n); ``bin_index``, ``bin_lower``, ``bin_upper``
    (2, n) locate its confidence among ``n_bins`` equal-width bins.
    """

    predicted: np.ndarray
    correct: np.ndarray
    confidence: np.ndarray
    p_true: np.ndarray
    loss: np.ndarray
    n_bins: int
    bin_index: np.ndarray
    bin_lower: np.ndarray
    bin_upper: np.ndarray


class GroupResult(NamedTuple):
    """The groups of a dataset, for the explorer's group view and the subgroup table.

    ``scores`` is the engine's :class:`calib.SubgroupAnalysis` (the one fit of the group temperatures,
    rounded like the global T, and every group and the pool under T = 1, the global T and their own T,
    for :data:`GROUP_BIN_COUNTS`); ``parts[part][name]`` a :class:`PartResult` of the group's rows over
    the grid (ECE and MCE for the full-grid bin counts, diagrams on the sub-grid).
    """

    scores: SubgroupAnalysis
    parts: Dict[str, Dict[str, PartResult]]

    @property
    def names(self):
        """The groups, in order of first appearance."""
        return self.scores.groups

    @property
    def temperatures(self):
        """``{group: its own fitted T}`` (without the global T)."""
        return {g: self.scores.temperatures[g] for g in self.scores.groups}


class DatasetResult(NamedTuple):
    """One dataset's precomputation: the data, its fitted T and each part's :class:`PartResult`.

    ``showcase`` are the example indices whose probability vectors the page
    shows; ``showcase_probs`` is (G, len(showcase), K). ``base_grid_t`` and
    ``base_grid_nll`` are the NLL argmin on the fitting part over the plain
    :func:`base_grid` (without the inserted fitted T) and its NLL (nats).
    ``examples`` is an :class:`ExampleScores` for a dataset of at most
    ``EXAMPLE_LIST_MAX_ROWS`` rows, else None. ``subgrid`` are the grid indices of the
    coarse sub-grid (:func:`subgrid_step_for`, T = 1 and the fitted T, as the analyses use);
    ``groups`` a :class:`GroupResult` for a dataset with groups, else None.
    """

    dataset: Dataset
    fitted_t: float
    fitted_on: str
    parts: Dict[str, PartResult]
    showcase: np.ndarray
    showcase_probs: np.ndarray
    base_grid_t: float
    base_grid_nll: float
    examples: Optional[ExampleScores]
    subgrid: Optional[np.ndarray] = None
    groups: Optional[GroupResult] = None


class SoftmaxWalkthrough(NamedTuple):
    """One row's class probabilities at a few named temperatures.

    ``logits`` (K,), ``label``; ``temperatures`` maps each name to its T, in
    the row order of ``probs`` (m, K); ``top`` (m,) is the largest probability
    and ``ratio`` (m,) the first class's probability over the second's.
    """

    logits: np.ndarray
    label: int
    temperatures: Dict[str, float]
    probs: np.ndarray
    top: np.ndarray
    ratio: np.ndarray


class Precomputed(NamedTuple):
    """The whole precomputation: the shared grid, index of T = 1, each dataset's result, and the
    softmax walk-through of the worked example (None when it is not among the datasets)."""

    grid: np.ndarray
    t1_index: int
    datasets: Dict[str, DatasetResult]
    softmax: Optional[SoftmaxWalkthrough] = None

    def index_of(self, temperature):
        """Index of the grid point equal to ``temperature`` (see :func:`grid_index`)."""
        return grid_index(self.grid, temperature)


def showcase_examples(confidence, correct, size=SHOWCASE_SIZE):
    """Indices of ``size`` contrasting examples at T = 1 (or all, if there are no more).

    Half correct, half wrong; within each, the most confident, the least
    confident and the one at the median confidence. Returned in ascending order.
    """
    n = confidence.size
    if n <= size:
        return np.arange(n)
    chosen = []
    for outcome in (True, False):
        idx = np.flatnonzero(correct == outcome)
        idx = idx[np.argsort(confidence[idx], kind="stable")]
        for position in (len(idx) - 1, len(idx) // 2, 0):
            if len(idx):
                chosen.append(idx[position])
    rest = [i for i in np.argsort(-confidence, kind="stable") if i not in chosen]
    chosen = list(dict.fromkeys(chosen)) + rest
    return np.sort(np.array(chosen[:size]))


PRECOMPUTE_BLOCK_ELEMENTS = BINNING_ELEMENTS  # temperatures × rows of confidences binned at once (64 MiB)
PARALLEL_ELEMENTS = 1 << 24  # rows × classes from which the grid's exponentials run on two threads
PARALLEL_ROWS = 1 << 16  # rows from which two blocks of temperatures are binned at once (figures unchanged)


def precompute_part(name, logits, labels, grid, fitted_index, t1_index, bin_counts=OFFERED_BIN_COUNTS,
                    max_bins=MAX_SWEEP_BINS, subgrid=None, sub_bin_counts=None, all_counts=True,
                    block_elements=PRECOMPUTE_BLOCK_ELEMENTS):
    """All grid metrics for one part (rows ``logits``, ``labels``); see :class:`PartResult`.

    One pass of :func:`calib.grid_metrics`: ``bin_counts`` get full-grid bins; with ``all_counts``, ECE and
    MCE also for every other count 1..``max_bins``; ``sub_bin_counts`` (default: every other count
    1..``max_bins``) get bins at the ``subgrid`` temperatures (increasing grid indices; default: none); every
    extra metric of the registry (:func:`sitegen.common.metrics.grid_extras`) is computed too. The grid is
    processed in blocks of about ``block_elements`` (temperature, row) confidences, so memory stays bounded
    whatever n; every temperature's figures are the same as in one pass (each is computed row by row).
    """
    others = [b for b in range(1, max_bins + 1) if b not in bin_counts]
    sub_counts = others if sub_bin_counts is None else sub_bin_counts
    points = () if subgrid is None or not len(sub_counts) else subgrid
    m = grid_metrics(logits, labels, grid, bin_counts, SCHEMES, workers=_workers_for(logits, binning=True),
                     max_bins=max_bins if all_counts else None, sub_points=points, sub_bin_counts=sub_counts or None,
                     extra=grid_extras(), binning_elements=block_elements)
    correct = np.argmax(logits, axis=1) == labels
    pair = scores_over_grid(logits, labels, grid[[t1_index, fitted_index]])[2]
    sweep = ece_sweep(pair, correct, max_bins=max_bins, schemes=SCHEMES)
    return PartResult(
        name=name, n=int(labels.size), accuracy=m.accuracy, nll=m.nll, brier=m.brier,
        mean_confidence=m.mean_confidence, bins=m.bins, ece=m.ece, mce=m.mce, ece_by_bins=sweep,
        nll_argmin=int(np.argmin(m.nll)), sub_bins=m.sub_bins, extra=m.extra,
    )


def precompute_groups(dataset, grid, fitted_t, fitted_index, t1_index, subgrid):
    """A :class:`GroupResult` for ``dataset`` (which has groups, and whose global T is ``fitted_t``): the
    engine's :func:`calib.subgroup_analysis` (the build's one fit of the group temperatures) and each
    group's rows over the grid."""
    scores = subgroup_analysis(dataset, fitted_t, GROUP_BIN_COUNTS,
                               round_temperature=lambda t: round_significant(t)[0], extra=grid_extras())
    names = np.asarray(dataset.groups)

    def over_grid(g, rows):
        return precompute_part(g, dataset.logits[rows], dataset.labels[rows], grid, fitted_index, t1_index,
                               subgrid=subgrid, sub_bin_counts=OFFERED_BIN_COUNTS, all_counts=False)

    parts = {part: {g: over_grid(g, mask & (names == g)) for g in scores.groups}
             for part, mask in part_masks(dataset).items()}
    return GroupResult(scores, parts)


def fit_for(dataset):
    """The dataset's fitted temperature and the part it was fitted on (bounded search, rounded by
    :func:`round_significant`)."""
    part = "all" if dataset.is_calibration is None else "calibration"
    rows = part_masks(dataset)[part]
    fitted = fit_temperature(dataset.logits[rows], dataset.labels[rows], method="bounded",
                             bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE, workers=_workers_for(dataset.logits[rows]))
    return float(round_significant(fitted)[0]), part


def _workers_for(logits, binning=False):
    """Threads for the exponentials of ``logits`` (n, K): two from :data:`PARALLEL_ELEMENTS` values, else one;
    with ``binning`` (the grid pass, whose blocks of temperatures are binned on the threads), also two from
    :data:`PARALLEL_ROWS` rows (results never depend on it; on a busy 2-core machine a second thread only
    pays off for heavy work)."""
    n, k = logits.shape
    return 2 if n * k >= PARALLEL_ELEMENTS or (binning and n >= PARALLEL_ROWS) else 1


def example_table(dataset, temperatures, n_bins=WORKED_EXAMPLE_BINS):
    """:class:`ExampleScores` of every row of ``dataset`` at the two ``temperatures`` (T = 1, fitted T)."""
    temps = np.asarray(temperatures, dtype=np.float64)
    logits, labels = dataset.logits, dataset.labels
    confidence, correct, loss, _ = row_scores(logits, labels, temps[:, None])
    p_true = scaled_probs(logits, temps)[:, np.arange(labels.size), labels]
    # one row per (temperature, example): each example binned alone, by the engine's equal-width rule
    alone = reliability_bins(confidence.reshape(-1, 1), np.tile(correct, temps.size).reshape(-1, 1), n_bins)
    index = np.argmax(alone.count, axis=1)
    pick = np.arange(index.size)
    return ExampleScores(
        predicted=np.argmax(logits, axis=1), correct=correct, confidence=confidence, p_true=p_true, loss=loss,
        n_bins=int(n_bins), bin_index=index.reshape(temps.size, -1),
        bin_lower=alone.lower[pick, index].reshape(temps.size, -1),
        bin_upper=alone.upper[pick, index].reshape(temps.size, -1))


def softmax_walkthrough(result, sharp_t=SOFTMAX_SHARP_T, soft_t=SOFTMAX_SOFT_T):
    """The first row of ``result``'s dataset at T = 1 (``t1``), its fitted T (``fit``) and the
    illustrative ``sharp`` and ``soft`` temperatures, as a :class:`SoftmaxWalkthrough`."""
    logits = result.dataset.logits[:1]
    temps = {"t1": 1.0, "fit": result.fitted_t, "sharp": sharp_t, "soft": soft_t}
    probs = scaled_probs(logits, np.array(list(temps.values())))[:, 0, :]
    return SoftmaxWalkthrough(logits=logits[0], label=int(result.dataset.labels[0]), temperatures=temps,
                              probs=probs, top=probs.max(axis=1), ratio=probs[:, 0] / probs[:, 1])


def _plain_grid_fit(dataset, fitted_on, grid, part):
    """NLL argmin on the fitting part over the plain :func:`base_grid`, and its NLL (nats): read from the part's
    NLL over the shared ``grid`` (``part``, a :class:`PartResult`; the base grid is a subset of it), the same
    kernel :func:`calib.fit_temperature` with ``method="grid"`` runs, instead of a second pass over the rows."""
    base = base_grid()
    rows = part_masks(dataset)[fitted_on]
    logits, labels = dataset.logits[rows], dataset.labels[rows]
    at = np.minimum(np.searchsorted(grid, base), grid.size - 1)
    if np.array_equal(grid[at], base):
        t = float(base[np.argmin(np.asarray(part.nll)[at])])
    else:  # a grid without the base grid (not the page's): the direct search
        t = float(fit_temperature(logits, labels, method="grid", grid=base, workers=_workers_for(logits)))
    return t, float(nll(logits, labels, t))


CONFIDENCE_BLOCK_ELEMENTS = 1 << 22  # logits (32 MiB of float64) per block of rows of _confidence_at_one


def _confidence_at_one(logits, labels, elements=CONFIDENCE_BLOCK_ELEMENTS):
    """Top-label confidence (n,) of every row at T = 1, a block of about ``elements`` logits at a time (no float64
    copy of every row at once). Blocks are :func:`calib.block_shape`'s rows (a multiple of its row alignment) and
    :func:`calib.row_chunks` never leaves one row alone, so each row gets the bits of one pass over all rows."""
    n, k = logits.shape
    step = block_shape(n, k, 1, elements)[1]
    return np.concatenate([scores_over_grid(logits[rows], labels[rows], np.array([1.0]))[2][0]
                           for rows in row_chunks(n, step)])


def precompute_dataset(dataset, grid, fitted_t, fitted_on, t1_index):
    """A :class:`DatasetResult` for ``dataset`` on ``grid`` (which must contain ``fitted_t`` and 1)."""
    fitted_index = grid_index(grid, fitted_t)
    masks = part_masks(dataset)
    step = subgrid_step_for(max(int(rows.sum()) for rows in masks.values()))  # by the largest part's rows
    subgrid = subgrid_on(grid, [t1_index, fitted_index], step)
    parts = {
        name: precompute_part(name, dataset.logits[rows], dataset.labels[rows], grid, fitted_index, t1_index,
                              subgrid=subgrid)
        for name, rows in masks.items()
    }
    conf1 = _confidence_at_one(dataset.logits, dataset.labels)
    showcase = showcase_examples(conf1, np.argmax(dataset.logits, axis=1) == dataset.labels)
    probs = scaled_probs(dataset.logits[showcase], grid)
    base_t, base_nll = _plain_grid_fit(dataset, fitted_on, grid, parts[fitted_on])
    examples = None
    if dataset.labels.size <= EXAMPLE_LIST_MAX_ROWS:
        examples = example_table(dataset, grid[[t1_index, fitted_index]])
    groups = None
    if dataset.groups is not None:
        groups = precompute_groups(dataset, grid, fitted_t, fitted_index, t1_index, subgrid)
    return DatasetResult(dataset, fitted_t, fitted_on, parts, showcase, probs, base_t, base_nll, examples,
                         subgrid, groups)


def precompute_all(names=DATASETS):
    """Fit every dataset, build the shared grid around the fitted temperatures, and compute every metric."""
    datasets = [load(name) for name in names]
    fits = [fit_for(d) for d in datasets]
    grid = build_grid([t for t, _ in fits])
    t1_index = grid_index(grid, 1.0)
    results = {
        d.name: precompute_dataset(d, grid, t, part, t1_index) for d, (t, part) in zip(datasets, fits)
    }
    softmax = softmax_walkthrough(results[WORKED_EXAMPLE]) if WORKED_EXAMPLE in results else None
    return Precomputed(grid, t1_index, results, softmax)
