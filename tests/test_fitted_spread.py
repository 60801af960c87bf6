"""The spread of the fitted temperature on sim-600's 300 calibration rows (issue 12, bootstrap caveat).

The labels were drawn from softmax(z / 1.8), so the truth is 1.8; the fit on these rows is about 1.46.
Two independent views: the bootstrap of the fit (resampled rows, calib.refit), and the sampling
distribution under the truth (labels redrawn from softmax(z / 1.8) with numpy's generator, each set
fitted with calib.fit_temperature's own bounded search through a weighting of rows repeated per class).
"""

import numpy as np
import pytest

from calib import fit_temperature, load, resample_counts
from calib.refit import fit_weighted_temperatures


@pytest.fixture(scope="module")
def calibration_rows():
    data = load("sim-600")
    return data.logits[data.is_calibration], data.labels[data.is_calibration]


def test_bootstrap_of_the_fitted_temperature_barely_reaches_the_truth(calibration_rows):
    z, y = calibration_rows
    fitted = fit_temperature(z, y)
    assert y.size == 300 and fitted == pytest.approx(1.4648, abs=1e-4)
    temps = fit_weighted_temperatures(z, y, resample_counts(y.size, 600, 0))
    assert np.median(temps) == pytest.approx(fitted, abs=0.03)
    # 1.8 sits near the top 2.5% of the bootstrap distribution: about 2% of resamples reach it
    assert 0.003 < np.mean(temps >= 1.8) < 0.06
    low, high = np.quantile(temps, (0.05, 0.95))
    assert 1.15 < low < fitted < high < 1.8


def test_under_the_truth_a_fit_this_low_is_about_a_2_5_percent_event(calibration_rows):
    z, y = calibration_rows
    fitted = fit_temperature(z, y)
    rng = np.random.default_rng(7)
    sims, k = 600, z.shape[1]
    p = np.exp(z / 1.8 - (z / 1.8).max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    labels = (rng.random((sims, y.size, 1)) > np.cumsum(p, axis=1)[None]).sum(axis=2).clip(0, k - 1)
    # row i repeated once per class c, with label c; a simulation weights copy c of row i by [its label is c]
    weights = (labels[:, :, None] == np.arange(k)).reshape(sims, -1).astype(float)
    fits = fit_weighted_temperatures(np.repeat(z, k, axis=0), np.tile(np.arange(k), y.size), weights)
    for s in (0, 1):  # the weighting trick is the same fit as on the relabelled rows
        assert fits[s] == pytest.approx(fit_temperature(z, labels[s]), abs=2e-7)
    assert np.median(fits) == pytest.approx(1.8, abs=0.05)
    # binomial error of a share of 600 near 2.5%: about 0.6%
    assert 0.005 < np.mean(fits <= fitted) < 0.06
