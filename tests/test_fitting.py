"""Tests of calib.fitting: the NLL-minimising temperature, by golden-section search and on a grid."""

import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

from calib import fit_temperature, load, nll
from calib.fitting import DEFAULT_BOUNDS, DEFAULT_TOLERANCE, golden_section_minimise

FAST = settings(max_examples=40, deadline=None)

SIX_LOGITS = [[3, 1, 0], [2.5, 1, 0], [3, 0.5, 0], [1.5, 2, 0], [0.5, 0, 1.5], [2, 2.2, 0]]
SIX_LABELS = [0, 0, 1, 1, 2, 0]


def scipy_nll(z, y, t):
    """Mean NLL from scipy.special.log_softmax: an implementation independent of the engine's."""
    return float(-scipy.special.log_softmax(z / t, axis=1)[np.arange(len(y)), y].mean())


def random_problem(seed, n=200, k=4):
    """A miscalibrated classifier: labels drawn from softmax(z / s) with s random, logits z released."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * rng.uniform(0.5, 5.0)
    p = scipy.special.softmax(z / rng.uniform(0.3, 3.0), axis=1)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1).clip(0, k - 1)
    return z, y


# --- the worked example -----------------------------------------------------------------------

def test_worked_example_grid_fit():
    t = fit_temperature(SIX_LOGITS, SIX_LABELS, method="grid", grid=np.linspace(0.25, 4, 15001))
    assert t == pytest.approx(1.22975, abs=5e-6)


def test_worked_example_bounded_fit():
    t = fit_temperature(SIX_LOGITS, SIX_LABELS)
    assert t == pytest.approx(1.229751, abs=5e-7)
    assert fit_temperature(SIX_LOGITS, SIX_LABELS, method="bounded") == t


def test_worked_example_fit_is_a_minimum_of_an_independent_nll():
    z, y = np.array(SIX_LOGITS, float), np.array(SIX_LABELS)
    t = fit_temperature(z, y)
    assert scipy_nll(z, y, t) == pytest.approx(0.81243, abs=5e-6)
    for step in (1e-3, 1e-2, 1e-1):
        assert scipy_nll(z, y, t) < scipy_nll(z, y, t - step)
        assert scipy_nll(z, y, t) < scipy_nll(z, y, t + step)


# --- independent optimiser --------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_bounded_fit_agrees_with_scipy_minimize_scalar(seed):
    z, y = random_problem(seed)
    result = scipy.optimize.minimize_scalar(lambda t: scipy_nll(z, y, t), bounds=(0.05, 10.0), method="bounded",
                                            options={"xatol": 1e-10})
    assert result.success
    t = fit_temperature(z, y)
    assert t == pytest.approx(result.x, rel=1e-5)
    assert scipy_nll(z, y, t) <= result.fun + 1e-12


def test_bounds_are_respected():
    # labels always equal the argmax: the NLL keeps falling as T → 0, so the fit sits on the lower bound
    z = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, -1.0]])
    y = np.array([0, 1, 0])
    assert fit_temperature(z, y, bounds=(0.2, 5.0)) == pytest.approx(0.2, abs=1e-6)
    # labels always against the argmax: the NLL keeps falling as T grows
    assert fit_temperature(z, 1 - y, bounds=(0.2, 5.0)) == pytest.approx(5.0, abs=1e-6)


# --- golden section ---------------------------------------------------------------------------

@pytest.mark.parametrize("objective, low, high, expected", [
    (lambda x: (x - 2.0) ** 2, 0.0, 5.0, 2.0),
    (lambda x: abs(math.log(x)), 0.1, 10.0, 1.0),
    (lambda x: math.exp(x) - 3.0 * x, -4.0, 4.0, math.log(3.0)),
    (lambda x: x, 1.0, 2.0, 1.0),
])
def test_golden_section_finds_known_minimisers(objective, low, high, expected):
    assert golden_section_minimise(objective, low, high) == pytest.approx(expected, abs=2e-7)


def test_golden_section_honours_its_tolerance():
    calls = []

    def objective(x):
        calls.append(x)
        return (x - 0.3) ** 2

    x = golden_section_minimise(objective, 0.0, 1.0, tolerance=1e-3)
    assert abs(x - 0.3) <= 1e-3
    # the bracket shrinks by 0.618 per call: about log(1e-3) / log(0.618) ≈ 15 calls, not hundreds
    assert len(calls) <= 20


# --- grid -------------------------------------------------------------------------------------

@FAST
@given(st.integers(0, 10_000), st.lists(st.floats(0.05, 10.0), min_size=1, max_size=25))
def test_grid_fit_equals_a_loop_of_scalar_calls(seed, temps):
    z, y = random_problem(seed, n=30, k=3)
    losses = [nll(z, y, t) for t in temps]
    expected = temps[int(np.argmin(losses))]  # first on ties
    assert fit_temperature(z, y, method="grid", grid=temps) == expected


def test_grid_fit_takes_the_first_of_equal_losses():
    z, y = np.array(SIX_LOGITS, float), np.array(SIX_LABELS)
    assert fit_temperature(z, y, method="grid", grid=[3.0, 1.2, 1.2, 0.5]) == 1.2
    # equal logits: every T gives log K, so the first grid point wins
    assert fit_temperature(np.zeros((3, 3)), [0, 1, 2], method="grid", grid=[4.0, 1.0, 2.0]) == 4.0


def test_grid_fit_of_the_worked_example_on_a_geometric_grid():
    grid = np.geomspace(0.05, 10.0, 534)
    t = fit_temperature(SIX_LOGITS, SIX_LABELS, method="grid", grid=grid)
    assert t in grid.tolist()
    step = math.log(grid[1] / grid[0])
    assert abs(math.log(t / 1.229751)) <= step / 2


def test_the_grid_method_requires_a_grid():
    with pytest.raises(ValueError, match="grid is required"):
        fit_temperature(SIX_LOGITS, SIX_LABELS, method="grid")


def test_tolerance_is_the_final_bracket_width():
    assert DEFAULT_TOLERANCE == 1e-7
    coarse = fit_temperature(SIX_LOGITS, SIX_LABELS, tolerance=1e-2)
    fine = fit_temperature(SIX_LOGITS, SIX_LABELS)
    assert abs(coarse - fine) <= 1e-2 / 2 + DEFAULT_TOLERANCE


@pytest.mark.parametrize("seed", range(4))
def test_grid_fit_within_half_a_grid_step_of_bounded_fit(seed):
    z, y = random_problem(seed)
    grid = np.geomspace(0.05, 10.0, 300)
    step = math.log(grid[1] / grid[0])
    assert abs(math.log(fit_temperature(z, y, method="grid", grid=grid) / fit_temperature(z, y))) <= step / 2


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"method": "newton"}, "method must be 'bounded' or 'grid'"),
    ({"bounds": (0.0, 10.0)}, "bounds must satisfy"),
    ({"bounds": (5.0, 1.0)}, "bounds must satisfy"),
    ({"bounds": (0.1, math.inf)}, "bounds must satisfy"),
    ({"tolerance": 0.0}, "tolerance must be positive"),
    ({"method": "grid"}, "grid is required"),
    ({"method": "grid", "grid": []}, "grid must be a non-empty 1-D array"),
    ({"method": "grid", "grid": [[1.0, 2.0]]}, "grid must be a non-empty 1-D array"),
    ({"method": "grid", "grid": [1.0, -2.0]}, "temperature must be positive"),
])
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        fit_temperature(SIX_LOGITS, SIX_LABELS, **kwargs)


@pytest.mark.parametrize("logits, labels, message", [
    ([[1.0, float("nan")], [0.0, 1.0]], [0, 1], "finite"),
    ([1.0, 2.0], [0, 1], "2-D"),
    ([[1.0, 2.0], [0.0, 1.0]], [0, 2], r"labels must lie in \[0, 2\)"),
    ([[1.0, 2.0], [0.0, 1.0]], [0], r"labels must have shape \(2,\)"),
])
def test_bad_data_is_refused(logits, labels, message):
    for method in ("bounded", "grid"):
        with pytest.raises(ValueError, match=message):
            fit_temperature(logits, labels, method=method, grid=[0.5, 1.0, 2.0])


# --- the NLL-only search over prepared rows ----------------------------------------------------

def restated_nll(z, y, t):
    """Mean NLL at one T, restated as the straightforward pass: shift by the row max, divide by T,
    exponentiate, row sums as a product with ones, then log-norm minus the label's scaled logit."""
    shifted = (z - z.max(axis=1, keepdims=True))[None] / np.array([[[t]]])
    true = shifted[:, np.arange(len(y)), y]
    norm = np.exp(shifted) @ np.ones(z.shape[1])
    return float((np.log(norm) - true).mean(axis=1)[0])


@pytest.mark.parametrize("name", ["six", "sim-600", "overconfident", "mixed"])
def test_bounded_fit_of_the_built_in_datasets_is_that_of_the_restated_nll(name):
    # the page's fitted temperatures depend on every comparison of the search, so the NLL-only probes
    # must reproduce the straightforward NLL bit for bit
    data = load(name)
    expected = golden_section_minimise(lambda t: restated_nll(data.logits, data.labels, t), *DEFAULT_BOUNDS)
    assert fit_temperature(data.logits, data.labels) == expected
    assert fit_temperature(data.logits, data.labels, workers=2) == expected


def test_fit_does_not_depend_on_workers_when_rows_are_chunked():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(20_000, 10)) * 4
    y = rng.integers(0, 10, 20_000)
    one = fit_temperature(z, y, workers=1)
    assert fit_temperature(z, y, workers=2) == one
    assert fit_temperature(z.astype(np.float32).astype(np.float64), y) == fit_temperature(z.astype(np.float32), y)
    grid = np.geomspace(0.05, 10, 101)
    assert fit_temperature(z, y, method="grid", grid=grid, workers=2) == fit_temperature(z, y, "grid", grid)


def test_fit_accepts_logits_of_a_million():
    z = np.array([[1e6, 0.0], [0.0, 1e6], [1e6, 1e6 - 1.0], [3.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    t = fit_temperature(z, y)
    assert math.isfinite(t) and DEFAULT_BOUNDS[0] <= t <= DEFAULT_BOUNDS[1]


def test_grid_fit_refuses_non_positive_temperatures():
    with pytest.raises(ValueError, match="grid"):
        fit_temperature([[1.0, 0.0]], [0], method="grid", grid=[1.0, 0.0])


# --- Brier's own temperature (issue 27: the page printed a grid point beside NLL's exact optimum) ---------------

def scipy_brier(z, y, t):
    """Mean multiclass Brier score from scipy.special.softmax: squared distance to the one-hot label, summed."""
    p = scipy.special.softmax(np.asarray(z, float) / t, axis=1)
    onehot = np.eye(p.shape[1])[np.asarray(y)]
    return float(((p - onehot) ** 2).sum(axis=1).mean())


@pytest.mark.parametrize("name", ["six", "overconfident", "mixed", "sim-600"])
def test_brier_fit_agrees_with_scipy_minimize_scalar(name):
    """The bounded Brier fit against SciPy's bounded Brent search on an independent Brier score, and against
    the argmin of a dense grid: both within the tolerance the page prints (four decimals)."""
    data = load(name)
    rows = data.is_calibration if data.is_calibration is not None else np.ones(data.labels.size, bool)
    z, y = data.logits[rows], data.labels[rows]
    t = fit_temperature(z, y, score="brier")
    reference = scipy.optimize.minimize_scalar(lambda s: scipy_brier(z, y, s), bounds=DEFAULT_BOUNDS,
                                               method="bounded", options={"xatol": 1e-9}).x
    assert t == pytest.approx(reference, abs=2e-5)
    dense = np.geomspace(0.9 * t, 1.1 * t, 2001)
    assert t == pytest.approx(dense[np.argmin([scipy_brier(z, y, s) for s in dense])], abs=1e-4)
    assert scipy_brier(z, y, t) <= min(scipy_brier(z, y, t * 0.999), scipy_brier(z, y, t * 1.001))


def test_brier_fit_is_the_global_minimum_of_a_dense_scan():
    """Brier need not be unimodal in T: on random miscalibrated problems the fit is never above the lowest
    value of a dense scan of the whole interval (a plain loop over an independent Brier score)."""
    scan = np.geomspace(*DEFAULT_BOUNDS, 2001)
    for seed in range(20):
        z, y = random_problem(seed, n=60, k=3)
        t = fit_temperature(z, y, score="brier")
        assert scipy_brier(z, y, t) <= min(scipy_brier(z, y, s) for s in scan) + 1e-8, seed  # 1e-7 in T


def test_brier_grid_fit_is_the_grid_argmin():
    grid = np.geomspace(0.2, 5, 300)
    t = fit_temperature(SIX_LOGITS, SIX_LABELS, method="grid", grid=grid, score="brier")
    assert t == grid[np.argmin([scipy_brier(SIX_LOGITS, SIX_LABELS, s) for s in grid])]
    with pytest.raises(ValueError, match="score"):
        fit_temperature(SIX_LOGITS, SIX_LABELS, score="ece")
