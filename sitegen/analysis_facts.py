"""The analyses of :mod:`sitegen.analysis` as facts for prose (bootstrap spreads, noise floors, bin
sweeps, smooth ECE, subgroups), plus the calibration/test gap of every split dataset.

Everything lives under one key, ``an``, so nothing clashes with :mod:`sitegen.facts`. Values are
read from the engine's arrays (no metric is recomputed here) and stay in natural units
(probabilities, nats); prose rounds them with the same ``fixed`` / ``pct`` filters as the rest of
the page, e.g. ``{{ an.overconfident.rep.fit.spread.ece_w[15].hi | pct(1) }}``.

Page-wide settings:

``an.resamples`` (bootstrap resamples), ``an.draws`` (simulated outcome sets behind the floors and
bands), ``an.sweep_draws`` (those behind the 1..50-bin floor), ``an.seed``, ``an.subgrid_step``
(every n-th grid point is analysed), ``an.max_bins`` (50), ``an.bin_counts`` (the bin counts with
spreads, floors and bands), ``an.spread_q`` / ``an.band_q`` (``lo``, ``hi``: 0.05, 0.95),
``an.floor_q`` (``lo``, ``mid``, ``hi``: 0.05, 0.5, 0.95), ``an.outside_by_chance`` (the share of
bins a calibrated model leaves outside a lo–hi band by chance: ``1 − (hi − lo)``).

Per dataset, ``an.<key>`` (dashes become underscores: ``an.sim_600``):

``name``, ``fitted_t``, ``subgrid_size``, ``split`` (bool),
``rep`` — a :class:`Part view <_part_view>` of the reported part (``test`` if split, else ``all``),
``cal`` — the calibration part (split datasets only), ``parts`` — ``{part name: view}``,
``gap`` — test minus calibration (split datasets only, see :func:`_gap`),
``sub`` — the subgroup table (datasets with groups only, see :func:`_subgroups`).

A part view has ``n`` and, at ``t1`` (T = 1) and ``fit`` (the fitted T), a point view with:

``t``; ``ece_w[B]`` / ``ece_a[B]`` (ECE, B = 1..50, equal-width / adaptive: the engine's sweep);
``spread.ece_w[B]`` / ``spread.ece_a[B]`` / ``spread.nll`` (``lo``, ``hi``: 5% and 95% over resamples;
B in ``an.bin_counts``); ``floor.ece_w[B]`` / ``floor.ece_a[B]`` (``lo``, ``mid``, ``hi``);
``floor_sweep_w[B]`` / ``floor_sweep_a[B]`` (``mid``, ``hi``, B = 1..50);
``sweep_range_w`` / ``sweep_range_a`` (``lo``, ``hi``: the smallest and largest ECE over B = 1..50);
``above_floor_w`` / ``above_floor_a`` (the bin counts B = 1..50 whose ECE exceeds the floor's 95% point);
``smooth`` (``ece``, ``sigma``); ``bands_w[B]`` / ``bands_a[B]`` (``bins`` non-empty bins,
``outside`` of them with an accuracy outside the 5–95% band, ``share`` = outside / bins,
``above`` / ``below`` (outside on either side)).

``gap.t1`` / ``gap.fit``: test minus calibration of ``nll``, ``brier``, ``ece`` (``TABLE_BINS``, 15, equal-width
bins) and ``ece_w[B]`` (each offered B), each the difference of the two display-rounded values, so
it matches the split table's gap column exactly.

``sub`` (mixed only): ``names`` (the groups), ``t_global``, ``t_group[g]``, and
``sub.<part>.<group or pooled>.<t1 | global | group>`` with ``n``, ``accuracy``, ``conf`` (mean
confidence), ``nll``, ``brier``, ``ece`` (``TABLE_BINS``, 15, equal-width bins) and ``ece_w[B]`` / ``ece_a[B]``
(the subgroup bin counts of :mod:`sitegen.settings`).
"""

from types import SimpleNamespace

import numpy as np

from calib import SCHEMES
from calib.subgroups import CONDITIONS, POOLED

from .facts import fact_key
from .payload import RATE_SCALE, SCORE_SCALE, displayed_difference
from .settings import SUBGRID_STEP, TABLE_BINS

__all__ = ["build_analysis_facts", "SCHEME_KEYS"]

SCHEME_KEYS = {"equal-width": "w", "adaptive": "a"}  # ece_w / ece_a, as in sitegen.facts


def _quantile_ns(row, names):
    """One row of quantiles (Q,) as a namespace with one float per name, e.g. ``lo``/``hi``."""
    return SimpleNamespace(**{key: float(value) for key, value in zip(names, row)})


def _band_outcome(bins, band):
    """Which non-empty bins lie outside their band.

    ``bins`` is one temperature's :class:`calib.ReliabilityBins` row (arrays (B_used,)), ``band``
    the engine's (B_used, 2) accuracy band of a calibrated model with the same confidences (NaN for
    an empty bin). Returns a namespace with ``bins``, ``outside``, ``above``, ``below``, ``share``.
    """
    used = bins.count > 0
    accuracy, lo, hi = bins.accuracy[used], band[used, 0], band[used, 1]
    below, above = int(np.sum(accuracy < lo)), int(np.sum(accuracy > hi))
    total = int(used.sum())
    return SimpleNamespace(bins=total, below=below, above=above, outside=below + above,
                           share=(below + above) / total if total else 0.0)


def _point_view(part_an, part_pre, j, grid_index, temperature):
    """Everything one part's analyses say at one sub-grid point ``j`` (grid index ``grid_index``)."""
    spread, floor = part_an.bootstrap, part_an.floor
    max_bins = part_an.sweep[SCHEMES[0]].shape[1]
    view = SimpleNamespace(t=float(temperature), spread=SimpleNamespace(), floor=SimpleNamespace(),
                           smooth=SimpleNamespace(ece=float(part_an.smooth.value[j]),
                                                  sigma=float(part_an.smooth.sigma[j])))
    view.spread.nll = _quantile_ns(spread.nll[j], ("lo", "hi"))
    for scheme, s in SCHEME_KEYS.items():
        sweep = part_an.sweep[scheme][j]
        setattr(view, f"ece_{s}", {b: float(sweep[b - 1]) for b in range(1, max_bins + 1)})
        setattr(view.spread, f"ece_{s}", {b: _quantile_ns(v[j], ("lo", "hi")) for b, v in spread.ece[scheme].items()})
        setattr(view.floor, f"ece_{s}", {b: _quantile_ns(v[j], ("lo", "mid", "hi"))
                                         for b, v in floor.ece[scheme].items()})
        setattr(view, f"floor_sweep_{s}", {b: _quantile_ns(floor.sweep[scheme][j, b - 1], ("mid", "hi"))
                                           for b in range(1, max_bins + 1)})
        setattr(view, f"sweep_range_{s}", SimpleNamespace(lo=float(sweep.min()), hi=float(sweep.max())))
        setattr(view, f"above_floor_{s}", [b for b in range(1, max_bins + 1) if sweep[b - 1] > floor.sweep[scheme][j, b - 1, 1]])
        bands = {}
        for b, band in floor.band[scheme].items():
            stats = part_pre.bins[scheme][b]
            row = type(stats)(*(field[grid_index] for field in stats))
            bands[b] = _band_outcome(row, band[j])
        setattr(view, f"bands_{s}", bands)
    return view


def _part_view(part_an, part_pre, subgrid, t1_index, fitted_index, grid):
    """A part's ``n`` and its :func:`_point_view` at T = 1 (``t1``) and at the fitted T (``fit``)."""
    def at(grid_index):
        """The point view at one grid index, found by its position in the sub-grid."""
        j = int(np.flatnonzero(subgrid == grid_index)[0])
        return _point_view(part_an, part_pre, j, grid_index, grid[grid_index])

    return SimpleNamespace(name=part_an.name, n=part_an.n, t1=at(t1_index), fit=at(fitted_index))


def _displayed_difference(test_value, cal_value, scale):
    """``test − cal`` between the display-rounded values (:func:`sitegen.payload.displayed_difference`),
    in natural units."""
    return float(displayed_difference(float(test_value), float(cal_value), scale)) / scale


def _gap(result, t1_index, fitted_index):
    """Test minus calibration of NLL, Brier and equal-width ECE (every offered B) at T = 1 and the fitted T.

    Read from the precomputed parts; ``ece`` is the ``TABLE_BINS``-bin value, ``ece_w[B]`` every offered
    bin count. A positive gap means the held-out rows score worse than the rows T was fitted on.
    Differences are taken between display-rounded values (NLL and Brier to 1e-5, ECE to 1e-3; see
    :func:`_displayed_difference`).
    """
    cal, test = result.parts["calibration"], result.parts["test"]

    def at(index):
        """The gaps at one grid index."""
        ece_w = {b: _displayed_difference(test.ece["equal-width"][b][index], cal.ece["equal-width"][b][index],
                                          RATE_SCALE)
                 for b in test.ece["equal-width"]}
        return SimpleNamespace(nll=_displayed_difference(test.nll[index], cal.nll[index], SCORE_SCALE),
                               brier=_displayed_difference(test.brier[index], cal.brier[index], SCORE_SCALE),
                               ece=ece_w[TABLE_BINS], ece_w=ece_w)

    return SimpleNamespace(t1=at(t1_index), fit=at(fitted_index))


def _metrics_view(metrics):
    """One :class:`calib.subgroups.GroupMetrics` as a namespace: ``n``, ``accuracy``, ``conf``, ``nll``,
    ``brier``, ``ece_w[B]`` / ``ece_a[B]`` (the engine's bin counts) and ``ece`` (``TABLE_BINS``, 15, equal-width bins)."""
    view = SimpleNamespace(n=metrics.n, accuracy=metrics.accuracy, conf=metrics.mean_confidence,
                           nll=metrics.nll, brier=metrics.brier)
    for scheme, s in SCHEME_KEYS.items():
        setattr(view, f"ece_{s}", {b: float(v) for b, v in metrics.ece[scheme].items()})
    view.ece = view.ece_w[TABLE_BINS]
    return view


def _subgroups(sub):
    """The subgroup table: ``names`` (groups), ``t_global``, ``t_group[g]``, and per part
    (``calibration``, ``test`` or ``all``) ``sub.<part>.<group or pooled>.<t1|global|group>`` as
    :func:`_metrics_view`."""
    view = SimpleNamespace(names=list(sub.groups), t_global=sub.temperatures["global"],
                           t_group={g: sub.temperatures[g] for g in sub.groups}, pooled_name=POOLED)
    for part, table in sub.metrics.items():
        setattr(view, part, SimpleNamespace(**{
            who: SimpleNamespace(**{c: _metrics_view(by_condition[c]) for c in CONDITIONS})
            for who, by_condition in table.items()}))
    return view


def _dataset_view(result, analysis, grid, t1_index):
    """``an.<key>``: the reported and calibration parts, the gap and the subgroup table of one dataset."""
    fitted_index = analysis.fitted_index
    parts = {name: _part_view(part, result.parts[name], analysis.subgrid, t1_index, fitted_index, grid)
             for name, part in analysis.parts.items()}
    split = "calibration" in parts
    view = SimpleNamespace(name=analysis.name, fitted_t=result.fitted_t, subgrid_size=int(analysis.subgrid.size),
                           split=split, parts=parts, rep=parts["test"] if split else parts["all"])
    if split:
        view.cal = parts["calibration"]
        view.gap = _gap(result, t1_index, fitted_index)
    if analysis.subgroups is not None:
        view.sub = _subgroups(analysis.subgroups)
    return view


def build_analysis_facts(precomputed, analyses):
    """``{"an": namespace}`` to merge into the prose context (see the module docstring)."""
    any_part = next(iter(next(iter(analyses.datasets.values())).parts.values()))
    spread_q = any_part.bootstrap.quantiles
    band_q = any_part.floor.band_quantiles
    an = SimpleNamespace(
        seed=analyses.seed, resamples=analyses.n_resamples, draws=analyses.n_draws,
        sweep_draws=analyses.sweep_draws, subgrid_step=SUBGRID_STEP,
        max_bins=int(any_part.sweep[SCHEMES[0]].shape[1]),
        bin_counts=sorted(any_part.bootstrap.ece[SCHEMES[0]]),
        spread_q=_quantile_ns(spread_q, ("lo", "hi")),
        band_q=_quantile_ns(band_q, ("lo", "hi")),
        floor_q=_quantile_ns(any_part.floor.quantiles, ("lo", "mid", "hi")),
        outside_by_chance=float(1.0 - (band_q[1] - band_q[0])),
    )
    for name, analysis in analyses.datasets.items():
        setattr(an, fact_key(name), _dataset_view(precomputed.datasets[name], analysis, analyses.grid, analyses.t1_index))
    return {"an": an}
