"""Everything the page shows, computed once over the shared temperature grid.

``precompute_all()`` returns plain numpy arrays and floats in natural units
(probabilities, nats); rounding to display units is the payload's job
(:mod:`calib.payload`), drawing is the figures' job (:mod:`calib.figures`).
"""

from typing import Dict, NamedTuple

import numpy as np

from .binning import (
    SCHEMES, ReliabilityBins, adaptive_bins_sorted, equal_width_bins, reliability_bins, sort_by_confidence,
)
from .datasets import DATASET_NAMES, Dataset, load
from .fitting import fit_temperature
from .scaling import as_temperatures, scaled_probs, scores_at

__all__ = [
    "GRID_POINTS", "GRID_BOUNDS", "OFFERED_BIN_COUNTS", "MAX_SWEEP_BINS", "SHOWCASE_SIZE",
    "base_grid", "round_significant", "build_grid", "scores_over_grid",
    "PartResult", "DatasetResult", "Precomputed", "precompute_part", "precompute_dataset", "precompute_all",
    "showcase_examples", "part_masks",
]

GRID_POINTS = 534
GRID_BOUNDS = (0.05, 10.0)
OFFERED_BIN_COUNTS = (4, 5, 10, 15, 20)
MAX_SWEEP_BINS = 50
SHOWCASE_SIZE = 6
TEMPERATURE_BLOCK = 8  # temperatures per block: small blocks stay in cache and bound peak memory


def round_significant(values, digits=10):
    """Round each value to ``digits`` significant digits (so the grid prints exactly as it is computed)."""
    values = np.asarray(values, dtype=np.float64)
    return np.array([float(f"{v:.{digits}g}") for v in np.atleast_1d(values)])


def base_grid():
    """The 534 geometric grid points over [0.05, 10] (relative step ≈ 0.99%), rounded to 10 significant digits."""
    return round_significant(np.geomspace(*GRID_BOUNDS, GRID_POINTS))


def build_grid(extra_temperatures):
    """The shared grid: :func:`base_grid` plus T = 1 and each extra temperature, sorted, duplicates removed."""
    extra = round_significant(np.concatenate([[1.0], np.asarray(extra_temperatures, dtype=np.float64)]))
    return np.unique(np.concatenate([base_grid(), extra]))


def scores_over_grid(logits, labels, temps, block=TEMPERATURE_BLOCK):
    """NLL (nats), Brier and top-label confidence at every temperature.

    Returns ``(nll, brier, confidence)`` with shapes (G,), (G,), (G, n), the
    same numbers :func:`calib.nll`, :func:`calib.brier` and :func:`calib.top_label`
    give. The grid is processed ``block`` temperatures at a time so that the
    (G, n, K) tensor of exponentials never exists whole.
    """
    temps, _ = as_temperatures(temps)
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels, dtype=np.int64)
    nll = np.empty(temps.size)
    brier = np.empty(temps.size)
    confidence = np.empty((temps.size, z.shape[0]))
    for start in range(0, temps.size, block):
        chunk = slice(start, start + block)
        nll[chunk], brier[chunk], confidence[chunk] = scores_at(z, y, temps[chunk])
    return nll, brier, confidence


class PartResult(NamedTuple):
    """Metrics of one part (all rows, calibration or test rows, …) over the grid G.

    Probabilities are in [0, 1], NLL in nats. ``bins[scheme][B]`` is a
    :class:`ReliabilityBins` of shape (G, B_used); ``ece``/``mce`` likewise
    hold (G,) arrays; ``ece_by_bins[scheme]`` is (2, MAX_SWEEP_BINS): ECE for
    1..50 bins at T = 1 (row 0) and at the fitted T (row 1).
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


class DatasetResult(NamedTuple):
    """One dataset's precomputation: the data, its fitted T and each part's :class:`PartResult`.

    ``showcase`` are the example indices whose probability vectors the page
    shows; ``showcase_probs`` is (G, len(showcase), K).
    """

    dataset: Dataset
    fitted_t: float
    fitted_on: str
    parts: Dict[str, PartResult]
    showcase: np.ndarray
    showcase_probs: np.ndarray


class Precomputed(NamedTuple):
    """The whole precomputation: the shared grid, index of T = 1, and each dataset's result."""

    grid: np.ndarray
    t1_index: int
    datasets: Dict[str, DatasetResult]

    def index_of(self, temperature):
        """Index of the grid point equal to ``temperature`` after 10-significant-digit rounding."""
        return int(np.flatnonzero(self.grid == round_significant(temperature)[0])[0])


def part_masks(dataset):
    """The parts a dataset is shown in, as ``{name: boolean mask}``: ``all`` if unsplit, else ``calibration`` and ``test``."""
    if dataset.is_calibration is None:
        return {"all": np.ones(dataset.labels.size, dtype=bool)}
    return {"calibration": dataset.is_calibration, "test": ~dataset.is_calibration}


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


def precompute_part(name, logits, labels, grid, fitted_index, t1_index, bin_counts=OFFERED_BIN_COUNTS):
    """All grid metrics for one part (rows ``logits``, ``labels``); see :class:`PartResult`."""
    nll, brier, confidence = scores_over_grid(logits, labels, grid)
    correct = np.argmax(logits, axis=1) == labels
    bins, ece, mce, sweep = {}, {}, {}, {}
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
            gaps = np.where(stats.count > 0, np.abs(np.nan_to_num(stats.accuracy) - np.nan_to_num(stats.confidence)), 0.0)
            mce[scheme][count] = gaps.max(axis=1)
        at_two = confidence[[t1_index, fitted_index]]
        sweep[scheme] = np.stack([
            reliability_bins(at_two, correct, count, scheme).weighted_gap.sum(axis=1)
            for count in range(1, MAX_SWEEP_BINS + 1)
        ], axis=1)
    return PartResult(
        name=name, n=int(labels.size), accuracy=float(correct.mean()),
        nll=nll, brier=brier, mean_confidence=confidence.mean(axis=1),
        bins=bins, ece=ece, mce=mce, ece_by_bins=sweep, nll_argmin=int(np.argmin(nll)),
    )


def fit_for(dataset):
    """The dataset's fitted temperature and the part it was fitted on (bounded search, rounded to 10 significant digits)."""
    part = "all" if dataset.is_calibration is None else "calibration"
    rows = part_masks(dataset)[part]
    fitted = fit_temperature(dataset.logits[rows], dataset.labels[rows], method="bounded")
    return float(round_significant(fitted)[0]), part


def precompute_dataset(dataset, grid, fitted_t, fitted_on, t1_index):
    """A :class:`DatasetResult` for ``dataset`` on ``grid`` (which must contain ``fitted_t`` and 1)."""
    fitted_index = int(np.flatnonzero(grid == fitted_t)[0])
    parts = {
        name: precompute_part(name, dataset.logits[rows], dataset.labels[rows], grid, fitted_index, t1_index)
        for name, rows in part_masks(dataset).items()
    }
    conf1 = scores_at(dataset.logits, dataset.labels, np.array([1.0]))[2][0]
    showcase = showcase_examples(conf1, np.argmax(dataset.logits, axis=1) == dataset.labels)
    probs = scaled_probs(dataset.logits[showcase], grid)
    return DatasetResult(dataset, fitted_t, fitted_on, parts, showcase, probs)


def precompute_all(names=DATASET_NAMES):
    """Fit every dataset, build the shared grid around the fitted temperatures, and compute every metric."""
    datasets = [load(name) for name in names]
    fits = [fit_for(d) for d in datasets]
    grid = build_grid([t for t, _ in fits])
    t1_index = int(np.flatnonzero(grid == 1.0)[0])
    results = {
        d.name: precompute_dataset(d, grid, t, part, t1_index) for d, (t, part) in zip(datasets, fits)
    }
    return Precomputed(grid, t1_index, results)
