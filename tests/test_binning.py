"""Tests of calib.binning: reliability bins, ECE and MCE, equal-width and adaptive.

References: the article's worked example (dataset ``six``), hand calculations,
plain-Python loops written here, and scikit-learn's ``calibration_curve``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.calibration import calibration_curve

from calib import ece, mce, reliability_bins, top_label
from calib.binning import (
    adaptive_bins_sorted,
    equal_mass_bounds,
    equal_width_bins,
    equal_width_ids,
    equal_width_sums,
    sort_by_confidence,
    stable_order,
)

FAST = settings(max_examples=40, deadline=None)

SIX_LOGITS = [[3, 1, 0], [2.5, 1, 0], [3, 0.5, 0], [1.5, 2, 0], [0.5, 0, 1.5], [2, 2.2, 0]]
SIX_LABELS = [0, 0, 1, 1, 2, 0]
SIX_FITTED_T = 1.229751


# --- strategies and plain-Python references ---------------------------------------------------

@st.composite
def predictions(draw, max_n=80):
    """(confidence, correct) of one length n ≥ 1, confidences anywhere in [0, 1] (edges included)."""
    n = draw(st.integers(1, max_n))
    conf = draw(hnp.arrays(np.float64, (n,), elements=st.one_of(
        st.floats(0.0, 1.0), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))))
    correct = draw(hnp.arrays(np.bool_, (n,)))
    return conf, correct


def loop_equal_width_ece(conf, correct, n_bins):
    """ECE over the edges linspace(0, 1, B + 1), bins [lo, hi) and the last one closed, by explicit loops."""
    edges = np.linspace(0.0, 1.0, n_bins + 1).tolist()
    sums = [[0, 0.0, 0.0] for _ in range(n_bins)]  # count, confidence sum, hits
    for c, ok in zip(list(map(float, conf)), list(map(bool, correct))):
        b = 0
        while b < n_bins - 1 and c >= edges[b + 1]:
            b += 1
        sums[b][0] += 1
        sums[b][1] += c
        sums[b][2] += 1.0 if ok else 0.0
    n = len(conf)
    return sum(cnt / n * abs(hit / cnt - s / cnt) for cnt, s, hit in sums if cnt)


def loop_adaptive_groups(conf, correct, n_bins):
    """Equal-mass groups by explicit loops: stable sort, min(B, n) groups, larger groups first."""
    pairs = sorted(zip(list(map(float, conf)), list(map(bool, correct))), key=lambda p: p[0])
    n = len(pairs)
    groups = min(n_bins, n)
    out, start = [], 0
    for g in range(groups):
        size = n // groups + (1 if g < n % groups else 0)
        out.append(pairs[start:start + size])
        start += size
    return out


def loop_adaptive_ece(conf, correct, n_bins):
    n = len(conf)
    total = 0.0
    for group in loop_adaptive_groups(conf, correct, n_bins):
        mean_conf = sum(c for c, _ in group) / len(group)
        acc = sum(1.0 for _, ok in group if ok) / len(group)
        total += len(group) / n * abs(acc - mean_conf)
    return total


# --- the worked example -----------------------------------------------------------------------

def six_bins(t):
    confidence, correct = top_label(SIX_LOGITS, SIX_LABELS, t)
    return reliability_bins(confidence, correct, 4)


def test_worked_example_bins_at_t1():
    bins = six_bins(1.0)
    filled = bins.count > 0
    assert bins.count[filled].tolist() == [3, 3]
    assert bins.confidence[filled] == pytest.approx([0.574, 0.831], abs=5e-4)
    assert bins.accuracy[filled] == pytest.approx([0.667, 0.667], abs=5e-4)


def test_worked_example_bins_at_t_1_23():
    bins = six_bins(1.23)
    filled = bins.count > 0
    assert bins.count[filled].tolist() == [1, 3, 2]
    assert bins.confidence[filled] == pytest.approx([0.496, 0.604, 0.800], abs=5e-4)
    assert bins.accuracy[filled] == pytest.approx([0.0, 1.0, 0.5], abs=5e-4)


def test_worked_example_four_bin_ece_rises_after_fitting():
    for t, expected in [(1.0, 0.129), (SIX_FITTED_T, 0.380)]:
        confidence, correct = top_label(SIX_LOGITS, SIX_LABELS, t)
        assert ece(confidence, correct, 4) == pytest.approx(expected, abs=5e-4)


# --- hand-computable cases --------------------------------------------------------------------

def test_small_hand_example():
    # bins [0, .5) and [.5, 1]: {0.2 wrong} and {0.6 right, 0.7 wrong, 1.0 right}
    bins = reliability_bins([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1], 2)
    assert bins.count.tolist() == [1, 3]
    assert bins.lower.tolist() == [0.0, 0.5] and bins.upper.tolist() == [0.5, 1.0]
    assert bins.confidence == pytest.approx([0.2, 2.3 / 3], rel=1e-14)
    assert bins.accuracy == pytest.approx([0.0, 2 / 3], rel=1e-14)
    # ECE = 1/4 · 0.2 + 3/4 · |2/3 − 2.3/3| = 0.05 + 0.075
    assert bins.weighted_gap == pytest.approx([0.05, 0.075], rel=1e-12)
    assert ece([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1], 2) == pytest.approx(0.125, rel=1e-12)
    assert mce([0.2, 0.6, 0.7, 1.0], [0, 1, 0, 1], 2) == pytest.approx(0.2, rel=1e-12)


def test_one_bin_ece_is_the_overall_gap():
    conf = np.array([0.9, 0.8, 0.95, 0.6, 0.7])
    correct = np.array([1, 0, 1, 1, 0], dtype=bool)
    gap = abs(correct.mean() - conf.mean())
    for scheme in ("equal-width", "adaptive"):
        assert ece(conf, correct, 1, scheme) == pytest.approx(gap, rel=1e-13)
        assert mce(conf, correct, 1, scheme) == pytest.approx(gap, rel=1e-13)


def test_empty_bins_are_kept_with_nan_statistics():
    bins = reliability_bins([0.95, 0.97], [1, 1], 5)
    assert bins.count.tolist() == [0, 0, 0, 0, 2]
    assert np.isnan(bins.confidence[:4]).all() and np.isnan(bins.accuracy[:4]).all()
    assert bins.weighted_gap[:4].tolist() == [0.0] * 4
    assert mce([0.95, 0.97], [1, 1], 5) == pytest.approx(0.04, rel=1e-12)


def test_adaptive_hand_example():
    # seven confidences into three groups of sizes 3, 2, 2 (larger first), after sorting
    conf = [0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8]
    correct = [1, 0, 1, 0, 1, 1, 0]
    bins = reliability_bins(conf, correct, 3, "adaptive")
    assert bins.count.tolist() == [3, 2, 2]
    assert bins.lower == pytest.approx([0.1, 0.5, 0.8]) and bins.upper == pytest.approx([0.3, 0.7, 0.9])
    assert bins.confidence == pytest.approx([0.2, 0.6, 0.85])
    assert bins.accuracy == pytest.approx([1 / 3, 1.0, 0.5])


def test_equal_mass_bounds_by_hand():
    # 10 items in 4 groups: sizes 3, 3, 2, 2 (larger first, as numpy.array_split)
    assert equal_mass_bounds(10, 4).tolist() == [0, 3, 6, 8, 10]
    assert equal_mass_bounds(3, 5).tolist() == [0, 1, 2, 3]  # never more groups than items
    assert equal_mass_bounds(7, 1).tolist() == [0, 7]
    assert equal_mass_bounds(np.int64(4), np.int32(2)).dtype == np.int64


def test_adaptive_uses_at_most_n_bins():
    bins = reliability_bins([0.4, 0.6], [1, 0], 10, "adaptive")
    assert bins.count.tolist() == [1, 1]


def test_shapes_for_one_and_many_rows():
    conf = np.array([[0.2, 0.9, 0.6], [0.3, 0.5, 0.7]])
    correct = np.array([True, False, True])
    for scheme, width in [("equal-width", 10), ("adaptive", 3)]:
        bins = reliability_bins(conf, correct, 10, scheme)
        assert all(np.shape(field) == (2, width) for field in bins)
        assert ece(conf, correct, 10, scheme).shape == (2,)
        assert isinstance(ece(conf[0], correct, 10, scheme), float)
        assert isinstance(mce(conf[0], correct, 10, scheme), float)


# --- edges ------------------------------------------------------------------------------------

def test_four_bin_edges_go_to_the_bin_that_starts_there():
    bins = reliability_bins([0.0, 0.25, 0.5, 0.75, 1.0], [1, 1, 1, 1, 1], 4)
    assert bins.count.tolist() == [1, 1, 1, 2]
    assert bins.confidence == pytest.approx([0.0, 0.25, 0.5, 0.875])


@FAST
@given(st.integers(1, 60))
def test_every_linspace_edge_goes_to_the_bin_starting_there(n_bins):
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    on_edges = reliability_bins(edges, np.ones(edges.size, bool), n_bins)
    # bin b holds edge b; the last bin also holds 1.0
    assert on_edges.count.tolist() == [1] * (n_bins - 1) + [2]
    assert np.array_equal(on_edges.confidence[:-1], edges[:-2])
    # one ulp below an interior edge belongs to the bin before it
    below = np.nextafter(edges[1:-1], 0.0)
    if below.size:
        counts = reliability_bins(below, np.ones(below.size, bool), n_bins).count
        assert counts.tolist() == [1] * (n_bins - 1) + [0]


def test_eleven_edges_of_ten_bins():
    edges = np.linspace(0.0, 1.0, 11)
    assert edges[3] != 0.3  # 0.30000000000000004: the edge itself, not the decimal, decides
    assert reliability_bins([edges[3]], [1], 10).count.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert reliability_bins([1.0], [1], 10).count.tolist() == [0] * 9 + [1]


def test_sklearn_bins_are_right_closed_and_ours_left_closed():
    # the one place the two conventions differ: a confidence exactly on an interior edge
    conf, correct = np.array([0.5, 0.5]), np.array([1, 0])
    prob_true, prob_pred = calibration_curve(correct, conf, n_bins=2, pos_label=1)
    assert prob_pred.tolist() == [0.5]  # sklearn: in (0, 0.5]
    assert reliability_bins(conf, correct, 2).count.tolist() == [0, 2]  # here: in [0.5, 1]


# --- properties -------------------------------------------------------------------------------

@FAST
@given(predictions(), st.integers(1, 30), st.sampled_from(["equal-width", "adaptive"]))
def test_ece_in_unit_interval_and_mce_at_least_ece(data, n_bins, scheme):
    conf, correct = data
    e = ece(conf, correct, n_bins, scheme)
    m = mce(conf, correct, n_bins, scheme)
    assert 0.0 <= e <= 1.0 + 1e-12
    assert 0.0 <= m <= 1.0
    assert m >= e - 1e-12
    bins = reliability_bins(conf, correct, n_bins, scheme)
    assert bins.count.sum() == conf.size
    filled = bins.count > 0
    assert np.all(bins.lower[filled] <= bins.confidence[filled] + 1e-12)
    assert np.all(bins.confidence[filled] <= bins.upper[filled] + 1e-12)


@FAST
@given(st.integers(1, 300), st.integers(1, 60))
def test_adaptive_sizes_differ_by_at_most_one_larger_first(n, n_bins):
    conf = np.linspace(0.05, 0.95, n)[::-1].copy()
    bins = reliability_bins(conf, np.ones(n, bool), n_bins, "adaptive")
    sizes = bins.count.tolist()
    assert len(sizes) == min(n, n_bins)
    assert sum(sizes) == n
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)
    # groups are consecutive runs of the sorted confidences
    assert np.all(bins.lower <= bins.upper)
    assert np.all(bins.upper[:-1] <= bins.lower[1:])


@FAST
@given(predictions(), st.integers(1, 25))
def test_equal_width_ece_matches_plain_loop(data, n_bins):
    conf, correct = data
    assert ece(conf, correct, n_bins) == pytest.approx(loop_equal_width_ece(conf, correct, n_bins),
                                                       rel=1e-10, abs=1e-12)


@FAST
@given(predictions(), st.integers(1, 25))
def test_adaptive_ece_matches_plain_loop(data, n_bins):
    conf, correct = data
    assert ece(conf, correct, n_bins, "adaptive") == pytest.approx(
        loop_adaptive_ece(conf, correct, n_bins), rel=1e-10, abs=1e-12)
    groups = loop_adaptive_groups(conf, correct, n_bins)
    assert reliability_bins(conf, correct, n_bins, "adaptive").count.tolist() == [len(g) for g in groups]


@pytest.mark.parametrize("seed", range(5))
def test_ece_matches_loops_on_random_top_label_data(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(500, 4)) * rng.uniform(0.5, 4)
    y = rng.integers(0, 4, size=500)
    conf, correct = top_label(z, y, rng.uniform(0.3, 3))
    for n_bins in (4, 10, 15):
        assert ece(conf, correct, n_bins) == pytest.approx(loop_equal_width_ece(conf, correct, n_bins), rel=1e-10)
        assert ece(conf, correct, n_bins, "adaptive") == pytest.approx(
            loop_adaptive_ece(conf, correct, n_bins), rel=1e-10)


@pytest.mark.parametrize("seed, n_bins", [(0, 4), (1, 5), (2, 10), (3, 15), (4, 20)])
def test_equal_width_matches_sklearn_calibration_curve(seed, n_bins):
    rng = np.random.default_rng(seed)
    conf = rng.uniform(0.0, 1.0, 2000)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    # sklearn bins are (lo, hi], ours [lo, hi): keep every confidence off the edges
    assert np.min(np.abs(conf[:, None] - edges[None, :])) > 1e-9
    correct = rng.uniform(size=conf.size) < conf ** 1.5
    prob_true, prob_pred = calibration_curve(correct, conf, n_bins=n_bins, strategy="uniform", pos_label=1)
    counts = np.histogram(conf, bins=edges)[0]
    weights = counts[counts > 0] / conf.size
    sklearn_ece = float(np.sum(weights * np.abs(prob_true - prob_pred)))
    bins = reliability_bins(conf, correct, n_bins)
    filled = bins.count > 0
    assert bins.accuracy[filled] == pytest.approx(prob_true, rel=1e-12)
    assert bins.confidence[filled] == pytest.approx(prob_pred, rel=1e-12)
    assert ece(conf, correct, n_bins) == pytest.approx(sklearn_ece, rel=1e-12)


@FAST
@given(predictions(max_n=40), st.integers(1, 5), st.integers(1, 20), st.sampled_from(["equal-width", "adaptive"]))
def test_rows_of_a_grid_equal_single_rows(data, rows, n_bins, scheme):
    conf, correct = data
    stack = np.stack([conf ** (1.0 + 0.5 * r) for r in range(rows)])
    all_bins = reliability_bins(stack, correct, n_bins, scheme)
    all_ece = ece(stack, correct, n_bins, scheme)
    all_mce = mce(stack, correct, n_bins, scheme)
    for r in range(rows):
        one = reliability_bins(stack[r], correct, n_bins, scheme)
        for many_field, one_field in zip(all_bins, one):
            assert np.allclose(many_field[r], one_field, rtol=1e-13, atol=0, equal_nan=True)
        assert all_ece[r] == pytest.approx(ece(stack[r], correct, n_bins, scheme), rel=1e-13, abs=1e-300)
        assert all_mce[r] == pytest.approx(mce(stack[r], correct, n_bins, scheme), rel=1e-13, abs=1e-300)


@FAST
@given(predictions(), st.integers(1, 20))
def test_presorted_adaptive_equals_adaptive(data, n_bins):
    conf, correct = data
    direct = reliability_bins(conf, correct, n_bins, "adaptive")
    via_sort = adaptive_bins_sorted(*sort_by_confidence(conf, correct), n_bins)
    for a, b in zip(direct, via_sort):
        assert np.array_equal(a, b, equal_nan=True)


def test_equal_width_helper_equals_reliability_bins():
    conf, correct = np.array([0.1, 0.45, 0.5, 0.99]), np.array([0, 1, 1, 0])
    for a, b in zip(equal_width_bins(conf, correct, 3), reliability_bins(conf, correct, 3)):
        assert np.array_equal(a, b, equal_nan=True)


# --- bad input --------------------------------------------------------------------------------

@pytest.mark.parametrize("n_bins", [0, -3, 2.5, True, "4", None])
def test_bad_bin_count_is_refused(n_bins):
    for function in (reliability_bins, ece, mce):
        with pytest.raises(ValueError, match="n_bins must be a positive integer"):
            function([0.5, 0.7], [1, 0], n_bins)


@pytest.mark.parametrize("n_bins", [0, -3, 2.5, True, "4", None])
def test_bad_bin_count_is_refused_by_the_presorted_helper(n_bins):
    """Called directly, adaptive_bins_sorted names the argument (it used to raise ZeroDivisionError for 0)."""
    sorted_rows = sort_by_confidence([0.5, 0.7], [1, 0])
    with pytest.raises(ValueError, match="n_bins must be a positive integer"):
        adaptive_bins_sorted(*sorted_rows, n_bins)
    with pytest.raises(ValueError, match="n_bins must be a positive integer"):
        equal_mass_bounds(2, n_bins)


def test_presorted_helper_refuses_no_rows():
    with pytest.raises(ValueError, match="sorted_confidence must have shape"):
        adaptive_bins_sorted([], [], 3)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        equal_mass_bounds(0, 3)


def test_unknown_scheme_is_refused():
    for function in (reliability_bins, ece, mce):
        with pytest.raises(ValueError, match="scheme must be one of"):
            function([0.5, 0.7], [1, 0], 4, "equal-mass")


@pytest.mark.parametrize("confidence, correct, message", [
    ([0.5, 1.2], [1, 0], r"confidence values must lie in \[0, 1\]"),
    ([-0.1, 0.5], [1, 0], r"confidence values must lie in \[0, 1\]"),
    ([0.5, float("nan")], [1, 0], r"confidence values must lie in \[0, 1\]"),
    ([], [], "confidence must have shape"),
    (0.5, [1], "confidence must have shape"),
    (np.full((2, 2, 2), 0.5), [1, 0], "confidence must have shape"),
    ([0.5, 0.7], [1, 0, 1], "correct must have shape"),
    ([0.5, 0.7], [1, 2], "correct must hold booleans"),
])
def test_bad_predictions_are_refused(confidence, correct, message):
    with pytest.raises(ValueError, match=message):
        ece(confidence, correct, 4)


# --- edge-exact bin ids without a search -------------------------------------------------------

def searched_ids(confidence, n_bins):
    """The documented rule, by search: the last edge ≤ c, clipped to the last bin."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    return np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)


@pytest.mark.parametrize("n_bins", list(range(1, 61)) + [97, 100, 1000])
def test_equal_width_ids_equal_the_search_on_and_around_every_edge(n_bins):
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    around = np.concatenate([edges, np.nextafter(edges, 2.0), np.nextafter(edges, -1.0),
                             edges * (1 + 1e-15), edges * (1 - 1e-15), [0.0, 1.0, 5e-324]])
    around = np.clip(around, 0.0, 1.0)
    rng = np.random.default_rng(n_bins)
    values = np.concatenate([around, rng.random(2000), rng.random(500) ** 8, 1 - rng.random(500) ** 8])
    assert equal_width_ids(values, n_bins).tolist() == searched_ids(values, n_bins).tolist()


@given(hnp.arrays(np.float64, st.integers(1, 200), elements=st.floats(0.0, 1.0)), st.integers(1, 40))
@settings(max_examples=200, deadline=None)
def test_equal_width_ids_equal_the_search_for_any_probability(values, n_bins):
    assert equal_width_ids(values, n_bins).tolist() == searched_ids(values, n_bins).tolist()


def test_equal_width_sums_count_hits_and_add_confidences_per_row_and_bin():
    confidence = np.array([[0.1, 0.5, 0.55, 1.0], [0.0, 0.49, 0.5, 0.75]])
    hits = np.array([1, 0, 1, 1])
    count, conf_sum, hit_sum = equal_width_sums(confidence, hits, 2)
    assert count.tolist() == [[1, 3], [2, 2]]
    assert hit_sum.tolist() == [[1.0, 2.0], [1.0, 2.0]]
    np.testing.assert_allclose(conf_sum, [[0.1, 2.05], [0.49, 1.25]], rtol=1e-15)


@given(hnp.arrays(np.float64, st.integers(0, 300),
                  elements=st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1)),
       st.integers(0, 2 ** 32 - 1))
@settings(max_examples=200, deadline=None)
def test_stable_order_is_the_stable_argsort_whatever_the_hint(values, seed):
    expected = np.argsort(values, kind="stable").tolist()
    assert stable_order(values).tolist() == expected
    hint = np.random.default_rng(seed).permutation(values.size)
    assert stable_order(values, hint).tolist() == expected
    assert stable_order(values, np.array(expected, dtype=np.intp)).tolist() == expected
