"""Tests of calib.scaling: temperature-scaled softmax, top-label confidence, NLL and Brier.

Expected values come from the reference article's worked example (dataset
``six``), from hand calculation, or from independent code in this file
(plain-Python loops with :mod:`math`, or scipy.special) — never from the engine.
"""

import math

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from calib import (
    SCHEMES,
    block_shape,
    brier,
    ece,
    grid_metrics,
    load,
    log_softmax,
    mce,
    nll,
    predicted_class,
    scaled_probs,
    scores_over_grid,
    top_label,
)

FAST = settings(max_examples=40, deadline=None)

SIX_LOGITS = [[3, 1, 0], [2.5, 1, 0], [3, 0.5, 0], [1.5, 2, 0], [0.5, 0, 1.5], [2, 2.2, 0]]
SIX_LABELS = [0, 0, 1, 1, 2, 0]
SIX_FITTED_T = 1.229751  # the reference article's bounded fit


# --- strategies -------------------------------------------------------------------------------

@st.composite
def logits_and_labels(draw, max_rows=12, max_classes=6, bound=40.0):
    """Logits on a 1/8 lattice (so distinct logits differ by ≥ 0.125) and labels in range."""
    n = draw(st.integers(1, max_rows))
    k = draw(st.integers(2, max_classes))
    steps = int(bound * 8)
    z = draw(hnp.arrays(np.int64, (n, k), elements=st.integers(-steps, steps))) / 8.0
    y = draw(hnp.arrays(np.int64, (n,), elements=st.integers(0, k - 1)))
    return z, y


temperatures = st.floats(0.05, 10.0, allow_nan=False, allow_infinity=False)


# --- plain-Python references ------------------------------------------------------------------

def plain_softmax(row, t=1.0):
    """softmax(row / t) for one list of numbers, with the max shift, using math.exp only."""
    top = max(row)
    weights = [math.exp((v - top) / t) for v in row]
    total = sum(weights)
    return [w / total for w in weights]


def plain_brier(z, y, t):
    """Mean over examples of sum_k (p_k - [k == y])², by explicit loops."""
    total = 0.0
    for row, label in zip(np.asarray(z, float).tolist(), np.asarray(y).tolist()):
        p = plain_softmax(row, t)
        total += sum((pk - (1.0 if k == label else 0.0)) ** 2 for k, pk in enumerate(p))
    return total / len(y)


def plain_nll(z, y, t):
    """Mean of -log p_y, by explicit loops."""
    total = 0.0
    for row, label in zip(np.asarray(z, float).tolist(), np.asarray(y).tolist()):
        total -= math.log(plain_softmax(row, t)[label])
    return total / len(y)


# --- the worked example -----------------------------------------------------------------------

def test_worked_example_probabilities_at_t1():
    probs = scaled_probs(SIX_LOGITS, 1.0)
    assert probs[0] == pytest.approx([0.844, 0.114, 0.042], abs=5e-4)


def test_worked_example_probabilities_at_t_1_23():
    probs = scaled_probs(SIX_LOGITS, 1.23)
    assert probs[0] == pytest.approx([0.779, 0.153, 0.068], abs=5e-4)


def test_worked_example_nll_before_and_after():
    assert nll(SIX_LOGITS, SIX_LABELS, 1.0) == pytest.approx(0.82278, abs=5e-6)
    assert nll(SIX_LOGITS, SIX_LABELS, SIX_FITTED_T) == pytest.approx(0.81243, abs=5e-6)


def test_worked_example_brier_before_and_after():
    assert brier(SIX_LOGITS, SIX_LABELS, 1.0) == pytest.approx(0.482, abs=5e-4)
    assert brier(SIX_LOGITS, SIX_LABELS, SIX_FITTED_T) == pytest.approx(0.485, abs=5e-4)


def test_worked_example_top_label():
    confidence, correct = top_label(SIX_LOGITS, SIX_LABELS, 1.0)
    # predicted classes 0, 0, 0, 1, 2, 1 against labels 0, 0, 1, 1, 2, 0
    assert correct.tolist() == [True, True, False, True, True, False]
    assert confidence[0] == pytest.approx(0.844, abs=5e-4)


# --- hand-computable cases --------------------------------------------------------------------

@pytest.mark.parametrize("k", [2, 3, 10])
def test_equal_logits_give_uniform_scores(k):
    z = np.full((4, k), 1.7)
    y = np.arange(4) % k
    assert np.allclose(scaled_probs(z, 0.3), 1.0 / k, rtol=0, atol=1e-15)
    assert nll(z, y, 2.0) == pytest.approx(math.log(k), rel=1e-14)
    assert brier(z, y, 0.5) == pytest.approx(1.0 - 1.0 / k, rel=1e-14)


def test_two_class_probability_is_a_sigmoid():
    # softmax([a, 0] / T)[0] = 1 / (1 + exp(-a / T))
    for a, t in [(2.0, 1.0), (-3.0, 0.5), (0.7, 4.0)]:
        expected = 1.0 / (1.0 + math.exp(-a / t))
        assert scaled_probs([[a, 0.0]], t)[0, 0] == pytest.approx(expected, rel=1e-14)


def test_certain_and_wrong_brier_is_two_and_certain_and_right_is_zero():
    z = [[1e4, -1e4, 0.0]]
    assert brier(z, [0], 1.0) == pytest.approx(0.0, abs=1e-15)
    assert brier(z, [1], 1.0) == pytest.approx(2.0, abs=1e-15)


def test_predicted_class_takes_the_first_index_on_ties():
    assert predicted_class([[1.0, 2.0, 2.0], [5.0, 5.0, 0.0], [0.0, 0.0, 0.0]]).tolist() == [1, 0, 0]


def test_top_label_confidence_is_the_raw_argmax_probability():
    z = [[0.1, 0.3, 0.2], [2.0, -1.0, 2.5]]
    confidence, correct = top_label(z, [1, 0], 0.7)
    p = [plain_softmax(row, 0.7) for row in z]
    assert confidence.tolist() == pytest.approx([p[0][1], p[1][2]], rel=1e-13)
    assert correct.tolist() == [True, False]


def test_shapes_for_scalar_and_array_temperatures():
    z = np.zeros((5, 3))
    y = np.zeros(5, dtype=int)
    temps = np.array([0.5, 1.0, 2.0, 4.0])
    assert scaled_probs(z, 1.0).shape == (5, 3)
    assert scaled_probs(z, temps).shape == (4, 5, 3)
    assert log_softmax(z, temps).shape == (4, 5, 3)
    assert top_label(z, y, temps)[0].shape == (4, 5)
    assert top_label(z, y, temps)[1].shape == (5,)
    assert isinstance(nll(z, y, 1.0), float) and nll(z, y, temps).shape == (4,)
    assert isinstance(brier(z, y, 1.0), float) and brier(z, y, temps).shape == (4,)


# --- properties -------------------------------------------------------------------------------

@FAST
@given(logits_and_labels(), temperatures)
def test_probabilities_sum_to_one(data, t):
    z, _ = data
    probs = scaled_probs(z, t)
    assert np.all(probs >= 0) and np.all(probs <= 1)
    assert np.allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@FAST
@given(logits_and_labels())
def test_t1_equals_plain_softmax(data):
    z, _ = data
    expected = [plain_softmax(row) for row in z.tolist()]
    assert np.allclose(scaled_probs(z, 1.0), expected, rtol=1e-12, atol=1e-300)


@FAST
@given(logits_and_labels(), temperatures)
def test_log_softmax_matches_scipy(data, t):
    z, _ = data
    assert np.allclose(log_softmax(z, t), scipy.special.log_softmax(z / t, axis=1), rtol=1e-12, atol=1e-12)


@FAST
@given(logits_and_labels(), temperatures, temperatures)
def test_argmax_and_accuracy_do_not_change_with_temperature(data, t1, t2):
    z, y = data
    raw = np.argmax(z, axis=1)
    for t in (t1, t2):
        assert np.array_equal(np.argmax(scaled_probs(z, t), axis=1), raw)
    (c1, ok1), (c2, ok2) = top_label(z, y, t1), top_label(z, y, t2)
    assert np.array_equal(ok1, ok2)
    assert np.array_equal(ok1, raw == y)
    # the confidence is the largest probability at every temperature
    assert np.allclose(c1, scaled_probs(z, t1).max(axis=1), rtol=1e-14, atol=0)
    assert np.allclose(c2, scaled_probs(z, t2).max(axis=1), rtol=1e-14, atol=0)


@FAST
@given(logits_and_labels(), st.floats(1.0, 100.0))
def test_probabilities_approach_uniform_for_large_temperature(data, factor):
    z, _ = data
    t = 1e3 * max(np.abs(z).max(), 1e-3) * factor
    k = z.shape[1]
    # |z / T| ≤ 1e-3, so every probability is within a few 1e-3 / K of 1 / K
    assert np.allclose(scaled_probs(z, t), 1.0 / k, rtol=0, atol=2e-3)


@FAST
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(2, 5)),
               elements=st.sampled_from([-1e4, 1e4, 0.0, 1.0, -9999.5])),
    temperatures,
    st.data(),
)
def test_extreme_logits_stay_finite(z, t, data):
    y = data.draw(hnp.arrays(np.int64, (z.shape[0],), elements=st.integers(0, z.shape[1] - 1)))
    probs = scaled_probs(z, t)
    assert np.all(np.isfinite(probs)) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(np.isfinite(log_softmax(z, t)))
    assert np.isfinite(nll(z, y, t)) and nll(z, y, t) >= 0
    b = brier(z, y, t)
    assert np.isfinite(b) and 0.0 <= b <= 2.0
    assert np.all(np.isfinite(top_label(z, y, t)[0]))


@FAST
@given(logits_and_labels(), temperatures)
def test_brier_in_range_and_matches_loop(data, t):
    z, y = data
    b = brier(z, y, t)
    assert 0.0 <= b <= 2.0
    assert b == pytest.approx(plain_brier(z, y, t), rel=1e-10, abs=1e-12)


@FAST
@given(logits_and_labels(), temperatures)
def test_nll_matches_loop(data, t):
    z, y = data
    # keep the plain reference away from log(0): restrict to moderate logits / temperatures
    if np.abs(z).max() / t > 300:
        t = np.abs(z).max() / 300
    assert nll(z, y, t) == pytest.approx(plain_nll(z, y, t), rel=1e-10, abs=1e-12)


@FAST
@given(logits_and_labels(), st.lists(temperatures, min_size=1, max_size=6))
def test_grid_equals_loop_of_scalar_calls(data, temps):
    z, y = data
    grid = np.array(temps)
    probs = scaled_probs(z, grid)
    conf, correct = top_label(z, y, grid)
    nll_grid, brier_grid = nll(z, y, grid), brier(z, y, grid)
    for g, t in enumerate(temps):
        assert np.allclose(probs[g], scaled_probs(z, t), rtol=1e-13, atol=0)
        assert np.allclose(conf[g], top_label(z, y, t)[0], rtol=1e-13, atol=0)
        assert nll_grid[g] == pytest.approx(nll(z, y, t), rel=1e-13, abs=1e-300)
        assert brier_grid[g] == pytest.approx(brier(z, y, t), rel=1e-13, abs=1e-15)
    assert np.array_equal(correct, top_label(z, y, temps[0])[1])


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("logits, message", [
    ([1.0, 2.0, 3.0], "2-D"),
    ([[[1.0, 2.0]]], "2-D"),
    ([[1.0], [2.0]], "two classes"),
    (np.zeros((0, 3)), "at least one row"),
    ([[1.0, float("nan")]], "finite"),
    ([[1.0, float("inf")]], "finite"),
])
def test_bad_logits_are_refused(logits, message):
    with pytest.raises(ValueError, match=message):
        scaled_probs(logits, 1.0)
    with pytest.raises(ValueError, match=message):
        predicted_class(logits)


@pytest.mark.parametrize("temperature", [-1.0, 0.0, float("nan"), float("inf"), [1.0, -0.5]])
def test_bad_temperature_is_refused(temperature):
    for function in (nll, brier, top_label):
        with pytest.raises(ValueError, match="temperature must be positive"):
            function(SIX_LOGITS, SIX_LABELS, temperature)
    with pytest.raises(ValueError, match="temperature must be positive"):
        scaled_probs(SIX_LOGITS, temperature)


def test_two_dimensional_temperature_is_refused():
    with pytest.raises(ValueError, match="temperature must be a scalar or a 1-D array"):
        scaled_probs(SIX_LOGITS, [[1.0, 2.0]])


@pytest.mark.parametrize("labels, message", [
    ([0, 0, 1, 1, 2, 3], r"labels must lie in \[0, 3\)"),
    ([0, 0, 1, 1, 2, -1], r"labels must lie in \[0, 3\)"),
    ([0, 0, 1], r"labels must have shape \(6,\)"),
    ([[0, 0, 1, 1, 2, 0]], r"labels must have shape \(6,\)"),
    ([0, 0, 1, 1, 2, 0.5], "whole class indices"),
    ([0, 0, 1, 1, 2, float("nan")], "whole class indices"),
])
def test_bad_labels_are_refused(labels, message):
    for function in (nll, brier, top_label):
        with pytest.raises(ValueError, match=message):
            function(SIX_LOGITS, labels, 1.0)


def test_scores_over_grid_does_not_depend_on_block_size():
    data = load("sim-600")
    temps = np.geomspace(0.05, 10.0, 534)[::7]
    one_block = scores_over_grid(data.logits, data.labels, temps, block=10_000)
    small_blocks = scores_over_grid(data.logits, data.labels, temps, block=5)
    for a, b in zip(one_block, small_blocks):
        assert np.allclose(a, b, rtol=1e-13, atol=0)
    assert one_block[0] == pytest.approx(nll(data.logits, data.labels, temps), rel=1e-12)


# --- the blocked, threaded grid engine ---------------------------------------------------------

def whole_tensor_scores(z, y, temps):
    """The straightforward (G, n, K) formulation, restated here: divide, shift, exponentiate everything at
    once, sum with ``sum``; returns mean NLL, mean Brier and the top-label confidence (G, n)."""
    z = np.asarray(z, dtype=np.float64)
    temps = np.asarray(temps, dtype=np.float64)
    scaled = (z - z.max(axis=1, keepdims=True))[None] / temps[:, None, None]
    e = np.exp(scaled)
    p = e / e.sum(axis=2, keepdims=True)
    onehot = np.eye(z.shape[1])[y]
    rows = np.arange(len(y))
    nll_values = -np.log(p[:, rows, y]).mean(axis=1)
    brier_values = ((p - onehot[None]) ** 2).sum(axis=2).mean(axis=1)
    return nll_values, brier_values, p[:, rows, np.argmax(z, axis=1)]


def plain_equal_width_ece(confidence, correct, n_bins):
    """ECE of one row of confidences with bins found by ``searchsorted`` on ``linspace`` edges (the rule)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    ids = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    total = 0.0
    for b in range(n_bins):
        members = ids == b
        if members.any():
            total += members.sum() / confidence.size * abs(correct[members].mean() - confidence[members].mean())
    return total


def random_model(seed, n, k, scale=3.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * scale
    y = rng.integers(0, k, n)
    return z, y


@pytest.mark.parametrize("n, k", [(1, 2), (7, 3), (300, 10), (129, 257)])
def test_grid_engine_matches_the_whole_tensor_formulation(n, k):
    z, y = random_model(n * k, n, k)
    temps = np.geomspace(0.05, 10, 37)
    expected = whole_tensor_scores(z, y, temps)
    for block_elements in (64 * k, 5_000, 1 << 17):
        got = scores_over_grid(z, y, temps, block_elements=block_elements)
        for a, b in zip(got, expected):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)


def test_grid_results_do_not_depend_on_workers_or_block_size():
    z, y = random_model(3, 1_000, 12)
    temps = np.geomspace(0.05, 10, 41)
    reference = scores_over_grid(z, y, temps)
    for workers in (1, 2, 3):
        for block_elements in (64 * 12, 7_777, 100_000, 1 << 22):
            got = scores_over_grid(z, y, temps, workers=workers, block_elements=block_elements)
            for a, b in zip(got, reference):
                assert np.array_equal(a, b), (workers, block_elements)
    metrics = [grid_metrics(z, y, temps, (4, 15), SCHEMES, workers=w, block_elements=b)
               for w, b in ((1, 1 << 17), (2, 64 * 12), (2, 50_000))]
    for other in metrics[1:]:
        for a, b in zip(metrics[0][:4], other[:4]):
            assert np.array_equal(a, b)
        for scheme in SCHEMES:
            for count in (4, 15):
                for a, b in zip(metrics[0].bins[scheme][count], other.bins[scheme][count]):
                    assert np.array_equal(a, b, equal_nan=True)
                assert np.array_equal(metrics[0].ece[scheme][count], other.ece[scheme][count])
                assert np.array_equal(metrics[0].mce[scheme][count], other.mce[scheme][count])


def test_grid_metrics_match_an_independent_reference():
    z, y = random_model(11, 2_000, 10)
    temps = np.array([0.3, 1.0, 1.7, 6.0])
    nll_ref, brier_ref, conf_ref = whole_tensor_scores(z, y, temps)
    correct = np.argmax(z, axis=1) == y
    m = grid_metrics(z, y, temps, bin_counts=[15], schemes=["equal-width"], block_elements=3_000, workers=2)
    np.testing.assert_allclose(m.nll, nll_ref, rtol=1e-12)
    np.testing.assert_allclose(m.brier, brier_ref, rtol=1e-12)
    np.testing.assert_allclose(m.mean_confidence, conf_ref.mean(axis=1), rtol=1e-12)
    assert m.accuracy == correct.mean()
    ece_ref = [plain_equal_width_ece(conf_ref[g], correct, 15) for g in range(temps.size)]
    np.testing.assert_allclose(m.ece["equal-width"][15], ece_ref, rtol=1e-10, atol=1e-15)
    assert m.bins["equal-width"][15].count.sum(axis=1).tolist() == [2_000] * temps.size
    assert np.all(m.mce["equal-width"][15] >= m.ece["equal-width"][15] - 1e-15)
    assert list(m.bins) == ["equal-width"]


def test_grid_metrics_equal_binning_the_full_confidences():
    z, y = random_model(5, 999, 4)
    temps = np.geomspace(0.1, 5, 9)
    confidence, correct = top_label(z, y, temps)
    m = grid_metrics(z, y, temps, bin_counts=[3, 20], block_elements=64 * 4)
    assert m.bins["adaptive"][20].count.shape == (9, 20)
    for scheme in SCHEMES:
        for count in (3, 20):
            np.testing.assert_allclose(m.ece[scheme][count], ece(confidence, correct, count, scheme),
                                       rtol=1e-12, atol=1e-15)
            np.testing.assert_allclose(m.mce[scheme][count], mce(confidence, correct, count, scheme),
                                       rtol=1e-12, atol=1e-15)


def test_extreme_finite_logits_give_finite_grid_metrics():
    z = np.array([[1e6, -1e6, 0.0], [-1e6, 1e6, 1e6], [0.0, 0.0, -1e6]])
    y = np.array([0, 2, 1])
    m = grid_metrics(z, y, [0.05, 1.0, 10.0], bin_counts=[5])
    for values in (m.nll, m.brier, m.mean_confidence, m.ece["equal-width"][5], m.mce["adaptive"][5]):
        assert np.all(np.isfinite(values))
    # row 0 is certain and right; row 1 ties (1e6, 1e6): the label's class gets 1/2; row 2 ties at 0: 1/2
    assert m.nll == pytest.approx([2 * math.log(2) / 3] * 3, rel=1e-12)


def test_float32_logits_are_widened_exactly():
    z, y = random_model(8, 200, 5)
    z32 = z.astype(np.float32)
    temps = [0.5, 1.0, 2.0]
    for a, b in zip(scores_over_grid(z32, y, temps), scores_over_grid(z32.astype(np.float64), y, temps)):
        assert np.array_equal(a, b)


def test_block_shape_keeps_within_the_budget_and_aligns_row_chunks():
    assert block_shape(6000, 10, 534, 1 << 17) == (2, 6000)
    assert block_shape(10, 3, 4, 1 << 17) == (4, 10)
    g, rows = block_shape(50_000, 1000, 534, 1 << 17)
    assert (g, rows) == (1, 128)
    assert block_shape(1000, 10_000, 534, 1 << 17) == (1, 64)  # at least 64 rows, whatever K
    for n, k in [(1, 2), (63, 2), (10**6, 10), (777, 999)]:
        g, rows = block_shape(n, k, 534, 1 << 17)
        assert 1 <= g <= 534 and 1 <= rows <= n
        assert g == 1 or rows == n
        assert rows == n or rows % 64 == 0


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_bad_workers_are_refused(bad):
    with pytest.raises(ValueError, match="workers"):
        scores_over_grid([[1.0, 0.0]], [0], [1.0], workers=bad)
