"""calib: a small numpy engine for probability calibration and temperature scaling.

A library a practitioner can import for their own model: pure functions over
arrays, vectorised over temperatures, no page choices and no plotting. The
public API (documented in the README):

* :func:`scaled_probs`, :func:`top_label`, :func:`nll`, :func:`brier`, :func:`scores_over_grid` —
  scores at one or many temperatures;
* :func:`reliability_bins`, :func:`ece`, :func:`mce`, :func:`max_gap` — binned calibration error,
  equal-width or adaptive (:func:`equal_mass_bounds`: the adaptive scheme's groups);
* :func:`fit_temperature` — the NLL-minimising temperature, bounded search or on a given grid;
  :func:`fit_weighted_temperatures` — one fit per weighting of the rows (e.g. bootstrap resamples);
  :func:`nll_beta_derivatives` — slope and curvature of NLL in 1/T;
* :func:`bootstrap_draws`, :func:`bootstrap_spread` — how much ECE, NLL and Brier move when the sample is
  resampled; :func:`paired_difference` — the paired bootstrap of a change between two temperatures;
* :func:`noise_floor` — what a perfectly calibrated model with the same confidences would score, including
  how many bins fall outside their bands (:func:`bins_outside`, :func:`tail_share`);
* :func:`ece_sweep` — the ECE for every bin count 1..max_bins, and the run-wise binning under it
  (:func:`sort_rows`, :func:`bin_positions`, :func:`bin_layout`, :func:`ece_from_prefix`);
* :func:`sorted_quantiles`, :func:`count_quantiles` — quantiles of many short rows; their Monte Carlo error:
  :func:`quantile_interval` (order statistics, :func:`order_statistic_ranks`), :func:`quantile_standard_error`;
* :func:`load`, :func:`part_masks` and :data:`DATASET_NAMES` — the built-in datasets and their split;
* :func:`load_predictions`, :func:`split_masks` and :class:`InputError` (:mod:`calib.io`) — a user's own
  logits and labels from ``.npz`` or ``.csv``, and how their rows are split (``python -m calib fit FILE``).
"""

from .binning import SCHEMES, ReliabilityBins, ece, equal_mass_bounds, max_gap, mce, reliability_bins
from .bootstrap import (
    DEFAULT_RESAMPLES, BootstrapDraws, BootstrapSpread, PairedDifference, ScoreSet, bootstrap_draws, bootstrap_spread,
    count_prefix, paired_difference, quantile_standard_error, resample_counts,
)
from .datasets import DATASET_NAMES, Dataset, load, part_masks
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .floor import DEFAULT_DRAWS, DEFAULT_SWEEP_DRAWS, NoiseFloor, bins_outside, noise_floor, segment_cdfs, tail_share
from .io import InputError, Predictions, load_predictions, split_masks
from .quantiles import (
    FLOOR_QUANTILES, SPREAD_QUANTILES, SWEEP_QUANTILES, count_quantiles, order_statistic_ranks, quantile_interval,
    sorted_quantiles,
)
from .refit import fit_weighted_temperatures, nll_beta_derivatives, weighted_nll
from .runs import BinLayout, bin_layout, bin_positions, ece_from_prefix, ece_sweep, sort_rows
from .scaling import (
    BLOCK_ELEMENTS, GridMetrics, block_shape, brier, grid_metrics, log_softmax, nll, predicted_class, row_chunks,
    scaled_probs, scores_over_grid, top_label,
)

__all__ = [
    "SCHEMES", "ReliabilityBins", "reliability_bins", "ece", "mce", "max_gap", "equal_mass_bounds",
    "DEFAULT_RESAMPLES", "BootstrapSpread", "bootstrap_spread", "resample_counts", "count_prefix",
    "ScoreSet", "BootstrapDraws", "bootstrap_draws", "PairedDifference", "paired_difference", "quantile_standard_error",
    "DATASET_NAMES", "Dataset", "load", "part_masks",
    "DEFAULT_BOUNDS", "DEFAULT_TOLERANCE", "fit_temperature",
    "InputError", "Predictions", "load_predictions", "split_masks",
    "fit_weighted_temperatures", "nll_beta_derivatives", "weighted_nll",
    "DEFAULT_DRAWS", "DEFAULT_SWEEP_DRAWS", "NoiseFloor", "noise_floor", "segment_cdfs", "bins_outside", "tail_share",
    "SPREAD_QUANTILES", "FLOOR_QUANTILES", "SWEEP_QUANTILES", "sorted_quantiles", "count_quantiles",
    "order_statistic_ranks", "quantile_interval",
    "BinLayout", "bin_layout", "bin_positions", "ece_from_prefix", "ece_sweep", "sort_rows",
    "scaled_probs", "log_softmax", "predicted_class", "top_label", "nll", "brier", "scores_over_grid",
    "grid_metrics", "GridMetrics", "block_shape", "row_chunks", "BLOCK_ELEMENTS",
]
