"""Binary models: Platt scaling against scikit-learn's ``CalibratedClassifierCV(method="sigmoid")`` on the same rows,
and the temperature of a binary model against scikit-learn's ``method="temperature"`` and a plain SciPy fit.

The references are scikit-learn (a frozen classifier whose ``decision_function`` returns the file's scores) and
``scipy.optimize.minimize_scalar`` on the binary NLL written out here; nothing is copied from calib.
"""

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from calib import PlattScaling, TemperatureScaling, load_predictions

sklearn = pytest.importorskip("sklearn")
from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.calibration import CalibratedClassifierCV  # noqa: E402
from sklearn.frozen import FrozenEstimator  # noqa: E402


class Scores(ClassifierMixin, BaseEstimator):
    """A "model" whose decision_function is the first column(s) of X: the scores of a file, as scikit-learn sees
    them."""

    def __init__(self, k=2):
        self.k = k

    def fit(self, X, y):
        self.classes_ = np.arange(self.k)
        return self

    def decision_function(self, X):
        return X[:, 0] if self.k == 2 else X

    def predict(self, X):
        scores = self.decision_function(X)
        return (scores > 0).astype(int) if self.k == 2 else np.argmax(scores, axis=1)


def binary_rows(n=3000, seed=1, slope=0.4, bias=-0.3):
    """Scores x and labels drawn from sigmoid(slope · x + bias): an over-confident, shifted binary model."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n) * 3 + 0.5
    y = (rng.random(n) < scipy.special.expit(slope * x + bias)).astype(int)
    return x, y


def two_logits(x):
    return np.stack([np.zeros_like(x), x], axis=1)


def sklearn_calibrated(x, y, method, k=2):
    X = x[:, None] if x.ndim == 1 else x
    return CalibratedClassifierCV(FrozenEstimator(Scores(k).fit(X, y)), method=method).fit(X, y)


@pytest.mark.parametrize("seed", [1, 2])
def test_platt_scaling_is_scikit_learns_sigmoid_calibration(seed):
    x, y = binary_rows(seed=seed)
    cal, test = slice(0, 2000), slice(2000, None)
    ours = PlattScaling().fit(two_logits(x[cal]), y[cal])
    theirs = sklearn_calibrated(x[cal], y[cal], "sigmoid")
    sigmoid = theirs.calibrated_classifiers_[0].calibrators[0]  # P = 1 / (1 + exp(a·f + b))
    assert ours.slope_[0] == pytest.approx(-sigmoid.a_, rel=1e-5)
    assert ours.bias_[0] == pytest.approx(-sigmoid.b_, rel=1e-5, abs=1e-6)
    np.testing.assert_allclose(ours.predict_proba(two_logits(x[test])), theirs.predict_proba(x[test][:, None]),
                               atol=1e-6)


def test_multiclass_platt_is_one_vs_rest_and_renormalised_as_scikit_learn():
    rng = np.random.default_rng(3)
    n, k = 1500, 4
    y = rng.integers(0, k, n)
    z = rng.normal(size=(n, k))
    z[np.arange(n), y] += 1.5
    z *= 2.5
    ours = PlattScaling().fit(z[:1000], y[:1000])
    theirs = sklearn_calibrated(z[:1000], y[:1000], "sigmoid", k)
    np.testing.assert_allclose(ours.predict_proba(z[1000:]), theirs.predict_proba(z[1000:]), atol=1e-5)


def binary_nll(t, x, y):
    """Mean NLL of labels y under sigmoid(x / t), written out with logaddexp."""
    s = x / t
    return float(np.mean(np.logaddexp(0.0, s) - y * s))


def test_a_binary_models_temperature_divides_its_log_odds_and_is_half_scikit_learns():
    """calib holds one score x as the logits (0, x): softmax gives sigmoid(x / T). scikit-learn's temperature
    scaling of a binary decision_function x uses the logits (−x, x), sigmoid(2x / T'), so T' = 2T."""
    x, y = binary_rows()
    t = TemperatureScaling().fit(two_logits(x), y).temperature_
    best = scipy.optimize.minimize_scalar(binary_nll, bounds=(0.05, 10), args=(x, y), method="bounded",
                                          options={"xatol": 1e-10}).x
    assert t == pytest.approx(best, rel=1e-6)
    theirs = sklearn_calibrated(x, y, "temperature").calibrated_classifiers_[0].calibrators[0]
    assert 1.0 / theirs.beta_ == pytest.approx(2 * t, rel=1e-4)


@pytest.mark.parametrize("form", ["npz-logit", "npz-column", "csv-score", "csv-probability", "csv-text-labels"])
def test_a_single_column_is_a_binary_models_two_logits(tmp_path, form):
    pd = pytest.importorskip("pandas")
    x, y = binary_rows(n=400)
    path = tmp_path / f"m.{form.split('-')[0]}"
    p = scipy.special.expit(x)
    if form == "npz-logit":
        np.savez(path, logits=x, labels=y)
    elif form == "npz-column":
        np.savez(path, logits=x[:, None].astype(np.float32), labels=y)
    elif form == "csv-score":
        pd.DataFrame({"score": x, "label": y}).to_csv(path, index=False)
    elif form == "csv-probability":
        pd.DataFrame({"label": y, "prob_spam": p}).to_csv(path, index=False)
    else:
        pd.DataFrame({"label": np.where(y == 1, "spam", "ham"), "prob_spam": p}).to_csv(path, index=False)
    got = load_predictions(path)
    assert got.binary and got.logits.shape == (400, 2) and got.labels.tolist() == y.tolist()
    # softmax of the two logits is (1 − p, p): the positive class's probability is sigmoid(x)
    np.testing.assert_allclose(scipy.special.softmax(got.logits.astype(np.float64), axis=1)[:, 1], p, rtol=1e-6)
    if form == "csv-text-labels":
        assert got.class_names.tolist() == ["ham", "spam"]


def test_vector_scaling_is_left_out_for_one_score_column_with_its_reason():
    """A binary model's one score is read as the logits (0, x): vector scaling's scale of the zero column has
    nothing to fit, so compare names why it is left out (it is Platt scaling there) instead of calling its fit
    unsettled; two varying logit columns keep it."""
    from calib import CONSTANT_LOGIT, UNSETTLED, compare_calibrators

    rng = np.random.default_rng(5)
    x = rng.normal(size=1600) * 2
    y = (rng.random(1600) < scipy.special.expit(0.6 * x)).astype(int)
    one = np.column_stack([np.zeros_like(x), x])
    result = compare_calibrators(one[:800], y[:800], one[800:], y[800:], n_resamples=20, binary=True)
    assert result.skipped == {"vector": CONSTANT_LOGIT} and "platt" in result.methods
    assert "Platt" in CONSTANT_LOGIT and CONSTANT_LOGIT != UNSETTLED
    two = np.column_stack([-x / 2, x / 2])
    result = compare_calibrators(two[:800], y[:800], two[800:], y[800:], n_resamples=20, binary=True)
    assert "vector" not in result.skipped
