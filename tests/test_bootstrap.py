"""Tests of calib.bootstrap: resample counts, their prefix sums, and the bootstrap spread.

References are independent of the code under test: explicit resampling and
re-binning with calib.binning, and numpy.quantile.
"""

import numpy as np
import pytest
import scipy.special
from analysis_inputs import BIN_COUNTS, part_rows, scores

from calib import binning
from calib.bootstrap import bootstrap_draws, bootstrap_spread, count_prefix, quantile_standard_error, resample_counts
from calib.paired import paired_difference


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


# --- every resample's scores, and the paired bootstrap of a change (issue 12, item 4) ---

def brier_per_example(logits, labels, temps):
    """(G, n) multiclass Brier scores, from scipy's softmax: Σ_k (p_k − [k = y])²."""
    p = scipy.special.softmax(np.asarray(logits)[None] / np.asarray(temps, dtype=float)[:, None, None], axis=2)
    return ((p - np.eye(p.shape[2])[labels]) ** 2).sum(axis=2)


def test_draws_and_paired_differences_match_an_explicit_loop():
    """Each resample rebuilt with np.repeat and scored from scratch (plain numpy means, calib.ece)."""
    logits, labels = part_rows("sim-60", "test")
    temps = [0.7, 1.0, 1.6]
    conf, correct, losses = scores(logits, labels, temps)
    squares = brier_per_example(logits, labels, temps)
    resamples, bins = 30, (3, 7)
    sample = bootstrap_draws(conf, correct, losses, bins, n_resamples=resamples, rng=8, example_brier=squares)
    counts = resample_counts(labels.size, resamples, 8)  # the same draws, from the same seed
    picks = [np.repeat(np.arange(labels.size), row) for row in counts]
    nll = np.array([[losses[g, idx].mean() for g in range(3)] for idx in picks])
    brier = np.array([[squares[g, idx].mean() for g in range(3)] for idx in picks])
    np.testing.assert_allclose(sample.draws.nll, nll, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sample.draws.brier, brier, rtol=0, atol=1e-12)
    ece = {}
    for scheme in binning.SCHEMES:
        for b in bins:
            ece[scheme, b] = np.array([[binning.ece(conf[g, idx], correct[idx], b, scheme) for g in range(3)]
                                       for idx in picks])
            assert sample.draws.ece[scheme][b].shape == (resamples, 3)
            np.testing.assert_allclose(sample.draws.ece[scheme][b], ece[scheme, b], rtol=0, atol=1e-9)
            np.testing.assert_allclose(sample.observed.ece[scheme][b],
                                       [binning.ece(conf[g], correct, b, scheme) for g in range(3)], atol=1e-15)
    np.testing.assert_allclose(sample.observed.nll, losses.mean(axis=1), atol=1e-15)
    np.testing.assert_allclose(sample.observed.brier, squares.mean(axis=1), atol=1e-15)
    levels = (0.05, 0.5, 0.95)
    for i, j in ((1, 2), (2, 0)):
        paired = paired_difference(sample, i, j, quantiles=levels)
        assert paired.spread.nll.shape == (3,)
        np.testing.assert_allclose(paired.spread.nll, np.quantile(nll[:, j] - nll[:, i], levels), atol=1e-12)
        np.testing.assert_allclose(paired.spread.brier, np.quantile(brier[:, j] - brier[:, i], levels), atol=1e-12)
        assert paired.change.nll == pytest.approx(losses[j].mean() - losses[i].mean(), abs=1e-14)
        assert paired.change.brier == pytest.approx(squares[j].mean() - squares[i].mean(), abs=1e-14)
        assert paired.share_lower.nll == pytest.approx(np.mean(nll[:, j] < nll[:, i]))
        for scheme in binning.SCHEMES:
            for b in bins:
                moved = ece[scheme, b][:, j] - ece[scheme, b][:, i]
                np.testing.assert_allclose(paired.spread.ece[scheme][b], np.quantile(moved, levels), atol=2e-9)
                assert paired.change.ece[scheme][b] == pytest.approx(
                    binning.ece(conf[j], correct, b, scheme) - binning.ece(conf[i], correct, b, scheme), abs=1e-14)
    # the spread is the quantiles of the draws, Brier included
    spread = bootstrap_spread(conf, correct, losses, bins, n_resamples=resamples, rng=8, example_brier=squares)
    np.testing.assert_allclose(spread.brier, np.quantile(brier, (0.05, 0.95), axis=0).T, atol=1e-12)
    assert bootstrap_spread(conf, correct, losses, bins, n_resamples=resamples, rng=8).brier is None


def test_paired_difference_broadcasts_index_arrays():
    logits, labels = part_rows("sim-60", "test")
    temps = [0.7, 1.0, 1.6, 2.5]
    conf, correct, losses = scores(logits, labels, temps)
    sample = bootstrap_draws(conf, correct, losses, (5,), n_resamples=50, rng=1)
    many = paired_difference(sample, 1, np.array([0, 2, 3]))
    assert many.spread.nll.shape == (3, 2) and many.change.nll.shape == (3,) and many.spread.brier is None
    for k, j in enumerate((0, 2, 3)):
        one = paired_difference(sample, 1, j)
        np.testing.assert_array_equal(many.spread.nll[k], one.spread.nll)
        np.testing.assert_array_equal(many.spread.ece["adaptive"][5][k], one.spread.ece["adaptive"][5])
    with pytest.raises(ValueError, match="j"):
        paired_difference(sample, 0, 4)
    with pytest.raises(ValueError, match="i"):
        paired_difference(sample, 0.5, 1)


def test_the_same_temperature_twice_changes_nothing_in_any_resample():
    """Two identical columns are scored on the same resampled rows, so every draw of their change is exactly 0."""
    logits, labels = part_rows("overconfident", "test")
    temps = [1.0, 2.04, 2.04]
    conf, correct, losses = scores(logits, labels, temps)
    squares = brier_per_example(logits, labels, temps)
    sample = bootstrap_draws(conf, correct, losses, BIN_COUNTS, n_resamples=100, rng=2, example_brier=squares)
    for i, j in ((1, 2), (0, 0)):
        paired = paired_difference(sample, i, j, quantiles=(0.0, 0.5, 1.0))
        for field in ("nll", "brier"):
            assert getattr(paired.change, field) == 0.0
            assert np.all(getattr(paired.spread, field) == 0.0)
            assert getattr(paired.share_lower, field) == 0.0
        for scheme in binning.SCHEMES:
            for b in BIN_COUNTS:
                assert paired.change.ece[scheme][b] == 0.0 and np.all(paired.spread.ece[scheme][b] == 0.0)


def test_paired_spread_of_a_change_is_narrower_than_the_marginal_spreads_suggest():
    """The over-confident test rows, T = 1 against the fitted 2.04: NLL and Brier of both temperatures move
    together from resample to resample, so their change is much steadier than either score."""
    logits, labels = part_rows("overconfident", "test")
    temps = [1.0, 2.04]
    conf, correct, losses = scores(logits, labels, temps)
    squares = brier_per_example(logits, labels, temps)
    sample = bootstrap_draws(conf, correct, losses, (15,), n_resamples=400, rng=6, example_brier=squares)
    paired = paired_difference(sample, 0, 1)
    for field in ("nll", "brier"):
        draws = getattr(sample.draws, field)
        low, high = np.quantile(draws, (0.05, 0.95), axis=0)
        marginal = high - low  # each temperature's own 5–95% width
        width = np.diff(getattr(paired.spread, field))[0]
        # independent scores would give a change about sqrt(w0² + w1²) wide; paired, it is under half that
        assert width < 0.5 * np.hypot(*marginal), (field, width, marginal)
        assert width < marginal.max()
        assert getattr(paired.spread, field)[1] < 0  # the fitted T is better in at least 95% of resamples
        assert getattr(paired.share_lower, field) == 1.0


# --- Monte Carlo error of a quantile of R draws (issue 12, bootstrap caveat) ---

def test_quantile_standard_error_of_uniform_draws_matches_theory_and_repetition():
    """For R uniform draws the q-quantile's standard deviation is about sqrt(q (1 − q) / R) (density 1)."""
    rng = np.random.default_rng(0)
    draws, rows = 400, 300
    values = rng.random((rows, draws))
    levels = (0.05, 0.5, 0.95)
    se = quantile_standard_error(values, levels, n_resamples=400, rng=1)
    assert se.shape == (3, rows)
    theory = np.sqrt(np.array(levels) * (1 - np.array(levels)) / draws)
    repeated = np.quantile(values, levels, axis=1).std(axis=1, ddof=1)  # across 300 independent sets of draws
    for k in range(3):
        assert se[k].mean() == pytest.approx(theory[k], rel=0.15), (levels[k], se[k].mean(), theory[k])
        assert se[k].mean() == pytest.approx(repeated[k], rel=0.2)
    with pytest.raises(ValueError, match="values"):
        quantile_standard_error([1.0], levels)


def test_quantile_standard_error_equals_an_explicit_resampling_loop():
    """Resample the sorted draws with np.repeat, take numpy's quantile of each resample, and the spread of those."""
    rng = np.random.default_rng(4)
    values = rng.normal(size=(3, 57))
    levels = (0.05, 0.5, 0.95)
    se = quantile_standard_error(values, levels, n_resamples=60, rng=9)
    counts = resample_counts(57, 60, 9)  # the same draws, from the same seed, over sorted positions
    for row in range(3):
        ordered = np.sort(values[row])
        estimates = np.array([np.quantile(np.repeat(ordered, c), levels) for c in counts])  # (60, 3)
        np.testing.assert_allclose(se[:, row], estimates.std(axis=0, ddof=1), rtol=1e-12)
