"""Tests of the calibrators' shared interface, temperature scaling and ensemble temperature scaling.

Oracles are independent of the engine: scipy.special.log_softmax, and SciPy's SLSQP on the simplex with
the mixture loss written out here (the engine uses L-BFGS-B over unnormalised weights).
"""

import numpy as np
import pytest
import scipy.optimize
import scipy.special

import calib
from calib import (
    DirichletCalibration,
    EnsembleTemperatureScaling,
    HistogramBinning,
    IsotonicCalibration,
    MatrixScaling,
    ScalingBinning,
    TemperatureScaling,
    VectorScaling,
    fit_temperature,
)
from calib.calibrators import mean_nll, renormalise

ALL = (TemperatureScaling, VectorScaling, MatrixScaling, DirichletCalibration, HistogramBinning,
       IsotonicCalibration, ScalingBinning, EnsembleTemperatureScaling)
NLL_TOLERANCE = 1e-6  # nats: engine and oracle optima agree in mean NLL to this


def random_problem(seed, n=300, k=4):
    """Logits z and labels drawn from softmax(z / s) for a random s: a miscalibrated classifier."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * rng.uniform(1.0, 4.0)
    p = scipy.special.softmax(z / rng.uniform(0.4, 2.5), axis=1)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1).clip(0, k - 1)
    return z, y


def oracle_nll(probs, y):
    return float(-np.log(probs[np.arange(len(y)), y]).mean())


def fast(cls):
    """A calibrator of ``cls`` with a one-strength grid where it has one (keeps the interface tests fast)."""
    return cls(strengths=(1.0,)) if cls in (MatrixScaling, DirichletCalibration) else cls()


# --- the shared interface -------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", ALL)
def test_fit_returns_self_and_rows_are_probabilities(cls):
    z, y = random_problem(1)
    model = fast(cls)
    assert model.fit(z, y) is model
    probs = model.predict_proba(random_problem(2)[0])
    assert probs.shape == (300, 4)
    assert np.all(probs >= 0) and np.all(probs <= 1)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("cls", ALL)
def test_two_fits_give_identical_attributes(cls):
    z, y = random_problem(3)
    first, second = fast(cls).fit(z, y), fast(cls).fit(z.copy(), y.copy())
    fitted = [name for name in vars(first) if name.endswith("_") and not name.startswith("_")]
    assert fitted, "a fitted attribute ends in an underscore"
    for name in fitted:
        a, b = getattr(first, name), getattr(second, name)
        if isinstance(a, tuple):
            for x, w in zip(a, b):
                np.testing.assert_array_equal(x, w)
        else:
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(first.predict_proba(z), second.predict_proba(z))


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize("logits, labels, match", [
    ([[1.0, 2.0], [0.5, np.nan]], [0, 1], "logits"),
    ([1.0, 2.0, 3.0], [0, 1, 1], "logits"),
    ([[1.0, 2.0], [0.5, 0.1]], [0, 2], "labels"),
    ([[1.0, 2.0], [0.5, 0.1]], [0], "labels"),
    ([[1.0, 2.0], [0.5, 0.1]], [0, 0.5], "labels"),
])
def test_bad_input_is_refused_naming_the_argument(cls, logits, labels, match):
    with pytest.raises(ValueError, match=f"^{match}"):
        fast(cls).fit(logits, labels)


@pytest.mark.parametrize("cls", ALL)
def test_predicting_before_fit_or_with_other_classes_is_refused(cls):
    z, y = random_problem(4)
    with pytest.raises(ValueError, match="not fitted"):
        fast(cls).predict_proba(z)
    with pytest.raises(ValueError, match="^logits must have 4 columns"):
        fast(cls).fit(z, y).predict_proba(z[:, :3])


@pytest.mark.parametrize("make, match", [
    (lambda: MatrixScaling(strengths=()), "^strengths"),
    (lambda: MatrixScaling(strengths=(-1.0,)), "^strengths"),
    (lambda: DirichletCalibration(n_folds=1), "^n_folds"),
    (lambda: HistogramBinning(n_bins=0), "^n_bins"),
    (lambda: HistogramBinning(scheme="quantile"), "^scheme"),
    (lambda: ScalingBinning(bounds=(2.0, 1.0)), "^bounds"),
    (lambda: TemperatureScaling(tolerance=0.0), "^tolerance"),
    (lambda: EnsembleTemperatureScaling(bounds=(0.0, 3.0)), "^bounds"),
])
def test_bad_parameters_are_refused_naming_them(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_every_calibrator_is_exported_under_its_name():
    for cls in ALL:
        assert getattr(calib, cls.__name__) is cls and cls.__name__ in calib.__all__


def test_renormalise_divides_rows_and_makes_zero_rows_uniform():
    out = renormalise(np.array([[2.0, 2.0, 4.0], [0.0, 0.0, 0.0], [0.0, 3.0, 0.0]]))
    np.testing.assert_array_equal(out, [[0.25, 0.25, 0.5], [1 / 3, 1 / 3, 1 / 3], [0.0, 1.0, 0.0]])


def test_mean_nll_matches_scipy():
    z, y = random_problem(5)
    probs = scipy.special.softmax(z, axis=1)
    assert mean_nll(probs, y) == pytest.approx(oracle_nll(probs, y), abs=1e-12)


# --- temperature scaling ------------------------------------------------------------------------------------

def test_temperature_scaling_is_fit_temperature_behind_the_interface():
    z, y = random_problem(6)
    model = TemperatureScaling().fit(z, y)
    assert model.temperature_ == pytest.approx(fit_temperature(z, y), abs=1e-7)
    np.testing.assert_allclose(model.predict_proba(z), scipy.special.softmax(z / model.temperature_, axis=1),
                               atol=1e-12)


def test_temperature_scaling_minimises_the_nll_to_the_oracle():
    z, y = random_problem(7)
    model = TemperatureScaling().fit(z, y)
    oracle = scipy.optimize.minimize_scalar(lambda t: oracle_nll(scipy.special.softmax(z / t, axis=1), y),
                                            bounds=(0.05, 10.0), method="bounded", options={"xatol": 1e-10})
    assert oracle_nll(model.predict_proba(z), y) == pytest.approx(oracle.fun, abs=NLL_TOLERANCE)


def test_temperature_scaling_keeps_every_argmax():
    z, y = random_problem(8)
    z[0] = [1.0, 1.0, 0.0, 0.0]  # a tie: the first index wins before and after
    probs = TemperatureScaling().fit(z, y).predict_proba(z)
    np.testing.assert_array_equal(np.argmax(probs, axis=1), np.argmax(z, axis=1))


# --- ensemble temperature scaling --------------------------------------------------------------------------

def ets_oracle(z, y, t):
    """Weights on the simplex minimising the mixture NLL, by SLSQP with the loss written out here."""
    k = z.shape[1]
    rows = np.arange(len(y))
    parts = np.stack([scipy.special.softmax(z / t, axis=1)[rows, y], scipy.special.softmax(z, axis=1)[rows, y],
                      np.full(len(y), 1.0 / k)], axis=1)
    result = scipy.optimize.minimize(lambda w: -np.mean(np.log(parts @ w)), np.full(3, 1 / 3), method="SLSQP",
                                     bounds=[(0, 1)] * 3, constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1}],
                                     options={"ftol": 1e-14, "maxiter": 1000})
    return result.fun


@pytest.mark.parametrize("seed", [9, 10, 11])
def test_ensemble_weights_minimise_the_nll_on_the_simplex(seed):
    z, y = random_problem(seed)
    model = EnsembleTemperatureScaling().fit(z, y)
    assert model.temperature_ == pytest.approx(fit_temperature(z, y), abs=1e-7)
    assert np.all(model.weights_ >= 0) and model.weights_.sum() == pytest.approx(1.0, abs=1e-12)
    assert oracle_nll(model.predict_proba(z), y) == pytest.approx(ets_oracle(z, y, model.temperature_),
                                                                  abs=NLL_TOLERANCE)


def test_ensemble_uses_the_uniform_part_when_labels_are_noise():
    """Labels unrelated to the logits: the best mixture leans on the uniform distribution."""
    rng = np.random.default_rng(12)
    z = rng.normal(size=(400, 3)) * 3.0
    y = rng.integers(0, 3, size=400)
    model = EnsembleTemperatureScaling().fit(z, y)
    assert model.weights_[2] > 0.5
    assert oracle_nll(model.predict_proba(z), y) == pytest.approx(ets_oracle(z, y, model.temperature_),
                                                                  abs=NLL_TOLERANCE)


def test_a_given_temperature_replaces_the_identical_search():
    """Scaling-binning and ensemble temperature scaling given temperature scaling's T (as calib.compare does)
    predict exactly what their own search gives; a bad temperature is refused."""
    z, y = random_problem(13)
    t = TemperatureScaling().fit(z, y).temperature_
    for cls in (ScalingBinning, EnsembleTemperatureScaling):
        own, given = cls().fit(z, y), cls(temperature=t).fit(z, y)
        assert own.temperature_ == given.temperature_ == t
        assert np.array_equal(own.predict_proba(z), given.predict_proba(z))
        for bad in (0.0, -1.0, np.inf, True):
            with pytest.raises(ValueError, match="^temperature"):
                cls(temperature=bad)


@pytest.mark.parametrize("name", sorted({**calib.CALIBRATORS, **calib.BINARY_CALIBRATORS}))
def test_every_calibrator_maps_rows_in_blocks_exactly_as_in_one_call(name, monkeypatch):
    """predict_proba and the binned fits work on blocks of rows (calib.calibrators.in_row_blocks, to bound a large
    model's temporaries): with blocks of 64 rows, every fitted parameter and probability is bit for bit what one
    whole call gives (each row is mapped on its own; BLAS groups rows from the block's first one)."""
    import functools

    import calib.binned
    import calib.calibrators

    rng = np.random.default_rng(5)
    k = 2 if name in calib.BINARY_CALIBRATORS else 7
    z = rng.normal(0.0, 2.0, (1_000, k))
    y = (z + rng.gumbel(size=z.shape)).argmax(axis=1)
    whole = calib.CALIBRATORS.get(name, calib.BINARY_CALIBRATORS.get(name))().fit(z, y)
    small = functools.partial(calib.calibrators.in_row_blocks, block_values=64 * k)  # 16 blocks, the last short
    monkeypatch.setattr(calib.calibrators, "in_row_blocks", small)
    monkeypatch.setattr(calib.binned, "in_row_blocks", small)
    blocked = type(whole)().fit(z, y)
    for attribute, value in vars(whole).items():
        got = vars(blocked)[attribute]
        if isinstance(value, tuple):
            assert all(np.array_equal(a, b) for a, b in zip(value, got)), attribute
        else:
            assert np.array_equal(np.asarray(value), np.asarray(got)), attribute
    assert np.array_equal(blocked.predict_proba(z), whole.predict_proba(z))
    assert np.array_equal(calib.calibrators.in_row_blocks(whole._predict, z, block_values=64 * k), whole._predict(z))
