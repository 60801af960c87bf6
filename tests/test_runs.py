"""Tests of calib.runs: binning by contiguous runs of the sorted examples, and the ECE sweep.

References are independent of the code under test: calib.binning (counts and
ECE by explicit binning) and numpy.array_split (equal-mass groups).
"""

import numpy as np
import pytest

from calib import binning, bootstrap, runs
from calib.binning import equal_mass_bounds
from calib.datasets import load
from calib.fitting import fit_temperature
from calib.runs import bin_layout, bin_positions, ece_sweep, sort_rows
from calib.scaling import top_label

# ----------------------------------------------------------------------------- layout


def test_bin_positions_by_hand():
    # 0.25 sits on an edge of 4 bins: it opens bin 1; 1.0 closes the last bin
    sorted_conf = [[0.1, 0.25, 0.3, 0.99, 1.0]]
    assert bin_positions(sorted_conf, 4, "equal-width").tolist() == [[0, 1, 3, 3, 5]]
    # 5 items in 3 equal-mass groups: sizes 2, 2, 1
    assert bin_positions(sorted_conf, 3, "adaptive").tolist() == [[0, 2, 4, 5]]
    # more groups than items: one item each
    assert bin_positions([[0.5, 0.6]], 5, "adaptive").tolist() == [[0, 1, 2]]
    with pytest.raises(ValueError, match="scheme"):
        bin_positions(sorted_conf, 3, "quantile")


def test_layout_counts_match_reliability_bins():
    rng = np.random.default_rng(3)
    conf = np.round(rng.random((4, 57)), 2)  # ties and values on edges
    _, ordered = sort_rows(conf)
    layout = bin_layout(ordered, (1, 4, 7, 15, 60))
    for k, (scheme, b) in enumerate(layout.keys):
        span = slice(layout.first[k], layout.first[k] + layout.size[k])
        expected = binning.reliability_bins(conf, np.ones(57, bool), b, scheme).count
        np.testing.assert_array_equal(layout.ends[:, span] - layout.starts[:, span], expected)


def test_equal_mass_groups_agree_with_binning_for_many_n_and_b():
    """bin_positions, bin_layout and reliability_bins cut the same equal-mass groups as numpy.array_split."""
    for n in range(1, 41):
        conf = np.linspace(0.0, 1.0, n)  # already sorted
        counts = tuple(range(1, n + 8))
        layout = bin_layout(conf, counts, ("adaptive",))
        for k, b in enumerate(counts):
            reference = np.concatenate([[0], np.cumsum([len(g) for g in np.array_split(np.arange(n), b) if len(g)])])
            bounds = equal_mass_bounds(n, b)
            np.testing.assert_array_equal(bounds, reference)
            np.testing.assert_array_equal(bin_positions(conf, b, "adaptive")[0], bounds)
            span = slice(layout.first[k], layout.first[k] + layout.size[k])
            np.testing.assert_array_equal(layout.starts[0, span], bounds[:-1])
            np.testing.assert_array_equal(layout.ends[0, span], bounds[1:])
            counted = binning.reliability_bins(conf, np.ones(n, bool), b, "adaptive").count
            np.testing.assert_array_equal(counted, np.diff(bounds))


def test_equal_mass_sizes_have_one_home():
    """Every module that bins by equal mass takes the group bounds from calib.binning, not a copy."""
    assert runs.equal_mass_bounds is binning.equal_mass_bounds
    assert bootstrap.equal_mass_bounds is binning.equal_mass_bounds


# ----------------------------------------------------------------------------- sweep


@pytest.mark.parametrize("n", [1, 2, 9, 100])
def test_sweep_equals_binning_ece_for_every_bin_count(n):
    rng = np.random.default_rng(n)
    conf = rng.random((3, n))
    conf[:, : n // 2] = np.round(conf[:, : n // 2], 1)
    correct = rng.random(n) < 0.6
    sweep = ece_sweep(conf, correct, 50)
    for scheme in binning.SCHEMES:
        assert sweep[scheme].shape == (3, 50)
        for b in range(1, 51):
            np.testing.assert_allclose(sweep[scheme][:, b - 1], binning.ece(conf, correct, b, scheme), atol=1e-12)


def test_sweep_rejects_bad_input():
    with pytest.raises(ValueError, match="correct"):
        ece_sweep([0.5, 0.6], [1, 0, 1], 50)
    with pytest.raises(ValueError, match="confidence"):
        ece_sweep([0.5, 1.5], [1, 0], 50)
    with pytest.raises(ValueError, match="max_bins"):
        ece_sweep([0.5, 0.6], [1, 0], 0)


def test_sweep_needs_its_bin_count():
    """The largest bin count is the caller's choice: there is no default."""
    with pytest.raises(TypeError, match="max_bins"):
        ece_sweep([0.5, 0.6], [1, 0])


# ----------------------------------------------------------------------------- bin sensitivity on the data


def test_overconfident_fine_bins_inflate_ece_at_fitted_t():
    data = load("overconfident")
    cal = data.is_calibration
    fitted = fit_temperature(data.logits[cal], data.labels[cal])
    for mask in (cal, ~cal):
        conf, correct = top_label(data.logits[mask], data.labels[mask], fitted)
        sweep = ece_sweep(conf, correct, 50)
        for scheme in binning.SCHEMES:
            assert sweep[scheme][0, 49] > 2 * sweep[scheme][0, 4]


def test_overconfident_sweep_is_flat_at_t1():
    """Every bin is over-confident at T = 1, so the ECE hardly depends on the bin count."""
    data = load("overconfident")
    for mask in (data.is_calibration, ~data.is_calibration):
        conf, correct = top_label(data.logits[mask], data.labels[mask], 1.0)
        for scheme, curve in ece_sweep(conf, correct, 50).items():
            # the brief asks for 0.02 (absolute); the data give at most 0.0004
            assert np.abs(curve[0] - curve[0].mean()).max() < 0.001


def test_rows_order_is_the_stable_argsort_of_every_row():
    """Hinted row-by-row sorting gives numpy's stable order exactly, ties (many here) by index."""
    rng = np.random.default_rng(5)
    confidence = np.round(rng.uniform(0.3, 1.0, (6, 400)), 2)  # two decimals: ties in every row
    confidence[3] = confidence[2]  # a row equal to its hint
    assert np.array_equal(runs.rows_order(confidence), np.argsort(confidence, axis=1, kind="stable"))


def test_prefix_sums_start_at_zero_and_sum_runs():
    prefix = runs.prefix_sums(np.array([[1.0, 2.0, 4.0], [0.5, 0.0, 0.25]]))
    assert prefix.tolist() == [[0.0, 1.0, 3.0, 7.0], [0.0, 0.5, 0.5, 0.75]]


def test_binnings_over_counts_agree_with_reliability_bins():
    """Prefix sums against bincount: counts exactly, means within the rounding of a few hundred sums."""
    data = load("sim-600")
    temps = np.array([0.6, 1.0, 1.9])
    confidence = np.stack([top_label(data.logits, data.labels, t)[0] for t in temps])
    correct = np.argmax(data.logits, axis=1) == data.labels
    order = runs.rows_order(confidence)
    for given in (None, order):
        got = runs.binnings_over_counts(confidence, correct, (3, 10), order=given)
        mce = runs.mce_over_counts(confidence, correct, (3, 10), order=given)
        for scheme in binning.SCHEMES:
            for b in (3, 10):
                want = binning.reliability_bins(confidence, correct, b, scheme)
                assert np.array_equal(got[scheme, b].count, want.count)
                np.testing.assert_allclose(got[scheme, b].confidence, want.confidence, rtol=1e-12)
                np.testing.assert_allclose(got[scheme, b].accuracy, want.accuracy, rtol=1e-12)
                np.testing.assert_allclose(mce[scheme, b], binning.mce(confidence, correct, b, scheme), atol=1e-12)


def test_bins_by_count_are_reliability_bins_to_the_bit():
    data = load("sim-60")
    confidence = np.stack([top_label(data.logits, data.labels, t)[0] for t in (0.8, 1.3)])
    correct = np.argmax(data.logits, axis=1) == data.labels
    for given in (None, runs.rows_order(confidence)):
        got = runs.bins_by_count(confidence, correct, (4, 15), order=given)
        for scheme in binning.SCHEMES:
            for b in (4, 15):
                want = binning.reliability_bins(confidence, correct, b, scheme)
                for field, a, c in zip(want._fields, got[scheme][b], want):
                    assert np.array_equal(a, c, equal_nan=True), (scheme, b, field)


def test_equal_width_bins_of_values_on_and_beside_every_edge_are_reliability_bins_to_the_bit():
    """Each row's bin comes from floor(c · B), mended where c · B rounds across an edge: values on every edge of
    every bin count and one step of the float either side land where the sorted runs put them."""
    rng = np.random.default_rng(3)
    for b in range(1, 51):
        edges = np.linspace(0.0, 1.0, b + 1)
        values = np.concatenate([edges, np.nextafter(edges, -1.0), np.nextafter(edges, 2.0), rng.random(40)])
        values = np.clip(values, 0.0, 1.0)
        confidence = np.stack([values, rng.permutation(values)])
        correct = rng.random(values.size) < 0.5
        got = runs.bins_by_count(confidence, correct, (b,), order=runs.rows_order(confidence))["equal-width"][b]
        want = binning.reliability_bins(confidence, correct, b, "equal-width")
        for field, a, c in zip(want._fields, got, want):
            assert np.array_equal(a, c, equal_nan=True), (b, field)


def test_one_running_sum_gives_every_bin_counts_ece_and_mce():
    """runs.sweep_sorted (the grid pass's other bin counts): the ECE of every count 1..30 as calib.binning.ece
    computes it bin by bin, to rounding (and as ece_sweep, which now delegates to it, gives it), and the MCE of
    the counts asked for as calib.mce computes it, to rounding; ties included (a confidence repeated across
    rows)."""
    rng = np.random.default_rng(11)
    confidence = np.round(rng.uniform(0.3, 1.0, (4, 2_000)), 3)  # many ties
    correct = rng.uniform(size=2_000) < 0.7
    order, sorted_conf = sort_rows(confidence)
    ece, mce = runs.sweep_sorted(sorted_conf, correct[order], 30, mce_counts=(1, 2, 7, 30))
    swept = ece_sweep(confidence, correct, 30)
    for scheme in ("equal-width", "adaptive"):
        assert np.array_equal(ece[scheme], swept[scheme])
        explicit = np.stack([binning.ece(confidence, correct, b, scheme) for b in range(1, 31)], axis=1)
        np.testing.assert_allclose(ece[scheme], explicit, rtol=0, atol=1e-13)
        for b in (1, 2, 7, 30):
            np.testing.assert_allclose(mce[scheme, b], binning.mce(confidence, correct, b, scheme), rtol=0, atol=1e-13)
    assert set(mce) == {(s, b) for s in ("equal-width", "adaptive") for b in (1, 2, 7, 30)}
