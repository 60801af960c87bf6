"""calib: a small numpy engine for probability calibration and temperature scaling.

A library a practitioner can import for their own model: pure functions over
arrays, vectorised over temperatures, no page choices and no plotting. The
public API (documented in the README):

* :func:`scaled_probs`, :func:`top_label`, :func:`nll`, :func:`brier`, :func:`scores_over_grid` —
  scores at one or many temperatures;
* :func:`reliability_bins`, :func:`ece`, :func:`mce`, :func:`max_gap` — binned calibration error,
  equal-width or adaptive (:func:`equal_mass_bounds`: the adaptive scheme's groups);
* :func:`fit_temperature` — the NLL-minimising (or Brier-minimising) temperature, bounded search or on a given grid;
  :func:`fit_weighted_temperatures` — one fit per weighting of the rows (e.g. bootstrap resamples);
  :func:`nll_beta_derivatives` — slope and curvature of NLL in 1/T, and :func:`marginal_balance` — their
  split by group (a :class:`Balance`);
* :func:`bootstrap_draws`, :func:`bootstrap_spread` — how much ECE, NLL and Brier move when the sample is
  resampled; :func:`paired_difference` — the paired bootstrap of a change between two temperatures;
* :func:`noise_floor` — what a perfectly calibrated model with the same confidences would score, including
  how many bins fall outside their bands (:func:`bins_outside`, :func:`tail_share`);
* :func:`ece_sweep` — the ECE for every bin count 1..max_bins, and the run-wise binning under it
  (:func:`sort_rows`, :func:`rows_order`, :func:`bin_positions`, :func:`bin_layout`, :func:`prefix_sums`,
  :func:`ece_from_prefix`); many bin counts from one sort: :func:`binnings_over_counts`,
  :func:`mce_over_counts`, :func:`bins_by_count`;
* :func:`row_scores` — each row's confidence, NLL and Brier at one temperature per row;
  :func:`row_scores_over_grid` — each row's confidence and NLL at many temperatures, in bounded memory;
  :func:`log_normaliser` — the softmax normaliser they share with the weighted fits;
* :func:`ks_calibration_error` (:mod:`calib.measures`, every measure of (confidence, correct) that needs
  no bins, the form :func:`grid_metrics` takes as an extra metric) — the Kolmogorov–Smirnov calibration error;
* :func:`smooth_ece`, :func:`smooth_reliability` (:mod:`calib.smooth`) — the binning-free smooth ECE and the
  kernel-smoothed reliability curve, with their building blocks (:func:`smooth_ece_at`, :func:`smooth_on`,
  :func:`reflected_gaussian_smooth`, :func:`deposit`, :func:`interpolate`, :func:`mesh_points`,
  :func:`eval_points`);
* :func:`subgroup_analysis` (:mod:`calib.subgroups`) — every group and the pool under T = 1, one global T
  and one T per group (:func:`fit_group_temperatures`), each set of rows a :class:`GroupMetrics`
  (:func:`group_metrics`); :data:`CONDITIONS`, :data:`POOLED`;
* :func:`sorted_quantiles`, :func:`count_quantiles` — quantiles of many short rows; their Monte Carlo error:
  :func:`quantile_interval` (order statistics, :func:`order_statistic_ranks`), :func:`quantile_standard_error`;
* :func:`load`, :func:`part_masks`, :func:`even_odd_split` and :data:`DATASET_NAMES` — the built-in datasets
  and their split; the modules :mod:`calib.datasets` and :mod:`calib.rng`, whose constants are the recipes
  of the built-in data;
* :func:`load_predictions`, :func:`split_masks` and :class:`InputError` (:mod:`calib.io`) — a user's own
  logits and labels from ``.npz`` or ``.csv``, and how their rows are split (``python -m calib fit FILE``;
  :data:`DEFAULT_SPLIT_SEED`, :data:`MIN_PART_ROWS`, :data:`SPLIT_NONE_NOTE`); :func:`fit_warnings` — what to
  check before deploying a fit (T within :data:`BOUND_MARGIN` of a search bound, chance-level accuracy);
* :func:`positive_int` — the engine's check of a count argument;
* :class:`TemperatureScaling`, :class:`VectorScaling`, :class:`MatrixScaling`, :class:`DirichletCalibration`,
  :class:`HistogramBinning`, :class:`IsotonicCalibration`, :class:`ScalingBinning`,
  :class:`EnsembleTemperatureScaling`, :class:`PlattScaling` — calibrators with one interface: ``fit(logits,
  labels)`` returns the calibrator, ``predict_proba(logits)`` gives calibrated rows, fitted parameters end in ``_``;
* :func:`calibrator_record`, :func:`calibrator_texts`, :func:`save_calibrator`, :func:`load_calibrator`
  (:mod:`calib.deploy`) — any calibrator of :data:`DEPLOYABLE` as a small versioned JSON file with the
  numpy, PyTorch and scikit-learn code that applies it, and back (numpy only);
* :func:`classwise_ece`, :func:`static_calibration_error` (:func:`classwise_bins`) — binned calibration error
  of every class's probability, not only the winner's;
* :func:`ece_consistency_test`, :func:`skce_test` (:mod:`calib.caltest`) — tests of "this model is calibrated"
  with a stated size (a :class:`CalibrationTest`): consistency resampling of the ECE, and the squared kernel
  calibration error (:func:`skce`, :func:`median_bandwidth`);
* :func:`auroc` (:mod:`calib.discrimination`) — the area under the ROC curve of a score for a 0/1 outcome;
* :func:`corp`, :func:`corp_band`, :func:`corp_decomposition_spread` (:func:`brier_decomposition`) — the CORP
  reliability diagram (PAV fit of correctness on confidence), the uncertainty of its decomposition, its
  consistency band, and the Brier and log score split into miscalibration, discrimination and uncertainty;
* :func:`paired_changes`, :func:`temperature_spread`, :func:`verdict` (:mod:`calib.decision`) — whether to deploy
  a fitted T: the paired change of each score (:func:`metric_changes`; :data:`DECISION_METRICS`,
  :data:`DECISION_BINS`), how far T itself moves, and the verdict;
* :func:`compare_calibrators` (:mod:`calib.compare`) — every calibrator of :data:`CALIBRATORS` fitted on
  calibration rows and set against temperature scaling on test rows with paired bootstrap ranges
  (a :class:`Comparison`; :data:`COMPARE_SCORES`, :data:`MAX_AFFINE_CLASSES`; ``python -m calib compare FILE``),
  with :func:`comparison_resamples` (its paired resamples: 200, fewer past
  :data:`COMPARE_RESAMPLE_BUDGET` resample × row pairs, never under :data:`COMPARE_MIN_RESAMPLES`) and
  :func:`method_row_scores` (per-row NLL, Brier, confidence, correctness; a binary model adds
  :data:`BINARY_CALIBRATORS`, Platt scaling); :func:`compare_parts` runs it on
  a file's split and :func:`compare_verdict` says which calibrator beats temperature scaling beyond its range (the
  paired ranges are :func:`paired_against` with :func:`inf_quantiles`, :mod:`calib.paired`);
* :func:`fit_streamed`, :func:`fit_dask` (:mod:`calib.chunked`) — ``calib fit``'s report for data that outgrow
  memory: memory-mapped ``.npy`` or Parquet streamed on one machine, or Dask arrays, dataframes and files on a
  Dask cluster (:func:`local_client` starts one on this machine); T by Newton's method in 1/T on summed slopes,
  each pass a sum over row partitions. Dask is imported only when :func:`fit_dask` runs.

Nothing outside ``__all__`` is API: the page side (``sitegen``) imports only these names (a test checks it).
"""

from . import datasets, rng
from . import measures as _measures
from .binned import HistogramBinning, IsotonicCalibration, ScalingBinning
from .binning import (
    SCHEMES,
    ReliabilityBins,
    adaptive_ece_resampled,
    ece,
    equal_mass_bounds,
    max_gap,
    mce,
    reliability_bins,
)
from .blocks import BLOCK_ELEMENTS, block_shape, one_blas_thread, row_chunks
from .bootstrap import (
    DEFAULT_RESAMPLES,
    BootstrapDraws,
    BootstrapSpread,
    ScoreSet,
    bootstrap_draws,
    bootstrap_spread,
    count_prefix,
    quantile_standard_error,
    resample_counts,
)
from .calibrators import EnsembleTemperatureScaling, TemperatureScaling
from .caltest import DEFAULT_TEST_DRAWS, CalibrationTest, ece_consistency_test, median_bandwidth, skce, skce_test
from .classwise import classwise_bins, classwise_ece, static_calibration_error
from .compare import (
    BINARY_CALIBRATORS,
    CALIBRATORS,
    COMPARE_COLUMNS,
    COMPARE_MIN_RESAMPLES,
    COMPARE_RESAMPLE_BUDGET,
    COMPARE_SCORES,
    CONSTANT_LOGIT,
    MAX_AFFINE_CLASSES,
    UNSETTLED,
    CompareVerdict,
    Comparison,
    compare_calibrators,
    compare_parts,
    compare_verdict,
    comparison_resamples,
    method_row_scores,
    winner,
)
from .corp import (
    CORP,
    CORPBand,
    DecompositionSpread,
    ScoreDecomposition,
    brier_decomposition,
    corp,
    corp_band,
    corp_decomposition_spread,
)
from .datasets import DATASET_NAMES, Dataset, even_odd_split, load, part_masks
from .decision import DECISION_BINS, DECISION_METRICS, metric_changes, paired_changes, temperature_spread, verdict
from .deploy import DEPLOYABLE, calibrator_record, calibrator_texts, load_calibrator, save_calibrator
from .discrimination import auroc
from .distributed import fit_dask, local_client
from .fitting import BRIER_PROBES, DEFAULT_BOUNDS, DEFAULT_TOLERANCE, FIT_SCORES, fit_temperature
from .floor import DEFAULT_DRAWS, DEFAULT_SWEEP_DRAWS, NoiseFloor, bins_outside, noise_floor, segment_cdfs, tail_share
from .grid import BINNING_ELEMENTS, GridMetrics, grid_metrics
from .io import (
    DEFAULT_SPLIT_SEED,
    MIN_PART_ROWS,
    SPLIT_NONE_NOTE,
    InputError,
    Predictions,
    load_predictions,
    split_masks,
)
from .io_checks import BOUND_MARGIN, ROUNDING_FORMAT, fit_warnings
from .matrix import DirichletCalibration, MatrixScaling, VectorScaling
from .measures import *  # noqa: F403 (every measure of calib/measures.py is public: see __all__ below)
from .paired import NEGLIGIBLE_CHANGE, PairedDifference, change_side, inf_quantiles, paired_against, paired_difference
from .platt import PlattScaling
from .quantiles import (
    FLOOR_QUANTILES,
    SPREAD_QUANTILES,
    SWEEP_QUANTILES,
    count_quantiles,
    order_statistic_ranks,
    quantile_interval,
    sorted_quantiles,
)
from .refit import Balance, fit_weighted_temperatures, marginal_balance, nll_beta_derivatives, weighted_nll
from .rounding import rounding_range
from .rowscores import log_normaliser, row_scores_over_grid
from .runs import (
    BinLayout,
    bin_layout,
    bin_positions,
    binnings_over_counts,
    bins_by_count,
    ece_from_prefix,
    ece_sweep,
    mce_over_counts,
    prefix_sums,
    rows_order,
    sort_rows,
)
from .scaling import brier, log_softmax, nll, predicted_class, scaled_probs, scores_over_grid, top_label
from .smooth import (
    SmoothCurve,
    SmoothECE,
    deposit,
    eval_points,
    interpolate,
    mesh_points,
    reflected_gaussian_smooth,
    smooth_ece,
    smooth_ece_at,
    smooth_ece_resampled,
    smooth_on,
    smooth_reliability,
)
from .streamed import fit_streamed
from .subgroups import (
    CONDITIONS,
    POOLED,
    GroupMetrics,
    SubgroupAnalysis,
    fit_group_temperatures,
    group_metrics,
    row_scores,
    subgroup_analysis,
)
from .validation import positive_int

__all__ = [
    "SCHEMES", "ReliabilityBins", "reliability_bins", "ece", "mce", "max_gap", "equal_mass_bounds",
    "DEFAULT_RESAMPLES", "BootstrapSpread", "bootstrap_spread", "resample_counts", "count_prefix",
    "ScoreSet", "BootstrapDraws", "bootstrap_draws", "PairedDifference", "paired_difference", "quantile_standard_error",
    "DATASET_NAMES", "Dataset", "load", "part_masks", "even_odd_split", "datasets", "rng",
    "auroc", "DEFAULT_TEST_DRAWS", "CalibrationTest", "ece_consistency_test", "skce", "skce_test", "median_bandwidth",
    "DEFAULT_BOUNDS", "DEFAULT_TOLERANCE", "BRIER_PROBES", "FIT_SCORES", "fit_temperature",
    "InputError", "Predictions", "load_predictions", "split_masks", "DEFAULT_SPLIT_SEED", "MIN_PART_ROWS",
    "SPLIT_NONE_NOTE", "BOUND_MARGIN", "ROUNDING_FORMAT", "fit_warnings", "rounding_range", "winner",
    "fit_weighted_temperatures", "nll_beta_derivatives", "weighted_nll", "Balance", "marginal_balance",
    "DEFAULT_DRAWS", "DEFAULT_SWEEP_DRAWS", "NoiseFloor", "noise_floor", "segment_cdfs", "bins_outside", "tail_share",
    "SPREAD_QUANTILES", "FLOOR_QUANTILES", "SWEEP_QUANTILES", "sorted_quantiles", "count_quantiles",
    "order_statistic_ranks", "quantile_interval",
    "BinLayout", "bin_layout", "bin_positions", "ece_from_prefix", "ece_sweep", "sort_rows", "rows_order",
    "prefix_sums", "binnings_over_counts", "mce_over_counts", "bins_by_count",
    "row_scores", "row_scores_over_grid", "log_normaliser",
    "SmoothECE", "SmoothCurve", "smooth_ece", "smooth_ece_resampled", "adaptive_ece_resampled",
    "smooth_reliability", "smooth_ece_at", "smooth_on",
    "reflected_gaussian_smooth", "deposit", "interpolate", "mesh_points", "eval_points",
    "CONDITIONS", "POOLED", "GroupMetrics", "SubgroupAnalysis", "group_metrics", "fit_group_temperatures",
    "subgroup_analysis",
    "positive_int",
    "scaled_probs", "log_softmax", "predicted_class", "top_label", "nll", "brier", "scores_over_grid",
    "grid_metrics", "GridMetrics", "BINNING_ELEMENTS", "block_shape", "row_chunks", "BLOCK_ELEMENTS", "one_blas_thread",
    "TemperatureScaling", "VectorScaling", "MatrixScaling", "DirichletCalibration",
    "HistogramBinning", "IsotonicCalibration", "ScalingBinning", "EnsembleTemperatureScaling", "PlattScaling",
    "classwise_bins", "classwise_ece", "static_calibration_error",
    "CORP", "CORPBand", "ScoreDecomposition", "corp", "corp_band", "DecompositionSpread", "brier_decomposition",
    "corp_decomposition_spread",
    "DECISION_BINS", "DECISION_METRICS", "metric_changes", "paired_changes", "temperature_spread", "verdict",
    "DEPLOYABLE", "calibrator_record", "calibrator_texts", "save_calibrator", "load_calibrator", "BINARY_CALIBRATORS",
    "CALIBRATORS", "COMPARE_SCORES", "COMPARE_COLUMNS", "MAX_AFFINE_CLASSES", "UNSETTLED", "CONSTANT_LOGIT",
    "Comparison",
    "compare_calibrators",
    "inf_quantiles", "method_row_scores", "paired_against", "CompareVerdict", "compare_verdict", "compare_parts",
    "comparison_resamples", "COMPARE_RESAMPLE_BUDGET", "COMPARE_MIN_RESAMPLES", "NEGLIGIBLE_CHANGE", "change_side",
    "fit_streamed", "fit_dask", "local_client",
] + _measures.__all__  # the measures of (confidence, correct), calib/measures.py
