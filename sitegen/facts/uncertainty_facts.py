"""The analyses of :mod:`sitegen.analyses.uncertainty` as facts for prose (bootstrap spreads, noise floors, bin
sweeps, smooth ECE, subgroups), plus the calibration/test gap of every split dataset.

Everything lives under one key, ``an``, so nothing clashes with :mod:`sitegen.facts.results`. Values are
read from the engine's arrays (no metric is recomputed here) and stay in natural units
(probabilities, nats); prose rounds them with the same ``fixed`` / ``pct`` filters as the rest of
the page, e.g. ``{{ an.overconfident.rep.fit.spread.ece_w[15].hi | pct(1) }}``.

Page-wide settings:

``an.resamples`` (bootstrap resamples), ``an.draws`` (simulated outcome sets behind the floors and
bands), ``an.sweep_draws`` (those behind the 1..50-bin floor), ``an.seed``, ``an.subgrid_step``
(every n-th grid point is analysed), ``an.max_bins`` (50), ``an.bin_counts`` (the bin counts with
spreads, floors and bands), ``an.spread_q`` / ``an.band_q`` (``lo``, ``hi``: 0.05, 0.95),
``an.floor_q`` (``lo``, ``mid``, ``hi``: 0.05, 0.5, 0.95), ``an.outside_by_chance`` (the share of
bins a calibrated model leaves outside a lo–hi band by chance: ``1 − (hi − lo)``), ``an.table_bins`` (15, the
bin count the prose quotes; ``ece``, ``spread.ece``, ``floor.ece``, ``bands``, ``boot.ece`` and ``paired.ece``
below are at it, equal-width), ``an.few_bins`` (5, the small bin count the prose contrasts with ``max_bins``),
``an.outside_bound`` (see :func:`_outside_bound`), ``an.quoted_resamples`` (resamples behind ``boot`` and
``paired``), ``an.mc_level`` (coverage of their Monte Carlo intervals), ``an.fit_q`` (``lo``, ``mid``, ``hi``:
the levels of ``fit_spread``).

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
``above`` / ``below`` (outside on either side), ``tail``: the share of the noise floor's simulated
draws with ``outside`` or more bins outside (:func:`calib.tail_share`), ``tail_draws`` that many draws of
``an.draws``); ``boot`` (the quoted bootstrap, ``an.quoted_resamples`` resamples) with ``nll``, ``brier``,
``ece`` (``lo``, ``hi``: 5% and 95%; ``mc``: the farthest a bound of either end's Monte Carlo interval lies
from it); ``explorer`` (``ece``, ``nll``: the explorer's own 5–95% band at this T from ``an.resamples``
resamples, ``lo``/``hi`` with their Monte Carlo intervals ``lo_from``/``lo_to``, ``hi_from``/``hi_to``).

A part with a quoted bootstrap (the reported part; also sim-600's calibration rows) has ``boot`` and ``explorer``
at ``t1`` and ``fit`` (above), and ``paired`` (the change from T = 1 to the fitted T on the same resamples,
:func:`calib.paired_difference`): ``nll``, ``brier``, ``ece`` each with ``change`` (fitted minus T = 1),
``lo``/``hi`` (its 5% and 95% points), ``lower`` (share of resamples in which the fitted T scores lower),
and ``gain``/``gain_lo``/``gain_hi`` (the same as an improvement, T = 1 minus fitted).

``gap.t1`` / ``gap.fit``: test minus calibration of ``nll``, ``brier``, ``ece`` (``TABLE_BINS``, 15, equal-width
bins) and ``ece_w[B]`` (each offered B), each the difference of the two display-rounded values, so
it matches the split table's gap column exactly.

``fit_spread`` (datasets with a known label temperature, sim-600): ``t`` (the fit), ``n`` (its rows), ``truth``,
``lo``/``mid``/``hi`` (the bootstrap refits' quantiles ``an.fit_q``), ``reach`` (share of refits at or above
the truth), ``truth_lo``/``truth_mid``/``truth_hi`` (fits to labels redrawn from the truth), ``below`` (share
of those at or below ``t``) and ``below_se`` (its binomial Monte Carlo standard error), ``resamples``, ``draws``.

``balance`` (the worked example, per example; datasets with groups, per group on the fitting rows):
``t``, ``up`` (the example or group whose NLL falls as T rises past the fit: ``name``, ``slope``,
``curvature``), ``rest`` (all the others together: ``slope``, ``curvature``) and ``ratio``
(``up.curvature / rest.curvature``); slopes and curvatures are per pooled row, in nats per unit of β = 1/T.

``sub`` (mixed only): ``names`` (the groups), ``t_global``, ``t_group[g]``, and
``sub.<part>.<group or pooled>.<t1 | global | group>`` with ``n``, ``accuracy``, ``conf`` (mean
confidence), ``nll``, ``brier``, ``ece`` (``TABLE_BINS``, 15, equal-width bins) and ``ece_w[B]`` / ``ece_a[B]``
(the subgroup bin counts of :mod:`sitegen.common.settings`).
"""

import math
from types import SimpleNamespace

import numpy as np

from calib import CONDITIONS, POOLED, SCHEMES, tail_share
from sitegen.common.settings import PROSE_FEW_BINS, SUBGRID_STEP, TABLE_BINS
from sitegen.common.units import RATE_SCALE, SCORE_SCALE, displayed_difference
from sitegen.facts.results import fact_key

__all__ = ["build_analysis_facts", "SCHEME_KEYS"]

SCHEME_KEYS = {"equal-width": "w", "adaptive": "a"}  # ece_w / ece_a, as in sitegen.facts.results


def _quantile_ns(row, names):
    """One row of quantiles (Q,) as a namespace with one float per name, e.g. ``lo``/``hi``."""
    return SimpleNamespace(**{key: float(value) for key, value in zip(names, row)})


def _band_outcome(bins, band, law, n_draws):
    """Which non-empty bins lie outside their band, and how often a calibrated model does as badly.

    ``bins`` is one temperature's :class:`calib.ReliabilityBins` row (arrays (B_used,)), ``band``
    the engine's (B_used, 2) accuracy band of a calibrated model with the same confidences (NaN for
    an empty bin), ``law`` (B_used + 1,) the noise floor's law of how many bins its ``n_draws`` draws put
    outside (``NoiseFloor.outside``). Returns a namespace with ``bins``, ``outside``, ``above``, ``below``,
    ``share``, ``tail`` (:func:`calib.tail_share`) and ``tail_draws`` (``tail`` as a number of draws).
    """
    used = bins.count > 0
    accuracy, lo, hi = bins.accuracy[used], band[used, 0], band[used, 1]
    below, above = int(np.sum(accuracy < lo)), int(np.sum(accuracy > hi))
    total = int(used.sum())
    tail = tail_share(law, below + above)
    return SimpleNamespace(bins=total, below=below, above=above, outside=below + above,
                           share=(below + above) / total if total else 0.0,
                           tail=tail, tail_draws=int(round(tail * n_draws)))


def _interval_view(quantiles, intervals, j):
    """``lo``/``hi`` (the quoted quantiles at temperature column ``j``) and ``mc``, the farthest a bound of
    either one's Monte Carlo interval lies from it (the quantity's units)."""
    lo, hi = float(quantiles[j, 0]), float(quantiles[j, 1])
    bounds = intervals[:, j]  # (Q, 2)
    mc = float(np.max(np.abs(bounds - np.array([[lo], [hi]]))))
    return SimpleNamespace(lo=lo, hi=hi, mc=mc)


def _explorer_view(quantiles, intervals, j):
    """The explorer's band at temperature column ``j``: ``lo``/``hi`` and their Monte Carlo intervals."""
    return SimpleNamespace(lo=float(quantiles[j, 0]), hi=float(quantiles[j, 1]),
                           lo_from=float(intervals[0, j, 0]), lo_to=float(intervals[0, j, 1]),
                           hi_from=float(intervals[1, j, 0]), hi_to=float(intervals[1, j, 1]))


def _quoted_point(quoted, j):
    """``boot`` and ``explorer`` of one :class:`sitegen.analyses.uncertainty.QuotedPart` at column ``j``
    (0: T = 1, 1: fitted)."""
    spread, interval = quoted.spread, quoted.interval
    boot = SimpleNamespace(nll=_interval_view(spread.nll, interval.nll, j),
                           brier=_interval_view(spread.brier, interval.brier, j),
                           ece=_interval_view(spread.ece["equal-width"][TABLE_BINS],
                                              interval.ece["equal-width"][TABLE_BINS], j))
    explorer = SimpleNamespace(nll=_explorer_view(quoted.explorer_spread.nll, quoted.explorer_interval.nll, j),
                               ece=_explorer_view(quoted.explorer_spread.ece["equal-width"][TABLE_BINS],
                                                  quoted.explorer_interval.ece["equal-width"][TABLE_BINS], j))
    return boot, explorer


def _paired_view(paired):
    """The paired change from T = 1 to the fitted T of NLL, Brier and equal-width ECE (``TABLE_BINS``)."""
    def one(change, spread, lower):
        change, lo, hi = float(change), float(spread[0]), float(spread[1])
        return SimpleNamespace(change=change, lo=lo, hi=hi, lower=float(lower),
                               gain=-change, gain_lo=-hi, gain_hi=-lo)

    c, s, low = paired.change, paired.spread, paired.share_lower
    return SimpleNamespace(
        nll=one(c.nll, s.nll, low.nll), brier=one(c.brier, s.brier, low.brier),
        ece=one(c.ece["equal-width"][TABLE_BINS], s.ece["equal-width"][TABLE_BINS],
                low.ece["equal-width"][TABLE_BINS]))


def _point_view(part_an, part_pre, j, grid_index, temperature):
    """Everything one part's analyses say at one sub-grid point ``j`` (grid index ``grid_index``).

    ``ece``, ``spread.ece``, ``floor.ece`` and ``bands`` repeat the ``TABLE_BINS``, equal-width entries.
    """
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
        setattr(view, f"above_floor_{s}",
                [b for b in range(1, max_bins + 1) if sweep[b - 1] > floor.sweep[scheme][j, b - 1, 1]])
        bands = {}
        for b, band in floor.band[scheme].items():
            stats = part_pre.bins[scheme][b]
            row = type(stats)(*(field[grid_index] for field in stats))
            bands[b] = _band_outcome(row, band[j], floor.outside[scheme][b][j], floor.n_draws)
        setattr(view, f"bands_{s}", bands)
    view.ece, view.bands = view.ece_w[TABLE_BINS], view.bands_w[TABLE_BINS]
    view.spread.ece, view.floor.ece = view.spread.ece_w[TABLE_BINS], view.floor.ece_w[TABLE_BINS]
    return view


def _part_view(part_an, part_pre, subgrid, t1_index, fitted_index, grid, quoted=None):
    """A part's ``n`` and its :func:`_point_view` at T = 1 (``t1``) and at the fitted T (``fit``), with the
    quoted bootstrap (``boot``, ``explorer``) at each and the paired change (``paired``) when ``quoted`` is given."""
    def at(grid_index):
        """The point view at one grid index, found by its position in the sub-grid."""
        j = int(np.flatnonzero(subgrid == grid_index)[0])
        return _point_view(part_an, part_pre, j, grid_index, grid[grid_index])

    view = SimpleNamespace(name=part_an.name, n=part_an.n, t1=at(t1_index), fit=at(fitted_index))
    if quoted is not None:
        for column, point in enumerate((view.t1, view.fit)):
            point.boot, point.explorer = _quoted_point(quoted, column)
        view.paired = _paired_view(quoted.paired)
    return view


def _fit_spread_view(spread):
    """``fit_spread`` of a dataset (see the module docstring) from a :class:`sitegen.analyses.uncertainty.FitSpread`."""
    lo, mid, hi = (float(v) for v in spread.bootstrap_q)
    truth_lo, truth_mid, truth_hi = (float(v) for v in spread.truth_q)
    draws = spread.under_truth.size
    return SimpleNamespace(t=spread.fitted_t, n=spread.n, truth=spread.truth, lo=lo, mid=mid, hi=hi,
                           reach=spread.reach, truth_lo=truth_lo, truth_mid=truth_mid, truth_hi=truth_hi,
                           below=spread.below, below_se=float(np.sqrt(spread.below * (1 - spread.below) / draws)),
                           resamples=int(spread.bootstrap.size), draws=int(draws))


def _balance_view(balance, per_example):
    """``balance`` (see the module docstring) from a :class:`sitegen.analyses.uncertainty.Balance`; with ``per_example``
    the names are row indices and ``up.name`` is the example's number (from 1)."""
    up = int(np.argmax(balance.slope))
    rest = np.arange(balance.slope.size) != up
    name = balance.names[up] + 1 if per_example else balance.names[up]
    view = SimpleNamespace(
        t=balance.temperature,
        up=SimpleNamespace(name=name, slope=float(balance.slope[up]), curvature=float(balance.curvature[up])),
        rest=SimpleNamespace(slope=float(balance.slope[rest].sum()), curvature=float(balance.curvature[rest].sum())))
    view.ratio = view.up.curvature / view.rest.curvature
    return view


def _outside_bound(band_q, bins=TABLE_BINS):
    """How many of ``bins`` bins a calibrated model can put outside 5–95% bands, at most, by chance.

    Given the confidences, the bins hold disjoint rows, so their exceedances are independent, each with
    probability at most ``p = 1 − (hi − lo)``: the count is at most Binomial(bins, p) in the tail. Returns
    ``bins``, ``p`` and ``at_10`` / ``at_5``: the smallest count k whose bound P(≥ k) is at most 10% / 5%
    (``k`` and that bound, ``share``).
    """
    p = float(1.0 - (band_q[1] - band_q[0]))
    pmf = [math.comb(bins, k) * p ** k * (1 - p) ** (bins - k) for k in range(bins + 1)]
    tail = [float(sum(pmf[k:])) for k in range(bins + 1)]

    def first(limit):
        k = next(k for k in range(bins + 1) if tail[k] <= limit)
        return SimpleNamespace(k=k, share=tail[k])

    return SimpleNamespace(bins=bins, p=p, tail=tail, at_10=first(0.10), at_5=first(0.05))


def _displayed_difference(test_value, cal_value, scale):
    """``test − cal`` between the display-rounded values (:func:`sitegen.common.units.displayed_difference`),
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
    ``brier``, ``ece_w[B]`` / ``ece_a[B]`` (the engine's bin counts) and ``ece`` (``TABLE_BINS``, 15,
    equal-width bins)."""
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
    parts = {name: _part_view(part, result.parts[name], analysis.subgrid, t1_index, fitted_index, grid,
                              analysis.quoted.get(name))
             for name, part in analysis.parts.items()}
    split = "calibration" in parts
    view = SimpleNamespace(name=analysis.name, fitted_t=result.fitted_t, subgrid_size=int(analysis.subgrid.size),
                           split=split, parts=parts, rep=parts["test"] if split else parts["all"])
    if split:
        view.cal = parts["calibration"]
        view.gap = _gap(result, t1_index, fitted_index)
    if analysis.subgroups is not None:
        view.sub = _subgroups(analysis.subgroups)
    if analysis.fit_spread is not None:
        view.fit_spread = _fit_spread_view(analysis.fit_spread)
    if analysis.balance is not None:
        view.balance = _balance_view(analysis.balance, per_example=analysis.subgroups is None)
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
        table_bins=TABLE_BINS, few_bins=PROSE_FEW_BINS, outside_bound=_outside_bound(band_q),
    )
    quoted = [q for d in analyses.datasets.values() for q in d.quoted.values()]
    if quoted:
        # the prose's figure: parts above LARGE_PART_ROWS rows (a reader's model) draw fewer, and say so themselves
        an.quoted_resamples, an.mc_level = max(q.n_resamples for q in quoted), quoted[0].level
    spreads = [d.fit_spread for d in analyses.datasets.values() if d.fit_spread is not None]
    if spreads:
        an.fit_q = _quantile_ns(spreads[0].quantiles, ("lo", "mid", "hi"))
    for name, analysis in analyses.datasets.items():
        view = _dataset_view(precomputed.datasets[name], analysis, analyses.grid, analyses.t1_index)
        setattr(an, fact_key(name), view)
    return {"an": an}
