"""calib: a small numpy engine for probability calibration and temperature scaling.

A library a practitioner can import for their own model: pure functions over
arrays, vectorised over temperatures, no page choices and no plotting. The
public API (documented in the README):

* :func:`scaled_probs`, :func:`top_label`, :func:`nll`, :func:`brier`, :func:`scores_over_grid` —
  scores at one or many temperatures;
* :func:`reliability_bins`, :func:`ece`, :func:`mce`, :func:`max_gap` — binned calibration error,
  equal-width or adaptive;
* :func:`fit_temperature` — the NLL-minimising temperature, bounded search or on a given grid;
* :func:`ece_sweep`, :func:`bootstrap_spread`, :func:`noise_floor` — what one sample can tell;
* :func:`load`, :func:`part_masks` and :data:`DATASET_NAMES` — the built-in datasets and their split.
"""

from .binning import SCHEMES, ReliabilityBins, ece, max_gap, mce, reliability_bins
from .datasets import DATASET_NAMES, Dataset, load, part_masks
from .fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, fit_temperature
from .scaling import brier, log_softmax, nll, predicted_class, scaled_probs, scores_over_grid, top_label
from .uncertainty import (
    DEFAULT_DRAWS, DEFAULT_RESAMPLES, BootstrapSpread, NoiseFloor, bootstrap_spread, ece_sweep, noise_floor,
)

__all__ = [
    "SCHEMES", "ReliabilityBins", "reliability_bins", "ece", "mce", "max_gap",
    "DATASET_NAMES", "Dataset", "load", "part_masks",
    "DEFAULT_BOUNDS", "DEFAULT_TOLERANCE", "fit_temperature",
    "scaled_probs", "log_softmax", "predicted_class", "top_label", "nll", "brier", "scores_over_grid",
    "DEFAULT_RESAMPLES", "DEFAULT_DRAWS", "BootstrapSpread", "NoiseFloor", "ece_sweep", "bootstrap_spread",
    "noise_floor",
]
