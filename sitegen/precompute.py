"""Everything the page shows, computed once over the shared temperature grid.

``precompute_all()`` calls the engine (:mod:`calib`) with the page's choices
from :mod:`sitegen.settings` and returns plain numpy arrays and floats in
natural units (probabilities, nats). Every number the prose quotes is computed
here too (the worked examples' per-row scores and bins, the fit on the plain
grid, the softmax walk-through), so the facts only select and format.
Rounding to display units is the payload's job (:mod:`sitegen.payload`),
drawing is the figures' job (:mod:`sitegen.figures`).
"""

from typing import Dict, NamedTuple, Optional

import numpy as np

from calib.validation import positive_int

from calib import (
    SCHEMES, Dataset, ReliabilityBins, ece_sweep, fit_temperature, load, max_gap, nll, part_masks,
    reliability_bins, scaled_probs, scores_over_grid,
)
from calib.binning import adaptive_bins_sorted, equal_width_bins, sort_by_confidence
from calib.scaling import example_scores

from .settings import (
    DATASETS, EXAMPLE_LIST_MAX_ROWS, FIT_BOUNDS, FIT_TOLERANCE, GRID_BOUNDS, GRID_POINTS, MAX_SWEEP_BINS,
    OFFERED_BIN_COUNTS, SHOWCASE_SIZE, SIGNIFICANT_DIGITS, SOFTMAX_SHARP_T, SOFTMAX_SOFT_T, WORKED_EXAMPLE,
    WORKED_EXAMPLE_BINS,
)

__all__ = [
    "round_significant", "base_grid", "build_grid", "grid_index", "subgrid_indices",
    "PartResult", "ExampleScores", "DatasetResult", "SoftmaxWalkthrough", "Precomputed",
    "showcase_examples", "precompute_part", "fit_for", "example_table", "softmax_walkthrough",
    "precompute_dataset", "precompute_all",
]


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


class PartResult(NamedTuple):
    """Metrics of one part (all rows, calibration or test rows, …) over the grid G.

    Probabilities are in [0, 1], NLL in nats. ``bins[scheme][B]`` is a
    :class:`ReliabilityBins` of shape (G, B_used); ``ece``/``mce`` likewise
    hold (G,) arrays; ``ece_by_bins[scheme]`` is (2, max_bins): ECE for
    1..max_bins bins at T = 1 (row 0) and at the fitted T (row 1).
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


class DatasetResult(NamedTuple):
    """One dataset's precomputation: the data, its fitted T and each part's :class:`PartResult`.

    ``showcase`` are the example indices whose probability vectors the page
    shows; ``showcase_probs`` is (G, len(showcase), K). ``base_grid_t`` and
    ``base_grid_nll`` are the NLL argmin on the fitting part over the plain
    :func:`base_grid` (without the inserted fitted T) and its NLL (nats).
    ``examples`` is an :class:`ExampleScores` for a dataset of at most
    ``EXAMPLE_LIST_MAX_ROWS`` rows, else None.
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


def precompute_part(name, logits, labels, grid, fitted_index, t1_index, bin_counts=OFFERED_BIN_COUNTS,
                    max_bins=MAX_SWEEP_BINS):
    """All grid metrics for one part (rows ``logits``, ``labels``); see :class:`PartResult`."""
    nll_values, brier_values, confidence = scores_over_grid(logits, labels, grid)
    correct = np.argmax(logits, axis=1) == labels
    bins, ece, mce = {}, {}, {}
    sorted_rows = sort_by_confidence(confidence, correct)
    binners = {
        "equal-width": lambda count: equal_width_bins(confidence, correct, count),
        "adaptive": lambda count: adaptive_bins_sorted(*sorted_rows, count),
    }
    for scheme in SCHEMES:
        bins[scheme], ece[scheme], mce[scheme] = {}, {}, {}
        for count in bin_counts:
            stats = binners[scheme](count)
            bins[scheme][count] = stats
            ece[scheme][count] = stats.weighted_gap.sum(axis=1)
            mce[scheme][count] = max_gap(stats)
    sweep = ece_sweep(confidence[[t1_index, fitted_index]], correct, max_bins=max_bins, schemes=SCHEMES)
    return PartResult(
        name=name, n=int(labels.size), accuracy=float(correct.mean()),
        nll=nll_values, brier=brier_values, mean_confidence=confidence.mean(axis=1),
        bins=bins, ece=ece, mce=mce, ece_by_bins=sweep, nll_argmin=int(np.argmin(nll_values)),
    )


def fit_for(dataset):
    """The dataset's fitted temperature and the part it was fitted on (bounded search, rounded by
    :func:`round_significant`)."""
    part = "all" if dataset.is_calibration is None else "calibration"
    rows = part_masks(dataset)[part]
    fitted = fit_temperature(dataset.logits[rows], dataset.labels[rows], method="bounded",
                             bounds=FIT_BOUNDS, tolerance=FIT_TOLERANCE)
    return float(round_significant(fitted)[0]), part


def example_table(dataset, temperatures, n_bins=WORKED_EXAMPLE_BINS):
    """:class:`ExampleScores` of every row of ``dataset`` at the two ``temperatures`` (T = 1, fitted T)."""
    temps = np.asarray(temperatures, dtype=np.float64)
    logits, labels = dataset.logits, dataset.labels
    loss, _, confidence = example_scores(logits, labels, temps[:, None, None])
    correct = np.argmax(logits, axis=1) == labels
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


def _plain_grid_fit(dataset, fitted_on):
    """NLL argmin on the fitting part over the plain :func:`base_grid`, and its NLL (nats)."""
    rows = part_masks(dataset)[fitted_on]
    logits, labels = dataset.logits[rows], dataset.labels[rows]
    t = fit_temperature(logits, labels, method="grid", grid=base_grid())
    return float(t), float(nll(logits, labels, t))


def precompute_dataset(dataset, grid, fitted_t, fitted_on, t1_index):
    """A :class:`DatasetResult` for ``dataset`` on ``grid`` (which must contain ``fitted_t`` and 1)."""
    fitted_index = grid_index(grid, fitted_t)
    parts = {
        name: precompute_part(name, dataset.logits[rows], dataset.labels[rows], grid, fitted_index, t1_index)
        for name, rows in part_masks(dataset).items()
    }
    conf1 = scores_over_grid(dataset.logits, dataset.labels, np.array([1.0]))[2][0]
    showcase = showcase_examples(conf1, np.argmax(dataset.logits, axis=1) == dataset.labels)
    probs = scaled_probs(dataset.logits[showcase], grid)
    base_t, base_nll = _plain_grid_fit(dataset, fitted_on)
    examples = None
    if dataset.labels.size <= EXAMPLE_LIST_MAX_ROWS:
        examples = example_table(dataset, grid[[t1_index, fitted_index]])
    return DatasetResult(dataset, fitted_t, fitted_on, parts, showcase, probs, base_t, base_nll, examples)


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
