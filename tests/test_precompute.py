"""Tests of calib.precompute: the shared temperature grid and the metric arrays computed over it.

Every array is checked against direct calls of the engine's public functions
at a few grid points, and the grid against its documented construction.
"""

import math

import numpy as np
import pytest

from calib import DATASET_NAMES, brier, ece, fit_temperature, load, mce, nll, reliability_bins, scaled_probs, top_label
from calib.precompute import base_grid, part_masks, round_significant, scores_over_grid


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
                    assert sweep[scheme][row, n_bins - 1] == pytest.approx(ece(conf, correct, n_bins, scheme), abs=1e-12)


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


# --- showcase and blocks ----------------------------------------------------------------------

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


def test_scores_over_grid_does_not_depend_on_block_size():
    data = load("sim-600")
    temps = base_grid()[::7]
    one_block = scores_over_grid(data.logits, data.labels, temps, block=10_000)
    small_blocks = scores_over_grid(data.logits, data.labels, temps, block=5)
    for a, b in zip(one_block, small_blocks):
        assert np.allclose(a, b, rtol=1e-13, atol=0)
    assert one_block[0] == pytest.approx(nll(data.logits, data.labels, temps), rel=1e-12)


def test_part_masks():
    assert list(part_masks(load("twelve"))) == ["all"]
    masks = part_masks(load("sim-60"))
    assert list(masks) == ["calibration", "test"]
    assert np.array_equal(masks["calibration"], ~masks["test"])
