"""Whether to deploy a fitted temperature: the paired change it makes, how far T itself could move, a verdict.

:func:`paired_changes`
    The change of NLL, Brier and the 15-bin ECE (both schemes) from T = 1 to
    the fitted T on the same rows, with the paired bootstrap range of each
    (:func:`calib.bootstrap_draws`, :func:`calib.paired_difference`).
:func:`temperature_spread`
    The bootstrap spread of the fitted T over its fitting rows
    (:func:`calib.fit_weighted_temperatures` on resample counts), its cost
    bounded: above ``budget`` values per search step, the resamples are drawn
    from a seeded subsample of m rows and their deviations from that
    subsample's own fit are scaled by √(m / n) (the m-out-of-n bootstrap,
    Bickel, Götze & van Zwet 1997), which is stated with the result.
:func:`verdict`
    The decision rule, from those changes: ``helps`` when NLL's whole range
    lies below zero, ``hurts`` when it lies above, ``unclear`` otherwise, and
    ``check`` instead of any of them when a warning about the fit fired;
    with every metric the fit makes worse on these rows (and those whose range
    lies wholly above zero).

Units: NLL in nats, Brier 0–2, ECE as a probability; temperatures unitless.
"""

from typing import NamedTuple, Tuple

import numpy as np

from .bootstrap import bootstrap_draws, resample_counts
from .paired import change_side, paired_difference
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .refit import fit_weighted_temperatures
from .rowscores import row_scores

__all__ = ["DECISION_BINS", "DECISION_METRICS", "MetricChange", "Verdict", "TemperatureSpread",
           "paired_changes", "metric_changes", "temperature_spread", "verdict"]

DECISION_BINS = 15  # the ECE bin count of the decision (as the tutorial's tables, after Guo et al.)
MIN_SUBSAMPLE = 100  # the fewest rows the m-out-of-n bootstrap of T resamples
DECISION_METRICS = ("nll", "brier", "ece_equal-width", "ece_adaptive")  # every score the verdict weighs


class MetricChange(NamedTuple):
    """One score at T = 1 (``before``) and at the fitted T (``after``) on the same rows, ``change`` = after −
    before, and the ``lo``/``hi`` quantiles of the paired bootstrap change (``share_lower``: resamples in which
    the fitted T scores lower). Units of the score."""

    before: float
    after: float
    change: float
    lo: float
    hi: float
    share_lower: float


class Verdict(NamedTuple):
    """``code`` (``helps``, ``hurts`` or ``unclear``, from NLL's range; ``check`` whenever a warning about the fit
    fired), ``worse`` (metrics whose value rises at the fitted T, in :data:`DECISION_METRICS` order),
    ``worse_beyond`` (those whose whole range lies above zero), ``clear`` (metrics whose whole range lies below
    zero; a range within :data:`calib.NEGLIGIBLE_CHANGE` of zero is neither, :func:`calib.change_side`),
    ``nll_bound`` (the largest |change| of NLL its range allows, nats), ``checks`` (the codes of the
    warnings that make it ``check``) and ``nll_code`` (what NLL's range alone says)."""

    code: str
    worse: Tuple[str, ...]
    worse_beyond: Tuple[str, ...]
    clear: Tuple[str, ...]
    nll_bound: float
    checks: Tuple[str, ...] = ()
    nll_code: str = ""


class TemperatureSpread(NamedTuple):
    """The fitted T's bootstrap spread: ``quantiles`` (levels), ``values`` (the T at each), ``resamples``,
    ``rows`` (fitting rows n) and ``subsample`` (m rows each resample drew from; equal to n for the plain
    bootstrap, else the m-out-of-n rescaling applies)."""

    quantiles: Tuple[float, ...]
    values: Tuple[float, ...]
    resamples: int
    rows: int
    subsample: int


def paired_changes(logits, labels, fitted_t, n_resamples, rng, n_bins=DECISION_BINS, quantiles=SPREAD_QUANTILES):
    """The :class:`calib.PairedDifference` and the :class:`calib.BootstrapDraws` of the change from T = 1 to
    ``fitted_t`` on rows ``logits`` (n, K), ``labels`` (n,): one bootstrap of ``n_resamples`` resamples from
    ``rng`` scores both temperatures on the same resamples; ECE with ``n_bins`` bins, both schemes."""
    rows = [row_scores(logits, labels, t) for t in (1.0, float(fitted_t))]
    sample = bootstrap_draws(np.stack([r[0] for r in rows]), rows[0][1], np.stack([r[2] for r in rows]), (n_bins,),
                             n_resamples, rng, np.stack([r[3] for r in rows]))
    return paired_difference(sample, 0, 1, quantiles), sample.observed


def metric_changes(paired, observed, n_bins=DECISION_BINS):
    """``{metric: MetricChange}`` for :data:`DECISION_METRICS` from a paired difference of T = 1 (index 0) and the
    fitted T (index 1) and the full sample's scores ``observed`` (a :class:`calib.ScoreSet` of (2,) arrays)."""
    def pick(scores, key):
        return scores.ece[key[4:]][n_bins] if key.startswith("ece_") else getattr(scores, key)

    out = {}
    for key in DECISION_METRICS:
        values, spread = pick(observed, key), pick(paired.spread, key)
        out[key] = MetricChange(float(values[0]), float(values[1]), float(pick(paired.change, key)),
                                float(spread[0]), float(spread[-1]), float(pick(paired.share_lower, key)))
    return out


def verdict(changes, warnings=(), metrics=DECISION_METRICS):
    """The :class:`Verdict` of ``{metric: MetricChange}`` over ``metrics`` (keys of ``changes``, ``"nll"`` among
    them; default every key of :data:`DECISION_METRICS`).

    ``warnings`` are what to check about the fit (:func:`calib.fit_warnings`: T at a search bound, accuracy at
    chance, scores that do not predict the labels): with any of them the code is ``check``, never ``helps``: a
    range computed from rows whose labels may not belong to them recommends nothing.
    """
    nll = changes["nll"]
    side = {k: change_side([changes[k].lo, changes[k].hi]) for k in metrics}  # beyond the range, and not negligible
    code = {-1: "helps", 1: "hurts", 0: "unclear"}[side["nll"]]
    worse = tuple(k for k in metrics if changes[k].after > changes[k].before)
    beyond = tuple(k for k in metrics if side[k] > 0)
    clear = tuple(k for k in metrics if side[k] < 0)
    checks = tuple(getattr(w, "code", w) for w in warnings)
    return Verdict("check" if checks else code, worse, beyond, clear, float(max(abs(nll.lo), abs(nll.hi))), checks,
                   code)


def temperature_spread(logits, labels, fitted_t, n_resamples, rng, budget, min_resamples, quantiles=SPREAD_QUANTILES,
                       tolerance=1e-5):
    """The :class:`TemperatureSpread` of ``fitted_t``, the T fitted by NLL to ``logits`` (n, K), ``labels`` (n,).

    ``n_resamples`` bootstrap refits when n · K · n_resamples ≤ ``budget``; else
    ``max(min_resamples, budget // (n · K))`` of them, and when even those exceed
    the budget, resamples of a seeded subsample of m = budget // (K · R) rows
    (at least :data:`MIN_SUBSAMPLE` and at most n), each refit's deviation from the subsample's fit
    scaled by √(m / n) and added to ``fitted_t``. Cost: about ``budget``
    (row, class) values per step of the lock-step search.
    """
    z = np.asarray(logits, dtype=np.float64)
    y = np.asarray(labels)
    n, k = z.shape
    gen = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    resamples = int(n_resamples) if n * k * n_resamples <= budget else int(max(min_resamples, budget // (n * k)))
    m = n if n * k * resamples <= budget else int(min(n, max(MIN_SUBSAMPLE, budget // (k * resamples))))
    q = tuple(float(v) for v in quantiles)
    if m == n:
        refits = fit_weighted_temperatures(z, y, resample_counts(n, resamples, gen), tolerance=tolerance)
    else:
        rows = np.sort(gen.choice(n, size=m, replace=False))
        zs, ys = z[rows], y[rows]
        centre = fit_weighted_temperatures(zs, ys, np.ones(m), tolerance=tolerance)[0]
        deviations = fit_weighted_temperatures(zs, ys, resample_counts(m, resamples, gen), tolerance=tolerance) - centre
        refits = float(fitted_t) + np.sqrt(m / n) * deviations
    values = tuple(float(v) for v in sorted_quantiles(refits, q))
    return TemperatureSpread(q, values, resamples, int(n), int(m))
