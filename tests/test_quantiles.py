"""Tests of calib.quantiles: both quantile helpers equal numpy.quantile (the independent reference), and the
order-statistic interval follows the binomial law (summed term by term with math.comb) and covers uniform draws."""

import math

import numpy as np
import pytest

from calib.quantiles import count_quantiles, order_statistic_ranks, quantile_interval, sorted_quantiles


def test_quantile_helpers_match_numpy():
    rng = np.random.default_rng(0)
    upper = rng.integers(0, 30, 40)
    values = np.minimum(rng.integers(0, 31, (40, 301)), upper[:, None])
    q = (0.05, 0.5, 0.95)
    np.testing.assert_allclose(count_quantiles(values, upper, q), np.quantile(values, q, axis=1), atol=1e-12)
    floats = rng.random((7, 123))
    np.testing.assert_allclose(sorted_quantiles(floats, q), np.quantile(floats, q, axis=1), atol=1e-12)


def binomial_cdf(k, n, p):
    """P(Binomial(n, p) ≤ k) by summing exact binomial terms (Fractions would be exact; floats suffice here)."""
    return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k + 1))


@pytest.mark.parametrize("draws", [20, 200, 1000])
def test_order_statistic_ranks_are_the_equal_tailed_binomial_choice(draws):
    levels = (0.05, 0.5, 0.95)
    ranks, coverage = order_statistic_ranks(draws, levels, level=0.95)
    assert ranks.shape == (3, 2) and coverage.shape == (3,)
    for (a, b), q, cover in zip(ranks, levels, coverage):
        # a: the largest 0-based rank with P(at most a draws below ξ_q) ≤ 2.5%; a + 1 would break it
        if a >= 0:
            assert binomial_cdf(a, draws, q) <= 0.025
        assert a + 1 > draws - 1 or binomial_cdf(a + 1, draws, q) > 0.025
        # b: the smallest 0-based rank with P(more than b draws below ξ_q) ≤ 2.5%; b − 1 would break it
        if b < draws:
            assert 1 - binomial_cdf(b, draws, q) <= 0.025 + 1e-12
        assert b - 1 < 0 or 1 - binomial_cdf(b - 1, draws, q) > 0.025
        low = binomial_cdf(a, draws, q) if a >= 0 else 0.0
        high = binomial_cdf(b, draws, q) if b < draws else 1.0
        assert cover == pytest.approx(high - low, abs=1e-9) and cover >= 0.95


def test_order_statistic_ranks_mark_a_side_that_too_few_draws_cannot_bound():
    ranks, coverage = order_statistic_ranks(20, (0.05, 0.95))
    # 20 draws: P(no draw below the 5% point) = 0.95²⁰ = 0.36 > 2.5%, so no order statistic bounds it from below
    assert ranks[0, 0] == -1 and ranks[1, 1] == 20
    values = quantile_interval(np.arange(20.0), (0.05, 0.95))
    assert values[0, 0] == -np.inf and values[1, 1] == np.inf
    with pytest.raises(ValueError, match="level"):
        order_statistic_ranks(20, (0.5,), level=1.0)


def test_quantile_interval_covers_the_true_quantile_of_uniform_draws():
    """The q-quantile of Uniform(0, 1) is q: the interval should contain it in about ``coverage`` of the trials."""
    rng = np.random.default_rng(3)
    draws, trials = 200, 4000
    levels = (0.05, 0.95)
    values = rng.random((trials, draws))
    bounds = quantile_interval(values, levels)
    assert bounds.shape == (2, trials, 2)
    _, coverage = order_statistic_ranks(draws, levels)
    for k, q in enumerate(levels):
        inside = np.mean((bounds[k, :, 0] <= q) & (q <= bounds[k, :, 1]))
        # binomial error of a share from 4000 trials: about 0.003
        assert inside == pytest.approx(coverage[k], abs=0.012), (q, inside, coverage[k])
        # and its width is about 2 · 1.96 · sqrt(q (1 − q) / R) ≈ 0.06
        width = np.median(bounds[k, :, 1] - bounds[k, :, 0])
        assert width == pytest.approx(2 * 1.96 * np.sqrt(q * (1 - q) / draws), rel=0.2)
