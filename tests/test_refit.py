"""Tests of calib.refit: fitting many weightings at once, and NLL's derivatives in 1/T."""

import numpy as np
import pytest
import scipy.optimize
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

from calib import fit_temperature
from calib.refit import fit_weighted_temperatures, marginal_balance, nll_beta_derivatives, weighted_nll
from calib.rowscores import log_normaliser

FAST = settings(max_examples=30, deadline=None)


def problem(seed, n=120, k=4):
    """Logits z and labels drawn from softmax(z / s) for a random s: a miscalibrated classifier."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * rng.uniform(0.5, 4.0)
    p = scipy.special.softmax(z / rng.uniform(0.4, 2.5), axis=1)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1).clip(0, k - 1)
    return z, y


def scipy_row_nll(z, y, t):
    return -scipy.special.log_softmax(z / t, axis=1)[np.arange(len(y)), y]


@FAST
@given(st.integers(0, 10_000))
def test_weighted_nll_matches_an_independent_log_softmax(seed):
    z, y = problem(seed)
    rng = np.random.default_rng(seed + 1)
    w = rng.integers(0, 4, size=(3, len(y))).astype(float)
    w[:, 0] += 1  # every weighting has a positive sum
    temps = rng.uniform(0.1, 5.0, size=3)
    expected = [np.average(scipy_row_nll(z, y, t), weights=wr) for t, wr in zip(temps, w)]
    np.testing.assert_allclose(weighted_nll(z, y, temps, w), expected, rtol=1e-12)


def test_unit_weights_agree_with_fit_temperature():
    for seed in range(5):
        z, y = problem(seed)
        got = fit_weighted_temperatures(z, y, np.ones(len(y)))
        assert got.shape == (1,)
        assert got[0] == pytest.approx(fit_temperature(z, y), abs=2e-7)


def test_counts_fit_the_same_as_repeated_rows_and_masks_the_same_as_subsets():
    z, y = problem(7, n=60)
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 3, size=len(y))
    counts[0] = 1
    mask = rng.uniform(size=len(y)) < 0.5
    got = fit_weighted_temperatures(z, y, np.stack([counts, mask.astype(float)]))
    repeated = scipy.optimize.minimize_scalar(
        lambda t: scipy_row_nll(np.repeat(z, counts, axis=0), np.repeat(y, counts), t).mean(),
        bounds=(0.05, 10), method="bounded", options={"xatol": 1e-9}).x
    subset = scipy.optimize.minimize_scalar(
        lambda t: scipy_row_nll(z[mask], y[mask], t).mean(),
        bounds=(0.05, 10), method="bounded", options={"xatol": 1e-9}).x
    np.testing.assert_allclose(got, [repeated, subset], atol=1e-6)


def test_a_fit_at_the_bound_stays_inside_the_bounds():
    z = np.array([[5.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    y = np.array([1, 0, 0])  # mostly wrong and confident: wants a huge T
    got = fit_weighted_temperatures(z, y, np.ones(3), bounds=(0.5, 3.0))
    assert 3.0 - 1e-6 < got[0] <= 3.0


@FAST
@given(st.integers(0, 10_000), st.floats(0.2, 5.0))
def test_beta_derivatives_match_finite_differences(seed, t):
    z, y = problem(seed, n=50)
    beta, h = 1.0 / t, 1e-4

    def mean_nll(b):
        return scipy_row_nll(z, y, 1.0 / b).mean()

    slope, curvature = nll_beta_derivatives(z, y, t)
    assert slope == pytest.approx((mean_nll(beta + h) - mean_nll(beta - h)) / (2 * h), abs=1e-6)
    second = (mean_nll(beta + h) - 2 * mean_nll(beta) + mean_nll(beta - h)) / h ** 2
    assert curvature == pytest.approx(second, rel=1e-3, abs=1e-4)
    assert curvature >= 0


def test_slope_vanishes_at_the_fit_and_group_slopes_add_up():
    z, y = problem(11, n=200)
    t = fit_temperature(z, y)
    assert abs(nll_beta_derivatives(z, y, t)[0]) < 1e-5
    groups = np.arange(len(y)) % 3 == 0
    pooled = nll_beta_derivatives(z, y, 1.3)
    parts = [nll_beta_derivatives(z, y, 1.3, weights=m / len(y)) for m in (groups, ~groups)]
    assert sum(p[0] for p in parts) == pytest.approx(pooled[0], abs=1e-12)
    assert sum(p[1] for p in parts) == pytest.approx(pooled[1], abs=1e-12)


@pytest.mark.parametrize("weights, match", [
    (np.ones((2, 3)), "shape"), (-np.ones(4), "non-negative"), (np.zeros(4), "positive sum"),
])
def test_bad_weights_are_named(weights, match):
    z, y = problem(0, n=4)
    with pytest.raises(ValueError, match=match):
        fit_weighted_temperatures(z, y, weights)


def test_bad_bounds_and_temperatures_are_named():
    z, y = problem(0, n=4)
    with pytest.raises(ValueError, match="bounds"):
        fit_weighted_temperatures(z, y, np.ones(4), bounds=(2.0, 1.0))
    with pytest.raises(ValueError, match="temperature"):
        nll_beta_derivatives(z, y, 0.0)
    with pytest.raises(ValueError, match="temperatures"):
        weighted_nll(z, y, [1.0, 2.0], np.ones((1, 4)))


def test_log_normaliser_is_logsumexp_and_can_reuse_its_input():
    """The sum is ≥ 1 and rounded to its last bit (2.2e-16), so its log carries an absolute error of a
    few 1e-16 (large relative to a log near 0): compared within 1e-15 absolute, 1e-13 relative."""
    rng = np.random.default_rng(2)
    z = rng.normal(0, 3, (50, 7))
    scaled = (z - z.max(axis=1, keepdims=True)) / 0.7
    want = scipy.special.logsumexp(scaled, axis=1)
    np.testing.assert_allclose(log_normaliser(scaled), want, rtol=1e-13, atol=1e-15)
    work = scaled.copy()
    np.testing.assert_allclose(log_normaliser(work, out=work), want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(work, np.exp(scaled), rtol=1e-15)  # the exponentials were written in place


def test_marginal_balance_adds_up_and_checks_its_groups():
    rng = np.random.default_rng(4)
    z = rng.normal(0, 2, (300, 4))
    y = rng.integers(0, 4, 300)
    groups = np.where(np.arange(300) < 100, "a", "b")
    balance = marginal_balance(z, y, 1.3, groups)
    assert balance.names == ("a", "b") and balance.n == 300
    assert balance.slope.sum() == pytest.approx(balance.pooled_slope, abs=1e-12)
    assert balance.curvature.sum() == pytest.approx(balance.pooled_curvature, abs=1e-12)
    with pytest.raises(ValueError, match="groups"):
        marginal_balance(z, y, 1.3, groups[:10])
