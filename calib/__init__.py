"""calib: a small numpy engine for probability calibration and temperature scaling.

The public API (documented in the README):

* :func:`scaled_probs`, :func:`top_label`, :func:`nll`, :func:`brier` — scores at one or many temperatures;
* :func:`reliability_bins`, :func:`ece`, :func:`mce` — binned calibration error, equal-width or adaptive;
* :func:`fit_temperature` — the NLL-minimising temperature, bounded search or grid;
* :func:`load` and :data:`DATASET_NAMES` — the built-in datasets.
"""

from .binning import SCHEMES, ReliabilityBins, ece, mce, reliability_bins
from .datasets import DATASET_NAMES, Dataset, load
from .fitting import fit_temperature
from .scaling import brier, log_softmax, nll, predicted_class, scaled_probs, top_label

__all__ = [
    "SCHEMES", "ReliabilityBins", "reliability_bins", "ece", "mce",
    "DATASET_NAMES", "Dataset", "load",
    "fit_temperature",
    "scaled_probs", "log_softmax", "predicted_class", "top_label", "nll", "brier",
]
