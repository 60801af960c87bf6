"""Tests of calib.floor: the noise floor of a perfectly calibrated model.

References are independent of the code under test: brute-force Bernoulli
simulation, enumeration of outcomes, and calib.binning.
"""

import itertools

import numpy as np
import pytest
from analysis_inputs import BIN_COUNTS, part_rows, scores

from calib import binning
from calib.floor import noise_floor, segment_cdfs


def test_segment_cdfs_by_enumeration():
    rng = np.random.default_rng(2)
    probs = np.concatenate([rng.random(9), [0.0, 1.0, 0.5]])
    starts, lengths = np.array([0, 1, 5, 9, 11]), np.array([1, 4, 4, 2, 1])
    cdf, offset = segment_cdfs(probs, starts, lengths)
    for start, length, at in zip(starts, lengths, offset):
        p = probs[start:start + length]
        pmf = np.zeros(length + 1)
        for outcome in itertools.product((0, 1), repeat=length):
            pmf[sum(outcome)] += np.prod(np.where(outcome, p, 1 - p))
        np.testing.assert_allclose(cdf[at:at + length + 1], np.cumsum(pmf), atol=1e-12)


def test_noise_floor_matches_brute_force_bernoulli_simulation():
    """The run-wise exact sampler gives the same ECE distribution as drawing every outcome."""
    logits, labels = part_rows("sim-600", "test")
    conf = scores(logits, labels, [1.0])[0][0][:150]
    floor = noise_floor(conf, (4, 15), max_bins=15, n_draws=4000, sweep_draws=2, rng=1)
    outcomes = np.random.default_rng(99).random((4000, conf.size)) < conf
    for scheme in binning.SCHEMES:
        for b in (4, 15):
            brute = np.quantile(binning.ece(np.broadcast_to(conf, outcomes.shape), outcomes, b, scheme),
                                (0.05, 0.5, 0.95))
            # Monte Carlo error of these quantiles at 4000 draws is about 0.002
            np.testing.assert_allclose(floor.ece[scheme][b][0], brute, atol=0.006)


def test_measured_ece_lies_inside_noise_floor_about_90_percent_of_the_time():
    """Labels drawn from the model's own confidences: the model is calibrated by construction."""
    logits, labels = part_rows("sim-600", "test")
    conf = scores(logits, labels, [1.0])[0][0]
    floor = noise_floor(conf, (10,), max_bins=10, n_draws=2000, sweep_draws=2, rng=8)
    rng = np.random.default_rng(12345)
    trials = 300
    for scheme in binning.SCHEMES:
        low, _, high = floor.ece[scheme][10][0]
        correct = rng.random((trials, conf.size)) < conf
        measured = binning.ece(np.broadcast_to(conf, correct.shape), correct, 10, scheme)
        inside = np.mean((low <= measured) & (measured <= high))
        assert 0.80 <= inside <= 0.97, (scheme, inside)


def test_bands_cover_a_calibrated_model_and_narrow_with_more_data():
    widths = {}
    for name in ("sim-60", "sim-600"):
        logits, labels = part_rows(name, "test")
        conf = scores(logits, labels, [1.0])[0][0]
        floor = noise_floor(conf, (10,), max_bins=10, n_draws=2000, sweep_draws=2, rng=3)
        band = floor.band["equal-width"][10][0]
        counts = binning.reliability_bins(conf, np.ones(conf.size, bool), 10).count
        assert np.all(np.isnan(band[counts == 0]))
        used = counts > 0
        assert np.all(band[used, 0] <= band[used, 1])
        widths[name] = np.median(band[used, 1] - band[used, 0])
    # 10x the rows per bin: about 1/sqrt(10) ≈ 0.32 of the width
    assert widths["sim-600"] < 0.6 * widths["sim-60"], widths


def test_band_contains_the_expected_accuracy():
    logits, labels = part_rows("overconfident", "test")
    conf = scores(logits, labels, [2.0])[0]
    floor = noise_floor(conf, (5, 15), max_bins=15, n_draws=2000, sweep_draws=2, rng=4)
    for scheme in binning.SCHEMES:
        for b in (5, 15):
            stats = binning.reliability_bins(conf, np.ones(conf.shape[1], bool), b, scheme)
            band = floor.band[scheme][b]
            used = stats.count > 0
            assert np.all(band[..., 0][used] <= stats.confidence[used] + 1e-12)
            assert np.all(stats.confidence[used] <= band[..., 1][used] + 1e-12)


def test_noise_floor_is_deterministic_and_grows_with_bins():
    logits, labels = part_rows("sim-600", "test")
    conf = scores(logits, labels, [1.0, 1.5])[0]
    first = noise_floor(conf, (5, 20), max_bins=30, n_draws=500, sweep_draws=100, rng=7)
    second = noise_floor(conf, (5, 20), max_bins=30, n_draws=500, sweep_draws=100, rng=7)
    for scheme in binning.SCHEMES:
        np.testing.assert_array_equal(first.sweep[scheme], second.sweep[scheme])
        for b in (5, 20):
            np.testing.assert_array_equal(first.band[scheme][b], second.band[scheme][b])
        median = first.sweep[scheme][:, :, 0]
        assert np.all(median[:, 29] > 1.5 * median[:, 4])  # finer bins, fewer rows each, more noise
        # the sweep repeats the 2000-draw numbers at the bin counts that have them
        np.testing.assert_array_equal(first.sweep[scheme][:, 19, 0], first.ece[scheme][20][:, 1])


def test_noise_floor_rejects_bad_input():
    with pytest.raises(ValueError, match="n_draws"):
        noise_floor([0.5, 0.7], BIN_COUNTS, 50, n_draws=1)
    with pytest.raises(ValueError, match="band_quantiles"):
        noise_floor([0.5, 0.7], BIN_COUNTS, 50, band_quantiles=(0.05, 0.5, 0.95))
    with pytest.raises(ValueError, match="confidence"):
        noise_floor([[0.5, np.nan]], BIN_COUNTS, 50)


def test_noise_floor_needs_its_bin_counts():
    """Bin counts and the sweep's largest bin count are the caller's choice: there are no defaults."""
    with pytest.raises(TypeError, match="bin_counts"):
        noise_floor([0.5, 0.7])
    with pytest.raises(TypeError, match="max_bins"):
        noise_floor([0.5, 0.7], BIN_COUNTS)
