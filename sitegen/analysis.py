"""What one sample can and cannot tell: every uncertainty analysis of every dataset, in one call.

``precompute_analyses(precomputed)`` takes what :func:`sitegen.precompute.precompute_all`
returns and, for each dataset and each of its parts (``all``, or
``calibration`` and ``test``), computes at the temperatures of a coarse
*sub-grid* of the shared grid (every ``SUBGRID_STEP``-th point, the last point,
T = 1 and the dataset's fitted T):

* the bootstrap spread of ECE and NLL (:func:`calib.bootstrap_spread`);
* the noise floor of a perfectly calibrated model with the same confidences,
  with per-bin accuracy bands (:func:`calib.noise_floor`);
* the ECE for every bin count 1..50 (:func:`calib.ece_sweep`);
* the smooth ECE, its bandwidth and the smoothed reliability curve
  (:mod:`calib.smooth`);

and, for a dataset with groups, the per-group scores under T = 1, the global
temperature and per-group temperatures (:mod:`calib.subgroups`).

Results are plain numpy arrays and floats in natural units (probabilities,
nats); :mod:`sitegen.analysis_payload` rounds them for the page. The page's
choices (seed, draws, bin counts, sub-grid step) come from :mod:`sitegen.settings`. Every random
draw comes from a generator seeded by ``(seed, dataset, part, purpose)``, so a
result does not depend on which other datasets were analysed, on their order,
or on ``workers``.
"""

import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, NamedTuple, Optional

import numpy as np

from calib import BootstrapSpread, NoiseFloor, bootstrap_spread, ece_sweep, log_softmax, noise_floor, part_masks
from calib.smooth import SmoothCurve, SmoothECE, smooth_ece, smooth_reliability
from calib.subgroups import SubgroupAnalysis, subgroup_analysis

from .precompute import grid_index, round_significant, subgrid_indices
from .settings import (
    ANALYSIS_SEED, CURVE_POINTS, DRAWS, MAX_SWEEP_BINS, OFFERED_BIN_COUNTS, RESAMPLES, SUBGRID_STEP,
    SUBGROUP_BIN_COUNTS, SWEEP_DRAWS, TABLE_BINS,
)

__all__ = [
    "PartAnalysis", "DatasetAnalysis", "Analyses",
    "part_generator", "analyse_part", "analyse_dataset", "precompute_analyses",
]

_PURPOSES = {"bootstrap": 1, "floor": 2}


class PartAnalysis(NamedTuple):
    """The analyses of one part (its rows) at the sub-grid temperatures (G_s of them).

    ``sweep[scheme]`` is (G_s, max_bins): the ECE for 1..max_bins bins.
    ``smooth`` holds the smooth ECE and its bandwidth (G_s,); ``curve`` the
    smoothed reliability curve at that bandwidth on ``curve_points`` points.
    """

    name: str
    n: int
    bootstrap: BootstrapSpread
    floor: NoiseFloor
    sweep: Dict[str, np.ndarray]
    smooth: SmoothECE
    curve: SmoothCurve


class DatasetAnalysis(NamedTuple):
    """One dataset: its sub-grid (indices into the shared grid), fitted-T index, parts and subgroups."""

    name: str
    subgrid: np.ndarray
    fitted_index: int
    parts: Dict[str, PartAnalysis]
    subgroups: Optional[SubgroupAnalysis]


class Analyses(NamedTuple):
    """Everything :func:`precompute_analyses` computed, with the settings that produced it."""

    seed: int
    grid: np.ndarray
    t1_index: int
    n_resamples: int
    n_draws: int
    sweep_draws: int
    datasets: Dict[str, DatasetAnalysis]


def part_generator(seed, dataset, part, purpose):
    """A ``numpy.random.Generator`` for one (dataset, part, purpose), independent of every other.

    The stream is keyed by the seed and by CRC-32 of the names, so it is the
    same whatever else is computed, and in whatever order.
    """
    if purpose not in _PURPOSES:
        raise ValueError(f"purpose must be one of {tuple(_PURPOSES)}; got {purpose!r}")
    key = (zlib.crc32(dataset.encode()), zlib.crc32(part.encode()), _PURPOSES[purpose])
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key))


def analyse_part(name, logits, labels, temperatures, seed=ANALYSIS_SEED, dataset="", n_resamples=RESAMPLES,
                 n_draws=DRAWS, sweep_draws=SWEEP_DRAWS, bin_counts=OFFERED_BIN_COUNTS, max_bins=MAX_SWEEP_BINS,
                 curve_points=CURVE_POINTS):
    """All analyses of one part (rows ``logits`` (n, K), ``labels`` (n,)) at ``temperatures`` (G_s,)."""
    log_p = log_softmax(logits, np.asarray(temperatures, dtype=np.float64))  # (G_s, n, K)
    rows = np.arange(labels.size)
    predicted = np.argmax(logits, axis=1)
    confidence = np.exp(log_p[:, rows, predicted])
    correct = predicted == labels
    example_nll = -log_p[:, rows, labels]
    spread = bootstrap_spread(confidence, correct, example_nll, bin_counts=bin_counts, n_resamples=n_resamples,
                              rng=part_generator(seed, dataset, name, "bootstrap"))
    floor = noise_floor(confidence, bin_counts=bin_counts, max_bins=max_bins, n_draws=n_draws,
                        sweep_draws=sweep_draws, rng=part_generator(seed, dataset, name, "floor"))
    sweep = ece_sweep(confidence, correct, max_bins=max_bins)
    outcome = np.broadcast_to(correct.astype(np.float64), confidence.shape)
    smooth = smooth_ece(confidence, outcome)
    curve = smooth_reliability(confidence, outcome, smooth.sigma, np.linspace(0.0, 1.0, curve_points))
    return PartAnalysis(name, int(labels.size), spread, floor, sweep, smooth, curve)



def _plan(result, grid, t1_index, seed):
    """The sub-grid, fitted-T index and the :func:`analyse_part` arguments of each part of one dataset."""
    data = result.dataset
    fitted_index = grid_index(grid, result.fitted_t)
    subgrid = subgrid_indices(grid.size, [t1_index, fitted_index], SUBGRID_STEP)
    jobs = {
        part: (part, data.logits[rows], data.labels[rows], grid[subgrid], seed, data.name)
        for part, rows in part_masks(data).items()
    }
    return subgrid, fitted_index, jobs


def _subgroups(result):
    data = result.dataset
    if data.groups is None:
        return None
    return subgroup_analysis(data, result.fitted_t, SUBGROUP_BIN_COUNTS, TABLE_BINS,
                             round_temperature=lambda t: round_significant(t)[0])


def analyse_dataset(result, grid, t1_index, seed=ANALYSIS_SEED, **settings):
    """A :class:`DatasetAnalysis` for one :class:`sitegen.precompute.DatasetResult`.

    ``settings`` are passed to :func:`analyse_part`.
    """
    subgrid, fitted_index, jobs = _plan(result, grid, t1_index, seed)
    parts = {part: analyse_part(*args, **settings) for part, args in jobs.items()}
    return DatasetAnalysis(result.dataset.name, subgrid, fitted_index, parts, _subgroups(result))


def precompute_analyses(precomputed, seed=ANALYSIS_SEED, n_resamples=RESAMPLES, n_draws=DRAWS,
                        sweep_draws=SWEEP_DRAWS, workers=1):
    """Every analysis of every dataset in ``precomputed`` (a :class:`sitegen.precompute.Precomputed`).

    Parameters
    ----------
    precomputed : Precomputed
    seed : int
        Root seed of every random draw.
    n_resamples : int
        Bootstrap resamples (≥ 200 on the page).
    n_draws : int
        Simulated outcome sets for the noise floor and the bands (≥ 2000 on the page).
    sweep_draws : int
        Simulated outcome sets for the noise floor of the 1..50 bin sweep.
    workers : int
        Threads running the parts of all datasets concurrently (numpy releases
        the GIL in the heavy loops). The results do not depend on it. The
        default, 1, runs inline: on a busy 2-core machine extra threads were
        measured to slow the whole down.

    Returns
    -------
    Analyses
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer; got {workers!r}")
    settings = dict(n_resamples=n_resamples, n_draws=n_draws, sweep_draws=sweep_draws)
    grid, t1 = precomputed.grid, precomputed.t1_index
    plans = {name: _plan(r, grid, t1, seed) for name, r in precomputed.datasets.items()}
    jobs = {(name, part): args for name, (_, _, parts) in plans.items() for part, args in parts.items()}
    largest_first = sorted(jobs, key=lambda key: -jobs[key][2].size)  # by rows, so threads finish together
    if workers == 1:
        done = {key: analyse_part(*jobs[key], **settings) for key in largest_first}
        groups = {name: _subgroups(r) for name, r in precomputed.datasets.items()}
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {key: pool.submit(analyse_part, *jobs[key], **settings) for key in largest_first}
            groups = {name: _subgroups(r) for name, r in precomputed.datasets.items()}
            done = {key: future.result() for key, future in futures.items()}
    datasets = {
        name: DatasetAnalysis(name, subgrid, fitted_index, {part: done[name, part] for part in jobs}, groups[name])
        for name, (subgrid, fitted_index, jobs) in plans.items()
    }
    return Analyses(int(seed), grid, t1, int(n_resamples), int(n_draws), int(sweep_draws), datasets)
