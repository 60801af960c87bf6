"""Tests of calib.floor: the noise floor of a perfectly calibrated model.

References are independent of the code under test: brute-force Bernoulli
simulation, enumeration of outcomes, and calib.binning.
"""

import itertools

import numpy as np
import pytest
import scipy.stats
from analysis_inputs import BIN_COUNTS, part_rows, scores

from calib import binning
from calib.floor import bins_outside, noise_floor, segment_cdfs, tail_share


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


# --- how many bins fall outside their bands (issue 12, item 2) ---

def assert_close_each(got, expected, tolerance, label=""):
    """|got − expected| ≤ tolerance entry by entry (the tolerance may differ per entry)."""
    gap = np.abs(np.asarray(got) - np.asarray(expected))
    assert np.all(gap <= tolerance), (label, np.asarray(got).round(4), np.asarray(expected).round(4), tolerance)


def exact_outside_law(outside_prob):
    """Law of the number of independent events with these probabilities: a convolution, entry k = P(k happen)."""
    law = np.array([1.0])
    for p in outside_prob:
        law = np.convolve(law, [1.0 - p, p])
    return law


def binomial_outside_prob(m, p, low, high):
    """P(H / m < low or H / m > high) for H ~ Binomial(m, p), by summing the binomial pmf over h = 0..m."""
    h = np.arange(m + 1)
    pmf = scipy.stats.binom.pmf(h, m, p)
    return pmf[(h / m < low) | (h / m > high)].sum()


def test_outside_law_of_independent_bins_matches_the_exact_convolution():
    """Five equal-width bins of 20 identical confidences each: each bin's successes are Binomial(20, p_b),
    independent across bins, so the number outside has the law of a sum of independent Bernoullis."""
    centres = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    conf = np.repeat(centres, 20)
    draws = 4000
    floor = noise_floor(conf, (5,), max_bins=5, n_draws=draws, sweep_draws=0, rng=17)
    band = floor.band["equal-width"][5][0]
    law = floor.outside["equal-width"][5][0]
    assert law.shape == (6,)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    prob = [binomial_outside_prob(20, p, lo, hi) for p, (lo, hi) in zip(centres, band)]
    exact = exact_outside_law(prob)
    # Monte Carlo error of a share s from 4000 draws: sqrt(s (1 − s) / 4000) ≤ 0.008
    assert_close_each(law, exact, 4.5 * np.sqrt(exact * (1 - exact) / draws) + 1e-3)
    # 5–95% bands: each bin is outside at most about 10% of the time, so the mean count is at most about 0.1 · B
    assert np.dot(np.arange(6), law) <= 0.1 * 5 + 5 / draws
    assert np.dot(np.arange(6), exact) <= 0.1 * 5 + 0.03


def test_outside_law_matches_a_brute_force_bernoulli_simulation():
    """Realistic confidences, both schemes: draw every outcome with numpy's own generator, bin with
    calib.binning, count the bins outside the engine's bands, and compare the histograms."""
    logits, labels = part_rows("sim-600", "test")
    conf = scores(logits, labels, [0.8, 1.6])[0]
    draws = 4000
    floor = noise_floor(conf, (15,), max_bins=15, n_draws=draws, sweep_draws=0, rng=5)
    rng = np.random.default_rng(2024)
    for g in range(conf.shape[0]):
        outcomes = rng.random((draws, conf.shape[1])) < conf[g]
        for scheme in binning.SCHEMES:
            bins = binning.reliability_bins(np.broadcast_to(conf[g], outcomes.shape), outcomes, 15, scheme)
            band = floor.band[scheme][15][g]
            used = bins.count[0] > 0
            acc = bins.accuracy[:, used]
            counted = np.sum((acc < band[used, 0]) | (acc > band[used, 1]), axis=1)
            law = floor.outside[scheme][15][g]
            assert law.shape == (band.shape[0] + 1,)
            brute = np.bincount(counted, minlength=law.size) / draws
            tolerance = 4.5 * np.sqrt(2 * brute * (1 - brute) / draws) + 2e-3
            assert_close_each(law, brute, tolerance, (scheme, g))
            # independent bins, each outside at most ~10%: 4 or more of 15 at most P(Binomial(15, 0.1) ≥ 4) ≈ 5.6%
            assert tail_share(law, 4) <= scipy.stats.binom.sf(3, int(used.sum()), 0.1) + 0.01


def test_outside_law_when_every_bin_but_one_is_empty():
    conf = np.full(40, 0.93)  # 15 equal-width bins: all in [13/15, 14/15)
    draws = 3000
    floor = noise_floor(conf, (15,), max_bins=15, n_draws=draws, sweep_draws=0, rng=9)
    band = floor.band["equal-width"][15][0]
    assert np.sum(~np.isnan(band[:, 0])) == 1
    law = floor.outside["equal-width"][15][0]
    assert law.shape == (16,) and np.all(law[2:] == 0) and law.sum() == pytest.approx(1.0, abs=1e-12)
    lo, hi = band[13]
    expected = binomial_outside_prob(40, 0.93, lo, hi)
    assert law[1] == pytest.approx(expected, abs=4.5 * np.sqrt(expected * (1 - expected) / draws) + 1e-3)
    assert law[1] <= 0.1 + 1 / draws
    assert tail_share(law, 1) == pytest.approx(law[1]) and tail_share(law, 2) == 0.0


def test_outside_law_with_fewer_adaptive_bins_than_asked():
    """Seven examples, 15 adaptive bins: 7 single-example bins. A lone 0/1 outcome leaves its 5–95% band only
    when p < 5% (a hit, above a band of [0, 0]) or p > 95% (a miss, below [1, 1]), so by hand
    P(0 outside) = 0.98 · 0.99, P(1) = 0.02 · 0.99 + 0.98 · 0.01, P(2) = 0.02 · 0.01."""
    conf = np.array([0.02, 0.3, 0.5, 0.6, 0.7, 0.8, 0.99])
    draws = 20000
    floor = noise_floor(conf, (15,), max_bins=15, n_draws=draws, sweep_draws=0, rng=3)
    law = floor.outside["adaptive"][15][0]
    assert law.shape == (8,)
    assert floor.band["adaptive"][15].shape == (1, 7, 2)
    by_hand = np.array([0.98 * 0.99, 0.02 * 0.99 + 0.98 * 0.01, 0.02 * 0.01, 0, 0, 0, 0, 0])
    assert_close_each(law, by_hand, 4.5 * np.sqrt(by_hand * (1 - by_hand) / draws) + 2e-4)
    # equal-width on the same rows: 15 bins, of which 7 hold one example each; the same law
    wide = floor.outside["equal-width"][15][0]
    assert wide.shape == (16,)
    assert_close_each(wide[:8], by_hand, 4.5 * np.sqrt(by_hand * (1 - by_hand) / draws) + 2e-4)
    assert np.all(wide[8:] == 0)


def test_outside_law_sums_to_one_for_every_binning():
    logits, labels = part_rows("overconfident", "test")
    conf = scores(logits, labels, [1.0, 2.0])[0]
    floor = noise_floor(conf, BIN_COUNTS, max_bins=20, n_draws=500, sweep_draws=0, rng=4)
    for scheme in binning.SCHEMES:
        for b in BIN_COUNTS:
            law = floor.outside[scheme][b]
            assert law.shape == (2, floor.band[scheme][b].shape[1] + 1)
            np.testing.assert_allclose(law.sum(axis=1), 1.0, atol=1e-12)
            assert np.all(law >= 0)
            # every share is a whole number of draws
            np.testing.assert_allclose(law * 500, np.round(law * 500), atol=1e-9)


def test_tail_share_is_one_at_zero_monotone_and_vectorised():
    rng = np.random.default_rng(1)
    law = rng.random((4, 9))
    law /= law.sum(axis=1, keepdims=True)
    k = np.arange(11)
    tails = np.stack([tail_share(law, np.full(4, j)) for j in k], axis=1)  # (4, 11)
    assert np.all(tails[:, 0] == 1.0) and np.all(tails[:, 9:] == 0.0)
    assert np.all(np.diff(tails, axis=1) <= 0)
    for row in range(4):  # a plain sum over j ≥ k, row by row
        for j in k:
            assert tails[row, j] == pytest.approx(sum(law[row, j:]), abs=1e-12)
    observed = np.array([0, 3, 8, 12])
    np.testing.assert_allclose(tail_share(law, observed), [tails[r, min(o, 10)] for r, o in enumerate(observed)])
    assert tail_share([0.5, 0.3, 0.2], 2) == pytest.approx(0.2)
    with pytest.raises(ValueError, match="observed"):
        tail_share(law, -1)
    with pytest.raises(ValueError, match="observed"):
        tail_share(law, 1.5)
    with pytest.raises(ValueError, match="outside"):
        tail_share(-law, 1)


def test_bins_outside_counts_non_empty_bins_beyond_their_band():
    logits, labels = part_rows("overconfident", "test")
    conf, correct, _ = scores(logits, labels, [1.0, 2.0])
    floor = noise_floor(conf, (15,), max_bins=15, n_draws=500, sweep_draws=0, rng=2)
    for scheme in binning.SCHEMES:
        bins = binning.reliability_bins(conf, np.broadcast_to(correct, conf.shape), 15, scheme)
        band = floor.band[scheme][15]
        got = bins_outside(bins.accuracy, bins.count, band)
        assert got.shape == (2,)
        for g in range(2):  # one bin at a time
            expected = 0
            for b in range(band.shape[1]):
                if bins.count[g, b] > 0 and not band[g, b, 0] <= bins.accuracy[g, b] <= band[g, b, 1]:
                    expected += 1
            assert got[g] == expected
        assert got[0] >= 5  # T = 1 is far from calibrated on this set
    assert bins_outside([0.5, np.nan], [3, 0], [[0.6, 0.9], [np.nan, np.nan]]) == 1
    with pytest.raises(ValueError, match="band"):
        bins_outside([0.5], [3], [0.1, 0.9])
