"""The fit and report of ``python -m calib fit`` from partition sums: the same figures, whatever runs the passes.

A partitioned fit needs one callable, ``run_pass(plan) -> sums``, that applies
:func:`calib.chunks.partition_sums` to every partition and adds the results (:func:`calib.chunks.add_sums`):
on one machine, streamed (:func:`calib.fit_streamed`), or on a Dask cluster (:func:`calib.fit_dask`).
:func:`chunked_report` drives the passes and returns the dict ``calib fit --json`` prints, with the
same keys, and one more, ``exactness``, that says which figures are exact, which approximate and which
resampled differently.

The fit: mean NLL is convex in β = 1/T (its second derivative is the mean variance of the logits under
the model, never negative), so Newton's method on β with the summed slope and curvature
(:func:`fit_beta`), kept inside a bracket that the slope's sign shrinks, reaches the bounded minimiser in
a few passes (typically 4–7). It stops when a step moves β by less than :data:`STEP_TOLERANCE`; the
remaining error is of the order of that step squared, far below ``calib fit``'s bracket of 1e-7.

Probabilities rounded to a few decimals get ``calib fit``'s check (:mod:`calib.rounding`): a ``"digits"`` pass
first finds the decimals and the zeros, every later pass reads a printed 0 as ``calib fit`` does, and when the
calibration rows hold zeros, two more Newton fits read them at either end of what they can stand for (each
starts from the fitted β moved as the pilot's rows move: about two passes); Ts more than 5% apart give the
warning ``rounded_zeros``.
"""

import numpy as np

from .binning import equal_mass_bounds, finish_bins, max_gap
from .bootstrap import BootstrapDraws, ScoreSet
from .chunks import FINE_BINS, SUB_BINS, Plan, fine_edges, partition_sums, rounded_decimals
from .decision import MetricChange, TemperatureSpread, verdict
from .fitting import DEFAULT_BOUNDS
from .io import MIN_PART_ROWS
from .io_checks import InputError, fit_warnings
from .io_values import rounded_zeros_note
from .paired import paired_difference
from .quantiles import SPREAD_QUANTILES, sorted_quantiles
from .rounding import RoundingRange, zero_readings

__all__ = ["STEP_TOLERANCE", "EARLY_STEP", "RESIDUAL_LIMIT", "MAX_PASSES", "N_BINS", "DECISION_SEED",
           "LARGE_METRICS", "fit_beta", "part_scores", "equal_mass_estimate", "cut_bins", "resampled_decision",
           "chunked_report", "default_resamples", "rounding_check"]

STEP_TOLERANCE = 1e-10  # Newton stops when a step moves β by less than this
EARLY_STEP = 1e-6       # ... or, converging quadratically, by less than this (the next step would be ~1e-12)
RESIDUAL_LIMIT = 1e-9   # the Newton step left at the fitted β (measured by the final pass) that reopens the fit
PILOT_TOLERANCE = 1e-6  # the pilot fit on a few rows, where the passes over all rows start
MAX_PASSES = 60         # passes before the fit gives up (bisection alone would need about 40)
N_BINS = 15             # as calib fit
DECISION_SEED = 20230922
LARGE_METRICS = ("nll", "brier", "ece_equal-width")  # the decision's metrics here: no resampled adaptive ECE


def default_resamples(rows):
    """``calib fit``'s rule for the paired resamples: min(2000, max(200, 4·10⁷ // rows))."""
    return int(min(2000, max(200, 40_000_000 // max(rows, 1))))


def fit_beta(slope_at, bounds=DEFAULT_BOUNDS, tolerance=STEP_TOLERANCE, max_passes=MAX_PASSES, start=1.0):
    """``(beta, passes)``: the β = 1/T within ``[1/bounds[1], 1/bounds[0]]`` minimising a mean NLL whose slope
    and curvature in β ``slope_at(beta) -> (slope, curvature)`` returns (one pass over the data each).

    Newton's step −slope/curvature, from β = ``start``, kept inside the bracket the slope's sign has left
    (the slope increases with β): a step beyond an untried search bound tries the bound, a step beyond a
    tried end bisects. At a bound whose slope points outward the bound is the answer. The search stops
    after a step below ``tolerance``, or, a pass earlier, after a step below :data:`EARLY_STEP` that
    shrank at least as fast as the 1.5th power of the one before (Newton's quadratic convergence: the next
    step would be of the order of its square); the final pass measures the step left
    (:func:`chunked_report` resumes if it exceeds :data:`RESIDUAL_LIMIT`).
    """
    low, high = 1.0 / bounds[1], 1.0 / bounds[0]
    lo, hi, tried, previous = low, high, set(), None
    beta = min(max(start, low), high)
    for passes in range(1, max_passes + 1):
        slope, curvature = slope_at(beta)
        tried.add(beta)
        if slope == 0 or (slope > 0 and beta == low) or (slope < 0 and beta == high):
            return beta, passes
        if slope > 0:
            hi = beta
        else:
            lo = beta
        step = -slope / curvature if curvature > 0 else (hi - beta if slope < 0 else lo - beta)
        proposal = beta + step
        converging = previous is not None and abs(step) <= min(EARLY_STEP, abs(previous) ** 1.5)
        if abs(step) <= tolerance or (converging and lo < proposal < hi):
            return float(min(max(proposal, lo), hi)), passes
        previous = step if lo < proposal < hi else None
        if not lo < proposal < hi:
            end = hi if proposal >= hi else lo
            proposal = end if end in (low, high) and end not in tried else (lo + hi) / 2.0
        beta = proposal
    raise RuntimeError(f"the Newton fit of 1/T did not converge in {max_passes} passes")


def part_scores(sums, temperatures, n_bins):
    """``calib fit``'s metric dicts (one per temperature) from a final pass's exact sums (no adaptive bins), each
    with its equal-width reliability diagram under ``bins`` (per bin: count, mean confidence, accuracy; None
    for an empty bin)."""
    n = int(sums["eval_rows"][0])
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    out = []
    for g, t in enumerate(temperatures):
        shape = sums["bin_count"][g].shape
        bins = finish_bins(np.broadcast_to(edges[:-1], shape).copy(), np.broadcast_to(edges[1:], shape).copy(),
                           sums["bin_count"][g], sums["bin_confidence"][g], sums["bin_hits"][g], n)
        out.append({"temperature": float(t), "nll": float(sums["nll"][g] / n), "brier": float(sums["brier"][g] / n),
                    "accuracy": float(sums["hits"][0] / n), "mean_confidence": float(sums["confidence"][g] / n),
                    "ece": {"equal-width": float(bins.weighted_gap.sum())},
                    "mce": {"equal-width": float(max_gap(bins))},
                    "bins": {"scheme": "equal-width", "count": bins.count.tolist(),
                             "confidence": [None if c == 0 else float(v) for c, v in zip(bins.count, bins.confidence)],
                             "accuracy": [None if c == 0 else float(v) for c, v in zip(bins.count, bins.accuracy)]}})
    return out


def _cut_positions(count, n_bins):
    """``(cuts, j, inside, cum_n)``: the equal-mass cut ranks, the fine bin each falls in, the rows of that bin
    below the cut, and the cumulative counts (F + 1,)."""
    cum_n = np.concatenate([[0], np.cumsum(count)])
    cuts = equal_mass_bounds(int(cum_n[-1]), n_bins)
    j = np.minimum(np.searchsorted(cum_n, cuts, side="right") - 1, count.size - 1)
    return cuts, j, cuts - cum_n[j], cum_n


def cut_bins(count, n_bins):
    """The fine bins (ints) that the interior equal-mass cuts of a fine histogram ``count`` (F,) fall in: what a
    ``"refine"`` pass (:class:`calib.chunks.Plan`) splits into sub-bins."""
    return tuple(int(v) for v in _cut_positions(np.asarray(count, dtype=np.int64), n_bins)[1][1:-1])


def equal_mass_estimate(count, confidence, hits, n_bins, fine_bins=FINE_BINS, refined=None):
    """Adaptive (equal-mass) ECE and MCE from a fine confidence histogram, with bounds on their error:
    ``(ece, ece_bound, mce, mce_bound)``, probabilities.

    ``count``, ``confidence``, ``hits`` (F,) are the fine bins' row counts and sums
    (:func:`calib.chunks.fine_edges`); ``refined`` = ``(count, confidence, hits)``, each (C, S), the
    sub-histograms of the bins of :func:`cut_bins` (a ``"refine"`` pass), or None. The equal-mass groups
    cut the sorted rows at the ranks of :func:`calib.equal_mass_bounds`; a cut that falls inside a bin (or
    sub-bin) of c rows takes the share of its sums that its rank asks for. The rows truly below the cut
    are some m of those c rows (h of them hits): their hits lie between max(0, m − (c − h)) and min(m, h),
    and their confidence sum within min(m, c − m) times the bin's width of the share taken; each cut moves
    two groups, which gives the bounds (0 when every cut falls on a bin edge; with ties, rows of one
    confidence that a cut splits, the hits' range remains).
    """
    count = np.asarray(count, dtype=np.int64)
    confidence, hits = np.asarray(confidence, dtype=np.float64), np.asarray(hits, dtype=np.float64)
    cuts, j, inside, cum_n = _cut_positions(count, n_bins)
    n = int(cum_n[-1])
    width = np.diff(fine_edges(fine_bins))[j]  # the spread of the confidences a cut's bin holds
    cum_c = np.concatenate([[0.0], np.cumsum(confidence)])
    cum_h = np.concatenate([[0.0], np.cumsum(hits)])
    below_conf, below_hits = cum_c[j].copy(), cum_h[j].copy()
    parts = [(count[j], confidence[j], hits[j])]  # the bin (or sub-bin) each cut splits: rows and sums
    if refined is not None:
        sub_count, sub_conf, sub_hits = (np.asarray(a) for a in refined)
        cum = np.concatenate([np.zeros((sub_count.shape[0], 1), np.int64), np.cumsum(sub_count, axis=1)], axis=1)
        rows = np.arange(sub_count.shape[0])
        s = np.minimum([np.searchsorted(c, v, side="right") - 1 for c, v in zip(cum, inside[1:-1])],
                       sub_count.shape[1] - 1)
        before = np.concatenate([np.zeros((rows.size, 1)), np.cumsum(sub_conf, axis=1)], axis=1)[rows, s], \
            np.concatenate([np.zeros((rows.size, 1)), np.cumsum(sub_hits, axis=1)], axis=1)[rows, s]
        below_conf[1:-1] += before[0]
        below_hits[1:-1] += before[1]
        inside = inside.copy()
        inside[1:-1] -= cum[rows, s]
        whole = [a.copy() for a in parts[0]]
        for a, sub in zip(whole, (sub_count, sub_conf, sub_hits)):
            a[1:-1] = sub[rows, s]
        parts = [whole]
        width = width.copy()
        width[1:-1] = width[1:-1] / SUB_BINS * (1.0 + 1e-9) + 1e-15  # a sub-bin, with room for rounding
    in_bin, bin_conf, bin_hits = parts[0]
    share = np.divide(inside, in_bin, out=np.zeros(cuts.size), where=in_bin > 0)
    below_hits += share * bin_hits
    below_conf += share * bin_conf
    # the m = inside rows truly below the cut hold between max(0, m − misses) and min(m, hits) hits, and
    # confidences within the bin's spread of the estimate's share
    guess = share * bin_hits
    hit_error = np.maximum(guess - np.maximum(0, inside - (in_bin - bin_hits)), np.minimum(inside, bin_hits) - guess)
    error = np.maximum(hit_error, 0.0) + np.minimum(inside, in_bin - inside) * width
    gap = np.diff(below_hits) - np.diff(below_conf)
    moved = error[:-1] + error[1:]
    sizes = np.diff(cuts)
    return (float(np.abs(gap).sum() / n), float(moved.sum() / n), float(np.max(np.abs(gap) / sizes)),
            float(np.max(moved / sizes)))


def resampled_decision(sums, observed, fitted_beta, bounds, n_bins, quantiles=SPREAD_QUANTILES):
    """``(changes, spread)``: the Poisson-bootstrap paired change of :data:`LARGE_METRICS` from T = 1 to the
    fitted T (a dict of :class:`calib.decision.MetricChange`), and the fitted T's spread (a
    :class:`calib.decision.TemperatureSpread`), from a final pass's ``boot_eval`` and ``boot_fit`` sums.

    ``observed`` holds the two exact metric dicts (T = 1, fitted T). Each resample's refit is one Newton
    step from the fitted β with its weighted slope and curvature (the linearised bootstrap: its error is of
    the order of the squared shift of β, about 1/n, against a spread of order 1/√n).
    """
    boot, g, b = sums["boot_eval"], 2, n_bins
    weight = boot[:, 0]
    nll = boot[:, 1:1 + g] / weight[:, None]
    brier = boot[:, 1 + g:1 + 2 * g] / weight[:, None]
    ece = np.abs(boot[:, 1 + 2 * g:].reshape(boot.shape[0], g, b)).sum(axis=2) / weight[:, None]
    draws = ScoreSet(nll, brier, {"equal-width": {b: ece}})
    seen = ScoreSet(np.array([o["nll"] for o in observed]), np.array([o["brier"] for o in observed]),
                    {"equal-width": {b: np.array([o["ece"]["equal-width"] for o in observed])}})
    paired = paired_difference(BootstrapDraws(boot.shape[0], draws, seen), 0, 1, quantiles)

    def pick(scores, key):
        return scores.ece["equal-width"][b] if key.startswith("ece_") else getattr(scores, key)

    changes = {}
    for key in LARGE_METRICS:
        values, spread = pick(seen, key), pick(paired.spread, key)
        changes[key] = MetricChange(float(values[0]), float(values[1]), float(pick(paired.change, key)),
                                    float(spread[0]), float(spread[-1]), float(pick(paired.share_lower, key)))
    fit = sums["boot_fit"]
    betas = np.clip(fitted_beta - fit[:, 1] / fit[:, 2], 1.0 / bounds[1], 1.0 / bounds[0])
    q = tuple(float(v) for v in quantiles)
    values = tuple(float(v) for v in sorted_quantiles(1.0 / betas, q))
    rows = int(sums["fit_rows"][0])
    return changes, TemperatureSpread(q, values, int(fit.shape[0]), rows, rows)


def _part_names(split):
    return ("all", "all") if split == "none" else ("calibration", "test")


def _check_rows(name, split, part, rows):
    if rows < MIN_PART_ROWS:
        raise InputError(f"{name}: split ({split}): the {part} part has {rows} row(s); each part needs at least "
                         f"{MIN_PART_ROWS}")


def _pilot_beta(pilot, base):
    """A starting β for Newton from a few rows ``pilot()`` returns as ``(logits, labels, split)`` (no pass over
    the data): the fit of those rows' calibration part, or 1 when they have too few."""
    z, y, s = pilot()
    sums = {}

    def slope_at(beta):
        sums.update(partition_sums(z, y, s, 0, base._replace(beta=beta)))
        rows = int(sums["fit_rows"][0])
        return (sums["slope"][0] / rows, sums["curvature"][0] / rows) if rows else (0.0, 1.0)

    return fit_beta(slope_at, tolerance=PILOT_TOLERANCE)[0] if len(y) >= MIN_PART_ROWS else 1.0


def rounding_check(fit, base, beta, zeros):
    """``(range, passes)``: the :class:`calib.rounding.RoundingRange` of a fit whose calibration rows hold
    ``zeros`` cells printed as 0 at ``base.decimals`` places (None, 0 when none), by two Newton fits
    ``fit(plan, beta) -> (beta, passes)`` near the fitted ``beta``, with the zeros of ``base``'s passes read at
    each of :func:`calib.rounding.zero_readings`; and the passes they took."""
    if not base.decimals or not zeros:
        return None, 0
    values = zero_readings(base.decimals)
    fits = [fit(base._replace(zero=value), beta) for value in values]
    return (RoundingRange(int(base.decimals), int(zeros), values, tuple(1.0 / b for b, _ in fits)),
            sum(passes for _, passes in fits))


def chunked_report(run_pass, name, n, k, split="even-odd", temperature=None, resamples=None, seed=DECISION_SEED,
                   n_bins=N_BINS, fine_bins=FINE_BINS, probabilities=False, engine=None, refine=True, pilot=None,
                   files=None):
    """The report of a partitioned fit: the dict ``calib fit --json`` prints, from ``run_pass(plan) -> sums``.

    ``name`` names the data (file, glob or collection), ``n`` and ``k`` its rows and classes; ``split`` one of
    :data:`calib.chunks.SPLIT_RULES`; ``temperature`` a T to evaluate instead of fitting one; ``resamples``
    the Poisson bootstrap's R (None: ``calib fit``'s rule, :func:`default_resamples`; 0: no decision);
    ``engine`` a dict describing what ran the passes; ``refine`` runs one more pass that narrows the adaptive
    bins' error bound (about 4,096 times); ``pilot()``, if given, returns a few rows ``(logits, labels, split)``
    (e.g. the first batch) whose own fit is where Newton starts, which saves two or three passes; ``files``
    the report's ``files`` (one dict per file: ``file``, ``rows``; default one entry for ``name``). The key
    ``exactness`` lists every figure that is approximate, resampled differently from ``calib fit``, or left
    out, and why. Probabilities rounded to a few decimals take one more pass, and a fitted T two more fits,
    for the check of :func:`rounding_check`.
    """
    fit_part, eval_part = _part_names(split)
    base = Plan("slope", 1.0, split=split, n_bins=n_bins, fine_bins=fine_bins, probabilities=probabilities)
    rows, notes = {}, []
    if probabilities:  # which decimals, if any, the values were rounded to: how to read a 0 from now on
        digits = run_pass(base._replace(kind="digits"))
        base = base._replace(decimals=rounded_decimals(digits))
        if base.decimals:
            notes.append(f"{name}: {rounded_zeros_note(base.decimals, int(digits['zeros'][0]))}")

    def slope_at(beta, plan=base):
        sums = run_pass(plan._replace(beta=beta))
        rows.update(fit=int(sums["fit_rows"][0]), eval=int(sums["eval_rows"][0]))
        _check_rows(name, split, fit_part, rows["fit"])
        return sums["slope"][0] / rows["fit"], sums["curvature"][0] / rows["fit"]

    if temperature is None:
        start = _pilot_beta(pilot, base) if pilot is not None else 1.0
        beta, passes = fit_beta(slope_at, start=start)
        temperature = 1.0 / beta
    else:
        beta, passes = 1.0 / float(temperature), 0
    if resamples is None:
        resamples = default_resamples(rows.get("eval", n if split == "none" else n // 2))
    final = base._replace(kind="final", beta=beta, temperatures=(1.0, float(temperature)), resamples=int(resamples),
                          seed=int(seed))
    sums = run_pass(final)
    residual = sums["slope"][0] / max(sums["curvature"][0], 1e-300)
    if passes and abs(residual) > RESIDUAL_LIMIT and 1.0 / DEFAULT_BOUNDS[1] < beta < 1.0 / DEFAULT_BOUNDS[0]:
        beta, more = fit_beta(slope_at, start=beta - residual)  # rare: the early stop was premature
        passes += more
        temperature = 1.0 / beta
        final = final._replace(beta=beta, temperatures=(1.0, float(temperature)))
        sums = run_pass(final)
    fit_rows, eval_rows = int(sums["fit_rows"][0]), int(sums["eval_rows"][0])
    _check_rows(name, split, fit_part, fit_rows)
    _check_rows(name, split, eval_part, eval_rows)
    before, after = part_scores(sums, final.temperatures, n_bins)
    approximate, left_out = {}, {"sha256": "not computed: it would read every byte once more",
                                 "files.sha256": "not computed: it would read every byte once more"}
    if k == 2:
        left_out["platt"] = left_out["positive_class"] = (
            "Platt scaling is not fitted by the partitioned path (its place: calib.chunks's docstring)")
    refined = None
    if fine_bins and refine and n_bins > 1 and eval_rows > n_bins:
        bins = tuple(cut_bins(sums["fine_count"][g], n_bins) for g in range(2))
        sub = run_pass(final._replace(kind="refine", resamples=0, cut_bins=bins))
        refined = [tuple(sub[key][g] for key in ("sub_count", "sub_confidence", "sub_hits")) for g in range(2)]
    for g, (key, scores) in enumerate((("before", before), ("after", after))):
        if fine_bins:
            ece, ece_bound, mce, mce_bound = equal_mass_estimate(sums["fine_count"][g], sums["fine_confidence"][g],
                                                                 sums["fine_hits"][g], n_bins, fine_bins,
                                                                 None if refined is None else refined[g])
            scores["ece"]["adaptive"], scores["mce"]["adaptive"] = ece, mce
            how = f"equal-mass bins cut from a {fine_bins}-bin confidence histogram" + (
                f", the cut bins split in {SUB_BINS}" if refined else "") + "; |error| ≤ bound"
            approximate[f"{key}.ece.adaptive"] = {"bound": ece_bound, "how": how}
            approximate[f"{key}.mce.adaptive"] = {"bound": mce_bound, "how": how}
        else:
            left_out[f"{key}.ece.adaptive"] = left_out[f"{key}.mce.adaptive"] = "fine_bins = 0: no histogram"
    slope, curvature = sums["slope"][0] / fit_rows, sums["curvature"][0] / fit_rows

    def refit(plan, beta):  # from the fitted β moved as the pilot's rows move with the zeros' reading
        moved = _pilot_beta(pilot, plan) - start if pilot is not None else 0.0
        return fit_beta(lambda b: slope_at(b, plan), start=beta + moved)

    rounding, rounding_passes = rounding_check(refit, base, beta,
                                               int(sums["zero_cells"][0]) if passes and "zero_cells" in sums else 0)
    warned = fit_warnings(float(temperature), after["accuracy"], k, DEFAULT_BOUNDS, eval_part, rounding=rounding)
    report = {
        "file": str(name), "files": list(files or [{"file": str(name), "rows": int(n)}]), "n": int(n), "k": int(k),
        "kind": "probabilities" if probabilities else "logits", "binary": False, "notes": notes,
        "split": {"rule": split, "seed": None, "parts": {fit_part: fit_rows} if split == "none"
                  else {fit_part: fit_rows, eval_part: eval_rows}},
        "temperature": float(temperature),
        "fit": {"objective": "mean NLL (nats)",
                "method": "Newton in 1/T (summed slope and curvature; convex)" if passes else "given",
                "bounds": list(DEFAULT_BOUNDS), "tolerance": STEP_TOLERANCE, "tolerance_of": "the last step in 1/T",
                "passes": passes, "residual_step": float(abs(slope / curvature)) if curvature > 0 else 0.0,
                "part": fit_part, "rows": fit_rows,
                "rounding": None if rounding is None else {**rounding._asdict(), "passes": rounding_passes}},
        "evaluated_on": eval_part, "n_bins": n_bins, "before": before, "after": after,
        "warnings": [w._asdict() for w in warned],
        "engine": dict(engine or {}),
    }
    resampled = {}
    if resamples:
        changes, spread = resampled_decision(sums, (before, after), beta, DEFAULT_BOUNDS, n_bins)
        report["decision"] = {
            "evaluated_on": eval_part, "rows": eval_rows, "n_bins": n_bins, "paired_resamples": int(resamples),
            "range_quantiles": list(SPREAD_QUANTILES),
            "metrics": {key: change._asdict() for key, change in changes.items()},
            "verdict": verdict(changes, warned, metrics=LARGE_METRICS)._asdict(),
            "temperature_spread": spread._asdict(),
            "resampling": {"kind": "Poisson", "seed": int(seed), "block_rows": 4096}}
        resampled["decision"] = ("Poisson bootstrap: independent Poisson(1) weights per row, seeded by (seed, row "
                                 "// 4096), so the ranges do not depend on the partitioning (calib fit draws "
                                 "multinomial resamples)")
        approximate["decision.temperature_spread"] = {
            "bound": None, "how": "each resample's refit is one Newton step from the fitted 1/T (error of order 1/n)"}
        left_out["decision.metrics.ece_adaptive"] = "equal-mass bins of each resample are not computed"
    else:
        left_out["decision"] = "resamples = 0"
    report["exactness"] = {"exact": _exact_fields(report), "approximate": approximate, "resampled": resampled,
                           "left_out": left_out}
    return report


def _exact_fields(report):
    """The dotted names of the figures computed exactly (as sums over rows)."""
    fields = ["temperature", "n", "split.parts", "fit.rows"]
    for key in ("before", "after"):
        fields += [f"{key}.{m}" for m in ("nll", "brier", "accuracy", "mean_confidence")]
        fields += [f"{key}.ece.equal-width", f"{key}.mce.equal-width", f"{key}.bins"]
    return fields
