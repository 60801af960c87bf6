"""Tests of calib.smooth against the reference implementation, relplot (imported here only)."""

import subprocess
import sys

import numpy as np
import pytest
import relplot
from relplot.kernels import ReflectedGaussianKernel, smooth_round_to_grid

from calib.datasets import load
from calib.fitting import fit_temperature
from calib.scaling import top_label
from calib.smooth import (
    deposit,
    eval_points,
    mesh_points,
    reflected_gaussian_smooth,
    smooth_ece,
    smooth_ece_at,
    smooth_reliability,
)


def case(name, temperature, mask):
    data = load(name)
    conf, correct = top_label(data.logits[mask], data.labels[mask], temperature)
    return conf, correct.astype(float)


def fitted(name):
    data = load(name)
    cal = data.is_calibration
    return fit_temperature(data.logits[cal], data.labels[cal])


CASES = [("sim-600", lambda: 1.0), ("overconfident", lambda: 1.0), ("overconfident", lambda: fitted("overconfident"))]


@pytest.mark.parametrize("name,temperature", CASES, ids=["sim-600-T1", "overconfident-T1", "overconfident-fitted"])
@pytest.mark.parametrize("part", ["calibration", "test"])
def test_smooth_ece_agrees_with_relplot(name, temperature, part):
    data = load(name)
    mask = data.is_calibration if part == "calibration" else ~data.is_calibration
    f, y = case(name, temperature(), mask)
    reference, width = relplot.smECE(f, y, return_width=True)
    ours = smooth_ece(f, y)
    assert abs(ours.value[0] - reference) < 2e-3  # the brief's tolerance; measured ≈ 1e-16
    assert ours.sigma[0] == pytest.approx(width, abs=1e-12)


def test_batched_rows_equal_one_call_per_row():
    data = load("overconfident")
    temps = np.geomspace(0.05, 10, 12)
    conf, correct = top_label(data.logits[:800], data.labels[:800], temps)
    batch = smooth_ece(conf, correct.astype(float))
    for g in range(temps.size):
        single = smooth_ece(conf[g], correct.astype(float))
        assert batch.value[g] == pytest.approx(single.value[0], abs=1e-12)
        assert batch.sigma[g] == single.sigma[0]
        assert batch.value[g] == pytest.approx(relplot.smECE(conf[g], correct.astype(float)), abs=1e-9)


@pytest.mark.parametrize("sigma", [0.5, 0.1, 0.049, 0.02, 0.008, 0.003])
def test_fixed_bandwidth_agrees_with_relplot(sigma):
    # below 0.05 the evaluation mesh grows, below 0.01 the convolution mesh grows too
    f, y = case("sim-600", 1.0, slice(None))
    assert smooth_ece_at(f, y, sigma)[0] == pytest.approx(relplot.smECE_sigma(f, y, sigma), abs=1e-12)


def test_fft_convolution_equals_relplot_direct_convolution():
    rng = np.random.default_rng(0)
    f = rng.random(500)
    w = rng.random(500) - 0.3
    for sigma in (0.3, 0.05, 0.012):
        m = mesh_points(sigma)
        values = smooth_round_to_grid(f, w, eval_points=m)
        np.testing.assert_allclose(deposit(f[None], w[None], m)[0], values, atol=1e-12)
        direct = ReflectedGaussianKernel(sigma).convolve(values, m)
        ours = reflected_gaussian_smooth(values[None], np.array([sigma]))[0]
        np.testing.assert_allclose(ours, direct, rtol=1e-9, atol=1e-9 * np.abs(direct).max())


def test_bandwidth_is_a_fixed_point():
    f, y = case("overconfident", 1.0, slice(None))
    result = smooth_ece(f, y)
    sigma = result.sigma[0]
    assert result.value[0] <= sigma  # σ* ≥ smECE(σ*) ...
    assert smooth_ece_at(f, y, sigma - 2.0 ** -10)[0] > sigma - 2.0 ** -10  # ... and one step lower it flips


def test_curve_distance_to_diagonal_is_the_smooth_ece():
    """Σ |curve − t| · density / Σ density on the evaluation mesh reproduces the metric."""
    f, y = case("overconfident", 2.0, slice(None))
    result = smooth_ece(f, y)
    sigma = result.sigma[0]
    mesh = np.linspace(0.0, 1.0, eval_points(sigma))
    curve = smooth_reliability(f, y, result.sigma, mesh)
    weighted = np.sum(np.abs(curve.accuracy[0] - mesh) * curve.density[0]) / np.sum(curve.density[0])
    assert weighted == pytest.approx(result.value[0], abs=1e-12)
    assert curve.density.max() == pytest.approx(1.0)


def test_calibrated_sample_scores_low_and_overconfident_high():
    rng = np.random.default_rng(4)
    f = 0.5 + 0.5 * rng.random(20000)
    calibrated = smooth_ece(f, (rng.random(f.size) < f).astype(float)).value[0]
    shifted = smooth_ece(f, (rng.random(f.size) < f - 0.2).astype(float)).value[0]
    assert calibrated < 0.02
    assert 0.15 < shifted < 0.25


def test_rejects_bad_input():
    with pytest.raises(ValueError, match="f values"):
        smooth_ece([0.2, 1.2], [0, 1])
    with pytest.raises(ValueError, match="sigma"):
        smooth_ece_at([0.2, 0.4], [0, 1], 0.0)
    with pytest.raises(ValueError, match="mesh"):
        smooth_reliability([0.2, 0.4], [0, 1], 0.1, [0.5])


def test_engine_does_not_import_relplot_or_scipy():
    code = ("import sys; import calib, calib.smooth, sitegen.analyses.uncertainty, sitegen.render.analysis_payload; "
            "print(sorted(m for m in ('relplot', 'scipy', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    assert out.stdout.strip() == "[]"
