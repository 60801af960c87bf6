"""Encoding the precomputation for the page: display units, integer and delta encodings.

Every number the page displays is rounded here, once, to an integer in its
display unit, so the page and the engine cannot disagree by a rounding:

* scores (NLL in nats, Brier) in units of 1e-5 (shown with five decimals);
* rates and probabilities (ECE, MCE, accuracy, confidence, bin edges,
  per-bin statistics, class probabilities) in units of 1e-3 (shown as 0.844
  or 84.4%).

Rounding is half away from zero for the non-negative values rounded here
(``floor(x · scale + 0.5)``). A series along the temperature grid is sent as
``{"t1": v1, "d": pack(delta(v - v1))}``: its value at T = 1 and the change
against T = 1 at every grid point, the latter delta-encoded (first element,
then successive differences) and packed into a string of one-character codes
(:func:`sitegen.render.codec.pack`); NLL and Brier, smooth in T, are delta-encoded twice (``"dd"``). Unpacking and a
running sum (two for ``"dd"``) are all the page does. The change the cards print is the engine's,
rounded once: where it differs from the difference of the rounded values (by one unit), the series lists
the points (``"up"``, ``"down"``; :func:`grid_series`), a one-point record says by how much (``"fix"``).
The format is written down in the README, section "Payload format".
"""

import json

import numpy as np

from calib import SCHEMES
from sitegen.analyses.calibrator_fits import offered_methods
from sitegen.common.metrics import SCALES, is_builtin, registered, script_metrics, values_of
from sitegen.common.settings import (
    EXAMPLE_LIST_MAX_ROWS,
    GRID_DIGITS,
    OFFERED_BIN_COUNTS,
    RATE_SCALE,
    SCORE_SCALE,
    SELECTABLE_BIN_COUNTS,
    TABLE_BINS,
    WORKED_EXAMPLE_BINS,
)
from sitegen.common.units import change_fix, shares_summing_to, to_units
from sitegen.render.codec import delta_encode, pack, pack_rows
from sitegen.render.hero import hero_payload, hero_series

__all__ = [
    "SCHEMA_VERSION", "grid_series", "core_payload", "dataset_payload",
    "bins_payload", "groups_payload",
    "group_metrics_payload", "opening_bins",
    "to_script", "to_json",
]

SCHEMA_VERSION = 3






def grid_series(values, scale, t1_index, smooth=False, exact=True):
    """A displayed series of the floats ``values`` (G,) in units of 1/``scale``: ``{"t1": value at T = 1,
    "d": packed delta-encoded change against T = 1}``, and where the engine's change rounded,
    ``round(v_i − v_t1)``, differs from the difference of the rounded values, ``round(v_i) − round(v_t1)``
    (by one unit, at about a quarter of the points), the points where it is one more (``"up"``) or one
    less (``"down"``), packed delta-encoded (omitted when there are none): the cards show ``round(v_i)``
    and ``round(v_i − v_t1)``.

    ``smooth`` (for NLL and Brier, smooth in T): the change is delta-encoded twice and sent as ``"dd"``
    (its second differences are a few units where its first differences are hundreds). ``exact=False``: no
    ``"up"`` or ``"down"`` (a series whose change the page never prints).
    """
    values = np.asarray(values, dtype=np.float64)
    units = to_units(values, scale)
    change = units - units[t1_index]
    out = {"t1": int(units[t1_index])}
    if smooth:
        out["dd"] = pack(delta_encode(delta_encode(change)))
    else:
        out["d"] = pack(delta_encode(change))
    if not exact:
        return out
    fix = change_fix(values, values[t1_index], scale)
    for key, sign in (("up", 1), ("down", -1)):
        points = np.flatnonzero(fix == sign)
        if points.size:
            out[key] = pack(delta_encode(points))
    return out


def _carry_over_empty(values, empty):
    """``values`` (G, B) with each empty bin's entry replaced by the same bin's value at the previous
    point (0 before its first filled point): the page never shows an empty bin's confidence or accuracy,
    and a value that does not move costs nothing once delta-encoded."""
    points = np.arange(values.shape[0])[:, None]
    last_filled = np.maximum.accumulate(np.where(empty, -1, points), axis=0)
    return np.where(last_filled >= 0, np.take_along_axis(values, np.maximum(last_filled, 0), axis=0), 0)


def _bins_payload(stats, scheme, total=None, n=None, apart=False):
    """Per-bin arrays (G, B) → ``{field: [delta series per bin]}`` in display units.

    Equal-width edges do not move with T, so they are sent once as ``edges``
    (B + 1 values); adaptive edges are sent per bin and grid point. With ``apart`` (points far apart,
    the sub-grid), two adaptive fields are sent relative to one decoded before them, flagged 1 (else 0):
    ``lower_above``, a bin's ``lower`` above the previous bin's ``upper`` (the first bin's as it is), and
    ``confidence_above``, its mean confidence above its own ``lower``.
    An empty bin's confidence and accuracy repeat the bin's last shown value. ``total`` (G,), the
    displayed ECE the gaps must add up to (default: their own rounded sum). With ``n`` (the rows
    binned), the bin ``rest`` with the most rows over the points is left out of ``count`` and ``gap``
    (an empty string): its count is ``n`` minus the others', its gap ``total`` minus the others'.
    """
    empty = stats.count == 0
    fields = {
        "count": stats.count,
        "confidence": _carry_over_empty(to_units(np.nan_to_num(stats.confidence), RATE_SCALE), empty),
        "accuracy": _carry_over_empty(to_units(np.nan_to_num(stats.accuracy), RATE_SCALE), empty),
        "gap": shares_summing_to(stats.weighted_gap, RATE_SCALE, total),
    }
    if scheme == "adaptive":
        fields["lower"], fields["upper"] = to_units(stats.lower, RATE_SCALE), to_units(stats.upper, RATE_SCALE)
    encoded = {name: pack_rows(delta_encode(np.asarray(values).T, axis=-1)) for name, values in fields.items()}
    if scheme == "adaptive":
        # Points far apart (the sub-grid) move a bin's edges and mean a lot, but little against each other;
        # on the full grid (small steps) the plain series compress better.
        lower, upper = fields["lower"], fields["upper"]
        relative = {
            "lower": ("lower_above", np.concatenate([lower[:, :1], lower[:, 1:] - upper[:, :-1]], axis=1)),
            "confidence": ("confidence_above", fields["confidence"] - lower),
        }
        for name, (flag, values) in relative.items():
            encoded[flag] = int(apart)
            if apart:
                encoded[name] = pack_rows(delta_encode(values.T, axis=-1))
    if n is not None:
        if np.any(stats.count.sum(axis=1) != n):
            raise ValueError(f"the bins hold {stats.count.sum(axis=1).max()} rows, not n = {n}")
        rest = int(np.argmax(stats.count.sum(axis=0)))
        encoded["count"][rest] = encoded["gap"][rest] = ""
        encoded["rest"] = rest
    if scheme == "equal-width":
        encoded["edges"] = to_units(np.append(stats.lower[0], stats.upper[0, -1]), RATE_SCALE).tolist()
    return encoded


def _same_as_earlier(tables):
    """Replace a table equal to an earlier one by ``{"same_as": key}`` (adaptive bins of a small set
    are identical for every B ≥ n, since they all use n groups)."""
    out, seen = {}, {}
    for key, table in tables.items():
        text = to_json(table)
        out[key] = {"same_as": seen[text]} if text in seen else table
        seen.setdefault(text, key)
    return out


def _by_count(table):
    """``{str(B): entry}`` → a list whose item B − 1 is B's entry (null for a B not sent), up to the
    largest B: bin counts in numeric order, so gzip sees neighbouring counts' series side by side."""
    counts = [int(b) for b in table]
    return [table.get(str(b)) for b in range(1, max(counts) + 1)] if counts else []


def _part_payload(part, t1_index, all_counts=SELECTABLE_BIN_COUNTS, with_bins=True, bin_counts=None):
    """A row set over the grid: ``n``, ``nll_argmin`` and every registered metric (a series per T, a constant,
    or a binned metric's series per scheme and bin count: ``all_counts`` for one sent for every count, the
    offered counts for the others), and with ``with_bins`` the offered counts' reliability bins. ``bin_counts``
    (None: all): the counts the page can select, whose series carry their exact changes (:func:`grid_series`)."""
    def by_scheme(table, scale, counts):
        return {s: _by_count(_same_as_earlier({str(b): grid_series(table[s][b], scale, t1_index,
                                                                   exact=bin_counts is None or b in bin_counts)
                                               for b in counts}))
                for s in SCHEMES}

    payload = {"n": part.n, "nll_argmin": part.nll_argmin}
    for metric in registered():
        values, scale = values_of(part, metric), SCALES[metric.scale]
        if metric.kind == "constant":
            payload[metric.key] = int(to_units(values, scale))
        elif metric.kind == "series":
            payload[metric.key] = grid_series(values, scale, t1_index, smooth=metric.smooth)
        else:
            payload[metric.key] = by_scheme(values, scale, all_counts if metric.every_count else OFFERED_BIN_COUNTS)
    if with_bins:
        payload["bins"] = {s: _same_as_earlier({str(b): _bins_payload(part.bins[s][b], s,
                                                                      to_units(part.ece[s][b], RATE_SCALE), part.n)
                                                for b in OFFERED_BIN_COUNTS})
                           for s in SCHEMES}
    return payload


def _sub_bins_payload(part, subgrid):
    """The diagrams of ``part.sub_bins`` on the sub-grid, field by field so that gzip finds alike strings
    together: ``{scheme: {"counts": [B…], "same_as": {B: B'}, "edges": [[…] per B] (equal-width),
    field: [[packed series per bin] per B]}}``, the gaps adding up to the ECE series at those points."""
    out = {}
    for scheme in SCHEMES:
        tables = {}
        for b, stats in part.sub_bins[scheme].items():
            total = to_units(part.ece[scheme][b][np.asarray(subgrid)], RATE_SCALE)
            tables[str(b)] = _bins_payload(stats, scheme, total, part.n, apart=True)
        tables = _same_as_earlier(tables)
        kept = [b for b, table in tables.items() if "same_as" not in table]
        block = {"counts": [int(b) for b in kept],
                 "same_as": {b: t["same_as"] for b, t in tables.items() if "same_as" in t}}
        for field in tables[kept[0]] if kept else ():
            block[field] = [tables[b][field] for b in kept]
        out[scheme] = block
    return out


def dataset_payload(result, precomputed, bin_counts=None):
    """The JSON-ready payload of one dataset (see the README's "Payload format"); ``bin_counts`` (None: every
    selectable one), the bin counts the page can select (the one-file edition: the offered ones), the only ones
    whose series carry the exact change against T = 1 (:func:`grid_series`)."""
    t1 = precomputed.t1_index
    data = result.dataset
    payload = {
        "schema_version": SCHEMA_VERSION,
        "name": data.name,
        "n": int(data.labels.size),
        "k": int(data.logits.shape[1]),
        "fitted": {"t": result.fitted_t, "index": precomputed.index_of(result.fitted_t), "on": result.fitted_on},
        "parts": {name: _part_payload(part, t1, bin_counts=bin_counts) for name, part in result.parts.items()},
        "examples": {
            "index": result.showcase.tolist(),
            "logits": np.round(data.logits[result.showcase], 3).tolist(),
            "label": data.labels[result.showcase].tolist(),
            "predicted": np.argmax(data.logits[result.showcase], axis=1).tolist(),
            "probs": [pack_rows(delta_encode(per_example)) for per_example in
                      np.moveaxis(to_units(result.showcase_probs, RATE_SCALE), 0, -1)],
        },
    }
    return payload


def bins_payload(result, precomputed, part_name):
    """The on-demand payload ``data/<name>-<part>-bins.js`` of one part: the diagrams of the bin counts
    beyond the full-grid ones on the dataset's sub-grid, and their binned metrics that the dataset file sends
    for the offered counts only (the MCE) on the full grid (see docs/payload.md)."""
    part = result.parts[part_name]
    others = [b for b in SELECTABLE_BIN_COUNTS if b not in OFFERED_BIN_COUNTS]
    payload = {
        "schema_version": SCHEMA_VERSION,
        "name": result.dataset.name,
        "part": part_name,
        "subgrid": [int(i) for i in result.subgrid],
        "bins": _sub_bins_payload(part, result.subgrid),
    }
    for metric in registered():  # the binned metrics the dataset file sends for the offered counts only
        if metric.kind == "binned" and not metric.every_count:
            table, scale = values_of(part, metric), SCALES[metric.scale]
            payload[metric.key] = {s: _by_count(_same_as_earlier(
                {str(b): grid_series(table[s][b], scale, precomputed.t1_index) for b in others}))
                for s in SCHEMES}
    return payload


def _bins_table(bins):
    """Equal-width bins (1-D arrays) as plain lists in display units: ``count``, ``confidence``, ``accuracy``
    (0 for an empty bin) and ``gap`` (summing to the ECE shown)."""
    empty = bins.count == 0

    def rates(values):
        return np.where(empty, 0, to_units(np.nan_to_num(np.asarray(values, dtype=np.float64)), RATE_SCALE))

    return {"count": bins.count.tolist(), "confidence": rates(bins.confidence).tolist(),
            "accuracy": rates(bins.accuracy).tolist(),
            "gap": shares_summing_to(bins.weighted_gap, RATE_SCALE).tolist()}


def _point_fixes(metrics, reference, counts):
    """``{key: ±1}`` (a binned metric's ``{scheme: {B: ±1}}``) where the change of ``metrics`` against
    ``reference`` (the same row set at T = 1, or uncalibrated: a :class:`calib.GroupMetrics`) rounded once
    differs from the difference of the two rounded values (:func:`sitegen.common.units.change_fix`); nothing
    where they agree, or where either is not finite (an infinite NLL)."""
    def fix(value, ref, scale):
        return int(change_fix(value, ref, scale))

    out = {}
    for metric in registered():
        values, refs, scale = values_of(metrics, metric), values_of(reference, metric), SCALES[metric.scale]
        if metric.kind != "binned":
            one = fix(values, refs, scale)
            if one:
                out[metric.key] = one
            continue
        table = {s: {str(b): fix(values[s][b], refs[s][b], scale) for b in counts(metric)} for s in SCHEMES}
        table = {s: {b: f for b, f in by_b.items() if f} for s, by_b in table.items()}
        if any(table.values()):
            out[metric.key] = {s: by_b for s, by_b in table.items() if by_b}
    return out


def group_metrics_payload(metrics, all_counts, detailed_counts=(), table_bins=None, reference=None):
    """One :class:`calib.GroupMetrics` in display units: ``n`` and every registered metric (a binned one's
    ``[scheme][B]`` for ``all_counts`` if it is sent for every count, else for ``detailed_counts``); for
    ``detailed_counts`` also ``bins[scheme][B]`` as one-point packed series (the explorer's group view); with
    ``table_bins`` instead, the subgroup table: the grid pass's own metrics only, and ``bins`` that many
    equal-width bins as plain lists. With ``reference`` (the row set the page shows a change against, a
    :class:`calib.GroupMetrics`), ``fix``: where the change rounded once differs from the difference of the
    rounded values, by how much (:func:`_point_fixes`)."""
    out = {"n": metrics.n}
    for metric in registered():
        if table_bins is not None and not is_builtin(metric):
            continue
        values, scale = values_of(metrics, metric), SCALES[metric.scale]
        if metric.kind != "binned":
            out[metric.key] = int(to_units(values, scale))
        elif metric.every_count or detailed_counts:
            counts = all_counts if metric.every_count else detailed_counts
            out[metric.key] = {s: {str(b): int(to_units(values[s][b], scale)) for b in counts} for s in SCHEMES}
    if reference is not None:
        fixes = _point_fixes(metrics, reference,
                             lambda metric: all_counts if metric.every_count else detailed_counts)
        if fixes:
            out["fix"] = fixes
    if detailed_counts:
        one_point = {s: {b: type(v)(*(np.asarray(a)[None] for a in v)) for b, v in metrics.bins[s].items()}
                     for s in SCHEMES}  # (B,) → (1, B): a series of one point
        out["bins"] = {s: {str(b): _bins_payload(one_point[s][b], s) for b in detailed_counts} for s in SCHEMES}
    if table_bins is not None:
        out["bins"] = _bins_table(metrics.bins["equal-width"][table_bins])
    return out


def groups_payload(result, precomputed):
    """The on-demand payload ``data/<name>-groups.js`` of a dataset with groups (see the README)."""
    groups = result.groups
    t1 = precomputed.t1_index
    parts = {}
    for part, by_group in groups.parts.items():
        parts[part] = {}
        for g, group_part in by_group.items():
            body = _part_payload(group_part, t1, all_counts=OFFERED_BIN_COUNTS, with_bins=False)
            body["sub_bins"] = _sub_bins_payload(group_part, result.subgrid)
            parts[part][g] = body
    return {
        "schema_version": SCHEMA_VERSION,
        "name": result.dataset.name,
        "groups": list(groups.names),
        "temperatures": {g: float(t) for g, t in groups.temperatures.items()},
        "subgrid": [int(i) for i in result.subgrid],
        "parts": parts,
        "own": {part: {who: group_metrics_payload(by_condition["group"], OFFERED_BIN_COUNTS, OFFERED_BIN_COUNTS,
                                                  reference=by_condition["t1"])
                       for who, by_condition in by_who.items()}
                for part, by_who in groups.scores.metrics.items()},
    }


def opening_bins(rows):
    """The bin count an explorer opens a dataset of ``rows`` rows at: the one its prose quotes (the
    worked examples' few bins for a set small enough to list, the tables' count for the others)."""
    return WORKED_EXAMPLE_BINS if rows <= EXAMPLE_LIST_MAX_ROWS else TABLE_BINS


def core_payload(precomputed, default_dataset):
    """What every page needs before any dataset, in every language: the grid, T = 1's index, units, the
    registered metrics (:func:`sitegen.common.metrics.script_metrics`), the hero's small series
    (:func:`sitegen.render.hero.hero_payload`), the dataset list and
    ``default_dataset``, the one the main explorer opens on. (Words, such as each dataset's description, are
    in the page's own strings.)"""
    if default_dataset not in precomputed.datasets:
        raise ValueError(f"default_dataset must be one of {sorted(precomputed.datasets)}; got {default_dataset!r}")
    return {
        "schema_version": SCHEMA_VERSION,
        "default_dataset": default_dataset,
        "grid": [float(f"{t:.{GRID_DIGITS}g}") for t in precomputed.grid],
        "t1_index": precomputed.t1_index,
        "units": {"score": SCORE_SCALE, "rate": RATE_SCALE},
        "bin_counts": list(SELECTABLE_BIN_COUNTS),
        "offered_bin_counts": list(OFFERED_BIN_COUNTS),
        "schemes": list(SCHEMES),
        "metrics": script_metrics(),
        "hero": hero_payload(hero_series(precomputed)),
        "datasets": [
            {
                "name": name,
                "n": int(r.dataset.labels.size),
                "split": "calibration" in r.parts,
                "fitted_t": r.fitted_t,
                "fitted_index": precomputed.index_of(r.fitted_t),
                "parts": list(r.parts),
                "groups": list(r.groups.names) if r.groups is not None else [],
                "methods": list(offered_methods(name, r.parts)),
                "bins": opening_bins(r.dataset.labels.size),
            }
            for name, r in precomputed.datasets.items()
        ],
    }


def to_json(payload):
    """Deterministic, compact JSON: sorted keys, no NaN, no spaces."""
    return json.dumps(payload, allow_nan=False, sort_keys=True, separators=(",", ":"))


def to_script(function_name, payload):
    """A classic script registering ``payload``: ``CalibTutorial.<function_name>({...});``.

    ``</`` is escaped so the JSON can also be inlined in an HTML ``<script>``.
    """
    body = to_json(payload).replace("</", "<\\/")
    return (f"window.CalibTutorial=window.CalibTutorial||{{}};"
            "(window.CalibTutorial.pending=window.CalibTutorial.pending||[])"
            f".push([\"{function_name}\",{body}]);\n")
