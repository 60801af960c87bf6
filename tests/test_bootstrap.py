"""Tests of calib.bootstrap: resample counts, their prefix sums, and the bootstrap spread.

References are independent of the code under test: explicit resampling and
re-binning with calib.binning, and numpy.quantile.
"""

import numpy as np
import pytest
from analysis_inputs import BIN_COUNTS, part_rows, scores

from calib import binning
from calib.bootstrap import bootstrap_spread, count_prefix, resample_counts


def test_resample_counts_are_multinomial_rows():
    counts = resample_counts(50, 300, 4)
    assert counts.shape == (300, 50) and np.all(counts.sum(axis=1) == 50)
    # each example is drawn on average once per resample
    assert abs(counts.mean() - 1.0) < 1e-12 and 0.8 < counts.var() < 1.2
    with pytest.raises(ValueError, match="n_resamples"):
        resample_counts(5, 0, 1)
    with pytest.raises(ValueError, match="rng"):
        resample_counts(5, 3, "seed")


def test_count_prefix_does_not_wrap_past_int32():
    """Three weights of 2³⁰ reach 3·2³⁰ > 2³¹ − 1: the sums must be exact, not wrapped to −2³¹."""
    prefix = count_prefix(np.full(3, 2 ** 30, dtype=np.int64))
    assert prefix.dtype == np.int64
    assert prefix.tolist() == [0, 2 ** 30, 2 ** 31, 3 * 2 ** 30]
    # laid out in rows, as the bootstrap stores its resamples
    rows = count_prefix(np.full((2, 2), 2 ** 30, dtype=np.int64))
    assert rows.tolist() == [0, 2 ** 30, 2 ** 31, 3 * 2 ** 30, 2 ** 32]


def test_count_prefix_stays_int32_below_two_to_the_31():
    prefix = count_prefix(np.array([[2 ** 30, 2 ** 30 - 1], [0, 0]], dtype=np.int64))
    assert prefix.dtype == np.int32
    assert prefix.tolist() == [0, 2 ** 30, 2 ** 31 - 1, 2 ** 31 - 1, 2 ** 31 - 1]
    assert count_prefix(np.zeros(0, dtype=np.int8)).tolist() == [0]
    with pytest.raises(ValueError, match="counts"):
        count_prefix(np.array([1, -1]))
    with pytest.raises(ValueError, match="counts"):
        count_prefix(np.array([0.5, 1.0]))


def test_bootstrap_matches_explicit_resampling():
    """Weights-over-sorted-order results equal re-binning each explicitly resampled data set."""
    logits, labels = part_rows("sim-600", "test")
    temps = [0.7, 1.0, 1.6]
    conf, correct, losses = scores(logits, labels, temps)
    spread = bootstrap_spread(conf, correct, losses, (4, 15, 20), n_resamples=40, rng=11)
    counts = resample_counts(labels.size, 40, 11)  # the same draws, from the same seed
    for g in range(len(temps)):
        picks = [np.repeat(np.arange(labels.size), row) for row in counts]
        for scheme in binning.SCHEMES:
            for b in (4, 15, 20):
                values = [binning.ece(conf[g, idx], correct[idx], b, scheme) for idx in picks]
                np.testing.assert_allclose(spread.ece[scheme][b][g], np.quantile(values, (0.05, 0.95)), atol=1e-9)
        nll_values = [losses[g, idx].mean() for idx in picks]
        np.testing.assert_allclose(spread.nll[g], np.quantile(nll_values, (0.05, 0.95)), atol=1e-12)


def test_bootstrap_is_deterministic_and_seed_dependent():
    logits, labels = part_rows("sim-600", "calibration")
    conf, correct, losses = scores(logits, labels, [1.0, 2.0])
    first = bootstrap_spread(conf, correct, losses, BIN_COUNTS, n_resamples=200, rng=5)
    second = bootstrap_spread(conf, correct, losses, BIN_COUNTS, n_resamples=200, rng=5)
    other = bootstrap_spread(conf, correct, losses, BIN_COUNTS, n_resamples=200, rng=6)
    for scheme in binning.SCHEMES:
        for b in first.ece[scheme]:
            np.testing.assert_array_equal(first.ece[scheme][b], second.ece[scheme][b])
    np.testing.assert_array_equal(first.nll, second.nll)
    assert not np.array_equal(first.nll, other.nll)


@pytest.mark.parametrize("part", ["calibration", "test"])
def test_bootstrap_spread_contains_point_estimate_on_overconfident_at_t1(part):
    logits, labels = part_rows("overconfident", part)
    conf, correct, losses = scores(logits, labels, [1.0])
    spread = bootstrap_spread(conf, correct, losses, BIN_COUNTS, n_resamples=200, rng=21)
    for scheme in binning.SCHEMES:
        for b, (low, high) in ((b, v[0]) for b, v in spread.ece[scheme].items()):
            point = binning.ece(conf[0], correct, b, scheme)
            assert low < point < high, (scheme, b, low, point, high)
            assert 0.005 < high - low < 0.05  # a spread, not a point: n = 3000 gives about ±0.01
    low, high = spread.nll[0]
    assert low < losses[0].mean() < high


def test_bootstrap_rejects_bad_input():
    conf, correct, losses = np.full((2, 4), 0.7), np.array([1, 0, 1, 1]), np.ones((2, 4))
    with pytest.raises(ValueError, match="example_nll"):
        bootstrap_spread(conf, correct, losses[:, :3], BIN_COUNTS)
    with pytest.raises(ValueError, match="bin_counts"):
        bootstrap_spread(conf, correct, losses, bin_counts=(0,))
    with pytest.raises(ValueError, match="quantiles"):
        bootstrap_spread(conf, correct, losses, BIN_COUNTS, quantiles=(0.9, 0.1))


def test_bootstrap_needs_its_bin_counts():
    """Which bin counts to report is the caller's choice: there is no default."""
    conf, correct, losses = np.full((2, 4), 0.7), np.array([1, 0, 1, 1]), np.ones((2, 4))
    with pytest.raises(TypeError, match="bin_counts"):
        bootstrap_spread(conf, correct, losses)
