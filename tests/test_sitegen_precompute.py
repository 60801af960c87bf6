"""Tests of sitegen.compute.precompute: the shared temperature grid and the metric arrays computed over it.

Every array is checked against direct calls of the engine's public functions
at a few grid points, and the grid against its documented construction.
"""

import math

import numpy as np
import pytest

from calib import (
    DATASET_NAMES,
    brier,
    ece,
    fit_temperature,
    load,
    mce,
    nll,
    part_masks,
    reliability_bins,
    scaled_probs,
    top_label,
)
from sitegen.compute.precompute import base_grid, grid_index, round_significant, subgrid_indices


def fitting_rows(data):
    return np.ones(data.labels.size, bool) if data.is_calibration is None else data.is_calibration


def local_log_step(grid, t):
    """Log-width of the grid interval around ``t``."""
    i = min(max(int(np.searchsorted(grid, t)), 1), grid.size - 1)
    return math.log(grid[i] / grid[i - 1])


# --- the grid ---------------------------------------------------------------------------------

def test_base_grid_is_534_geometric_points_over_the_bounds():
    grid = base_grid()
    assert grid.size == 534
    assert grid[0] == 0.05 and grid[-1] == 10.0
    ratios = grid[1:] / grid[:-1] - 1.0
    assert ratios.max() < 0.01
    # geometric: every step is the same ratio, (10 / 0.05) ** (1 / 533) − 1 ≈ 0.9990 %
    assert ratios == pytest.approx(200.0 ** (1 / 533) - 1.0, rel=1e-6)


def test_shared_grid_holds_one_and_every_fitted_temperature(precomputed):
    grid = precomputed.grid
    assert np.all(np.diff(grid) > 0)
    assert grid[precomputed.t1_index] == 1.0
    assert set(base_grid().tolist()) <= set(grid.tolist())
    extras = {1.0} | {r.fitted_t for r in precomputed.datasets.values()}
    assert grid.size == 534 + len(extras - set(base_grid().tolist()))
    assert grid.min() == 0.05 and grid.max() == 10.0
    for name, result in precomputed.datasets.items():
        assert result.fitted_t in grid.tolist(), name
        assert grid[precomputed.index_of(result.fitted_t)] == result.fitted_t


def test_round_significant():
    assert round_significant([1.23456789012345, 0.000123456789012345]).tolist() == [1.23456789, 0.0001234567890]
    assert round_significant(2.0).tolist() == [2.0]


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_fitted_temperature_is_the_bounded_fit_on_the_right_part(precomputed, name):
    result = precomputed.datasets[name]
    data = load(name)
    rows = fitting_rows(data)
    assert result.fitted_on == ("all" if data.is_calibration is None else "calibration")
    bounded = fit_temperature(data.logits[rows], data.labels[rows])
    assert result.fitted_t == pytest.approx(bounded, rel=1e-9)


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_grid_fit_within_half_a_grid_step_of_bounded_fit(precomputed, name):
    result = precomputed.datasets[name]
    data = load(name)
    rows = fitting_rows(data)
    bounded = fit_temperature(data.logits[rows], data.labels[rows])
    # on the page grid (its argmin of NLL over the fitting part) …
    grid = precomputed.grid
    on_page = grid[result.parts[result.fitted_on].nll_argmin]
    assert abs(math.log(on_page / bounded)) <= local_log_step(grid, bounded) / 2
    # … and on the 534-point base grid alone, which does not contain the fitted T
    base = base_grid()
    on_base = fit_temperature(data.logits[rows], data.labels[rows], method="grid", grid=base)
    assert abs(math.log(on_base / bounded)) <= local_log_step(base, bounded) / 2


# --- metric arrays against direct engine calls ------------------------------------------------

def sample_indices(precomputed, result):
    g = precomputed.grid.size
    return sorted({0, precomputed.t1_index, precomputed.index_of(result.fitted_t), g // 3, g - 1})


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_metric_arrays_equal_direct_engine_calls(precomputed, name):
    result = precomputed.datasets[name]
    data = result.dataset
    masks = part_masks(data)
    assert set(result.parts) == set(masks)
    for part_name, rows in masks.items():
        part = result.parts[part_name]
        z, y = data.logits[rows], data.labels[rows]
        assert part.n == rows.sum()
        assert part.accuracy == pytest.approx(float(np.mean(np.argmax(z, axis=1) == y)), rel=1e-15)
        for g in sample_indices(precomputed, result):
            t = float(precomputed.grid[g])
            conf, correct = top_label(z, y, t)
            assert part.nll[g] == pytest.approx(nll(z, y, t), rel=1e-12)
            assert part.brier[g] == pytest.approx(brier(z, y, t), rel=1e-12)
            assert part.mean_confidence[g] == pytest.approx(conf.mean(), rel=1e-12)
            for scheme in ("equal-width", "adaptive"):
                for n_bins in (4, 5, 10, 15, 20):
                    assert part.ece[scheme][n_bins][g] == pytest.approx(ece(conf, correct, n_bins, scheme), abs=1e-12)
                    assert part.mce[scheme][n_bins][g] == pytest.approx(mce(conf, correct, n_bins, scheme), abs=1e-12)
                    direct = reliability_bins(conf, correct, n_bins, scheme)
                    stored = part.bins[scheme][n_bins]
                    assert np.array_equal(stored.count[g], direct.count)
                    for field in ("lower", "upper", "confidence", "accuracy", "weighted_gap"):
                        assert np.allclose(getattr(stored, field)[g], getattr(direct, field), rtol=1e-12, atol=1e-15,
                                           equal_nan=True), (part_name, g, scheme, n_bins, field)


@pytest.mark.parametrize("name", ["six", "sim-600", "mixed"])
def test_ece_by_bins_sweep_equals_direct_calls(precomputed, name):
    result = precomputed.datasets[name]
    data = result.dataset
    for part_name, rows in part_masks(data).items():
        sweep = result.parts[part_name].ece_by_bins
        z, y = data.logits[rows], data.labels[rows]
        for row, t in enumerate((1.0, result.fitted_t)):
            conf, correct = top_label(z, y, t)
            for scheme in ("equal-width", "adaptive"):
                assert sweep[scheme].shape == (2, 50)
                for n_bins in (1, 2, 7, 33, 50):
                    assert sweep[scheme][row, n_bins - 1] == pytest.approx(ece(conf, correct, n_bins, scheme),
                                                                           abs=1e-12)


def test_nll_argmin_is_the_grid_argmin(precomputed):
    for result in precomputed.datasets.values():
        for part in result.parts.values():
            assert part.nll_argmin == int(np.argmin(part.nll))
            assert part.nll[part.nll_argmin] <= part.nll[precomputed.t1_index]


def test_six_arrays_at_reference_points(precomputed):
    # the article's numbers, reached through the precomputed arrays rather than the functions
    result = precomputed.datasets["six"]
    part = result.parts["all"]
    t1, fit = precomputed.t1_index, precomputed.index_of(result.fitted_t)
    assert result.fitted_t == pytest.approx(1.229751, abs=5e-7)
    assert part.nll[t1] == pytest.approx(0.82278, abs=5e-6) and part.nll[fit] == pytest.approx(0.81243, abs=5e-6)
    assert part.brier[t1] == pytest.approx(0.482, abs=5e-4) and part.brier[fit] == pytest.approx(0.485, abs=5e-4)
    assert part.ece["equal-width"][4][t1] == pytest.approx(0.129, abs=5e-4)
    assert part.ece["equal-width"][4][fit] == pytest.approx(0.380, abs=5e-4)


# --- showcase ----------------------------------------------------------------------

@pytest.mark.parametrize("name", DATASET_NAMES)
def test_showcase_examples_and_probabilities(precomputed, name):
    result = precomputed.datasets[name]
    data = result.dataset
    chosen = result.showcase
    assert chosen.size == min(6, data.labels.size)
    assert np.all(np.diff(chosen) > 0) and chosen.min() >= 0 and chosen.max() < data.labels.size
    assert result.showcase_probs.shape == (precomputed.grid.size, chosen.size, data.logits.shape[1])
    for g in (0, precomputed.t1_index, precomputed.grid.size - 1):
        expected = scaled_probs(data.logits[chosen], float(precomputed.grid[g]))
        assert np.allclose(result.showcase_probs[g], expected, rtol=1e-12, atol=1e-300)
    if data.labels.size > 6:
        correct = np.argmax(data.logits[chosen], axis=1) == data.labels[chosen]
        assert 0 < correct.sum() < chosen.size  # right and wrong examples both shown


# --- grid look-ups ----------------------------------------------------------------------------

def test_grid_index_finds_marked_temperatures_and_refuses_others(precomputed):
    grid = precomputed.grid
    assert grid_index(grid, 1.0) == precomputed.t1_index
    for result in precomputed.datasets.values():
        assert grid[grid_index(grid, result.fitted_t)] == result.fitted_t
    with pytest.raises(ValueError, match="not a point of the grid"):
        grid_index(grid, 1.0001)


def test_subgrid_indices_by_hand():
    assert subgrid_indices(31, keep=[7, 30]).tolist() == [0, 7, 10, 20, 30]
    assert subgrid_indices(5, step=2).tolist() == [0, 2, 4]
    with pytest.raises(ValueError, match="keep"):
        subgrid_indices(10, keep=[10])
    with pytest.raises(ValueError, match="step"):
        subgrid_indices(10, step=0)


# --- what the prose quotes, precomputed -------------------------------------------------------

@pytest.mark.parametrize("name", DATASET_NAMES)
def test_plain_grid_fit_is_the_grid_argmin_on_the_fitting_rows(precomputed, name):
    result = precomputed.datasets[name]
    rows = part_masks(result.dataset)[result.fitted_on]
    z, y = result.dataset.logits[rows], result.dataset.labels[rows]
    assert result.base_grid_t == fit_temperature(z, y, method="grid", grid=base_grid())
    assert result.base_grid_nll == nll(z, y, result.base_grid_t)


@pytest.mark.parametrize("name", ["six", "twelve"])
def test_example_table_equals_direct_engine_calls(precomputed, name):
    result = precomputed.datasets[name]
    data, table = result.dataset, result.examples
    assert table.n_bins == 4
    for row, t in enumerate((1.0, result.fitted_t)):
        conf, correct = top_label(data.logits, data.labels, t)
        np.testing.assert_array_equal(table.correct, correct)
        np.testing.assert_allclose(table.confidence[row], conf, rtol=1e-12)
        for i in range(data.labels.size):
            one = reliability_bins([conf[i]], [correct[i]], 4)
            j = int(np.flatnonzero(one.count)[0])
            assert table.bin_index[row, i] == j
            assert (table.bin_lower[row, i], table.bin_upper[row, i]) == (j / 4, (j + 1) / 4)
            assert table.loss[row, i] == pytest.approx(nll(data.logits[i:i + 1], data.labels[i:i + 1], t), rel=1e-12)
            assert table.p_true[row, i] == pytest.approx(scaled_probs(data.logits[i:i + 1], t)[0, data.labels[i]],
                                                         rel=1e-12)
    assert precomputed.datasets["sim-600"].examples is None


def test_softmax_walkthrough_of_the_first_worked_row(precomputed):
    walk = precomputed.softmax
    six = precomputed.datasets["six"]
    assert walk.logits.tolist() == [3.0, 1.0, 0.0] and walk.label == 0
    assert walk.temperatures == {"t1": 1.0, "fit": six.fitted_t, "sharp": 0.5, "soft": 2.0}
    for i, t in enumerate(walk.temperatures.values()):
        expected = scaled_probs(six.dataset.logits[:1], t)[0]
        np.testing.assert_allclose(walk.probs[i], expected, rtol=1e-12)
        assert walk.top[i] == expected.max() and walk.ratio[i] == pytest.approx(expected[0] / expected[1], rel=1e-12)
    assert np.round(walk.probs[0], 3).tolist() == [0.844, 0.114, 0.042]
