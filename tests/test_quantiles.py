"""Tests of calib.quantiles: both quantile helpers equal numpy.quantile (the independent reference)."""

import numpy as np

from calib.quantiles import count_quantiles, sorted_quantiles


def test_quantile_helpers_match_numpy():
    rng = np.random.default_rng(0)
    upper = rng.integers(0, 30, 40)
    values = np.minimum(rng.integers(0, 31, (40, 301)), upper[:, None])
    q = (0.05, 0.5, 0.95)
    np.testing.assert_allclose(count_quantiles(values, upper, q), np.quantile(values, q, axis=1), atol=1e-12)
    floats = rng.random((7, 123))
    np.testing.assert_allclose(sorted_quantiles(floats, q), np.quantile(floats, q, axis=1), atol=1e-12)
