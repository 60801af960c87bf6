"""What one sample can and cannot tell: every uncertainty analysis of every dataset, in one call.

``precompute_analyses(precomputed)`` takes what :func:`sitegen.compute.precompute.precompute_all`
returns and, for each dataset and each of its parts (``all``, or
``calibration`` and ``test``), computes at the temperatures of a coarse
*sub-grid* of the shared grid (every ``SUBGRID_STEP``-th point, coarser for a part of over
``SUBGRID_ROWS`` rows: :func:`sitegen.compute.precompute.subgrid_step_for`; the last point, T = 1 and the
dataset's fitted T):

* the bootstrap spread of ECE and NLL (:func:`calib.bootstrap_spread`);
* the noise floor of a perfectly calibrated model with the same confidences,
  with per-bin accuracy bands (:func:`calib.noise_floor`);
* the ECE for every bin count 1..50 (:func:`calib.ece_sweep`);
* the smooth ECE, its bandwidth and the smoothed reliability curve
  (:mod:`calib.smooth`);

and, for a dataset with groups, the per-group scores under T = 1, the global
temperature and per-group temperatures: the :class:`calib.SubgroupAnalysis` the
precomputation made (the build fits the group temperatures once).

The prose quotes a few of these numbers, and for them the explorer's 200
resamples are too few. So, at T = 1 and the fitted T only, each reported part
(and the fitting rows of a dataset in ``FIT_SPREAD_TRUTH``) also gets
(:func:`quote_part`) a separate bootstrap of ``QUOTED_RESAMPLES`` resamples:
the spread of NLL, Brier and ECE, the paired change from T = 1 to the fitted T
(:func:`calib.paired_difference`), and the Monte Carlo interval of every
quoted quantile (:func:`calib.quantile_interval`), also for the explorer's own
resamples. Each dataset in ``FIT_SPREAD_TRUTH`` gets the spread of its fitted T
(:func:`fit_spread`: bootstrap refits, and refits to labels redrawn from the
known truth); the worked example and every dataset with groups get the
marginal balance of the fit (:func:`calib.marginal_balance`: each example's or
group's slope and curvature of NLL in 1/T at the fitted T).

Results are plain numpy arrays and floats in natural units (probabilities,
nats); :mod:`sitegen.render.analysis_payload` rounds them for the page. The page's
choices (seed, draws, bin counts, sub-grid step) come from :mod:`sitegen.common.settings`. Every random
draw comes from a generator seeded by ``(seed, dataset, part, purpose)``, so a
result does not depend on which other datasets were analysed, on their order,
or on ``workers``. The purposes are ``bootstrap`` and ``floor`` (the explorer's
analyses), ``quoted`` (the quoted bootstrap), ``refit`` (bootstrap refits of
T) and ``truth`` (labels redrawn from the truth); each is its own stream, so
adding one never moved the numbers of another.
"""

import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, NamedTuple, Optional, Tuple

import numpy as np

from calib import (
    SPREAD_QUANTILES,
    Balance,
    BootstrapSpread,
    NoiseFloor,
    PairedDifference,
    ScoreSet,
    SmoothCurve,
    SmoothECE,
    SubgroupAnalysis,
    bootstrap_draws,
    bootstrap_spread,
    ece_sweep,
    fit_weighted_temperatures,
    marginal_balance,
    noise_floor,
    paired_difference,
    part_masks,
    quantile_interval,
    resample_counts,
    row_scores,
    row_scores_over_grid,
    scaled_probs,
    smooth_ece,
    smooth_reliability,
    sorted_quantiles,
)
from sitegen.common.settings import (
    ANALYSIS_SEED,
    CURVE_POINTS,
    DRAWS,
    FIT_RESAMPLES,
    FIT_SPREAD_QUANTILES,
    FIT_SPREAD_TRUTH,
    LARGE_PART_ROWS,
    MAX_SWEEP_BINS,
    MONTE_CARLO_LEVEL,
    OFFERED_BIN_COUNTS,
    QUOTED_RESAMPLES,
    QUOTED_ROW_BUDGET,
    REFIT_TOLERANCE,
    RESAMPLES,
    SWEEP_DRAWS,
    TABLE_BINS,
    TRUTH_DRAWS,
    WORKED_EXAMPLE,
)
from sitegen.compute.precompute import grid_index

__all__ = [
    "PartAnalysis", "DatasetAnalysis", "Analyses",
    "QuotedPart", "FitSpread",
    "part_generator", "quoted_resamples_for", "analyse_part", "quote_part", "fit_spread", "analyse_dataset",
    "precompute_analyses", "analyses_with",
]

_PURPOSES = {"bootstrap": 1, "floor": 2, "quoted": 3, "refit": 4, "truth": 5}


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


class QuotedPart(NamedTuple):
    """The bootstrap behind the numbers the prose quotes, for one part, at T = 1 and the fitted T.

    Every array has a temperature axis of length 2: T = 1 first, the fitted T
    second. ``spread`` is a :class:`calib.ScoreSet` of (2, Q) arrays, the
    ``quantiles`` of each score over ``n_resamples`` resamples; ``interval`` a
    ScoreSet of (Q, 2, 2) arrays, the ``level`` Monte Carlo interval (lower,
    upper) of each of those quantiles (:func:`calib.quantile_interval`);
    ``explorer_interval`` the same for the explorer's own ``explorer_resamples``
    resamples (its "bootstrap" stream, so the very draws behind its band), whose
    quantiles are ``explorer_spread``. ``paired`` is the paired bootstrap of the
    change from T = 1 to the fitted T (:func:`calib.paired_difference`).
    ECE is keyed ``[scheme][B]`` for the offered bin counts.
    """

    n: int
    n_resamples: int
    explorer_resamples: int
    quantiles: Tuple[float, ...]
    level: float
    spread: ScoreSet
    interval: ScoreSet
    explorer_spread: ScoreSet
    explorer_interval: ScoreSet
    paired: PairedDifference


class FitSpread(NamedTuple):
    """How far the fitted temperature of one dataset could have landed, from its fitting rows.

    ``bootstrap`` (R,) are the temperatures fitted to R bootstrap resamples of
    the rows (:func:`calib.fit_weighted_temperatures` with
    :func:`calib.resample_counts`); ``under_truth`` (S,) the temperatures fitted
    to S label sets redrawn from softmax(z / ``truth``) on the same logits.
    ``bootstrap_q`` and ``truth_q`` are their ``quantiles``; ``reach`` is the
    share of bootstrap fits at or above the truth, ``below`` the share of fits
    under the truth at or below the actual fit ``fitted_t``.
    """

    n: int
    fitted_t: float
    truth: float
    quantiles: Tuple[float, ...]
    bootstrap: np.ndarray
    under_truth: np.ndarray
    bootstrap_q: np.ndarray
    truth_q: np.ndarray
    reach: float
    below: float


class DatasetAnalysis(NamedTuple):
    """One dataset: its sub-grid (indices into the shared grid), fitted-T index, parts and subgroups
    (the precomputation's own record, ``groups.scores``, or None), and what the prose quotes:
    ``quoted[part]`` (:class:`QuotedPart`), ``fit_spread`` (:class:`FitSpread`, or None) and ``balance``
    (:class:`calib.Balance`, or None)."""

    name: str
    subgrid: np.ndarray
    fitted_index: int
    parts: Dict[str, PartAnalysis]
    subgroups: Optional[SubgroupAnalysis]
    quoted: Dict[str, QuotedPart] = {}
    fit_spread: Optional[FitSpread] = None
    balance: Optional[Balance] = None


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
    """All analyses of one part (rows ``logits`` (n, K), ``labels`` (n,)) at ``temperatures`` (G_s,).

    Memory stays bounded whatever n and K: the per-example scores are computed a block of temperatures
    (and rows) at a time (:func:`calib.row_scores_over_grid`), and the bin sweep and smooth ECE run on
    blocks of temperatures; each temperature's figures are the same as in one pass over all of them.
    """
    confidence, correct, example_nll = row_scores_over_grid(logits, labels, temperatures, ANALYSIS_BLOCK_ELEMENTS)
    spread = bootstrap_spread(confidence, correct, example_nll, bin_counts=bin_counts, n_resamples=n_resamples,
                              rng=part_generator(seed, dataset, name, "bootstrap"))
    floor = noise_floor(confidence, bin_counts=bin_counts, max_bins=max_bins, n_draws=n_draws,
                        sweep_draws=sweep_draws, rng=part_generator(seed, dataset, name, "floor"))
    del example_nll
    blocks = _temperature_blocks(confidence.shape[0], confidence.shape[1])
    sweeps = [ece_sweep(confidence[b], correct, max_bins=max_bins) for b in blocks]
    sweep = {scheme: np.concatenate([part[scheme] for part in sweeps]) for scheme in sweeps[0]}
    smooth_parts, curve_parts = [], []
    mesh = np.linspace(0.0, 1.0, curve_points)
    for b in blocks:
        outcome = np.broadcast_to(correct.astype(np.float64), confidence[b].shape)
        smooth_parts.append(smooth_ece(confidence[b], outcome))
        curve_parts.append(smooth_reliability(confidence[b], outcome, smooth_parts[-1].sigma, mesh))
    smooth = SmoothECE(*(np.concatenate(v) for v in zip(*smooth_parts)))
    curve = SmoothCurve(mesh, np.concatenate([c.accuracy for c in curve_parts]),
                        np.concatenate([c.density for c in curve_parts]),
                        np.concatenate([c.support for c in curve_parts]))
    return PartAnalysis(name, int(labels.size), spread, floor, sweep, smooth, curve)


ANALYSIS_BLOCK_ELEMENTS = 1 << 20  # values (temperatures × rows, or × classes) an analysis step holds at once
# (8 MiB of float64: below glibc's 32 MiB mmap threshold, so a step's temporaries are reused from the last)


def _temperature_blocks(temps, n, block_elements=ANALYSIS_BLOCK_ELEMENTS):
    """Slices of ``range(temps)`` holding about ``block_elements // n`` temperatures each (at least one)."""
    step = max(1, block_elements // max(1, n))
    return [slice(start, min(temps, start + step)) for start in range(0, temps, step)]


def _score_map(scores, func):
    """A :class:`calib.ScoreSet` with ``func`` applied to every array (Brier may be None)."""
    return ScoreSet(func(scores.nll), None if scores.brier is None else func(scores.brier),
                    {s: {b: func(v) for b, v in by_bins.items()} for s, by_bins in scores.ece.items()})


def quote_part(name, logits, labels, fitted_t, seed=ANALYSIS_SEED, dataset="", n_resamples=QUOTED_RESAMPLES,
               explorer_resamples=RESAMPLES, bin_counts=(TABLE_BINS,), level=MONTE_CARLO_LEVEL,
               quantiles=SPREAD_QUANTILES):
    """The :class:`QuotedPart` of one part (rows ``logits`` (n, K), ``labels`` (n,)) at T = 1 and ``fitted_t``.

    One :func:`calib.bootstrap_draws` of ``n_resamples`` resamples from the
    part's "quoted" stream gives the spreads and the paired change; a second
    one of ``explorer_resamples`` from its "bootstrap" stream redraws exactly
    the explorer's resamples at these two temperatures (the resample counts
    come first from the stream, whatever the temperatures), so the Monte Carlo
    error of the band the explorer shows can be stated.
    """
    temperatures = (1.0, float(fitted_t))
    rows = [row_scores(logits, labels, t) for t in temperatures]
    confidence, correct = np.stack([r[0] for r in rows]), rows[0][1]
    example_nll, example_brier = np.stack([r[2] for r in rows]), np.stack([r[3] for r in rows])
    q = tuple(float(v) for v in quantiles)

    def sample(resamples, purpose):
        return bootstrap_draws(confidence, correct, example_nll, bin_counts, resamples,
                               part_generator(seed, dataset, name, purpose), example_brier)

    def spread(draws):  # (R, 2) → (2, Q)
        return sorted_quantiles(draws.T, q).T

    def interval(draws):  # (R, 2) → (Q, 2, 2)
        return quantile_interval(draws.T, q, level)

    quoted, explorer = sample(n_resamples, "quoted"), sample(explorer_resamples, "bootstrap")
    return QuotedPart(int(labels.size), quoted.n_resamples, explorer.n_resamples, q, float(level),
                      _score_map(quoted.draws, spread), _score_map(quoted.draws, interval),
                      _score_map(explorer.draws, spread), _score_map(explorer.draws, interval),
                      paired_difference(quoted, 0, 1, q))


def fit_spread(logits, labels, fitted_t, truth, seed=ANALYSIS_SEED, dataset="", part="calibration",
               n_resamples=FIT_RESAMPLES, truth_draws=TRUTH_DRAWS, quantiles=FIT_SPREAD_QUANTILES,
               tolerance=REFIT_TOLERANCE):
    """The :class:`FitSpread` of a temperature ``fitted_t`` fitted to ``(logits, labels)`` whose labels were
    drawn at temperature ``truth``.

    The bootstrap refits T to resampled rows (the part's "refit" stream). The
    check under the truth redraws every label from softmax(z / truth) by
    inverse transform on uniforms of the "truth" stream and refits; to fit all
    label sets in one lock-step search, each row is repeated once per class
    (with that class as its label) and a label set weights copy c of row i by
    [its label i is c], which is the same weighted NLL as the relabelled rows.
    """
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels)
    n, k = z.shape
    counts = resample_counts(n, n_resamples, part_generator(seed, dataset, part, "refit"))
    boot = fit_weighted_temperatures(z, y, counts, tolerance=tolerance)
    u = part_generator(seed, dataset, part, "truth").random((truth_draws, n))
    cumulative = np.cumsum(scaled_probs(z, float(truth)), axis=1)  # (n, K)
    drawn = np.minimum((u[:, :, None] > cumulative[None]).sum(axis=2), k - 1)  # (S, n) labels
    weights = (drawn[:, :, None] == np.arange(k)).reshape(truth_draws, n * k).astype(np.float64)
    refits = fit_weighted_temperatures(np.repeat(z, k, axis=0), np.tile(np.arange(k), n), weights, tolerance=tolerance)
    q = tuple(float(v) for v in quantiles)
    return FitSpread(n, float(fitted_t), float(truth), q, boot, refits,
                     sorted_quantiles(boot, q), sorted_quantiles(refits, q),
                     float(np.mean(boot >= truth)), float(np.mean(refits <= fitted_t)))


def _plan(result, grid, t1_index, seed):
    """The sub-grid, fitted-T index and the :func:`analyse_part` arguments of each part of one dataset."""
    data = result.dataset
    fitted_index = grid_index(grid, result.fitted_t)
    subgrid = result.subgrid  # the precomputation's, whose sub-grid bins the explorer shows beside these
    jobs = {
        part: (part, data.logits[rows], data.labels[rows], grid[subgrid], seed, data.name)
        for part, rows in part_masks(data).items()
    }
    return subgrid, fitted_index, jobs


def _subgroups(result):
    """The dataset's group scores: the record the precomputation made (:class:`calib.SubgroupAnalysis`, the
    build's one fit of the group temperatures), or None without groups."""
    return None if result.groups is None else result.groups.scores


def _quote_jobs(result, seed, quoted_resamples, explorer_resamples):
    """``{part: quote_part arguments}`` of one dataset: its reported part (``test``, or ``all`` without a split),
    and also its fitting rows when it is in ``FIT_SPREAD_TRUTH`` (the prose studies the fit there). The other
    calibration parts are never quoted with a spread, so they are skipped to keep the build short."""
    data = result.dataset
    masks = part_masks(data)
    wanted = [p for p in masks if p in ("test", "all") or (p == result.fitted_on and data.name in FIT_SPREAD_TRUTH)]
    return {part: (part, data.logits[masks[part]], data.labels[masks[part]], result.fitted_t, seed, data.name,
                   quoted_resamples_for(int(masks[part].sum()), quoted_resamples, explorer_resamples),
                   explorer_resamples)
            for part in wanted}


def _quoted(result, seed, quoted_resamples, explorer_resamples):
    """``{part: QuotedPart}`` of one dataset (:func:`_quote_jobs`)."""
    return {part: quote_part(*args) for part, args in _quote_jobs(result, seed, quoted_resamples,
                                                                   explorer_resamples).items()}


def quoted_resamples_for(n, wanted=QUOTED_RESAMPLES, floor=RESAMPLES, large=LARGE_PART_ROWS,
                         budget=QUOTED_ROW_BUDGET):
    """Resamples of the quoted bootstrap of a part of ``n`` rows: ``wanted`` up to ``large`` rows, then
    ``budget // n`` (but never fewer than ``floor`` nor more than ``wanted``), so its cost, resamples × rows,
    stops growing with n. The large-part approximation: fewer resamples, the same estimator; the Monte
    Carlo interval stated with each quoted quantile (:func:`calib.quantile_interval`) says how far the
    fewer resamples may sit from infinitely many.

    >>> quoted_resamples_for(3000), quoted_resamples_for(100_000), quoted_resamples_for(1_000_000)
    (2000, 400, 200)
    """
    if n <= large:
        return int(wanted)
    return int(min(wanted, max(floor, budget // n)))


def _fit_spread(result, seed):
    """The :class:`FitSpread` of a dataset in ``FIT_SPREAD_TRUTH`` (on its fitting rows), else None."""
    data = result.dataset
    if data.name not in FIT_SPREAD_TRUTH:
        return None
    rows = part_masks(data)[result.fitted_on]
    return fit_spread(data.logits[rows], data.labels[rows], result.fitted_t, FIT_SPREAD_TRUTH[data.name], seed,
                      data.name, result.fitted_on)


def _balance(result):
    """The :class:`Balance` per group (datasets with groups) or per example (the worked example), else None."""
    data = result.dataset
    rows = part_masks(data)[result.fitted_on]
    if data.groups is not None:
        groups = np.asarray(data.groups)[rows]
    elif data.name == WORKED_EXAMPLE:
        groups = np.arange(data.labels.size)[rows]
    else:
        return None
    return marginal_balance(data.logits[rows], data.labels[rows], result.fitted_t, groups)


def _extras(result, seed, quoted_resamples, explorer_resamples, quoted=None):
    """What the prose quotes beyond the explorer's analyses: ``quoted`` (computed here unless given),
    ``fit_spread``, ``balance``."""
    if quoted is None:
        quoted = _quoted(result, seed, quoted_resamples, explorer_resamples)
    return dict(quoted=quoted, fit_spread=_fit_spread(result, seed), balance=_balance(result))


def analyse_dataset(result, grid, t1_index, seed=ANALYSIS_SEED, quoted_resamples=QUOTED_RESAMPLES, **settings):
    """A :class:`DatasetAnalysis` for one :class:`sitegen.compute.precompute.DatasetResult`.

    ``settings`` are passed to :func:`analyse_part`.
    """
    subgrid, fitted_index, jobs = _plan(result, grid, t1_index, seed)
    parts = {part: analyse_part(*args, **settings) for part, args in jobs.items()}
    extras = _extras(result, seed, quoted_resamples, settings.get("n_resamples", RESAMPLES))
    return DatasetAnalysis(result.dataset.name, subgrid, fitted_index, parts, _subgroups(result), **extras)


def precompute_analyses(precomputed, seed=ANALYSIS_SEED, n_resamples=RESAMPLES, n_draws=DRAWS,
                        sweep_draws=SWEEP_DRAWS, workers=1, quoted_resamples=QUOTED_RESAMPLES):
    """Every analysis of every dataset in ``precomputed`` (a :class:`sitegen.compute.precompute.Precomputed`).

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
    quoted_resamples : int
        Bootstrap resamples behind the numbers the prose quotes (:func:`quote_part`).
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
    quoted = {name: None for name in plans}
    if workers == 1:
        done = {key: analyse_part(*jobs[key], **settings) for key in largest_first}
    else:  # the quoted bootstraps too, after the parts: a third job keeps both threads busy to the end
        quotes = {(name, part): args for name in plans for part, args in
                  _quote_jobs(precomputed.datasets[name], seed, quoted_resamples, n_resamples).items()}
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {key: pool.submit(analyse_part, *jobs[key], **settings) for key in largest_first}
            quoting = {key: pool.submit(quote_part, *quotes[key]) for key in
                       sorted(quotes, key=lambda key: -quotes[key][2].size)}
            done = {key: future.result() for key, future in futures.items()}
            for name, part in quotes:  # in each dataset's own order of parts, as _quoted makes them
                quoted[name] = {**(quoted[name] or {}), part: quoting[name, part].result()}
    datasets = {
        name: DatasetAnalysis(name, subgrid, fitted_index, {part: done[name, part] for part in jobs},
                              _subgroups(precomputed.datasets[name]),
                              **_extras(precomputed.datasets[name], seed, quoted_resamples, n_resamples,
                                        quoted[name]))
        for name, (subgrid, fitted_index, jobs) in plans.items()
    }
    return Analyses(int(seed), grid, t1, int(n_resamples), int(n_draws), int(sweep_draws), datasets)


def analyses_with(precomputed, known, workers=1):
    """Every analysis of ``precomputed``, reusing ``known`` (an :class:`Analyses` of some of its datasets, with the
    same settings, e.g. the plain build's when a reader's T was spliced into the grid): a dataset of ``known``
    keeps its analyses (they depend on its sub-grid's temperatures, which do not move) with its grid indices
    re-read on ``precomputed``'s grid; the others are computed (:func:`precompute_analyses`)."""
    fresh = {name: r for name, r in precomputed.datasets.items() if name not in known.datasets}
    computed = precompute_analyses(precomputed._replace(datasets=fresh), seed=known.seed,
                                   n_resamples=known.n_resamples, n_draws=known.n_draws,
                                   sweep_draws=known.sweep_draws, workers=workers).datasets if fresh else {}
    grid = precomputed.grid

    def moved(old):
        subgrid = np.searchsorted(grid, known.grid[old.subgrid])
        if not np.array_equal(grid[subgrid], known.grid[old.subgrid]):
            raise ValueError(f"dataset {old.name!r}: its sub-grid is not on the new grid")
        return old._replace(subgrid=subgrid.astype(np.int64),
                            fitted_index=grid_index(grid, known.grid[old.fitted_index]))

    datasets = {name: computed[name] if name in computed else moved(known.datasets[name])
                for name in precomputed.datasets}
    return Analyses(known.seed, grid, precomputed.t1_index, known.n_resamples, known.n_draws, known.sweep_draws,
                    datasets)
