"""Tests of the entry point sitegen.analyses.uncertainty.precompute_analyses and of sitegen.render.analysis_payload."""

import json
import sys

import numpy as np
import pytest

from calib import SCHEMES
from sitegen.analyses.uncertainty import analyse_part, precompute_analyses
from sitegen.common.settings import GRID_BOUNDS, GRID_POINTS, OFFERED_BIN_COUNTS
from sitegen.compute.precompute import Precomputed, precompute_all
from sitegen.render.analysis_payload import analysis_payload
from sitegen.render.codec import delta_decode, unpack
from sitegen.render.payload import to_json

FAST = dict(n_resamples=20, n_draws=60, sweep_draws=20)


GROUP_FITS = []  # (rows, groups) of every fit of group temperatures while the ``small`` fixture is built


@pytest.fixture(scope="module")
def small():
    """The data of a build of three datasets (one with groups), counting the fits of group temperatures:
    every module's binding of ``fit_group_temperatures`` is wrapped, so a fit from anywhere is seen."""
    import calib.subgroups

    original = calib.subgroups.fit_group_temperatures

    def counted(logits, labels, groups, rows=None):
        GROUP_FITS.append((len(groups), tuple(sorted(set(np.asarray(groups).tolist())))))
        return original(logits, labels, groups, rows)

    bound = [(m, name) for m in list(sys.modules.values()) for name in ("fit_group_temperatures",)
             if getattr(m, name, None) is original]
    with pytest.MonkeyPatch.context() as patch:
        for module, name in bound:
            patch.setattr(module, name, counted)
        precomputed = precompute_all(("six", "sim-60", "mixed"))
        return precomputed, precompute_analyses(precomputed, seed=3, workers=1, **FAST)


def test_a_build_fits_the_group_temperatures_once_per_dataset_with_groups(small):
    """One fit (of every group at once) per dataset with groups: the precomputation's, which the analyses,
    tables and payloads all read; the mixed set (4,000 rows, groups A and B) is the only one here."""
    assert GROUP_FITS == [(4000, ("A", "B"))]


def flatten(value):
    """Every leaf of nested tuples/dicts/arrays, for exact comparison."""
    if isinstance(value, dict):
        return [(k, flatten(v)) for k, v in sorted(value.items())]
    if isinstance(value, tuple):
        return [flatten(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tobytes() + str(value.shape).encode()
    return value


def test_same_seed_same_result_whatever_the_threads_and_the_other_datasets(small):
    precomputed, first = small
    again = precompute_analyses(precomputed, seed=3, workers=2, **FAST)
    assert flatten(first.datasets) == flatten(again.datasets)
    subset = Precomputed(precomputed.grid, precomputed.t1_index, {"sim-60": precomputed.datasets["sim-60"]})
    alone = precompute_analyses(subset, seed=3, workers=1, **FAST)
    assert flatten(alone.datasets["sim-60"].parts) == flatten(first.datasets["sim-60"].parts)
    other = precompute_analyses(subset, seed=4, workers=1, **FAST)
    assert flatten(other.datasets["sim-60"].parts) != flatten(first.datasets["sim-60"].parts)


def test_subgrid_holds_t1_the_fitted_t_and_every_tenth_point_of_the_base_grid(small):
    """Every tenth temperature of the base grid (and its last), not of the shared grid: a temperature inserted
    into the shared grid (another dataset's fit, a reader's) moves none of them."""
    precomputed, analyses = small
    tenth = np.geomspace(*GRID_BOUNDS, GRID_POINTS)[list(range(0, GRID_POINTS, 10)) + [GRID_POINTS - 1]]
    for name, result in analyses.datasets.items():
        fitted = precomputed.index_of(precomputed.datasets[name].fitted_t)
        assert precomputed.t1_index in result.subgrid and fitted in result.subgrid
        np.testing.assert_allclose(np.setdiff1d(precomputed.grid[result.subgrid], [1.0, precomputed.grid[fitted]]),
                                   np.setdiff1d(tenth, [1.0, precomputed.grid[fitted]]), rtol=1e-6)
        assert result.fitted_index == fitted
    assert analyses.datasets["mixed"].subgroups is not None and analyses.datasets["six"].subgroups is None


def test_analysis_matches_the_precomputed_grid_metrics(small):
    """ECE sweep and bootstrap at T = 1 line up with what sitegen.compute.precompute computed independently."""
    precomputed, analyses = small
    for name, result in analyses.datasets.items():
        at = list(result.subgrid).index(precomputed.t1_index)
        fit = list(result.subgrid).index(result.fitted_index)
        for part_name, part in result.parts.items():
            reference = precomputed.datasets[name].parts[part_name]
            for scheme in SCHEMES:
                np.testing.assert_allclose(part.sweep[scheme][[at, fit]], reference.ece_by_bins[scheme], atol=1e-12)
                for b in OFFERED_BIN_COUNTS:
                    np.testing.assert_allclose(part.sweep[scheme][:, b - 1], reference.ece[scheme][b][result.subgrid],
                                               atol=1e-12)


def unpack_rows(rows):
    return np.array([unpack(row) for row in rows])


def decode_surface(rows):
    return np.cumsum(np.cumsum(unpack_rows(rows), axis=0), axis=1)


def test_payload_is_integer_json_that_decodes_to_the_analysis(small):
    precomputed, analyses = small
    payload = analysis_payload(analyses, "sim-60")
    text = to_json(payload)
    assert text == to_json(analysis_payload(analyses, "sim-60"))
    decoded = json.loads(text)
    size = len(decoded["subgrid"])
    part = analyses.datasets["sim-60"].parts["test"]
    sent = decoded["parts"]["test"]
    lo = delta_decode(unpack(sent["bootstrap"]["ece"]["adaptive"]["15"]["lo"]))
    hi = delta_decode(unpack(sent["bootstrap"]["ece"]["adaptive"]["15"]["hi"]))
    assert lo.size == size and np.all(lo <= hi)
    np.testing.assert_array_equal(lo, np.floor(part.bootstrap.ece["adaptive"][15][:, 0] * 1000 + 0.5))
    bands = sent["floor"]["band"]["adaptive"]["20"]["lo"]
    assert len(bands) == min(20, part.n) and all(unpack(column).size == size for column in bands)
    band_lo = np.cumsum(unpack_rows(bands), axis=1).T
    expected_lo = np.floor(np.nan_to_num(part.floor.band["adaptive"][20][:, :, 0]) * 1000 + 0.5)
    np.testing.assert_array_equal(band_lo, expected_lo)
    assert len(sent["sweep"]["equal-width"]["ece"]) == size
    np.testing.assert_array_equal(np.cumsum(unpack_rows(sent["sweep"]["equal-width"]["ece"]), axis=1),
                                  np.floor(part.sweep["equal-width"] * 1000 + 0.5))
    mid = decode_surface(sent["sweep"]["adaptive"]["mid"])
    np.testing.assert_array_equal(mid, np.floor(part.floor.sweep["adaptive"][:, :, 0] * 1000 + 0.5))
    curve, density = decode_surface(sent["smooth"]["curve"]), decode_surface(sent["smooth"]["density"])
    assert curve.shape == (size, 51) and curve.min() >= 0 and curve.max() <= 1000
    # the density is scaled to 100 at its peak, then zeroed outside the data's support: a peak on a grid point
    # just outside the support leaves a row's largest sent value a little under 100
    peaks = density.max(axis=1)
    assert np.all(curve[density == 0] == 0) and np.all(peaks <= 100) and np.all(peaks >= 90), peaks.min()

    def leaves(value):
        if isinstance(value, dict):
            for v in value.values():
                yield from leaves(v)
        elif isinstance(value, list):
            for v in value:
                yield from leaves(v)
        else:
            yield value

    values = list(leaves(decoded["parts"]))
    assert values and all(isinstance(v, (int, str)) for v in values)  # integers, or packed integers


def test_subgroup_payload(small):
    _, analyses = small
    sent = analysis_payload(analyses, "mixed")["subgroups"]
    assert sent["groups"] == ["A", "B"] and sent["conditions"] == ["t1", "global", "group"]
    table = sent["parts"]["test"]
    for who in ("A", "B", "pooled"):
        for condition in sent["conditions"]:
            row = table[who][condition]
            assert sum(row["bins"]["gap"]) == row["ece"]["equal-width"]["15"]
            assert sum(row["bins"]["count"]) == row["n"]
    assert table["pooled"]["t1"]["n"] == table["A"]["t1"]["n"] + table["B"]["t1"]["n"]


def test_rejects_bad_arguments(small):
    precomputed, analyses = small
    with pytest.raises(ValueError, match="dataset_name"):
        analysis_payload(analyses, "twelve")
    with pytest.raises(ValueError, match="seed"):
        precompute_analyses(precomputed, seed=-1)
    with pytest.raises(ValueError, match="workers"):
        precompute_analyses(precomputed, workers=0)
    data = precomputed.datasets["six"].dataset
    with pytest.raises(ValueError, match="n_resamples"):
        analyse_part("all", data.logits, data.labels, [1.0], n_resamples=0)


def test_the_smooth_curve_is_sent_over_the_datas_support_only():
    """The smoothed reliability curve is drawn where there are predictions: the payload's density (0 =
    not drawn) is 0 at every mesh point below the smallest or above the largest confidence at that
    temperature, and drawn inside (a set whose confidences start at 0.55, well above 0)."""
    from calib.smooth import smooth_ece, smooth_reliability
    from sitegen.render.analysis_payload import CURVE_DENSITY_FLOOR, _curve_payload
    rng = np.random.default_rng(7)
    f = np.stack([0.55 + 0.4 * rng.random(3000), 0.6 + 0.3 * rng.random(3000)])
    y = (rng.random(f.shape) < f - 0.1).astype(float)
    mesh = np.linspace(0.0, 1.0, 201)
    curve = smooth_reliability(f, y, smooth_ece(f, y).sigma, mesh)
    density = delta_decode(np.stack([unpack(row) for row in _curve_payload(curve, CURVE_DENSITY_FLOOR)[1]]), axis=0)
    density = delta_decode(density, axis=-1)
    for row, conf in zip(density, f):
        outside = (mesh < conf.min()) | (mesh > conf.max())
        assert not row[outside].any(), f"drawn outside the data: {mesh[outside & (row > 0)]}"
        assert row[~outside].all()
