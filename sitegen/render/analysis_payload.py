"""Encoding one dataset's uncertainty analyses for the page (loaded on demand).

Same conventions as :mod:`sitegen.render.payload`: every number is rounded here, once,
to an integer in its display unit, with :func:`sitegen.common.units.to_units`:

* probabilities and rates (ECE, accuracy, confidence, bands, quantile levels,
  smooth-ECE bandwidth, curve points) in units of 1e-3 (``RATE_SCALE``);
* scores (NLL in nats, Brier) in units of 1e-5 (``SCORE_SCALE``);
* the one exception, the smoothed density of confidences (it is never
  printed, only steers drawing), in percent of its peak.

Values along the sub-grid are delta-encoded (first value, then successive
differences; decode with a running sum) and packed into strings with
:func:`sitegen.render.codec.pack` / :func:`sitegen.render.codec.pack_rows`, exactly like the
``d`` strings of the dataset payload, so the page reuses its ``unpack``. The
sub-grid is sent as indices into the shared grid, so the page looks
temperatures up in the grid it already has. The format is described field by
field in :func:`analysis_payload`.
"""

import numpy as np

from calib import CONDITIONS, POOLED, SCHEMES
from sitegen.common.settings import SUBGROUP_BIN_COUNTS, TABLE_BINS
from sitegen.common.units import RATE_SCALE, SCORE_SCALE, to_units
from sitegen.render.codec import delta_encode, pack, pack_rows
from sitegen.render.payload import SCHEMA_VERSION, group_metrics_payload

__all__ = ["ANALYSIS_SCHEMA_VERSION", "analysis_payload", "subgroups_payload"]

ANALYSIS_SCHEMA_VERSION = SCHEMA_VERSION
CURVE_DENSITY_FLOOR = 0.01  # the smoothed curve is not sent where the density is under 1% of its peak
DENSITY_SCALE = 100  # the density only steers drawing: percent of its peak is enough


def _series(values, scale=RATE_SCALE):
    """A series over the sub-grid (G_s,) → one packed string of delta-encoded display units."""
    return pack(delta_encode(to_units(np.asarray(values, dtype=np.float64), scale)))


def _columns(table, scale=RATE_SCALE):
    """A table (G_s, m) → m packed series over the sub-grid, one per column (a list of m strings)."""
    units = to_units(np.nan_to_num(np.asarray(table, dtype=np.float64)), scale)
    return pack_rows(delta_encode(units.T, axis=-1))


def _rows(table, scale=RATE_SCALE):
    """A table (G_s, m) → G_s packed strings (one per sub-grid point), each delta-encoded along its m entries."""
    units = to_units(np.nan_to_num(np.asarray(table, dtype=np.float64)), scale)
    return pack_rows(delta_encode(units, axis=-1))


def _surface(table, scale=RATE_SCALE):
    """A smooth table (G_s, m) → G_s packed strings, delta-encoded along both axes: each row
    along its m entries, then those rows against the previous sub-grid point. Decode with a
    running sum down the rows, then along each row."""
    units = to_units(np.nan_to_num(np.asarray(table, dtype=np.float64)), scale)
    return pack_rows(delta_encode(delta_encode(units, axis=-1), axis=0))


def _curve_payload(curve, floor):
    """Smoothed curve (×1000) and density (percent of its peak); both 0 where the density is under ``floor``
    or the mesh point lies outside the confidences of that temperature (``curve.support``): the curve is
    drawn over the data only."""
    density = to_units(curve.density, DENSITY_SCALE)
    inside = (curve.mesh >= curve.support[:, :1]) & (curve.mesh <= curve.support[:, 1:])
    shown = (density >= floor * DENSITY_SCALE) & inside
    accuracy = np.where(shown, to_units(np.clip(curve.accuracy, 0.0, 1.0), RATE_SCALE), 0)
    return _surface(accuracy / RATE_SCALE), _surface(np.where(shown, density, 0) / DENSITY_SCALE, DENSITY_SCALE)


def _part_payload(part):
    spread, floor = part.bootstrap, part.floor
    low_band, high_band = 0, 1
    return {
        "n": part.n,
        "bootstrap": {
            "nll": {"lo": _series(spread.nll[:, 0], SCORE_SCALE), "hi": _series(spread.nll[:, -1], SCORE_SCALE)},
            "ece": {s: {str(b): {"lo": _series(v[:, 0]), "hi": _series(v[:, -1])} for b, v in spread.ece[s].items()}
                    for s in SCHEMES},
        },
        "floor": {
            "ece": {s: {str(b): {"lo": _series(v[:, 0]), "mid": _series(v[:, 1]), "hi": _series(v[:, 2])}
                        for b, v in floor.ece[s].items()} for s in SCHEMES},
            "band": {s: {str(b): {"lo": _columns(v[:, :, low_band]), "hi": _columns(v[:, :, high_band])}
                         for b, v in floor.band[s].items()} for s in SCHEMES},
        },
        "sweep": {s: {"ece": _rows(part.sweep[s]),
                      "mid": _surface(floor.sweep[s][:, :, 0]),
                      "hi": _surface(floor.sweep[s][:, :, 1])} for s in SCHEMES},
        "smooth": dict(zip(("curve", "density"), _curve_payload(part.curve, CURVE_DENSITY_FLOOR)),
                       ece=_series(part.smooth.value), sigma=_series(part.smooth.sigma)),
    }


def subgroups_payload(subgroups):
    """The JSON-ready subgroup table (see :func:`analysis_payload`, field ``subgroups``)."""
    return {
        "groups": list(subgroups.groups),
        "pooled": POOLED,
        "conditions": list(CONDITIONS),
        "temperatures": {name: float(t) for name, t in subgroups.temperatures.items()},
        "parts": {
            part: {who: {c: group_metrics_payload(m, SUBGROUP_BIN_COUNTS, table_bins=TABLE_BINS)
                         for c, m in by_condition.items()}
                   for who, by_condition in table.items()}
            for part, table in subgroups.metrics.items()
        },
    }


def analysis_payload(analyses, dataset_name):
    """The JSON-ready analysis payload of one dataset (for ``data/<name>-analysis.js``).

    Fields (integers in display units unless stated; "series" = one value per
    sub-grid point, delta-encoded and packed into a string (decode with
    ``unpack`` and a running sum); "columns" = a list of series, one per bin;
    "rows" = a list with one packed string per sub-grid point, delta-encoded
    along its own axis — bin counts 1..max_bins or mesh points; "surface" =
    rows whose entries are further delta-encoded down the sub-grid, see
    :func:`_surface`):

    ``schema_version``, ``name``
    ``subgrid``: indices into the shared grid (ascending); ``t1_index``, ``fitted_index``
    ``settings``: ``seed``, ``resamples``, ``draws``, ``sweep_draws``, ``max_bins``,
        ``curve_points``, ``spread_quantiles`` [50, 950] and ``floor_quantiles``
        [50, 500, 950] (probabilities ×1000)
    ``parts[part]`` for each part (``all`` or ``calibration``/``test``):
        ``n``;
        ``bootstrap.nll.lo/hi``: series, NLL ×1e5, 5% and 95% over resamples;
        ``bootstrap.ece[scheme][B].lo/hi``: series, ECE ×1000;
        ``floor.ece[scheme][B].lo/mid/hi``: series, 5/50/95% of the ECE a
        perfectly calibrated model with these confidences scores;
        ``floor.band[scheme][B].lo/hi``: columns (one per bin, ``B`` or
        ``min(B, n)`` of them), 5%/95% of that bin's accuracy ×1000 (0 and 0 for
        an empty bin, whose count is 0 in the core payload);
        ``sweep[scheme].ece``: rows over bin counts 1..max_bins: the ECE;
        ``sweep[scheme].mid/hi``: surface (G_s × max_bins): median / 95% of the floor's ECE;
        ``smooth.ece``, ``smooth.sigma``: series, smooth ECE and its bandwidth ×1000;
        ``smooth.curve``: surface (G_s × curve_points, mesh k/(curve_points − 1)):
        smoothed accuracy ×1000, clipped to [0, 1000];
        ``smooth.density``: surface: density of confidences in percent of its
        peak (100 = the peak). Where it is under 1% both are sent as 0: too
        few confidences there to draw the curve.
    ``subgroups`` (datasets with groups only): ``groups``, ``pooled`` (the
        name of the pooled row set), ``conditions`` ["t1", "global", "group"],
        ``temperatures`` (floats: ``global`` and each group's fitted T), and
        ``parts[part][group or pooled][condition]`` with ``n``, ``accuracy``,
        ``confidence`` (mean), ``ece[scheme][B]`` (×1000), ``nll``, ``brier``
        (×1e5) and ``bins`` (``TABLE_BINS`` equal-width bins: ``count``, ``confidence``,
        ``accuracy``, ``gap``; gaps sum to that ECE shown).
    """
    if dataset_name not in analyses.datasets:
        raise ValueError(f"dataset_name must be one of {sorted(analyses.datasets)}; got {dataset_name!r}")
    result = analyses.datasets[dataset_name]
    any_part = next(iter(result.parts.values()))
    payload = {
        "schema_version": ANALYSIS_SCHEMA_VERSION,
        "name": result.name,
        "subgrid": result.subgrid.tolist(),
        "t1_index": int(analyses.t1_index),
        "fitted_index": int(result.fitted_index),
        "settings": {
            "seed": analyses.seed,
            "resamples": analyses.n_resamples,
            "draws": analyses.n_draws,
            "sweep_draws": analyses.sweep_draws,
            "max_bins": int(any_part.sweep[SCHEMES[0]].shape[1]),
            "curve_points": int(any_part.curve.mesh.size),
            "spread_quantiles": to_units(any_part.bootstrap.quantiles, RATE_SCALE).tolist(),
            "floor_quantiles": to_units(any_part.floor.quantiles, RATE_SCALE).tolist(),
        },
        "parts": {name: _part_payload(part) for name, part in result.parts.items()},
    }
    if result.subgroups is not None:
        payload["subgroups"] = subgroups_payload(result.subgroups)
    return payload
