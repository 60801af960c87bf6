"""Vector, matrix and Dirichlet scaling against SciPy L-BFGS-B on the loss written out here from the papers.

The oracle's loss is Guo et al.'s NLL of softmax(W x + b) plus Kull et al.'s ODIR penalty
λ(Σ_{j≠k} W_jk² / (K(K−1)) + Σ_k b_k² / K), coded row-major with scipy.special (the engine works
class-major with its own log-softmax), and the oracle starts from W = 0, b = 0 (the engine from the
identity map).
"""

import numpy as np
import pytest
import scipy.optimize
import scipy.special
import threadpoolctl

from calib import DirichletCalibration, MatrixScaling, VectorScaling, load
from calib.matrix import DEFAULT_FOLDS, DEFAULT_STRENGTHS, stratified_folds

NLL_TOLERANCE = 1e-6  # nats


def random_problem(seed, n=300, k=4):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, k)) * rng.uniform(1.0, 4.0)
    z[:, 0] += 1.0  # one class favoured: the intercepts have something to do
    p = scipy.special.softmax(z / rng.uniform(0.4, 2.5), axis=1)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1).clip(0, k - 1)
    return z, y


def odir_objective(theta, x, y, full, lam):
    """Mean NLL of softmax(x Wᵀ + b) plus the ODIR penalty, and its gradient; θ = (W or diag W, b)."""
    n, k = x.shape
    w = theta[:k * k].reshape(k, k) if full else np.diag(theta[:k])
    b = theta[-k:]
    s = x @ w.T + b
    logp = scipy.special.log_softmax(s, axis=1)
    onehot = np.eye(k)[y]
    off_mask = ~np.eye(k, dtype=bool)
    value = -np.sum(logp * onehot) / n + lam * (np.sum(w[off_mask] ** 2) / (k * (k - 1)) + np.sum(b ** 2) / k)
    g = (np.exp(logp) - onehot) / n
    grad_w = np.einsum("ni,nj->ij", g, x) + lam * 2 * np.where(off_mask, w, 0.0) / (k * (k - 1))
    grad_b = g.sum(axis=0) + lam * 2 * b / k
    return value, np.concatenate([grad_w.ravel() if full else np.diag(grad_w), grad_b])


def oracle_fit(x, y, full, lam):
    """(objective at the optimum, θ) by SciPy L-BFGS-B from zero."""
    k = x.shape[1]
    size = k * k + k if full else 2 * k
    with threadpoolctl.threadpool_limits(1, user_api="blas"):  # tiny BLAS calls: threads only wait on a busy box
        result = scipy.optimize.minimize(odir_objective, np.zeros(size), args=(x, y, full, lam), jac=True,
                                         method="L-BFGS-B", options={"gtol": 1e-11, "ftol": 1e-15, "maxiter": 20000})
    return result.fun, result.x


def mean_nll(x, y, theta, full):
    k = x.shape[1]
    w = theta[:k * k].reshape(k, k) if full else np.diag(theta[:k])
    logp = scipy.special.log_softmax(x @ w.T + theta[-k:], axis=1)
    return float(-logp[np.arange(len(y)), y].mean())


def engine_theta(model):
    return np.concatenate([np.ravel(model.weights_), model.bias_])


def features(cls, z):
    return scipy.special.log_softmax(z, axis=1) if cls is DirichletCalibration else z


@pytest.mark.parametrize("cls", [MatrixScaling, DirichletCalibration])
@pytest.mark.parametrize("lam", [0.01, 1.0, 100.0])
def test_odir_fit_reaches_the_oracle_optimum(cls, lam):
    z, y = random_problem(21)
    model = cls(strengths=(lam,)).fit(z, y)
    assert model.strength_ == lam and model.cv_scores_ is None
    x = features(cls, z)
    best, theta = oracle_fit(x, y, True, lam)
    assert odir_objective(engine_theta(model), x, y, True, lam)[0] == pytest.approx(best, abs=NLL_TOLERANCE)
    assert mean_nll(x, y, engine_theta(model), True) == pytest.approx(mean_nll(x, y, theta, True),
                                                                      abs=NLL_TOLERANCE)
    probs = model.predict_proba(z)
    np.testing.assert_allclose(probs, scipy.special.softmax(x @ model.weights_.T + model.bias_, axis=1), atol=1e-12)


@pytest.mark.parametrize("seed", [22, 23])
def test_vector_scaling_reaches_the_unregularised_oracle(seed):
    z, y = random_problem(seed)
    model = VectorScaling().fit(z, y)
    assert model.weights_.shape == (4,) and model.bias_.sum() == pytest.approx(0.0, abs=1e-12)
    best, _ = oracle_fit(z, y, False, 0.0)
    assert mean_nll(z, y, np.concatenate([np.diag(model.weights_).ravel(), model.bias_]), True) == \
        pytest.approx(best, abs=NLL_TOLERANCE)


def test_matrix_scaling_on_the_overconfident_set_reaches_the_oracle():
    data = load("overconfident")
    z, y = data.logits[data.is_calibration][:1000], data.labels[data.is_calibration][:1000]
    model = MatrixScaling(strengths=(0.1,)).fit(z, y)
    best, _ = oracle_fit(z, y, True, 0.1)
    assert odir_objective(engine_theta(model), z, y, True, 0.1)[0] == pytest.approx(best, abs=NLL_TOLERANCE)


def oracle_folds(y, n_folds):
    """Within each class, its rows in order go to folds 0, 1, 2, …: written as a loop."""
    folds = np.empty(len(y), dtype=int)
    seen = {}
    for i, label in enumerate(y):
        folds[i] = seen.get(label, 0) % n_folds
        seen[label] = seen.get(label, 0) + 1
    return folds


def test_stratified_folds_match_a_loop_and_balance_each_class():
    y = np.random.default_rng(24).integers(0, 5, size=503)
    folds = stratified_folds(y, DEFAULT_FOLDS)
    np.testing.assert_array_equal(folds, oracle_folds(y, DEFAULT_FOLDS))
    for label in range(5):
        sizes = np.bincount(folds[y == label], minlength=DEFAULT_FOLDS)
        assert sizes.max() - sizes.min() <= 1


@pytest.mark.parametrize("cls", [MatrixScaling, DirichletCalibration])
def test_cross_validation_scores_match_oracle_fits_on_the_same_folds(cls):
    z, y = random_problem(25, n=150, k=3)
    strengths = (0.01, 100.0)
    model = cls(strengths=strengths, n_folds=3).fit(z, y)
    x = features(cls, z)
    folds = oracle_folds(y, 3)
    expected = []
    for lam in strengths:
        held_out = 0.0
        for fold in range(3):
            _, theta = oracle_fit(x[folds != fold], y[folds != fold], True, lam)
            held_out += mean_nll(x[folds == fold], y[folds == fold], theta, True) * np.sum(folds == fold)
        expected.append(held_out / len(y))
    np.testing.assert_allclose(model.cv_scores_, expected, atol=1e-5)
    assert model.strength_ == strengths[int(np.argmin(expected))]
    best, _ = oracle_fit(x, y, True, model.strength_)
    assert odir_objective(engine_theta(model), x, y, True, model.strength_)[0] == pytest.approx(best, abs=1e-6)


def test_default_grid_is_stated_and_increasing():
    assert DEFAULT_STRENGTHS == tuple(sorted(DEFAULT_STRENGTHS)) and len(DEFAULT_STRENGTHS) >= 3
    assert MatrixScaling().strengths == DEFAULT_STRENGTHS and DirichletCalibration().n_folds == DEFAULT_FOLDS


def test_too_few_rows_for_the_folds_is_refused_and_leaves_no_fit():
    model = MatrixScaling(strengths=(1.0, 10.0)).fit(*random_problem(27))
    with pytest.raises(ValueError, match="^labels: cross-validation needs"):
        model.fit([[1.0, 0.0], [0.0, 1.0], [2.0, 0.0]], [0, 1, 0])
    with pytest.raises(ValueError, match="not fitted"):
        model.predict_proba([[1.0, 0.0]])


def test_dirichlet_differs_from_matrix_scaling():
    """The log-probabilities shift each row by its own log-sum-exp, so the two fits are different maps."""
    z, y = random_problem(26)
    a = MatrixScaling(strengths=(1.0,)).fit(z, y).predict_proba(z)
    b = DirichletCalibration(strengths=(1.0,)).fit(z, y).predict_proba(z)
    assert np.abs(a - b).max() > 1e-4


def test_above_cv_max_rows_the_strength_is_cross_validated_on_a_stratified_share(monkeypatch):
    """Many calibration rows: λ is chosen on CV_MAX_ROWS of them (each class keeping its share), then the fit on
    every row starts from that choice and reaches the same minimum as a fit from the identity."""
    import calib.matrix as matrix
    monkeypatch.setattr(matrix, "CV_MAX_ROWS", 300)
    rng = np.random.default_rng(11)
    n, k = 1200, 3
    y = rng.choice(k, n, p=[0.6, 0.3, 0.1])
    z = rng.normal(size=(n, k)) * 2
    z[np.arange(n), y] += 1.5
    rows = matrix.cv_rows(y, 300)
    assert rows.size == 300 and np.all(np.abs(np.bincount(y[rows], minlength=k) - 300 * np.bincount(y) / n) <= 1)
    for cls in (matrix.MatrixScaling, matrix.DirichletCalibration):
        fitted = cls().fit(z, y)
        scores, _ = cls()._cross_validate(cls._features(z)[rows], y[rows])
        assert fitted.strength_ == cls().strengths[int(np.argmin(scores))]
        weights, bias = matrix.fit_affine(cls._features(z), y, True, fitted.strength_)
        reference = np.exp(matrix.log_softmax_rows(cls._features(z) @ weights.T + bias))
        np.testing.assert_allclose(fitted.predict_proba(z), reference, atol=1e-6)
